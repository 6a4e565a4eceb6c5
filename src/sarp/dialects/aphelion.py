# Aphelion AGENT_RESULT blocks (seed 003, research notes §4).
#
# Grammar (one block, NEXT last):
#   AGENT_RESULT: <agent>
#   STATUS: success|error|failure|suspended|blocked|approved|conditional|rejected
#   KEY: scalar          KEY:\n  - item           KEY:\n  - NAME: value
#   KEY: |\n  block scalar
#   NEXT: <agent>|done|suspended
# NEXT is the required closing line: a block without it was cut off.
#
# Findings come from the item lists (`CRITICAL_ITEMS`, `WARNING_ITEMS`, `FAILED_TESTS`,
# `INCONSISTENCY_ITEMS`, ...) and from finding prose before the block; one finding named
# in both (same id or location) is one finding. An item the prose only expands by its id
# (`- W3: what was run and seen`, `**W3 - title.** text`) takes that text as its detail.
# The block's counts are checked against what was found; STATUS/count pairings
# (reviewer, tester, doc-reviewer) are checked.
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Final

from sarp.dialects import common
from sarp.dialects.base import Builder, Matcher, RawFinding
from sarp.dialects.prose import read_prose_findings
from sarp.dialects.rendering import (
    NOT_GIVEN,
    prose_line,
    prose_lines,
    status_word,
    stop_reason,
)
from sarp.model import Finding, Location, Result, Severity, Status
from sarp.text.inline import list_item, strip_emphasis, strip_markup
from sarp.text.lines import FENCED, MARKER, PLAIN, Document
from sarp.text.locations import parse_location
from sarp.text.tables import find_tables
from sarp.text.write import inline, location_text
from sarp.vocab import STATUS, normalise_word

__all__ = ["APHELION", "AphelionDialect"]

SEVERITIES: Final = {"CRITICAL": Severity.CRITICAL, "WARNING": Severity.MAJOR,
                     "INCONSISTENCY": Severity.MAJOR, "SUGGESTION": Severity.MINOR,
                     "ADVISORY": Severity.MINOR, "INFO": Severity.MINOR}
# item list key -> (severity word, default severity, finding type)
ITEM_LISTS: Final[dict[str, tuple[str | None, Severity, str | None]]] = {
    "CRITICAL_ITEMS": ("CRITICAL", Severity.CRITICAL, None),
    "WARNING_ITEMS": ("WARNING", Severity.MAJOR, None),
    "SUGGESTION_ITEMS": ("SUGGESTION", Severity.MINOR, None),
    "ADVISORY_ITEMS": ("ADVISORY", Severity.MINOR, None),
    "INFO_ITEMS": ("INFO", Severity.MINOR, None),
    "INCONSISTENCY_ITEMS": ("INCONSISTENCY", Severity.MAJOR, None),
    "FAILED_TESTS": (None, Severity.MAJOR, "failed-test"),
    "FAILED_CONDITIONS": (None, Severity.MAJOR, "failed-criterion"),
}
@dataclass(frozen=True)
class AgentSpec:
    """One Aphelion agent's block (research notes §4.4): its statuses, its NEXT
    values, the keys it must write and the keys it may write, in block order."""

    statuses: tuple[str, ...]
    next: tuple[str, ...]
    required: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()


AGENTS: Final[dict[str, AgentSpec]] = {
    "developer": AgentSpec(("success", "error", "suspended", "blocked"),
                           ("test-designer", "suspended"), ("BRANCH", "PR_URL"),
                           ("PHASE", "TASKS_COMPLETED", "LAST_COMMIT", "LINT_CHECK",
                            "FILES_CHANGED", "ACCEPTANCE_CHECK", "FAILED_CONDITIONS")),
    "reviewer": AgentSpec(("approved", "conditional", "rejected"), ("done", "developer"), (),
                          ("CRITICAL_COUNT", "WARNING_COUNT", "SUGGESTION_COUNT",
                           "CRITICAL_ITEMS", "WARNING_ITEMS", "SUGGESTION_ITEMS")),
    "tester": AgentSpec(("success", "failure"), ("reviewer", "test-designer"), (),
                        ("TOTAL", "PASSED", "FAILED", "SKIPPED", "FAILED_TESTS")),
    "security-auditor": AgentSpec(("success", "error"), ("done", "developer"),
                                  ("ARTIFACT_PATHS",),
                                  ("CRITICAL_COUNT", "WARNING_COUNT", "INFO_COUNT",
                                   "CRITICAL_ITEMS", "WARNING_ITEMS", "INFO_ITEMS",
                                   "DEPENDENCY_VULNS")),
    "doc-reviewer": AgentSpec(("success", "failure"), ("done", "developer"), (),
                              ("DOC_REVIEW_RESULT", "INCONSISTENCY_COUNT", "ADVISORY_COUNT",
                               "INFO_COUNT", "TARGET_ARTIFACTS", "INCONSISTENCY_ITEMS",
                               "ADVISORY_ITEMS", "TRIGGERED_BY")),
}
_LIST_SEVERITY: Final = {"CRITICAL": "CRITICAL", "WARNING": "WARNING", "WARN": "WARNING",
                          "SUGGESTION": "SUGGESTION", "ADVISORY": "ADVISORY", "INFO": "INFO",
                          "INCONSISTENCY": "INCONSISTENCY", "HIGH": "CRITICAL",
                          "MEDIUM": "WARNING", "LOW": "SUGGESTION", "MAJOR": "WARNING",
                          "MINOR": "SUGGESTION", "ERROR": "CRITICAL"}


def item_list(key: str) -> tuple[str | None, Severity, str | None] | None:
    """What a list key holds: the canonical lists, and drifted names by their parts
    (`FAILED_CASES`, `WARNINGS`, `HIGH_ITEMS`, `CRITICAL_FINDINGS`)."""
    if key in ITEM_LISTS:
        return ITEM_LISTS[key]
    parts = key.split("_")
    if "FAILED" in parts or "FAILURES" in parts or "FAILING" in parts:
        if any(p.startswith(("COND", "CRITERI", "CHECK", "ACCEPT")) for p in parts):
            return ITEM_LISTS["FAILED_CONDITIONS"]
        return ITEM_LISTS["FAILED_TESTS"]
    head = parts[0].rstrip("S")
    if head in _LIST_SEVERITY and (len(parts) == 1 or parts[-1] in (
            "ITEMS", "FINDINGS", "ISSUES", "LIST")):
        word = _LIST_SEVERITY[head]
        return ITEM_LISTS[f"{word}_ITEMS"]
    return None


def _canonical_list(spec: tuple[str | None, Severity, str | None]) -> str:
    return next(key for key, value in ITEM_LISTS.items() if value == spec)


# the STATUS a renderer writes when the reply's own word no longer fits
STATUS_FOR: Final = {Status.CLEAN: "success", Status.FINDINGS: "failure",
                     Status.PARTIAL: "suspended", Status.BLOCKED: "blocked",
                     Status.ERROR: "error"}
# count key -> the findings it counts
COUNTS: Final[dict[str, str]] = {
    "CRITICAL_COUNT": "CRITICAL", "WARNING_COUNT": "WARNING",
    "SUGGESTION_COUNT": "SUGGESTION", "ADVISORY_COUNT": "ADVISORY", "INFO_COUNT": "INFO",
    "INCONSISTENCY_COUNT": "INCONSISTENCY",
}
NUMERIC_KEYS: Final = frozenset({*COUNTS, "TOTAL", "PASSED", "FAILED", "SKIPPED",
                                 "TOTAL_CASES", "TBD_COUNT", "EXIT_CODE", "DURATION_MS",
                                 "UC_COUNT", "ENTITY_COUNT", "MUST_COUNT", "SHOULD_COUNT",
                                 "ESTIMATED_FILES"})
OWN_FIELDS: Final = frozenset({"AGENT_RESULT", "STATUS", "NEXT", "BLOCKED_REASON",
                               "BLOCKED_TARGET", "CURRENT_TASK"})
# keys whose values this dialect reads and checks: never written from another dialect's
_RESERVED: Final = OWN_FIELDS | COUNTS.keys() | NUMERIC_KEYS | ITEM_LISTS.keys()
# `- C1: text`, `**W3 - title (a.js:31).** text`, `- **S1 (line 222):** text`, `C1 – text`
_EXPANSION: Final = re.compile(
    r"(?:[-*+] |\d{1,3}[.)] )?(?P<bold>\*\*)?(?P<id>[A-Z]{1,8}-?\d{1,4})"
    r"(?: ?\((?P<note>[^()]{1,80})\))?(?=[:.*]|\s?[—–]|\s-\s)(?:[:.]|\s?[—–]|\s-(?= ))?"
    r"(?P<close>\*\*)?(?:[:.]|\s?[—–])?\s(?P<rest>.+)$")
# what a line about an item says when it is no evidence: another id (`W1 – W2 ...`), or
# that the item was dealt with (`W1 (fixed): ...`, `- W1: resolved in the PR`)
_SETTLED: Final = re.compile(r"\s*(?:fixed|resolved|addressed|done|closed|obsolete|withdrawn)"
                             r"(?:[.!;,)]|\s*$|\s+(?:in|by|via|since|upstream)\b)",
                             re.IGNORECASE)  # `fixed.`, `resolved in #123`; not `Closed sockets`
# `W1 – W2 share a cause`, `W1, W3 and W4 ...`: a line that lists ids, not one's evidence
_OTHER_ID: Final = re.compile(r"\s*(?P<id>[A-Z]{1,8}-?\d{1,4})"
                              r"(?:\s*(?:,|and|&|/|–|-)\s|\s+(?:are|is|share|both))")
_KEY: Final = re.compile(r"[ \t]*(?:\*\*)?(?P<key>[A-Za-z][A-Za-z0-9_]{1,48})(?:\*\*)?[ \t]?:"
                         r"(?:\*\*)?")

def _block_start(doc: Document) -> int:
    for i, line in enumerate(doc.lines):
        if "AGENT_RESULT" in line and doc.is_text(i) and \
                line.lstrip(" *`").startswith("AGENT_RESULT"):
            return i
    return -1


class AphelionDialect:
    name = "aphelion"
    severities = SEVERITIES
    case_sensitive = True

    def __init__(self) -> None:
        self.vocab = STATUS["aphelion"]

    def detect(self, doc: Document) -> int:
        src = doc.src
        if "AGENT_RESULT" not in src:
            return 10 if "\nSTATUS:" in src and "\nNEXT:" in src else 0
        return 90 if "STATUS" in src else 50

    def parse(self, b: Builder) -> None:
        b.envelope_name = "AGENT_RESULT block"
        doc = b.doc
        start = _block_start(doc)
        if start < 0:
            for open_at, close_at, _info in doc.fences:
                inside = [i for i in range(open_at + 1, close_at if close_at >= 0 else
                                           len(doc.lines)) if "AGENT_RESULT" in doc.lines[i]]
                if inside:
                    b.doc = doc = doc.unwrap(open_at, close_at)
                    b.diag("SARP005", open_at, what="AGENT_RESULT block", open=open_at + 1)
                    start = inside[0]
                    break
        if start < 0:
            self._prose(b, 0, len(doc.lines))
            return
        b.envelope = True
        b.envelope_line = start
        entries, end = _read_block(doc, start)
        tail_prose = any(doc.lines[i].strip() for i in range(end + 1, len(doc.lines))
                         if doc.kinds[i] != MARKER)
        late, tail = _lists_after(doc, end + 1)
        for first, stop in tail:
            self._prose(b, first, stop)
        after = list(b.findings)
        b.findings.clear()
        if strip_emphasis(doc.lines[start].strip().strip("`")) != doc.lines[start].strip():
            b.diag("SARP110", start, what="AGENT_RESULT keys")
        self._prose(b, 0, start)
        prose_findings = list(b.findings) + after
        b.findings.clear()
        self._entries(b, entries + late)
        read = {raw.line for raw in b.findings}
        closed = "NEXT line" if any(key == "NEXT" for _, key, _ in entries) else \
            "AGENT_RESULT block"
        for line, key, value in late:  # said only where the list held a finding
            if read.intersection([at for at, _ in value] if isinstance(value, list) else [line]):
                b.diag("SARP216", line, what=key, part=closed)
        items = Matcher(list(b.findings))
        as_listed = {id(raw): (raw.title, raw.description) for raw in b.findings}
        for raw in prose_findings:
            b.add_or_fill(raw, items)
        # items the prose did not already fill: their expansion by id, if any
        bare = {raw.id: raw for raw in b.findings
                if raw.id and as_listed.get(id(raw)) == (raw.title, raw.description)}
        if bare:
            ids = {raw.id for raw in b.findings if raw.id}
            _expansions(b, 0, start, bare, ids)
            for first, stop in tail:
                _expansions(b, first, stop, bare, ids)
        self._checks(b, entries + late, end)
        if tail_prose:
            b.closing_seen = None  # prose after the block: its end tells

    def _prose(self, b: Builder, start: int, end: int) -> None:
        """Findings written around the block: tables, and prose (`sarp.dialects.prose`)."""
        for tbl in find_tables(b.doc, start, end):
            if common.classify_table(tbl) == "findings":
                common.read_finding_table(b, tbl)
        known = {f.id.upper() for f in b.findings if f.id}
        common.read_details(b, start, end, known_ids=known)
        if read_prose_findings(b, start, end) or b.findings:
            b.recovered = True

    def _entries(self, b: Builder, entries: list[tuple[int, str, Any]]) -> None:
        for line, key, value in entries:
            if key == "_KEY_CASE":
                b.diag("SARP110", line, what=f"AGENT_RESULT keys ({value} not upper-case)")
            elif key == "AGENT_RESULT":
                b.agent = strip_markup(str(value)) or b.agent
            elif key == "STATUS":
                b.set_status(strip_markup(str(value)), line)
            elif key == "NEXT":
                b.next = strip_markup(str(value)) or None
            elif key == "BLOCKED_REASON":
                b.blocked_reason = _text(value)
            elif key == "BLOCKED_TARGET":
                b.blocked_target = strip_markup(_text(value))
            elif key == "CURRENT_TASK":
                b.current_task = strip_markup(_text(value))
            elif key in NUMERIC_KEYS:
                number = _int(value)
                b.metrics[key] = number if number is not None else value
                if number is None and _text(value):
                    b.diag("SARP409", line, key=key, value=_text(value),
                           action="kept as written")
            elif key in ITEM_LISTS or (isinstance(value, list) and item_list(key) is not None):
                self._items(b, line, key, value)
            elif isinstance(value, list):
                b.fields[key] = [text for _, text in value]
            else:
                b.fields[key] = value
        # NEXT closes the reply only when nothing but prose follows the block
        b.closing_seen = b.next is not None

    def _items(self, b: Builder, line: int, key: str, value: Any) -> None:
        spec = item_list(key)
        assert spec is not None
        word, default, kind = spec
        if key not in ITEM_LISTS:
            b.diag("SARP408", line, written=key, canonical=_canonical_list(spec))
        items = value if isinstance(value, list) else []
        if not isinstance(value, list) and _text(value) and _text(value).lower() not in (
                "none", "[]", "-", "n/a", "0"):
            items = [(line, _text(value))]
        for item_line, text in items:
            if isinstance(text, dict):
                text = " ".join(f"{k}: {v}" for k, v in text.items())
            text = str(text).strip()
            if not text or text.lower() in ("none", "[]", "n/a"):
                continue
            raw = RawFinding(line=item_line, severity=word, default=default, type=kind,
                             severity_expected=word is not None, structural=True)
            ident = common.item_id(text)
            rest = text
            if ident is not None and (common.is_id_like(ident[0]) or ident[0].isdigit()):
                raw.id, rest = ident
            elif ident is not None and ident[0] in ("TC", "TEST", "CASE", "ID", "ITEM"):
                rest = ident[1]  # a label, not an id
            head, sep, tail = rest.partition(" - ")
            if not sep:
                head, sep, tail = rest.partition(" — ")
            head_clean = strip_markup(head)
            place = parse_location(head_clean) if sep else None
            if sep and place is not None and place.path is not None:
                raw.location = head_clean
                raw.description = tail.strip() or None
            else:
                raw.description = rest
                raw.location = common.location_in(rest)
            if kind == "failed-test":
                raw.title = head_clean if sep else None
                if raw.location is None and "::" in head_clean:
                    raw.location = head_clean
            b.add(raw)

    def _checks(self, b: Builder, entries: list[tuple[int, str, Any]], end: int) -> None:
        keys = {key: line for line, key, _ in entries}
        if "STATUS" not in keys:
            b.diag("SARP401", b.envelope_line, dialect="aphelion", part="STATUS line",
                   hint="Write `STATUS: <status>` right after AGENT_RESULT.")
        if "NEXT" not in keys:
            b.diag("SARP401", end, dialect="aphelion", part="NEXT line",
                   hint="End the block with `NEXT: <agent|done|suspended>`.")
            b.truncated("the closing NEXT line is missing", b.doc.last_nonblank())
        spec = AGENTS.get((b.agent or "").lower())
        for field in spec.required if spec is not None else ():
            if field not in keys and status_is_not(b, "blocked", "error", "suspended"):
                b.diag("SARP401", b.envelope_line, dialect="aphelion", part=f"{field} line",
                       hint=f"A {b.agent} block carries `{field}: <value>`.")
        status = normalise_word(b.status_word or "")
        if status == "blocked":
            for field in ("BLOCKED_REASON", "BLOCKED_TARGET"):
                if field not in keys:
                    b.diag("SARP402", keys.get("STATUS", b.envelope_line), field=field)
        for count_key, word in COUNTS.items():
            declared = b.metrics.get(count_key)
            if isinstance(declared, int):
                b.expect_count("the AGENT_RESULT block", count_key, declared,
                               _count_word(word), f"{word} findings", keys[count_key])
        failed = b.metrics.get("FAILED")
        if isinstance(failed, int) and "FAILED_TESTS" in keys:
            b.expect_count("the AGENT_RESULT block", "FAILED", failed,
                           lambda fs: sum(1 for f in fs if f.type == "failed-test"),
                           "failed tests", keys["FAILED"])
        total = b.metrics.get("TOTAL")
        parts = [b.metrics.get(k) for k in ("PASSED", "FAILED", "SKIPPED")]
        if isinstance(total, int) and all(isinstance(p, int) or p is None for p in parts) and \
                any(isinstance(p, int) for p in parts):
            summed = sum(p for p in parts if isinstance(p, int))
            if summed != total:
                b.diag("SARP303", keys["TOTAL"], total=total, sum=summed)
        failed = b.metrics.get("FAILED")
        if status == "success" and isinstance(failed, int) and failed > 0:
            b.diag("SARP302", keys.get("STATUS", b.envelope_line), status=b.status_word,
                   why=f"FAILED is {failed}; a tester reports failure when a test fails")
        critical = b.metrics.get("CRITICAL_COUNT")
        if status in ("approved", "conditional", "rejected") and isinstance(critical, int) and \
                (status == "rejected") != (critical > 0):
            b.diag("SARP304", keys.get("STATUS", b.envelope_line), status=b.status_word,
                   count=critical)
        doc_result = normalise_word(str(b.fields.get("DOC_REVIEW_RESULT", "")))
        if doc_result.startswith("fail") and status != "failure":
            b.diag("SARP305", keys.get("DOC_REVIEW_RESULT", b.envelope_line),
                   value=b.fields["DOC_REVIEW_RESULT"], status=b.status_word)
            b.status_override = Status.FINDINGS

    def render(self, result: Result) -> str:
        lines = [f"AGENT_RESULT: {result.agent or 'agent'}",
                 f"STATUS: {status_word(result, self.vocab, STATUS_FOR)}"]
        if result.blocked_reason or result.status is Status.BLOCKED:
            reason = result.blocked_reason or stop_reason(result) or NOT_GIVEN
            lines.append(f"BLOCKED_REASON: {inline(reason)}")
            # the agent the orchestrator launches next: never guessed (a blocked Result
            # that names none is written without it, and sarp.convert says so)
            if result.blocked_target:
                lines.append(f"BLOCKED_TARGET: {inline(result.blocked_target)}")
        if result.current_task:
            lines.append(f"CURRENT_TASK: {inline(result.current_task)}")
        # another dialect's metrics and fields become block keys too, except those
        # that would be read as this block's own (a CLEO `status`, a bowser `Failed`),
        # and any this block reads findings from (a JSON reply's `warnings` field)
        reserved = OWN_FIELDS | COUNTS.keys() if result.dialect == "aphelion" else _RESERVED
        for key, value in [*result.metrics.items(), *result.fields.items()]:
            block_key = _block_key(key)
            if block_key not in reserved and (
                    result.dialect == "aphelion" or item_list(block_key) is None):
                lines.extend(_render_value(block_key, value))
        groups: dict[str, list[Finding]] = {}
        written = _with_readable_ids(result.findings)
        for f in written:
            key = {"failed-test": "FAILED_TESTS", "failed-criterion": "FAILED_CONDITIONS"}.get(
                f.type or "", _list_for(f))
            groups.setdefault(key, []).append(f)
        for count_key, word in COUNTS.items():
            n = sum(1 for f in written if _list_for(f) == f"{word}_ITEMS" and
                    f.type not in ("failed-test", "failed-criterion"))
            if n or f"{word}_ITEMS" in groups or count_key in result.metrics:
                lines.append(f"{count_key}: {n}")
        # the location each prose section may name, and whether the item names it too
        placed: dict[str, tuple[str | None, bool]] = {}
        for key, findings in groups.items():
            lines.append(f"{key}:")
            for f in findings:
                loc = _item_place(f.location)
                text = inline((f.description or f.title or "").split("\n\n", 1)[0])
                if f.type in ("failed-test", "failed-criterion"):
                    # `name - error (place)`: the test's name leads, as testers write it
                    # (whatever leads is read back as the name)
                    name = inline(f.title or "") or loc
                    body = text if not name or text.startswith(name) else f"{name} - {text}"
                    body = body if not loc or loc in body else f"{body} ({loc})"
                else:
                    # a place with nothing after it is read as text that names a place
                    body = f"{loc} - {text or NOT_GIVEN}" if loc else text
                # an item with nothing after its id is not read as that id's item
                lines.append(f"  - {f.id}: {body or NOT_GIVEN}")
                # a place the item does not carry is named in the prose section only
                # when the item reads none from its text: two places, two findings
                placed[f.id] = (location_text(f.location) if f.location and (
                    loc or common.location_in(body) is None) else None, loc is not None)
        # an agent that stopped short pauses the flow (seed 003's blocked example)
        stopped = result.status in (Status.PARTIAL, Status.BLOCKED)
        lines.append(f"NEXT: {result.next or ('suspended' if stopped else 'done')}")
        prose = [line for f in written for line in _prose_section(f, *placed[f.id])]
        return "\n".join([*prose, *lines]) + "\n"


def _item_place(location: Location | None) -> str | None:
    """The location as an item line writes it (`F1: a.py:3 - text`), or None when the
    item would not read it back as that place: the item reads a place with a path, up
    to its first ` - `."""
    if location is None:
        return None
    text = location_text(location)
    if " - " in text or " — " in text:
        return None
    read = parse_location(strip_markup(text))
    return text if read is not None and read.path is not None and _spot(read) == _spot(
        location) else None


def _spot(location: Location) -> tuple[object, ...]:
    return (location.path, location.line, location.end_line, location.section,
            location.symbol)


def _with_readable_ids(findings: list[Finding]) -> list[Finding]:
    """The findings, each under an id that its item line reads back as its id. Another
    (`x y`, `- F9: evil.py:1 - text`) would be read as the item's text, its place as the
    item's place, and the prose section written under it as a finding of its own: such
    a finding is written under the first free `F<n>` (`sarp.convert` reports the id)."""
    taken = {f.id for f in findings}
    fresh = (f"F{n}" for n in itertools.count(1) if f"F{n}" not in taken)
    out = []
    for f in findings:
        lead = common.item_id(f"{f.id}: text")
        readable = lead is not None and lead[0] == f.id and (
            common.is_id_like(f.id) or f.id.isdigit())
        out.append(f if readable else f.model_copy(update={"id": next(fresh)}))
    return out


def _prose_section(f: Finding, location: str | None, in_item: bool) -> list[str]:
    """What an item line cannot hold (title, impact, fix, more text), written as the
    finding prose reviewers put before the block; parse merges it with the item by id.
    `location`: the place it names, which the item names too when `in_item`."""
    more = (f.description or "").split("\n\n", 1)[1:]
    if f.type in ("failed-test", "failed-criterion"):
        # what was run and seen, as the expansion a tester writes under its id
        lines = [line for line in more[0].split("\n") if line.strip()] if more and f.id else []
        return [f"- {f.id}: {lines[0]}", *(f"  {line}" for line in prose_lines(
            "\n".join(lines[1:])) if line), ""] \
            if lines else []
    bullets = [(label, value) for label, value in (
        ("Location", location),
        ("Counter-location", location_text(f.counter_location) if f.counter_location
         else None),
        ("Impact", f.impact), ("Fix", f.suggestion), ("Type", f.type),
        ("Confidence", None if f.confidence is None else f"{f.confidence:g}"),
        ("Agent", f.agent)) if value]
    if not (f.title or more or len(bullets) > (location is not None and in_item)):
        return []
    word = _list_for(f).removesuffix("_ITEMS")
    out = [f"### {word} {f.id}: {inline(f.title or '')}".rstrip()]
    out.extend(f"- **{label}**: {inline(value)}" for label, value in bullets)
    for paragraph in more[0].split("\n\n") if more else ():
        out.extend(["", prose_line(inline(paragraph))])
    return [*out, ""]


def _expansions(b: Builder, start: int, end: int, bare: dict[str, RawFinding],
                ids: set[str]) -> None:
    """Attach the prose that leads with a bare item's id: the item line is the summary,
    the prose what was run and seen. Each id once; a mention that only says the item
    was fixed, or lists it with other ids (`W1 – W2 share a cause`), is not its detail."""
    doc = b.doc
    i = start
    while i < end:
        line = doc.lines[i]
        match = _EXPANSION.match(line.strip()) if doc.kinds[i] == PLAIN else None
        i += 1
        if match is None or match["id"] not in bare or _SETTLED.match(match["rest"]) \
                or (match["note"] and _SETTLED.match(match["note"])):
            continue
        other = _OTHER_ID.match(match["rest"])
        if other is not None and other["id"] in ids:
            continue
        rest = match["rest"].strip()
        if match["bold"] and not match["close"]:  # `**W3 - title.** text`: both are text
            title, _, after = rest.partition("**")
            rest = f"{title.strip()} {after.strip().lstrip('-—– ')}".strip()
        else:
            rest = rest.lstrip("-—– ")  # `**W1** - text`
        stop = _expansion_end(doc, i, end, list_item(line) is not None,
                              len(line) - len(line.lstrip()))
        body = [rest, *(text for k in range(i, stop) if (text := doc.lines[k].strip()))]
        i = stop
        raw = bare.pop(match["id"])
        text = "\n".join(filter(None, body))
        if text:  # the item line first (the lead), then what the prose adds to it
            raw.description = f"{raw.description}\n\n{text}" if raw.description else text


def _expansion_end(doc: Document, i: int, end: int, is_item: bool, indent: int) -> int:
    """Where an expansion's body ends: at a heading, another id's lead, a block key, or
    (for a lead that is a list item) its next sibling item. Lists, code and indented lines
    under it are its evidence; after a blank line, only they go on."""
    after_blank = False
    for k in range(i, end):
        line = doc.lines[k]
        text = line.strip()
        if not text:
            after_blank = True
            continue
        if doc.kinds[k] in (MARKER, FENCED):
            after_blank = False
            continue
        deeper = len(line) - len(line.lstrip()) > indent
        item = list_item(line) is not None
        if line.startswith("#") or "AGENT_RESULT" in text or (
                not deeper and _EXPANSION.match(text) is not None):
            return k
        key = _KEY.match(line)
        if key is not None and key["key"].isupper() and not deeper:
            return k  # `NEXT: developer`: the block again
        if is_item and item and not deeper:
            return k  # the next item of the list the lead is in
        if after_blank and not deeper:
            return k  # a new paragraph or list: only deeper lines and code go on
        after_blank = False
    return end


def status_is_not(b: Builder, *words: str) -> bool:
    return normalise_word(b.status_word or "") not in words


def _block_key(key: str) -> str:
    """A field name as a block key: `title` -> `TITLE`, `files reviewed` -> `FILES_REVIEWED`.
    The block reads a key of two characters or more that starts with a letter, so `x` is
    written `FIELD_X` (a key it did not read would end the block there)."""
    name = re.sub(r"[^A-Z0-9]+", "_", key.upper()).strip("_")[:48].rstrip("_")
    return name if re.fullmatch(r"[A-Z][A-Z0-9_]+", name) else f"FIELD_{name}".rstrip("_")


def _list_for(f: Finding) -> str:
    native = normalise_word(f.native_severity or "").upper()
    if native in SEVERITIES and SEVERITIES[native] is f.severity:
        return f"{native}_ITEMS"
    return {Severity.CRITICAL: "CRITICAL_ITEMS", Severity.MAJOR: "WARNING_ITEMS",
            Severity.MINOR: "SUGGESTION_ITEMS"}[f.severity]


def _render_value(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        out = [f"{key}:"]
        for item in value:
            if isinstance(item, dict):
                out.extend(f"  - {k}: {inline(v)}" for k, v in item.items())
            else:
                out.append(f"  - {inline(item)}")
        return out
    if isinstance(value, dict):
        return [f"{key}:", *[f"  {k}: {inline(v)}" for k, v in value.items()]]
    text = str(value)
    if "\n" in text:
        # the block reads its list items and indented lines as values, whatever they
        # say; a block scalar's lines still go through prose_lines, for a fence that
        # would reach past it
        return [f"{key}: |", *[f"  {line}".rstrip() for line in prose_lines(text)]]
    return [f"{key}: {inline(text)}"]


def _count_word(word: str) -> Any:
    """Findings a count key counts: by the list word when findings carry it, else by
    canonical severity (prose findings written as MEDIUM count toward WARNING_COUNT)."""
    canonical = SEVERITIES[word]

    def count(findings: list[Finding]) -> int:
        natives = [normalise_word(f.native_severity or "").upper() for f in findings]
        if word in natives:
            return natives.count(word)
        return sum(1 for f, native in zip(findings, natives, strict=True)
                   if native not in SEVERITIES and f.severity is canonical
                   and f.type not in ("failed-test", "failed-criterion"))

    return count


def _int(value: Any) -> int | None:
    text = _text(value).strip()
    head = text.split(" ", 1)[0].split("(", 1)[0].strip()
    return int(head) if head.isdigit() else None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(str(v[1]) if isinstance(v, tuple) else str(v) for v in value)
    return str(value) if value is not None else ""


def _lists_after(doc: Document, start: int,
                 ) -> tuple[list[tuple[int, str, Any]], list[tuple[int, int]]]:
    """Item lists written after the block (`CRITICAL_ITEMS:` at the start of a line, its
    items under it), which are the block's all the same (ADV16 #4); returns their entries
    and the stretches of prose around them. A one-word key (`HIGH:` over a list) is left
    to the prose, which reads it as a severity group; `CRITICAL: text` is prose."""
    entries: list[tuple[int, str, Any]] = []
    prose: list[tuple[int, int]] = []
    first = i = start
    while i < len(doc.lines):
        key = _KEY.match(doc.lines[i]) if doc.kinds[i] == PLAIN and \
            doc.lines[i][:1] not in (" ", "\t") else None
        name = key["key"] if key is not None else ""
        found, last = _read_block(doc, i, opens=False) if name.isupper() and "_" in name \
            and item_list(name) is not None else ([], i)
        if not found or not isinstance(found[0][2], list) or not found[0][2]:
            i += 1
            continue
        entries.append(found[0])
        prose.append((first, i))
        first = i = last + 1
    prose.append((first, len(doc.lines)))
    return entries, prose


def _read_block(doc: Document, start: int, *, opens: bool = True,
                ) -> tuple[list[tuple[int, str, Any]], int]:
    """The block's (line, KEY, value) entries, lists as [(line, item)], and its last line.

    A value is a scalar, a list of items (`- x`, `- NAME: v`, or indented lines without
    dashes), or a block scalar after `KEY: |`. The block ends at a fence marker, at a
    line that is neither a key nor indented, or after NEXT. `opens`: `start` is the
    AGENT_RESULT line; else it is a key written after the block, and only its entry is read.
    """
    lines = doc.lines
    entries: list[tuple[int, str, Any]] = []
    i = last = start
    if opens:
        first = lines[start].strip().strip("`")
        first = first.replace("**", "")
        head = _KEY.match(first)
        entries.append((start, "AGENT_RESULT", first[head.end() :].strip() if head else ""))
        i = start + 1
    current: tuple[int, str] | None = None
    items: list[tuple[int, Any]] = []
    scalar: list[str] | None = None
    blank_run = 0
    case_drift: list[int] = []

    def close() -> None:
        nonlocal current, items, scalar
        if current is None:
            return
        line, key = current
        if scalar is not None:
            entries.append((line, key, "\n".join(scalar).strip()))
        else:
            entries.append((line, key, items))
        current, items, scalar = None, [], None

    while i < len(lines):
        raw = lines[i]
        in_scalar = scalar is not None and (raw.startswith((" ", "\t")) or not raw.strip())
        if doc.kinds[i] == MARKER and not in_scalar:
            break
        text = raw.strip()
        if in_scalar and scalar is not None:
            scalar.append(raw[2:] if raw.startswith("  ") else raw.strip())
            last = i
            i += 1
            continue
        if not text:
            blank_run += 1
            if blank_run >= 2 and current is None:
                break
            i += 1
            continue
        blank_run = 0
        indented = raw.startswith((" ", "\t"))
        keyed = raw.replace("**", "")
        match = _KEY.match(keyed) if not indented or current is None else None
        if match is None and indented and current is None:
            keyed = keyed.strip()
            match = _KEY.match(keyed)
        if (match is not None and not indented) or (match is not None and current is None):
            if not opens and (entries or current is not None):
                break  # a key written after the block: its entry alone
            close()
            key = match["key"].upper()
            if key != match["key"]:
                case_drift.append(i)
            value = keyed[match.end() :].strip()
            if value in ("|", ">", "|-", ">-"):
                current, scalar = (i, key), []
            elif value == "":
                current, items = (i, key), []
            else:
                entries.append((i, key, value))
            last = i
            i += 1
            if key == "NEXT":
                break
            continue
        if current is not None and (indented or list_item(raw) is not None):
            if scalar is not None:
                scalar.append(raw.strip())
            else:
                item = list_item(raw)
                items.append((i, (item if item is not None else text).strip()))
            last = i
            i += 1
            continue
        break
    close()
    if case_drift:
        entries.append((case_drift[0], "_KEY_CASE", len(case_drift)))
    return entries, last


APHELION: Final = AphelionDialect()
