# SARIF 2.1.0 logs as input (SPEC §4 "sarif"): what linters and scanners report, read
# into Results so tool results and agent reviews aggregate together.
#
# Contract:
# - `results_from_sarif(text, source)` gives one Result per run, id `source#run<n>`
#   (just `source` when the log has one run), dialect `sarif`, agent = the run's
#   tool.driver.name. It never raises on any text: bad JSON, wrong shapes, absurd
#   numbers become diagnostics, and an internal failure becomes an unparseable Result
#   with SARP413 (a TypeError for a non-str argument is a programmer error and raised).
# - Status by content: FINDINGS when a result was read as a finding, else CLEAN. A run
#   whose invocation says executionSuccessful: false is ERROR when it has no findings,
#   PARTIAL when it has some (SARP411). A run without a `results` list did not report a
#   scan: its status follows the policy's `missing_summary` (SARP401). A log that is not
#   JSON or has no runs is unparseable, status by `missing_summary`; an empty one ERROR.
# - Conformance as for replies: `conformant` when nothing needed repair, `repaired` when
#   the JSON was mended (trailing commas, cut off: SARP404, SARP002) or the log bent the
#   schema (missing version or tool name, a level word outside the schema's four, a
#   message written as a bare string), `unparseable` when nothing SARIF was found.
# - A result is a finding unless SARIF says it is not a problem: kind pass,
#   notApplicable or informational, baselineState absent, or an accepted suppression.
#   Those are counted under fields["not_findings"] with a note (SARP412), never lost
#   silently.
# - Finding fields: severity from `level` (error -> critical, warning -> major,
#   note/none -> minor; no level: the rule's defaultConfiguration.level, else warning
#   for kind fail, none otherwise, as SARIF §3.27.10 says), native_severity = the level
#   word used, type = ruleId, title = the rule's shortDescription (the message's first
#   line when that is a template with `{name}` holes; else the rule's name, else the
#   ruleId), description = message.text (or markdown, or message.id resolved through
#   the rule's or the driver's messageStrings, `{0}` placeholders filled from
#   `arguments`), location from the first location with a file (path from
#   artifactLocation.uri: `file://` stripped, percent-decoding undone, a relative
#   uriBaseId prefixed, absolute paths made relative to the run's working directory or
#   absolute base ids when they lie under one), the other locations as `extra`,
#   logical locations as section (kind `section`) or symbol (any other kind),
#   confidence from properties.confidence when numeric in 0-100 (a fraction below 1 is
#   read as a share, as sarp does everywhere), suggestion and impact from properties
#   (or the first fix's description).
# - A location sarp's own SARIF output marks as a stand-in (`properties["sarp/location"]
#   == "reply"`: the finding named no file) is read as no file.
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Final
from urllib.parse import unquote

from sarp import diagnostics
from sarp.dialects.base import Policy
from sarp.dialects.json_ import decode_object
from sarp.model import (
    Conformance,
    Delivery,
    Diagnostic,
    DiagnosticSeverity,
    Finding,
    Location,
    Result,
    Severity,
    Status,
    build,
)
from sarp.text import jsontext

__all__ = ["LEVEL_SEVERITY", "is_sarif", "results_from_sarif"]

CRIT, MAJOR, MINOR = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR
_RULE_LEVELS: Final = 8  # hierarchical rule id parts tried when looking up its rule
_TEMPLATE_HOLE: Final = re.compile(r"\{\w{1,40}\}")  # `{name}`, `{0}`: left unfilled
LEVEL_SEVERITY: Final = {"error": CRIT, "warning": MAJOR, "note": MINOR, "none": MINOR}
# Words tools put in `level` although the schema allows only the four above.
_LEVEL_WORDS: Final = {
    "critical": CRIT, "fatal": CRIT, "blocker": CRIT, "high": CRIT, "err": CRIT,
    "warn": MAJOR, "major": MAJOR, "medium": MAJOR, "moderate": MAJOR,
    "info": MINOR, "information": MINOR, "informational": MINOR, "minor": MINOR,
    "low": MINOR, "hint": MINOR, "suggestion": MINOR, "recommendation": MINOR,
}
_LEVELS_ALLOWED: Final = "error, warning, note, none"
# Result kinds that say "not a problem" (SARIF §3.27.9); open and review still need a look.
_NOT_PROBLEMS: Final = {"pass": "passing", "notapplicable": "not applicable",
                        "informational": "informational"}
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")
_DRIVE: Final = re.compile(r"/?[A-Za-z]:/")
_BASE_DEPTH: Final = 10  # uriBaseId chains longer than this are a loop
_HEAD: Final = 4096


_OPENING: Final = re.compile("[\ufeff \t\r\n]*{")


def is_sarif(text: str) -> bool:
    """Whether `text` looks like a SARIF log: a JSON object with `runs` and a 2.x
    `version` or a SARIF `$schema`. Small texts are decoded; big or broken ones judged
    by their first few kilobytes."""
    opening = _OPENING.match(text)
    if opening is None or '"runs"' not in text:  # (most replies: no copy, no decoding)
        return False
    head = text[opening.end() - 1:]
    if len(head) <= 1_000_000:
        value = _loads(head)
        if isinstance(value, dict):
            return _is_log(value)
    start = head[:_HEAD]
    return '"runs"' in head and (
        re.search(r'"version"\s*:\s*"2\.', start) is not None
        or re.search(r'"\$schema"\s*:\s*"[^"]*sarif', start, re.IGNORECASE) is not None)


def results_from_sarif(text: str, source: str, policy: Policy | None = None) -> list[Result]:
    """One Result per run of the SARIF log `text` (see the header); never raises on
    content. `source` names the log (a path) and makes the ids."""
    if not isinstance(text, str):
        raise TypeError(f"results_from_sarif() takes the log as str, not {type(text).__name__}")
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    policy = policy or Policy()
    try:
        return _Reader(text, source, policy).read()
    except Exception as exc:  # the never-raise contract: one bad log must not stop a run
        note = diagnostics.make("SARP413", None, None, error=f"{type(exc).__name__}: {exc}")
        return [_bare(source, text, _missing(policy), Conformance.UNPARSEABLE,
                      Delivery.COMPLETE, [note])]


# -- decoding --------------------------------------------------------------------------


def _number(digits: str) -> int | float:
    # Python refuses to turn very long digit strings into ints; no count needs them.
    return int(digits) if len(digits) <= 30 else float(digits)


def _loads(text: str) -> Any:
    try:
        return jsontext.loads(text, parse_int=_number)
    except (ValueError, RecursionError):
        return None


def _is_log(value: dict[str, Any]) -> bool:
    """A SARIF log: `runs` a list, a 2.x version or a SARIF schema, and no keys of a
    result object (`{"version": "2.3.0", "runs": 3, "findings": [...]}` is a reply)."""
    version, schema = value.get("version"), value.get("$schema")
    if not isinstance(value.get("runs"), list) or "findings" in value or "status" in value:
        return False
    return (
        (isinstance(version, str) and version.startswith("2."))
        or (isinstance(schema, str) and "sarif" in schema.lower()))


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an object"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        value = int(value)
    return value if isinstance(value, int) else None


def _line(value: Any) -> int | None:
    number = _int(value)
    return number if number is not None and 1 <= number < 10**9 else None


def _missing(policy: Policy) -> Status:
    return Status.ERROR if policy.missing_summary == "error" else Status.PARTIAL


def _grade(diags: list[Diagnostic]) -> Conformance:
    for diag in diags:
        if diag.severity is not DiagnosticSeverity.INFO or diagnostics.CODES[diag.code].repair:
            return Conformance.REPAIRED
    return Conformance.CONFORMANT


def _bare(source: str, text: str, status: Status, conformance: Conformance,
          delivery: Delivery, diags: list[Diagnostic]) -> Result:
    return build(Result, id=source, dialect="sarif", status=status, conformance=conformance,
                 delivery=delivery, diagnostics=diags, raw=text)


def _format(template: str, arguments: list[Any]) -> str:
    """SARIF message placeholders: `{0}` takes arguments[0], `{{` and `}}` are braces.
    The message may grow to twice the arguments' text beyond the template: `{0}` written
    4,000 times with a 100 KB argument must not make 400 MB of one message."""
    texts = [str(argument) for argument in arguments]
    budget = max(4096, len(template) + 2 * sum(map(len, texts)))
    out: list[str] = []
    size = 0
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch in "{}" and template.startswith(ch * 2, i):
            out.append(ch)
            i += 2
            continue
        if ch == "{":
            close = template.find("}", i + 1, i + 8)
            digits = template[i + 1 : close] if close > 0 else ""
            if digits.isdigit() and int(digits) < len(texts):
                text = texts[int(digits)]
                if size + len(text) > budget:
                    out.append("… (message cut: its placeholders repeat too much)")
                    break
                out.append(text)
                size += len(text)
                i = close + 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


# -- reading ---------------------------------------------------------------------------


class _Reader:
    """One log: the decoded value, the diagnostics that concern every run, the runs."""

    def __init__(self, text: str, source: str, policy: Policy) -> None:
        self.text = text
        self.source = source
        self.policy = policy
        self.diags: list[Diagnostic] = []
        self.truncated = False

    def diag(self, code: str, **args: object) -> Diagnostic:
        return diagnostics.make(code, None, None, **args)

    def read(self) -> list[Result]:
        body = self.text.lstrip("\ufeff")
        if not body.strip():
            return [_bare(self.source, self.text, Status.ERROR, Conformance.UNPARSEABLE,
                          Delivery.EMPTY, [self.diag("SARP001")])]
        value = _loads(body)
        if value is None:
            value, fixes, self.truncated = decode_object(body)
            if fixes:
                self.diags.append(self.diag("SARP404", what=", ".join(fixes)))
        if not isinstance(value, dict):
            what = ("SARIF log (the text is not JSON)" if value is None else
                    f"SARIF log (the JSON is {_kind(value)}, not an object)")
            return [self._unreadable(self.diag("SARP101", what=what,
                                               status=_missing(self.policy)))]
        version = value.get("version")
        if version is None:
            self.diags.append(self.diag("SARP401", dialect="sarif", part="version",
                                        hint='Write "version": "2.1.0".'))
        elif version != "2.1.0":
            self.diags.append(self.diag("SARP409", key="version", value=version,
                                        action="read as SARIF 2.1.0"))
        runs = value.get("runs")
        if isinstance(runs, dict):
            self.diags.append(self.diag("SARP405", path="runs", problem="is an object, not a"
                                        " list; read as one run", hint="Write runs as a list."))
            runs = [runs]
        if not isinstance(runs, list):
            status = _missing(self.policy)
            return [self._unreadable(self.diag("SARP101", what="SARIF log (no list of runs)",
                                               status=status))]
        if not runs:
            status = _missing(self.policy)
            diags = [*self.diags, self.diag("SARP401", dialect="sarif", part="run (the runs"
                                            f" list is empty); status set to {status}",
                                            hint="A log of a scan has one run per tool.")]
            return [_bare(self.source, self.text, status, Conformance.REPAIRED,
                          self._delivery(), diags)]
        many = len(runs) > 1
        return [_Run(self, run, number, f"{self.source}#run{number}" if many
                     else self.source).read() for number, run in enumerate(runs, 1)]

    def _delivery(self) -> Delivery:
        return Delivery.TRUNCATED if self.truncated else Delivery.COMPLETE

    def _unreadable(self, note: Diagnostic) -> Result:
        return _bare(self.source, self.text, _missing(self.policy), Conformance.UNPARSEABLE,
                     self._delivery(), [*self.diags, note])


class _Run:
    """One run read into one Result."""

    def __init__(self, log: _Reader, value: Any, number: int, result_id: str) -> None:
        self.log = log
        self.value = value
        self.number = number
        self.id = result_id
        self.diags = list(log.diags)
        self.seen_words: set[str] = set()
        self.not_findings: Counter[str] = Counter()

    def diag(self, code: str, **args: object) -> None:
        self.diags.append(diagnostics.make(code, None, None, **args))

    def read(self) -> Result:
        if not isinstance(self.value, dict):
            self.diag("SARP405", path=f"runs[{self.number - 1}]",
                      problem=f"is {_kind(self.value)}, not an object",
                      hint="Write each run as an object with tool and results.")
            return _bare(self.id, self.log.text, _missing(self.log.policy),
                         Conformance.UNPARSEABLE, self.log._delivery(), self.diags)
        run = self.value
        tool = _dict(run.get("tool"))
        self.driver = _dict(tool.get("driver"))
        self.extensions = [_dict(e) for e in _list(tool.get("extensions"))]
        name = _str(self.driver.get("name"))
        if name is None:
            self.diag("SARP401", dialect="sarif", part=f"tool.driver.name in run {self.number}",
                      hint="Name the tool in tool.driver.name.")
        self.rules = _Rules(self.driver, self.extensions)
        self.places = _Places(run)

        findings: list[Finding] = []
        results = run.get("results")
        if isinstance(results, dict):
            self.diag("SARP405", path=f"runs[{self.number - 1}].results",
                      problem="is an object, not a list; read as one result",
                      hint="Write results as a list.")
            results = [results]
        elif results is not None and not isinstance(results, list):
            self.diag("SARP405", path=f"runs[{self.number - 1}].results",
                      problem=f"is {_kind(results)}, not a list; ignored",
                      hint="Write results as a list.")
            results = None
        for index, item in enumerate(results or []):
            finding = self._finding(item, index, len(findings) + 1)
            if finding is not None:
                findings.append(finding)
        if self.not_findings:
            said = ", ".join(f"{count} {what}" for what, count in sorted(
                self.not_findings.items()))
            self.diag("SARP412", run=self.number, what=f"{sum(self.not_findings.values())}"
                      f" result(s) ({said})")

        fields: dict[str, Any] = {"run": self.number}
        about = {key: self.driver[key] for key in ("name", "version", "semanticVersion",
                                                   "informationUri")
                 if isinstance(self.driver.get(key), str)}
        if about:
            fields["tool"] = about
        automation = _str(_dict(run.get("automationDetails")).get("id"))
        if automation:
            fields["automation_id"] = automation
        if self.not_findings:
            fields["not_findings"] = dict(sorted(self.not_findings.items()))

        status = self._status(run, results, findings, fields)
        delivery = self.log._delivery()
        if delivery is Delivery.TRUNCATED:
            self.diag("SARP002", evidence="the JSON is never closed", kept=len(findings))
            if status is not Status.ERROR:
                status = Status.PARTIAL
        return build(Result, id=self.id, dialect="sarif", status=status,
                     conformance=_grade(self.diags), delivery=delivery,
                     agent=name or self.log.policy.agent, findings=findings, fields=fields,
                     diagnostics=self.diags, raw=self.log.text)

    def _status(self, run: dict[str, Any], results: Any, findings: list[Finding],
                fields: dict[str, Any]) -> Status:
        failed = False
        errors: list[str] = []
        for invocation in _list(run.get("invocations")):
            invocation = _dict(invocation)
            if invocation.get("executionSuccessful") is False:
                failed = True
            for note in _list(invocation.get("toolExecutionNotifications")):
                note = _dict(note)
                text = _str(_dict(note.get("message")).get("text"))
                if text and note.get("level") == "error":
                    errors.append(text)
        if errors:
            fields["tool_errors"] = errors
        if failed:
            status = Status.PARTIAL if findings else Status.ERROR
            fields["error"] = errors[0] if errors else "the tool reports a failed execution"
            self.diag("SARP411", run=self.number, why=f" ({errors[0]})" if errors else "",
                      status=status)
            return status
        if results is None:
            status = _missing(self.log.policy)
            self.diag("SARP401", dialect="sarif", part=f"results list in run {self.number}"
                      f" (no scan is reported); status set to {status}",
                      hint='Write "results": [] when the tool found nothing.')
            return status
        return Status.FINDINGS if findings else Status.CLEAN

    # -- one result --------------------------------------------------------------------

    def _finding(self, item: Any, index: int, number: int) -> Finding | None:
        where = f"runs[{self.number - 1}].results[{index}]"
        if not isinstance(item, dict):
            self.diag("SARP405", path=where, problem=f"is {_kind(item)}, not an object; skipped",
                      hint="Write each result as an object.")
            return None
        if not item.keys() & {"message", "ruleId", "rule", "ruleIndex", "locations"}:
            # nothing to say and nowhere to say it: the `{}` a cut-off log ends with
            self.diag("SARP405", path=where, problem="says nothing (no message, rule or"
                      " location); skipped", hint="Give every result a message.")
            return None
        kind = _str(item.get("kind")) or "fail"
        if kind.lower() in _NOT_PROBLEMS:
            self.not_findings[_NOT_PROBLEMS[kind.lower()]] += 1
            return None
        if item.get("baselineState") == "absent":
            self.not_findings["absent (fixed since the baseline)"] += 1
            return None
        if _suppressed(item.get("suppressions")):
            self.not_findings["suppressed"] += 1
            return None
        finding_id = f"F{number}"
        rule = self.rules.find(item)
        rule_id = _str(item.get("ruleId")) or _str(_dict(item.get("rule")).get("id")) or \
            _str(rule.get("id"))
        if item.get("level") is not None and _str(item.get("level")) is None:
            self.diag("SARP405", path=f"{where}.level", problem=f"is {_kind(item['level'])},"
                      " not a level word; ignored", hint=f"Write one of {_LEVELS_ALLOWED}.")
        severity, native = self._severity(item, rule, kind, finding_id)
        description = self._message(item, rule, where)
        title = _str(_dict(rule.get("shortDescription")).get("text"))
        if title is not None and _TEMPLATE_HOLE.search(title) and description:
            # ruff's "`{name}` imported but unused": a template, not this result's words
            title = description.split("\n", 1)[0][:200]
        title = title or _str(rule.get("name")) or rule_id
        props = _dict(item.get("properties"))
        return build(Finding,
            id=finding_id, severity=severity, native_severity=native, type=rule_id,
            title=title, location=self._location(_list(item.get("locations"))),
            counter_location=None, description=description,
            impact=_str(props.get("impact")),
            suggestion=_str(props.get("suggestion")) or _fix(item.get("fixes")),
            confidence=_confidence(props.get("confidence")), agent=None, line=None,
        )

    def _severity(self, item: dict[str, Any], rule: dict[str, Any], kind: str,
                  finding_id: str) -> tuple[Severity, str | None]:
        written = _str(item.get("level"))
        if written is None:
            written = _str(_dict(rule.get("defaultConfiguration")).get("level"))
        if written is None:  # SARIF's own default, not a gap in the log
            return (MAJOR if kind.lower() == "fail" else MINOR), None
        word = written.strip()
        if word in LEVEL_SEVERITY:
            return LEVEL_SEVERITY[word], written
        key = word.lower()
        severity = LEVEL_SEVERITY.get(key) or _LEVEL_WORDS.get(key)
        if severity is None:
            self.diag("SARP203", written=written, id=finding_id, canonical=MAJOR.value,
                      allowed=_LEVELS_ALLOWED)
            return MAJOR, written
        if written not in self.seen_words:
            self.seen_words.add(written)
            if key in LEVEL_SEVERITY:
                self.diag("SARP201", written=written, canonical=severity.value,
                          allowed=_LEVELS_ALLOWED)
            else:
                self.diag("SARP202", written=written, canonical=severity.value,
                          scale="SARIF level", allowed=_LEVELS_ALLOWED)
        return severity, written

    def _message(self, item: dict[str, Any], rule: dict[str, Any], where: str) -> str | None:
        message = item.get("message")
        if isinstance(message, str):
            self.diag("SARP405", path=f"{where}.message", problem="is a string, not an object;"
                      " read as its text", hint='Write the message as {"text": "..."}.')
            return message.strip() or None
        message = _dict(message)
        arguments = _list(message.get("arguments"))
        text = _str(message.get("text")) or _str(message.get("markdown"))
        if text is None:
            key = _str(message.get("id"))
            if key is not None:
                for strings in (rule.get("messageStrings"),
                                self.driver.get("globalMessageStrings")):
                    entry = _dict(_dict(strings).get(key))
                    text = _str(entry.get("text")) or _str(entry.get("markdown"))
                    if text is not None:
                        break
                if text is None:
                    self.diag("SARP405", path=f"{where}.message.id", problem=f"{key!r} is in"
                              " no messageStrings; the id is kept as the description",
                              hint="Define every message id in the rule's messageStrings.")
                    text = key
            else:
                self.diag("SARP405", path=f"{where}.message", problem="has no text",
                          hint="Give every result a message text.")
                return None
        return _format(text, arguments) if arguments else text

    def _location(self, locations: list[Any]) -> Location | None:
        placed: list[Location] = []
        logical_only: Location | None = None
        for value in locations:
            loc = self.places.location(_dict(value))
            if loc is None:
                continue
            if loc.path is not None:
                placed.append(loc)
            elif logical_only is None:
                logical_only = loc
        if not placed:
            return logical_only
        first = placed[0]
        if len(placed) > 1:
            first.extra = placed[1:]
        return first


def _suppressed(value: Any) -> bool:
    # Suppressed when some suppression stands (accepted, or no status given) and none
    # was rejected or is still under review (SARIF §3.27.23, §3.35.3).
    statuses = [_dict(s).get("status") for s in _list(value)]
    if not statuses:
        return False
    if any(status in ("rejected", "underReview") for status in statuses):
        return False
    return any(status in (None, "accepted") for status in statuses)


def _fix(value: Any) -> str | None:
    for fix in _list(value):
        text = _str(_dict(_dict(fix).get("description")).get("text"))
        if text:
            return text
    return None


def _confidence(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if not math.isfinite(number):
        return None
    if 0 < number < 1 and isinstance(value, float):
        number *= 100  # 0.9 is a share, as sarp reads `0.9` in replies
    return number if 0 <= number <= 100 else None


class _Rules:
    """The rules a result can point at: by ruleIndex, by `rule` (index, id, tool
    component), by ruleId, and by the leading parts of a hierarchical ruleId."""

    def __init__(self, driver: dict[str, Any], extensions: list[dict[str, Any]]) -> None:
        self.driver = [_dict(r) for r in _list(driver.get("rules"))]
        self.extensions = [[_dict(r) for r in _list(e.get("rules"))] for e in extensions]
        self.names = [_str(e.get("name")) for e in extensions]
        self.by_id: dict[str, dict[str, Any]] = {}
        for rules in (self.driver, *self.extensions):
            for rule in rules:
                rule_id = _str(rule.get("id"))
                if rule_id is not None:
                    self.by_id.setdefault(rule_id, rule)

    def find(self, item: dict[str, Any]) -> dict[str, Any]:
        ref = _dict(item.get("rule"))
        rules = self.driver
        component = _dict(ref.get("toolComponent"))
        if component:
            index = _int(component.get("index"))
            name = _str(component.get("name"))
            if index is not None and 0 <= index < len(self.extensions):
                rules = self.extensions[index]
            elif name is not None and name in self.names:
                rules = self.extensions[self.names.index(name)]
        for index in (_int(ref.get("index")), _int(item.get("ruleIndex"))):
            if index is not None and 0 <= index < len(rules):
                return rules[index]
        rule_id = _str(item.get("ruleId")) or _str(ref.get("id"))
        if not rule_id:
            return {}
        if rule_id in self.by_id:
            return self.by_id[rule_id]
        # `CA5350/md5` is a case of rule CA5350: the id's leading parts, longest first
        # (a few levels only, so a hostile `a/a/a/...` id costs one pass, not one per `/`)
        parts = rule_id.split("/")
        shortest = range(min(len(parts) - 1, _RULE_LEVELS), 0, -1)
        longest = range(len(parts) - 1, max(len(parts) - 1 - _RULE_LEVELS, 0), -1)
        for count in sorted(set(shortest) | set(longest), reverse=True):
            prefix = "/".join(parts[:count])
            if prefix in self.by_id:
                return self.by_id[prefix]
        return {}


class _Places:
    """Paths from artifact locations, with the run's base ids and roots."""

    def __init__(self, run: dict[str, Any]) -> None:
        self.bases = _dict(run.get("originalUriBaseIds"))
        self.artifacts = _list(run.get("artifacts"))
        roots: list[str] = []
        for invocation in _list(run.get("invocations")):
            uri = _str(_dict(_dict(invocation).get("workingDirectory")).get("uri"))
            if uri:
                roots.append(uri)
        for base in self.bases.values():
            uri = _str(_dict(base).get("uri"))
            if uri:
                roots.append(uri)
        # absolute directories a path may be made relative to, longest first
        paths = (_path_of(uri) for uri in roots)
        self.roots = sorted({p.rstrip("/") + "/" for p in paths if _absolute(p)},
                            key=len, reverse=True)

    def location(self, value: dict[str, Any]) -> Location | None:
        physical = _dict(value.get("physicalLocation"))
        artifact = _dict(physical.get("artifactLocation"))
        stand_in = _dict(value.get("properties")).get("sarp/location") == "reply"
        uri = None if stand_in else self._uri(artifact)
        path = self._path(uri) if uri is not None else None
        line = end = None
        if path is not None:
            region = _dict(physical.get("region"))
            line = _line(region.get("startLine"))
            end = _line(region.get("endLine"))
            if line is None or (end is not None and end <= line):
                end = None
        section = symbol = None
        for logical in _list(value.get("logicalLocations")):
            logical = _dict(logical)
            name = _str(logical.get("fullyQualifiedName")) or _str(logical.get("name"))
            if name is None:
                continue
            if logical.get("kind") == "section":
                section = section or name
            else:
                symbol = symbol or name
        if path is None and section is None and symbol is None:
            return None
        raw = uri or ""
        if line is not None:
            raw += f":{line}" + (f"-{end}" if end is not None else "")
        if section:
            raw = f"{raw} § {section}" if raw else section
        if symbol:
            raw = f"{raw} ({symbol})" if raw else symbol
        return build(Location, raw=raw, path=path, line=line, end_line=end, section=section,
                     symbol=symbol, extra=[])

    def _uri(self, artifact: dict[str, Any]) -> str | None:
        uri = _str(artifact.get("uri"))
        if uri is None:
            index = _int(artifact.get("index"))
            if index is not None and 0 <= index < len(self.artifacts):
                target = _dict(_dict(self.artifacts[index]).get("location"))
                uri = _str(target.get("uri"))
                artifact = {**artifact, "uriBaseId": target.get("uriBaseId")}
        if uri is None:
            return None
        base_id = _str(artifact.get("uriBaseId"))
        if base_id is not None and not _SCHEME.match(uri) and not uri.startswith("/"):
            prefix = self._base(base_id)
            if prefix:
                uri = prefix + uri
        return uri

    def _base(self, base_id: str) -> str:
        """The relative prefix a base id stands for. An absolute base is where the scanner
        ran, not part of the path findings name (agents write `src/x.py`), so it adds
        nothing; a relative one (`src/`) is part of the path."""
        prefix = ""
        for _ in range(_BASE_DEPTH):
            base = _dict(self.bases.get(base_id))
            uri = _str(base.get("uri"))
            if uri is None or _SCHEME.match(uri) or uri.startswith("/"):
                return prefix
            prefix = uri.rstrip("/") + "/" + prefix
            parent = _str(base.get("uriBaseId"))
            if parent is None:
                return prefix
            base_id = parent
        return prefix

    def _path(self, uri: str) -> str | None:
        path = _path_of(uri)
        if _absolute(path):
            for root in self.roots:
                if path.startswith(root) and len(path) > len(root):
                    path = path[len(root):]
                    break
        return path or None


def _absolute(path: str) -> bool:
    return path.startswith("/") or _DRIVE.match(path) is not None


def _path_of(uri: str) -> str:
    """A file path from a URI reference: `file://` and percent-encoding undone, `/`
    separators, no leading `./`. Other schemes (https://...) are kept as written."""
    text = uri.strip()
    if text[:5].lower() == "file:":
        text = text[5:]
        if text.startswith("//"):
            rest = text[2:]
            if rest.startswith("/"):
                text = rest
            elif rest.lower().startswith("localhost/"):
                text = rest[9:]
            else:
                text = "//" + rest  # file://server/share: a UNC path
        text = unquote(text)
        if _DRIVE.match(text) and text.startswith("/"):
            text = text[1:]  # file:///C:/x -> C:/x
    elif _SCHEME.match(text) and not _DRIVE.match(text):
        return text
    else:
        text = unquote(text)
    text = text.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text
