# A Report as SARIF 2.1.0, for GitHub code scanning and every other SARIF consumer.
#
# Contract:
# - `sarif_log(report)` returns the log as plain dicts and lists; `render(report)` is its
#   JSON text. The log validates against the official 2.1.0 schema and follows GitHub
#   code scanning's rules (`$schema`, `version`, rules with both descriptions and help,
#   a physical location with a non-empty URI on every result, at most 25,000 results
#   per run).
# - One SARIF result per report finding, in the report's order (worst first), so when a
#   report needs several runs the first holds the findings GitHub ranks highest.
#   Every run has the same tool; each gets its own `automationDetails.id`
#   `sarp/<n>/`, i.e. GitHub category `sarp/<n>` (GitHub takes everything before the
#   last `/` as the category and rejects two runs of one tool and category in one file).
# - tool.driver is sarp, with one rule per finding type (the type slugged as
#   `sarp.aggregation.entries.type_key` does, so `Edge case` and `edge-case` are one rule)
#   and `untyped-finding` for findings without a type. tool.extensions has one entry per
#   reporting agent, with the ids of the results it reported in (every agent, in every
#   run: GitHub takes at most 100 extensions per run, far more agents than one report has).
# - Levels: critical -> error, major -> warning, minor -> note.
# - Locations: artifactLocation.uri is the path as a URI reference with `/` separators
#   and percent-encoding: a relative path stays relative; an absolute path becomes a
#   `file:///` URI (GitHub turns those into repository paths with the upload's
#   checkout URI; a made-up relative form could never be mapped back). A region is
#   written only for a known line >= 1. A doc section or symbol becomes a logical
#   location beside the physical one.
# - A finding with no file still needs a physical location: the schema would take a
#   location-less result, but GitHub rejects the whole upload over one ("expected at
#   least one location", and a logical location alone fails with "expected artifact
#   location"). So it points at the reply that reported it (the Result id, at the
#   finding's line in the reply), marked `properties["sarp/location"] = "reply"` so
#   readers (sarp's own SARIF input among them) know it is a stand-in.
# - relatedLocations: the finding's counter-location, its further locations, and where
#   the other reporters put it (from `report.source_finding`), each distinct place once,
#   with a message naming the agents (at most RELATED_LIMIT places). `occurrenceCount` is
#   the number of merged reports.
# - partialFingerprints["sarpFinding/v1"] identifies a finding across runs without any
#   line number (SARIF Appendix B): SHA-256 of the normalised path, the rule id, the
#   section and symbol, and the first 32 words of title + description, lower-cased, with
#   numbers and line references (`42`, `L42`, `line42`) dropped; the first 32 hex digits,
#   then `:<n>` counting earlier findings in the log with the same hash (GitHub's own
#   scheme), so two distinct findings never share a value.
# - Agent text goes only into JSON strings (message.text, never message.markdown), and
#   message text is capped at MESSAGE_LIMIT characters (the full description then goes
#   to properties.description).
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Final
from urllib.parse import quote, unquote

import pydantic_core

from sarp.aggregation.entries import type_key
from sarp.aggregation.report import Gap, Report, ReportFinding
from sarp.model import Location, Severity
from sarp.text.jsontext import scrub

__all__ = [
    "FINGERPRINT_KEY",
    "GENERIC_RULE",
    "LEVELS",
    "artifact_uri",
    "fingerprint",
    "render",
    "rule_id",
    "sarif_log",
]

SCHEMA_URI: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
LEVELS: Final = {Severity.CRITICAL: "error", Severity.MAJOR: "warning", Severity.MINOR: "note"}
GENERIC_RULE: Final = "untyped-finding"
FINGERPRINT_KEY: Final = "sarpFinding/v1"
GITHUB_MAX_RESULTS: Final = 25_000
MESSAGE_LIMIT: Final = 4_000
DESCRIPTION_LIMIT: Final = 1_000  # GitHub takes rule descriptions up to 1,024 characters
RELATED_LIMIT: Final = 100
_RULE_ID_LIMIT: Final = 80
_FINGERPRINT_WORDS: Final = 32

# Characters a path keeps unencoded: RFC 3986 unreserved, sub-delims, "@" and "/".
# ":" is encoded in relative paths, where a colon in the first segment would read as a
# URI scheme (`c:x.py`); absolute paths keep it (`file:///C:/x.py`).
_PATH_SAFE: Final = "/!$&'()*+,;=@-._~"
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")
_DRIVE: Final = re.compile(r"/?[A-Za-z]:/")
_WORD: Final = re.compile(r"\w+")
_LINE_WORD: Final = re.compile(r"(?:l|ln|line|lines)?\d+")

_HELP_TEXT: Final = (
    "LLM review agents reported this finding and sarp merged the reports of the same "
    "defect. The alert message is the finding's title and description. Its properties "
    "list every agent that reported it (reported_by, sources), the suggested fix "
    "(suggestion), the combined confidence, and how the severity was decided (notes, "
    "escalations). Related locations show where the other agents placed it.")
_HELP_MARKDOWN: Final = (
    "LLM review agents reported this finding and **sarp** merged the reports of the same "
    "defect.\n\n"
    "- The alert message is the finding's title and description.\n"
    "- `properties.reported_by` and `properties.sources` list every agent and reply that "
    "reported it.\n"
    "- `properties.suggestion` is the suggested fix, `properties.confidence` the combined "
    "confidence (0-100).\n"
    "- `properties.notes` and `properties.escalations` say how the severity was decided.\n"
    "- Related locations show where the other agents placed it.\n")


def render(report: Report) -> str:
    log = sarif_log(report)
    try:
        # pydantic-core writes the indented JSON json.dumps would (floats under 1e-4 are
        # spelled 0.00001, not 1e-05), ten times faster: json.dumps indents in Python
        text = pydantic_core.to_json(log, indent=2)
    except pydantic_core.PydanticSerializationError:
        # a lone surrogate in agent text, which UTF-8 cannot hold, becomes U+FFFD
        text = pydantic_core.to_json(scrub(log), indent=2)
    return text.decode("utf-8") + "\n"


def sarif_log(report: Report, max_results_per_run: int = GITHUB_MAX_RESULTS) -> dict[str, Any]:
    """The SARIF log of `report`: one run per `max_results_per_run` findings (at least
    one run, empty when the report has no findings)."""
    if max_results_per_run < 1:
        raise ValueError("max_results_per_run must be at least 1")
    import sarp  # late: should sarp/__init__ import the renderers, __version__ comes after

    findings = report.findings
    rule_ids = [rule_id(f.type) for f in findings]
    rules = _rules(findings, rule_ids)
    prints = _fingerprints(findings, rule_ids)
    extensions = _extensions(report)
    chunks = [range(start, min(start + max_results_per_run, len(findings)))
              for start in range(0, len(findings), max_results_per_run)] or [range(0)]
    runs = []
    for number, chunk in enumerate(chunks, 1):
        used = sorted({rule_ids[k] for k in chunk})
        index = {rid: n for n, rid in enumerate(used)}
        driver: dict[str, Any] = {
            "name": "sarp", "version": sarp.__version__,
            "semanticVersion": sarp.__version__, "rules": [rules[rid] for rid in used]}
        run: dict[str, Any] = {
            "tool": {"driver": driver, "extensions": extensions},
            "automationDetails": {"id": f"sarp/{number}/"},
            "invocations": [_invocation(report.gaps if number == 1 else [])],
            "results": [_result(report, findings[k], rule_ids[k], index[rule_ids[k]], prints[k])
                        for k in chunk],
            "properties": {
                "part": number, "parts": len(chunks), "verdict": report.verdict.value,
                "decision": report.decision.value, "coverage": report.coverage.percent,
                "stats": report.stats.model_dump(mode="json")},
        }
        runs.append(run)
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": runs}


# -- rules and tool components -----------------------------------------------------------


def rule_id(finding_type: str | None) -> str:
    """The rule a finding type belongs to: its slug, shortened with a hash when long."""
    key = type_key(finding_type.strip()) if finding_type and finding_type.strip() else None
    if not key:
        return GENERIC_RULE
    if len(key) > _RULE_ID_LIMIT:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        key = f"{key[:64].rstrip('-')}-{digest}"
    return key


def _rules(findings: list[ReportFinding], rule_ids: list[str]) -> dict[str, dict[str, Any]]:
    # Built over the whole report, so a rule reads the same in every run of the log.
    spelling: dict[str, str] = {}
    worst: dict[str, Severity] = {}
    for finding, rid in zip(findings, rule_ids, strict=True):
        if finding.type and finding.type.strip():
            spelling.setdefault(rid, finding.type.strip())
        if rid not in worst or finding.severity.rank < worst[rid].rank:
            worst[rid] = finding.severity
    rules: dict[str, dict[str, Any]] = {}
    for rid, severity in worst.items():
        if rid == GENERIC_RULE:
            short, full = ("Finding without a type",
                           "Findings whose reporting agents gave no type or category.")
        else:
            written = spelling.get(rid, rid)
            short = written
            full = f"Findings that review agents reported with the type '{written}'."
        rules[rid] = {
            "id": rid,
            "shortDescription": {"text": _cap(short, DESCRIPTION_LIMIT)},
            "fullDescription": {"text": _cap(full, DESCRIPTION_LIMIT)},
            "defaultConfiguration": {"level": LEVELS[severity]},
            "help": {"text": _HELP_TEXT, "markdown": _HELP_MARKDOWN},
            "properties": {"tags": ["agent-review"]},
        }
    return rules


def _extensions(report: Report) -> list[dict[str, Any]]:
    # The agent of a finding is the finding's, else its result's, else the result id: the
    # names `reported_by` uses (sarp.aggregation.entries.Entry).
    results: dict[str, set[str]] = {}
    for row in report.results:
        results.setdefault(row.agent or row.id, set()).add(row.id)
    for finding in report.findings:
        for source in finding.sources:
            results.setdefault(source.agent, set()).add(source.result)
    return [{"name": agent, "properties": {"results": sorted(ids)}}
            for agent, ids in sorted(results.items())]


def _invocation(gaps: Iterable[Gap]) -> dict[str, Any]:
    # sarp itself ran; agents that did not finish are notifications, not a failed run.
    notes = []
    for gap in gaps:
        who = f"{gap.result} ({gap.agent})" if gap.agent else gap.result
        notes.append({
            "level": "error" if gap.bucket in ("ERROR", "BLOCKED") else "warning",
            "message": {"text": _cap(f"{who} did not finish ({gap.bucket}): {gap.reason}",
                                     MESSAGE_LIMIT)},
            "properties": gap.model_dump(mode="json"),
        })
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return invocation


# -- results -----------------------------------------------------------------------------


def _result(report: Report, finding: ReportFinding, rid: str, index: int,
            print_: str) -> dict[str, Any]:
    text, truncated = _message(finding)
    primary, key = _primary(report, finding)
    result: dict[str, Any] = {
        "ruleId": rid, "ruleIndex": index, "level": LEVELS[finding.severity],
        "message": {"text": text}, "locations": [primary],
    }
    related = _related(report, finding, key)
    if related:
        result["relatedLocations"] = related
    result["occurrenceCount"] = max(1, finding.occurrences)
    result["partialFingerprints"] = {FINGERPRINT_KEY: print_}
    props: dict[str, Any] = {
        "id": finding.id, "reported_by": list(finding.reported_by),
        "sources": [s.model_dump(mode="json") for s in finding.sources],
        "corroborated": finding.corroborated,
    }
    if finding.confidence is not None:
        props["confidence"] = finding.confidence
    if finding.type:
        props["type"] = finding.type
    for name in ("impact", "suggestion"):
        value = getattr(finding, name)
        if value:
            props[name] = value
    if truncated and finding.description:
        props["description"] = finding.description
    if finding.counter_location is not None:
        props["counter_location"] = finding.counter_location.raw
    if finding.location is not None and finding.location.raw:
        props["location"] = finding.location.raw
    props["notes"] = list(finding.notes)
    props["escalations"] = [e.model_dump(mode="json") for e in finding.escalations]
    result["properties"] = props
    return result


def _message(finding: ReportFinding) -> tuple[str, bool]:
    """Title and description, so GitHub's first-sentence headline is the title."""
    title = (finding.title or "").strip()
    description = (finding.description or "").strip()
    if title and description and not description.startswith(title):
        text = f"{title}{'' if title[-1] in '.!?:' else '.'} {description}"
    else:
        text = description or title
    if not text:
        text = f"{finding.type.strip()} finding" if finding.type and finding.type.strip() \
            else "Finding reported without a description"
    capped = _cap(text, MESSAGE_LIMIT)
    return capped, capped != text


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# -- locations ---------------------------------------------------------------------------

_Key = tuple[str, int | None, int | None]


@lru_cache(maxsize=4096)  # a report names few files, many times
def artifact_uri(path: str) -> str | None:
    """`path` as a URI reference (see the header); None when nothing is left of it."""
    text = path.strip().replace("\\", "/")
    if not text:
        return None
    if _SCHEME.match(text) and not text.lower().startswith("file:"):
        return quote(text, safe=_PATH_SAFE + ":%?#[]")  # already a URI: fix only bad chars
    if text.lower().startswith("file://"):
        text = text[7:]
        if text.startswith("localhost/"):
            text = text[9:]
        text = unquote(text)  # encoded again below, once
    if text.startswith("/") or _DRIVE.match(text):
        return "file:///" + quote(text.lstrip("/"), safe=_PATH_SAFE + ":")
    while "//" in text:
        text = text.replace("//", "/")
    while text.startswith("./"):
        text = text[2:]
    return quote(text, safe=_PATH_SAFE) or None


_MAX_LINE = 2**31 - 1


def _physical(path: str | None, line: int | None, end: int | None) -> tuple[dict[str, Any],
                                                                             _Key] | None:
    uri = artifact_uri(path) if path else None
    if uri is None:
        return None
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    # a line an agent made up (0, negative, 10**30) is no place: SARIF consumers store
    # lines as 32-bit integers
    start = line if isinstance(line, int) and 1 <= line <= _MAX_LINE else None
    stop = end if start is not None and isinstance(end, int) and start <= end <= _MAX_LINE \
        else None
    if start is not None:
        region = {"startLine": start}
        if stop is not None and stop != start:
            region["endLine"] = stop
        physical["region"] = region
    return physical, (uri, start, stop if stop != start else None)


def _logical(loc: Location | None) -> list[dict[str, Any]]:
    if loc is None:
        return []
    logical: list[dict[str, Any]] = []
    if loc.section and loc.section.strip():
        section = loc.section.strip()
        # `Errors > Retries` or `§ 4.2`: the last part names it, the whole path qualifies it
        name = section.replace("§", "").split(">")[-1].strip() or section
        logical.append({"name": name, "fullyQualifiedName": section, "kind": "section"})
    if loc.symbol and loc.symbol.strip():
        logical.append({"name": loc.symbol.strip(), "kind": "function"})
    return logical


def _primary(report: Report, finding: ReportFinding) -> tuple[dict[str, Any], _Key | None]:
    loc = finding.location
    placed = _physical(loc.path, loc.line, loc.end_line) if loc is not None else None
    location: dict[str, Any]
    if placed is not None:
        location = {"physicalLocation": placed[0]}
        key: _Key | None = placed[1]
    else:
        location = _stand_in(report, finding)
        key = None
    logical = _logical(loc)
    if logical:
        location["logicalLocations"] = logical
    return location, key


def _stand_in(report: Report, finding: ReportFinding) -> dict[str, Any]:
    """The reply that reported a finding with no file (see the header)."""
    for source in finding.sources:
        original = report.source_finding(source)
        placed = _physical(source.result, original.line if original else None, None)
        if placed is not None:
            who = "it was reported" if source.agent == source.result else \
                f"{source.agent} reported it"
            return {
                "physicalLocation": placed[0],
                "message": {"text": _cap(f"No file was named; this is where {who}"
                                         f" ({source.result}, {source.id}).", MESSAGE_LIMIT)},
                "properties": {"sarp/location": "reply"},
            }
    return {"physicalLocation": {"artifactLocation": {"uri": "sarp-report"}},
            "message": {"text": "No file was named for this finding."},
            "properties": {"sarp/location": "reply"}}


def _related(report: Report, finding: ReportFinding, primary: _Key | None) -> list[dict[str,
                                                                                       Any]]:
    candidates: list[tuple[Location, str]] = []
    if finding.counter_location is not None:
        candidates.append((finding.counter_location, "counter-location"))
    if finding.location is not None:
        candidates.extend((extra, "also named by the finding") for extra in finding.location.extra)
    for source in finding.sources:
        original = report.source_finding(source)
        if original is not None and original.location is not None:
            candidates.append((original.location, f"reported here by {source.agent}"
                                                  f" ({source.result}, {source.id})"))
    places: dict[_Key, tuple[dict[str, Any], list[str]]] = {}
    for loc, what in candidates:
        placed = _physical(loc.path, loc.line, loc.end_line)
        if placed is None or placed[1] == primary:
            continue
        physical, key = placed
        said = places.setdefault(key, (physical, []))[1]
        if what not in said:
            said.append(what)
    return [{"id": number, "physicalLocation": physical,
             "message": {"text": _cap("; ".join(said), MESSAGE_LIMIT)}}
            for number, (physical, said) in enumerate(list(places.values())[:RELATED_LIMIT], 1)]


# -- fingerprints ------------------------------------------------------------------------


def fingerprint(finding: ReportFinding, rid: str | None = None) -> str:
    """The line-independent hash of a finding (see the header), without the `:<n>`."""
    loc = finding.location
    path = ""
    if loc is not None and loc.path:
        path = loc.path.strip().replace("\\", "/")
        while path.startswith("./"):
            path = path[2:]
    section = " ".join(loc.section.lower().split()) if loc is not None and loc.section else ""
    symbol = loc.symbol.strip() if loc is not None and loc.symbol else ""
    words = [w for w in _WORD.findall(f"{finding.title or ''} {finding.description or ''}"
                                      .lower()) if not _LINE_WORD.fullmatch(w)]
    data = "\x1f".join(("v1", path, rid if rid is not None else rule_id(finding.type),
                        section, symbol, " ".join(words[:_FINGERPRINT_WORDS])))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _fingerprints(findings: list[ReportFinding], rule_ids: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for finding, rid in zip(findings, rule_ids, strict=True):
        digest = fingerprint(finding, rid)
        seen[digest] = seen.get(digest, 0) + 1
        out.append(f"{digest}:{seen[digest]}")
    return out
