# JSON replies: an object in sarp's canonical shape or close to it (SPEC §4 "json").
#
# Strategy:
# - Find the object: the reply itself, a fenced ```json block, or the span from the first
#   `{` to the last `}` with prose around it (reported).
# - Decode with the stdlib; when that fails, repair in one linear pass that tracks string
#   state: drop // and /* */ comments, trailing commas, Python literals, single-quoted
#   strings; a reply cut off inside the object is closed (and read as truncated).
# - Map keys to the model by a table of aliases (`type` -> result_type, `file`+`line` ->
#   location, `body` -> description, confidence 0-1 -> 0-100, ...); each alias used is
#   reported, unknown keys go to `fields`.
from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any, Final, NamedTuple

from sarp.dialects.base import Builder, RawFinding
from sarp.dialects.prose import read_findings_after
from sarp.model import Result, Severity, Status
from sarp.text import jsontext
from sarp.text.lines import PLAIN, Document
from sarp.vocab import STATUS, StatusVocab, normalise_word

__all__ = ["JSON", "JsonDialect", "decode_object", "find_object"]

SEVERITIES: Final = {"critical": Severity.CRITICAL, "major": Severity.MAJOR,
                     "minor": Severity.MINOR}
RESULT_KEYS: Final = {
    "status": "status", "verdict": "status", "outcome": "status", "result": "status",
    "result_type": "result_type", "type": "result_type", "kind": "result_type",
    "agent": "agent", "agent_name": "agent", "reviewer": "agent",
    "summary": "summary", "overview": "summary",
    "confidence": "confidence",
    "findings": "findings", "issues": "findings", "problems": "findings",
    "metrics": "metrics", "metadata": "metadata", "checklist": "checklist",
    "references": "references", "next_steps": "next_steps", "blockers": "blockers",
    "next": "next", "blocked_reason": "blocked_reason", "blocked_target": "blocked_target",
    "current_task": "current_task", "fields": "fields",
}
FINDING_KEYS: Final = {
    "id": "id", "severity": "severity", "level": "severity", "priority": "severity",
    "sev": "severity", "where": "location", "loc": "location", "what": "description",
    "issue": "description", "problem": "description", "msg": "description", "text": "description",
    "summary": "title", "finding": "description", "remediation": "suggestion",
    "type": "type", "category": "type", "rule": "type", "kind": "type",
    "title": "title", "name": "title", "headline": "title",
    "location": "location", "locations": "location", "file": "file", "path": "file",
    "filename": "file", "file_name": "file", "file_path": "file", "filepath": "file",
    "affected_file": "file", "source_file": "file", "uri": "file",
    "line": "line", "line_number": "line", "lineno": "line", "line_no": "line",
    "line_num": "line", "start_line": "line", "line_start": "line", "lines": "lines",
    "line_range": "lines", "end_line": "end_line", "line_end": "end_line",
    "column": "column", "col": "column", "start_column": "column", "end_column": "column",
    "counter_location": "counter_location", "rule_id": "type",
    "description": "description", "body": "description", "message": "description",
    "detail": "description", "details": "description", "defect": "description",
    "explanation": "description", "rationale": "description", "evidence": "description",
    "impact": "impact", "risk": "impact", "consequence": "impact", "effect": "impact",
    "suggestion": "suggestion", "fix": "suggestion", "suggested_fix": "suggestion",
    "recommendation": "suggestion", "proposed_fix": "suggestion", "mitigation": "suggestion",
    "how_to_fix": "suggestion", "recommended_fix": "suggestion",
    "confidence": "confidence", "agent": "agent",
}
# What the json dialect's JSON Schema (`sarp schema --dialect json`) requires: a reply
# without one of these is read, but never as conformant, so lint and the schema agree.
# (A missing status and a missing location have diagnostics of their own.)
REQUIRED_REPLY_KEYS: Final = ("status", "summary", "findings")
REQUIRED_FINDING_KEYS: Final = ("id", "severity", "location", "description")
_CHECKED_HERE: Final = frozenset({"id", "severity", "description"})
# Fields that hold prose: a second key for one of them adds to it instead of replacing it.
_PROSE: Final = frozenset({"description", "impact", "suggestion"})
# what a finding's place is written with; read together once every key is seen
_PLACE: Final = frozenset({"file", "line", "lines", "end_line", "column"})
_MAX_RANGES: Final = 64  # ranges read from one finding's line keys
_RANGE_TEXT: Final = re.compile(r"[~(\s]*(?:approx\.?\s?|about\s|lines?\s?)?L?(\d{1,9})(?:\.0)?"
                                r"(?:\s?(?:[-–]|to)\s?L?(\d{1,9}))?", re.IGNORECASE)
_RANGE_PARTS: Final = re.compile(r"[,;]| and ")
_IGNORED: Final = frozenset({"dialect", "native_status", "conformance", "delivery",
                             "diagnostics", "raw", "id"})
_CLOSERS: Final = {"{": "}", "[": "]"}


def object_start(text: str) -> int:
    """Offset of the first line that opens a JSON object (`{` first on the line), or -1."""
    if text.lstrip().startswith("{"):
        return text.find("{")
    at = text.find("\n{")
    return at + 1 if at >= 0 else -1


_DECODER: Final = json.JSONDecoder()


def find_object(text: str) -> tuple[int, int] | None:
    """[start, end) of the outermost `{...}` span, or None.

    When what follows the last `}` still looks like JSON (`,`, `{`, `"`, `[`), the object
    was cut off after that brace: the span then runs to the end of the text.
    """
    start = text.find("{")
    if start < 0:
        return None
    try:  # valid JSON ends where its first object closes, whatever follows it
        return start, _DECODER.raw_decode(text, start)[1]
    except (ValueError, RecursionError):
        pass  # not valid as written: the span runs to the last closing brace
    end = text.rfind("}")
    if end <= start:
        return start, len(text)
    rest = text[end + 1 :].lstrip()
    if rest[:1] in (",", "{", '"', "[", ":"):
        return start, len(text.rstrip().removesuffix("```").rstrip())
    return start, end + 1


_MAX_DEPTH: Final = 64  # nesting kept; a value deeper is cut (no finding is that deep)
_STRING_OR_BRACKET: Final = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
_ESCAPED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _depth(text: str) -> int:
    """How deep `text`'s brackets nest outside strings, by one scan over its strings and
    brackets only (for the depth check before decoding: the stdlib decoder recurses,
    and pydantic refuses deep values). Few brackets in all cannot nest deep."""
    if text.count("[") + text.count("{") <= _MAX_DEPTH:
        return 0
    depth = deepest = 0
    for token in _STRING_OR_BRACKET.findall(text):
        if token in ("{", "["):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("}", "]"):
            depth -= 1
    return deepest


def _skip_value(text: str, i: int) -> int:
    """The index after the bracketed value that opens at `i` (or the end of the text)."""
    depth = 0
    quote = ""
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _repair(text: str) -> tuple[str, list[str], bool]:
    """One pass: comments, trailing commas, quotes, literals, raw control characters in
    strings, values nested too deep; close what is left open."""
    out: list[str] = []
    fixes: set[str] = set()
    stack: list[str] = []
    i, n = 0, len(text)
    quote = ""
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == quote:
                out.append('"')
                quote = ""
            elif ch == '"' and quote == "'":
                out.append('\\"')
            elif ch < " ":  # a raw newline or tab in a string: the commonest LLM breakage
                out.append(_ESCAPED.get(ch) or f"\\u{ord(ch):04x}")
                fixes.add("control characters in strings")
            else:
                out.append(ch)
            i += 1
            continue
        if ch in "\"'":
            if ch == "'":
                fixes.add("single quotes")
            quote = ch
            out.append('"')
        elif ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            fixes.add("comments")
            continue
        elif ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            fixes.add("comments")
            continue
        elif ch in "{[" and len(stack) >= _MAX_DEPTH:
            out.append('"(cut: nested too deep)"')
            fixes.add(f"values nested deeper than {_MAX_DEPTH} levels cut")
            i = _skip_value(text, i)
            continue
        elif ch in "{[":
            stack.append(ch)
            out.append(ch)
        elif ch in "}]":
            # drop a trailing comma before the closer
            j = len(out) - 1
            while j >= 0 and out[j] in (" ", "\n", "\t", "\r"):
                j -= 1
            if j >= 0 and out[j] == ",":
                del out[j]
                fixes.add("trailing commas")
            if stack:
                stack.pop()
            out.append(ch)
        elif ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            replacement = {"True": "true", "False": "false", "None": "null"}.get(word)
            if replacement is not None:
                fixes.add("Python literals")
                word = replacement
            out.append(word)
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    truncated = bool(quote or stack)
    if quote:
        out.append('"')
    if stack:
        while out and out[-1] in (" ", "\n", "\t", ",", ":"):
            out.pop()
        out.extend(_CLOSERS[c] for c in reversed(stack))
    return "".join(out), sorted(fixes), truncated


def decode_object(text: str) -> tuple[Any, list[str], bool]:
    """(value, repairs applied, truncated); value is None when nothing decodes."""
    if _depth(text) <= _MAX_DEPTH:
        try:
            return jsontext.loads(text), [], False
        except (ValueError, RecursionError):
            pass  # not valid as written: fall through to the repairing scanner
    repaired, fixes, truncated = _repair(text)
    try:
        return jsontext.loads(repaired), fixes, truncated
    except (ValueError, RecursionError):
        return None, fixes, truncated


class _Candidate(NamedTuple):
    """Text that may hold the JSON reply: a fence's body, or the reply from a `{` line."""

    open_at: int  # the fence's opening line, or -1
    close_at: int  # the fence's closing line (-1: never closed)
    declared: bool  # in a fence marked json
    text: str
    base_line: int  # the line `text` starts on


def _candidates(doc: Document) -> Iterator[_Candidate]:
    """In the order of the reply: the reply itself when it opens with `{`, fences marked
    json or opening with `{`, and the first few lines outside fences that open with `{`
    (each such candidate runs to the end of the reply)."""
    src = doc.src
    if src.lstrip().startswith("{"):
        start = src.index("{")
        yield _Candidate(-1, -1, False, src[start:], src.count("\n", 0, start))
        return
    fences = {open_at: (close_at, info) for open_at, close_at, info in doc.fences}
    loose = 0
    offset = 0
    for i, line in enumerate(doc.lines):
        if i in fences:
            close_at, info = fences[i]
            declared = info.lower() in ("json", "jsonc", "json5")
            if declared or (close_at > i + 1 and doc.lines[i + 1].lstrip().startswith("{")):
                end = close_at if close_at >= 0 else len(doc.lines)
                yield _Candidate(i, close_at, declared, "\n".join(doc.lines[i + 1 : end]), i + 1)
        elif line.startswith("{") and doc.kinds[i] == PLAIN and loose < _LOOSE_CANDIDATES:
            loose += 1
            yield _Candidate(-1, -1, False, src[offset:], i)
        offset += len(line) + 1


_LOOSE_CANDIDATES: Final = 3  # each reads to the end of the reply: a bound keeps it linear


def _reply_object(doc: Document, vocab: StatusVocab) -> tuple[_Candidate, bool] | None:
    """The first candidate that reads as the reply's result (True), else the first one
    (False). A findings list makes an object the result wherever it sits (a title above
    it, scope notes below it); a status alone only when the object opens the reply or
    almost nothing surrounds it (`{"status": "ERROR", "code": ...}` quoted in a review is
    an API's answer)."""
    first: _Candidate | None = None
    opens = doc.src.lstrip().startswith("{")
    outside = _Outside(doc)
    for candidate in _candidates(doc):
        first = first or candidate
        span = find_object(candidate.text)
        if span is None:
            continue
        strength = _result_strength(decode_object(candidate.text[span[0]:span[1]])[0], vocab)
        if strength == 2 or (strength == 1 and (opens or outside.little(candidate))):
            return candidate, True
    return (first, False) if first is not None else None


class _Outside:
    """What lies around a candidate: a short lead-in and at most a short sign-off make
    a small object the reply; a review around it (headings, lists, prose after it) makes
    it a sample. Counted once per reply, so thousands of fences stay linear."""

    def __init__(self, doc: Document) -> None:
        self.lines = doc.lines
        self.nonblank = [i for i, line in enumerate(doc.lines) if line.strip()]
        self.structured = any(doc.kinds[i] == PLAIN and doc.lines[i].lstrip()[:1] in
                              ("#", "-", "*", "|") for i in self.nonblank)

    def little(self, candidate: _Candidate) -> bool:
        if self.structured:
            return False
        first = candidate.open_at if candidate.open_at >= 0 else candidate.base_line
        last = candidate.close_at if candidate.open_at >= 0 and candidate.close_at >= 0 \
            else len(self.lines) - 1
        before = bisect_left(self.nonblank, first)
        k = bisect_right(self.nonblank, last)
        after = [self.lines[i] for i in self.nonblank[k:k + 2]]
        return before <= _SIGN_OFF_LINES and (not after or (
            len(after) == 1 and len(after[0]) < 80 and ":" not in after[0]))


_SIGN_OFF_LINES: Final = 3


def _result_strength(value: Any, vocab: StatusVocab) -> int:
    """2: an object with findings (or issues), or a status beside other result keys; 1: a
    status word of the protocol alone, or an empty findings list; 0: not a result."""
    if not isinstance(value, dict):
        return 0
    keys = {RESULT_KEYS.get(key_name(key)): item for key, item in value.items()}
    findings = keys.get("findings")
    status = keys.get("status")
    if not (isinstance(status, str) and vocab.read(status)[0] is not None):
        status = None
    if isinstance(findings, list) and (findings or (
            status is not None and vocab.read(status)[1] == "canonical")):
        return 2  # (`{"findings": [], "status": "ok"}` in a review is a sample)
    if status is not None:  # (an empty findings list adds nothing to a status)
        return 2 if keys.keys() - {None, "status", "findings"} else 1
    return 1 if isinstance(findings, list) else 0  # (`{"findings": []}` alone is weak)


class JsonDialect:
    name = "json"
    severities = SEVERITIES
    case_sensitive = True

    def __init__(self) -> None:
        self.vocab = STATUS["json"]

    def detect(self, doc: Document) -> int:
        src = doc.src
        if src.lstrip().startswith("{"):  # a reply that opens with `{` is JSON, however loose
            return 70 if '"status"' in src or '"findings"' in src else 40
        found = _reply_object(doc, self.vocab)
        if found is None:
            return 0
        candidate, is_result = found
        if is_result:
            return 70 if candidate.declared or candidate.base_line < 20 else 35
        # an object a review quotes (`{"__proto__": 1}`, `{ boolean: ['v'] }`, `{}`) is
        # sample code; a ```json fence with little around it may still be a reply in other
        # words
        return 45 if candidate.declared and _Outside(doc).little(candidate) else 0

    def parse(self, b: Builder) -> None:
        b.envelope_name = "JSON object"
        doc = b.doc
        text = doc.src
        base_line = 0
        found = _reply_object(doc, self.vocab)
        if found is not None:
            candidate = found[0]
            text, base_line = candidate.text, candidate.base_line
            if candidate.open_at >= 0:
                b.diag("SARP005", candidate.open_at, what="JSON object",
                       open=candidate.open_at + 1)
            if candidate.open_at >= 0 and candidate.close_at < 0:
                b.truncated("the code fence around the JSON is never closed",
                            len(doc.lines) - 1)
        span = find_object(text)
        if span is None:
            return
        before = doc.src[: len(doc.src) - len(text)] if found and found[0].open_at < 0 else ""
        if before.strip() or text[: span[0]].strip() or text[span[1] :].strip():
            b.diag("SARP404", base_line + text.count("\n", 0, span[0]),
                   what="text around the JSON object ignored")
        value, fixes, truncated = decode_object(text[span[0] : span[1]])
        if fixes:
            b.diag("SARP404", base_line + text.count("\n", 0, span[0]), what=", ".join(fixes))
        if truncated:
            b.truncated("the JSON object is never closed", doc.last_nonblank())
        if not isinstance(value, dict):
            return
        b.envelope = True
        b.closing_seen = not truncated
        start_line = base_line + text.count("\n", 0, span[0])
        value = read_object(b, value, start_line,
                            item_lines(text[span[0] : span[1]], start_line))
        # Markdown findings after the object (or after its fence) are the reply's too
        after = base_line + text.count("\n", 0, span[1]) + 1
        if found is not None and found[0].open_at >= 0:
            after = found[0].close_at + 1 if found[0].close_at >= 0 else len(doc.lines)
        read_findings_after(b, after, "JSON object")
        if b.status_word is None:
            _without_status(b, value, start_line)
        if "summary" not in {RESULT_KEYS.get(key_name(key)) for key in value}:
            b.diag("SARP401", start_line, dialect="json", part="summary",
                   hint="Say in two or three sentences what was done and found.")

    def render(self, result: Result) -> str:
        data = result.model_dump(mode="json", exclude={
            "raw", "diagnostics", "conformance", "native_status", "id", "dialect", "delivery"})
        for finding in data["findings"]:
            finding.pop("native_severity", None)
            finding.pop("line", None)
        for item in data["checklist"]:
            item.pop("native_status", None)
        data = {k: v for k, v in data.items() if v not in (None, [], {})}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_SAYS_NONE: Final = re.compile(
    r"(?:none|nothing|n/?a|null|[-—–]|no (?:[\w-]+ ){0,2}(?:issues|findings|problems|"
    r"vulnerabilities|bugs|concerns|defects))?(?: (?:found|identified|detected|to report|"
    r"reported))?(?: in [^.]{0,80})?[.!]?", re.IGNORECASE)
# keys with which a failed agent or tool says what went wrong instead of reporting
_ERROR_KEYS: Final = ("error", "errors", "error_message", "exception", "failure", "fault")


def _says_an_error(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip()) and not _SAYS_NONE.fullmatch(value.strip())
    if isinstance(value, dict):
        return any(_says_an_error(value.get(key)) for key in ("message", "text", "detail"))
    return False


def _without_status(b: Builder, obj: dict[str, Any], line: int) -> None:
    """A JSON object with no status: an error payload (`{"error": "rate limit exceeded"}`)
    is an ERROR; an object with no findings either (`{}`, `{"note": ...}`) says nothing
    of a review, so the missing-summary policy decides; with findings, their count does.
    Each is reported, so such an object is never a conformant CLEAN review."""
    named = {key_name(key): value for key, value in obj.items()}
    # an error key says the agent failed only with a message (not `"errors": 0`,
    # `"error": "none"`), and never beside findings it read
    error = next((named[key] for key in _ERROR_KEYS if _says_an_error(named.get(key))), None)
    if error is not None and not b.findings:
        b.status_override = Status.ERROR
        b.summary = b.summary or _text(error)
        b.diag("SARP405", line, path="status", problem="missing; the object reports an error, "
               "so the status is ERROR", hint="Give the status ERROR and say why in the summary.")
    elif not any(RESULT_KEYS.get(key) == "findings" for key in named):
        b.status_override = b.missing_status()
        b.diag("SARP401", line, dialect="json", part="status and no findings",
               hint='Answer with {"status": ..., "findings": [...]}, even when there is '
                    'nothing to report.')
    else:
        b.diag("SARP401", line, dialect="json", part="status; read from the findings",
               hint='Give the status ("FINDINGS" or "CLEAN") beside the findings.')


def item_lines(text: str, first_line: int) -> list[int]:
    """0-based line of each object directly inside the first array of `text`'s top-level
    object (the findings list), by one scan that tracks strings and depth."""
    lines: list[int] = []
    depth = 0
    line = first_line
    quote = ""  # the quote that opened the string we are in, if any
    escaped = in_array = False
    for ch in text:
        if ch == "\n":
            line += 1
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
            if ch == "[" and depth == 2 and not lines and not in_array:
                in_array = True
            elif ch == "{" and depth == 3 and in_array:
                lines.append(line)
        elif ch in "}]":
            depth -= 1
            if in_array and depth < 2:
                break
    return lines


def read_object(b: Builder, obj: dict[str, Any], line: int,
                lines: list[int] | None = None) -> dict[str, Any]:
    """Map one decoded object onto the builder (aliases reported, leftovers in fields).

    `lines` gives the line of each finding object where the scan found them."""
    obj = _findings_under_other_keys(b, obj, line)
    for key, value in obj.items():
        target = RESULT_KEYS.get(key_name(key))
        if key in _IGNORED:
            continue
        if target is None:
            b.fields[str(key)] = value
            continue
        if target != key:
            b.diag("SARP408", line, written=key, canonical=target)
        _assign(b, target, value, line, lines or [])
    return obj


# keys that name problems: a list of finding-shaped objects under one is findings
_PROBLEM_KEYS: Final = frozenset({
    "vulnerabilities", "vulns", "bugs", "defects", "errors", "warnings", "risks", "concerns",
    "violations", "alerts", "weaknesses", "flaws", "smells", "code_smells", "issues_found",
    "problems_found", "security_issues", "bugs_found", "defects_found", "findings_list",
    "review_findings", "gaps", "regressions", "failures", "failed_checks", "failed_tests"})
# keys a finding object is known by: two of them make an object finding-shaped
_FINDING_SIGNS: Final = frozenset({"severity", "location", "file", "line", "description",
                                   "title", "suggestion", "impact"})


def _confidence(b: Builder, value: Any, path: str, line: int) -> float | None:
    """A confidence as 0-100, or None with SARP405 when the value gives none."""
    if value is None:
        return None
    number = b.confidence_from(str(value))
    if number is None:
        b.diag("SARP405", line, path=path, problem=f"{_text(value)[:40]} is no confidence"
               " from 0 to 100 (or 0 to 1); ignored", hint="Give confidence as 0-100.")
    return number


def _finding_shaped(value: Any) -> bool:
    """A list of objects that look like findings (`"vulnerabilities": [{"title": ...,
    "severity": ...}]`), judged by its first few items."""
    if not isinstance(value, list) or not value:
        return False
    head = value[:8]
    return all(isinstance(item, dict) for item in head) and all(
        len({FINDING_KEYS.get(key_name(key)) for key in item} & _FINDING_SIGNS) >= 2
        for item in head)


def _is_rank(key: object) -> bool:
    from sarp.dialects.prose import SEVERITY_WORDS  # (prose imports this module)

    return normalise_word(str(key)) in SEVERITY_WORDS


def _findings_under_other_keys(b: Builder, obj: dict[str, Any], line: int) -> dict[str, Any]:
    """`obj` with findings that sit under keys that name problems (`vulnerabilities`) or
    ranks (`critical`) moved to `findings`, each key said: never a CLEAN reply that hides
    them. Other lists shaped like findings (`checks`) stay in fields, said too."""
    if any(RESULT_KEYS.get(key_name(key)) == "findings" for key in obj):
        return obj
    found: list[str] = []
    for key, value in obj.items():
        name = key_name(key)
        if RESULT_KEYS.get(name) is not None or not _finding_shaped(value):
            continue
        if name in _PROBLEM_KEYS or _is_rank(key):
            found.append(key)
        else:  # `"checks": [...]`: objects shaped like findings, but maybe good news
            b.diag("SARP405", line, path=str(key), problem="holds objects shaped like findings"
                   "; kept in fields, not read as findings",
                   hint="Put what is wrong under findings, each with its severity.")
    if not found:
        return obj
    for key in found:
        b.diag("SARP408", line, written=key, canonical="findings")
    moved = {key: value for key, value in obj.items() if key not in found}
    moved["findings"] = _flat_findings(b, {key: obj[key] for key in found}, line)
    return moved


def _flat_findings(b: Builder, value: Any, line: int) -> Any:
    """Findings in groups as one list: groups by rank (`{"critical": [...]}`, each item
    keeping its group's severity) or by problem key (from `_findings_under_other_keys`),
    or nested lists (`[[{...}], [{...}]]`). Anything else is returned as it is."""
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        if not all(map(_is_rank, value)):  # (`{"security": [...], "docs": [...]}`)
            if not all(key_name(key) in _PROBLEM_KEYS for key in value):
                b.diag("SARP405", line, path="findings", problem="is grouped by "
                       f"{', '.join(map(str, value))}; read as one list",
                       hint="Write findings as one list of objects.")
            return [item for items in value.values() for item in items]
        b.diag("SARP405", line, path="findings", problem="is grouped by severity; read as"
               " one list", hint="Write findings as one list, each with its severity.")
        return [{"severity": key, "description": item} if isinstance(item, str) else
                {"severity": key, **item} if isinstance(item, dict) and not any(
                    FINDING_KEYS.get(key_name(k)) == "severity" for k in item) else item
                for key, items in value.items() for item in items]
    if isinstance(value, list) and any(isinstance(item, list) for item in value):
        b.diag("SARP405", line, path="findings", problem="holds lists; read as one list",
               hint="Write findings as one list of objects.")
        return [inner for item in value
                for inner in (item if isinstance(item, list) else [item])]
    return value


def _assign(b: Builder, target: str, value: Any, line: int, lines: list[int]) -> None:
    if target == "status":
        if isinstance(value, str):
            b.set_status(value, line)
        else:
            b.diag("SARP405", line, path="status", problem=f"{value!r} is not a string",
                   hint="Write the status as a string.")
    elif target == "findings":
        value = _flat_findings(b, value, line)
        if not isinstance(value, list):
            b.diag("SARP405", line, path="findings", problem="is not a list",
                   hint="Write findings as a list of objects.")
            value = [value] if value else []
        _missing_keys(b, value, line)
        for n, item in enumerate(value):
            if isinstance(item, str) and _SAYS_NONE.fullmatch(item.strip()):
                # `"findings": "None found"`, `[""]`: a clean reply's words, not a finding
                b.diag("SARP405", line, path=f"findings[{n}]",
                       problem=f"{item!r} says there is nothing; no finding read",
                       hint="Write an empty list when there is nothing to report.")
                continue
            _finding(b, item, n, lines[n] if n < len(lines) else line)
        b.recovered = True
    elif target == "confidence":
        b.confidence = _confidence(b, value, "confidence", line)
    elif target in ("metrics", "metadata", "fields"):
        if isinstance(value, dict):
            getattr(b, target).update(value)
        else:
            b.fields[target] = value
    elif target in ("next_steps", "blockers"):
        items = value if isinstance(value, list) else [value]
        getattr(b, target).extend(str(v) for v in items if v is not None)
    elif target in ("checklist", "references"):
        _records(b, target, value, line)
    else:
        setattr(b, target, None if value is None else str(value))


def _records(b: Builder, target: str, value: Any, line: int) -> None:
    from sarp.dialects.common import checklist_status
    from sarp.model import ChecklistItem, Reference, build
    from sarp.text.locations import parse_location

    if not isinstance(value, list):
        b.fields[target] = value
        return
    for item in value:
        if not isinstance(item, dict):
            b.diag("SARP405", line, path=target, problem=f"item {item!r} is not an object",
                   hint="Write each item as an object.")
            continue
        if target == "checklist":
            status = checklist_status(b, str(item.get("status", "")), str(item.get("item")),
                                      line)
            b.checklist.append(build(ChecklistItem,
                item=str(item.get("item", "")), status=status,
                native_status=item.get("status"), notes=item.get("notes")))
        else:
            loc = item.get("location")
            b.references.append(build(Reference,
                item=str(item.get("item", "")),
                location=_location(loc) if isinstance(loc, dict) else parse_location(
                    str(loc)) if loc else None,
                relevance=item.get("relevance")))


def _location(value: dict[str, Any]) -> Any:
    from sarp.model import Location, build
    from sarp.text.locations import parse_location

    raw = value.get("raw")
    if isinstance(raw, str) and raw:
        return parse_location(raw)
    # `{"filePath": "a.py", "lineNumber": 9}`: the keys in any spelling a finding's are
    named: dict[str, Any] = {}
    for key, item in value.items():
        name = key_name(key)
        named.setdefault(FINDING_KEYS.get(name, name), item)
    text = _place_text(named.get("file"), named.get("line"), named.get("lines"),
                       named.get("end_line"))
    section = named.get("section")
    if section:
        text = f"{text} § {section}" if text else str(section)
    return parse_location(text) if text else build(Location,
        raw="", path=None, line=None, end_line=None, section=None, symbol=None, extra=[])


def _place_text(file: Any, line: Any, lines: Any, end: Any) -> str:
    """A location cell from a finding's place keys: `a.py:29-31, 65`, or `line 9` when
    no file is named (the line is kept even so)."""
    ranges, note = _line_ranges(line, lines, end)
    if file is None or not str(file).strip():
        return f"line {', '.join(ranges)}" if ranges else (f"line {note}" if note else "")
    return f"{file}:{', '.join(ranges)}" if ranges else (
        f"{file} ({note})" if note else str(file))


def _line_ranges(line: Any, lines: Any, end: Any) -> tuple[list[str], str]:
    """The line ranges a finding's `line`, `lines` and `end_line` keys give, and what
    `line` says when it gives none (`"line": "N/A"`)."""
    ranges = []
    note = ""
    if line is not None:  # `line` names where the finding starts; `lines` may add more
        ranges = _ranges(line)
        note = "" if ranges or not isinstance(line, str) else line.strip()
        last = _ranges(end)
        if ranges and last and "-" not in ranges[0]:
            ranges[0] = f"{ranges[0]}-{last[0].split('-')[-1]}"
    ranges += [more for more in _ranges(lines) if more not in ranges]
    return ranges, note


# another file named beside a location's path: `api.py`, `src/api.ts` (not `Repo.search`)
_FILE_WORD: Final = re.compile(r"[\w./-]{0,200}\.[A-Za-z][A-Za-z0-9]{0,4}")


def _lines_at_path(location: str, path: str, ranges: list[str]) -> str | None:
    """`db.py (search)` with lines 42-57 and 88-90 -> `db.py:42-57 (search), 88-90`: the
    lines a finding's own keys give, put after the path its location names, and what the
    location says besides (`, UserRepo.search()`, `#search`, `§ Usage`) kept as a note on
    the first range. None when the location does not name the path as written."""
    text = location.replace("`", "")
    at = text.find(path)
    if at < 0 or text[:at].strip():
        return None
    rest = text[at + len(path):]
    if any(_FILE_WORD.fullmatch(word.strip("`,;()")) for word in rest.split()[:16]):
        return None  # `db.py, api.py`: which file the line is in is not said; kept in words
    anchor = rest.startswith("#")
    rest = rest.lstrip(" ,;:—–-#").strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    first = f"{path}:{ranges[0]}"
    if rest:
        first += f" (§ {rest})" if anchor else f" ({rest})"
    return ", ".join([first, *ranges[1:]])


def _ranges(value: Any) -> list[str]:
    """Line ranges in any shape a JSON reply writes them: `9`, `"42-48"`, `"L42-L48"`,
    `[29, 30, 31, 65]` (consecutive lines are one range), `{"start": 4, "end": 9}`."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):  # (a line past a billion is no line: it would be the path's)
        return [str(value)] if 0 < value < 1_000_000_000 else []
    if isinstance(value, float):  # `"line": 42.0`
        return [str(int(value))] if value.is_integer() and 0 < value < 1e9 else []
    if isinstance(value, str):  # each part from its start: `42:17` is line 42, column 17
        return [f"{m[1]}-{m[2]}" if m[2] else m[1]
                for part in _RANGE_PARTS.split(value, _MAX_RANGES)[:_MAX_RANGES]
                if (m := _RANGE_TEXT.match(part.strip())) is not None]
    if isinstance(value, dict):
        named = {key_name(k): v for k, v in value.items()}
        start = named.get("start", named.get("start_line", named.get("from")))
        stop = named.get("end", named.get("end_line", named.get("to")))
        return [f"{start}-{stop}" if stop is not None else str(start)] \
            if isinstance(start, int) else []
    if not isinstance(value, list):
        return []
    out: list[str] = []
    run: list[int] = []
    for item in value[:4 * _MAX_RANGES]:
        if isinstance(item, int) and not isinstance(item, bool) and run \
                and item == run[-1] + 1:
            run.append(item)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        if isinstance(item, int) and not isinstance(item, bool):
            run = [item]
        elif isinstance(item, (str, dict)):
            out.extend(_ranges(item))
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return out


def _missing_keys(b: Builder, findings: list[Any], line: int) -> None:
    """One SARP405 per required finding key some findings leave out (not one per finding:
    agents that leave out ids leave them out of every finding)."""
    missing: dict[str, list[int]] = {}
    for n, item in enumerate(findings):
        if not isinstance(item, dict):
            continue
        given = {FINDING_KEYS.get(key_name(key)) for key, value in item.items()
                 if value not in (None, "", [], {})}
        for key in REQUIRED_FINDING_KEYS:
            if key in _CHECKED_HERE and key not in given:
                missing.setdefault(key, []).append(n)
    for key, numbers in missing.items():
        which = ", ".join(f"[{n}]" for n in numbers[:10]) + (", ..." if len(numbers) > 10 else "")
        b.diag("SARP405", line, path=f"findings{which if len(numbers) == 1 else ''}.{key}",
               problem=f"is missing from {len(numbers)} of {len(findings)} finding(s)"
                       + ("" if len(numbers) == 1 else f" ({which})"),
               hint=f"Give every finding its {key}, as the JSON Schema requires.")


def _finding(b: Builder, item: Any, n: int, line: int) -> None:
    raw = RawFinding(line=line)
    if isinstance(item, str):
        raw.description = item
        raw.location = _location_text_in(item)
        b.add(raw)
        return
    if not isinstance(item, dict):
        b.diag("SARP405", line, path=f"findings[{n}]", problem="is not an object",
               hint="Write each finding as an object.")
        return
    place: dict[str, Any] = {}
    kept: list[str] = []  # text of keys the fields cannot hold: into the description
    for key, value in item.items():
        target = FINDING_KEYS.get(key_name(key))
        if target is None:
            if value not in (None, "", [], {}):
                b.diag("SARP414", line, key=f"findings[{n}].{key}")
                kept.append(f"{key}: {_text(value)}")
            continue
        if target != key and target not in ("file", "lines", "column"):
            b.diag("SARP408", line, written=f"findings[{n}].{key}", canonical=target)
        if value is None:
            continue
        if target in _PLACE:
            if target not in place:
                place[target] = value
            elif target != "column" and _text(value) != _text(place[target]):
                # `"path": "/api/search", "file": "db.py"`: both kept, the first as the place
                b.diag("SARP405", line, path=f"findings[{n}].{key}",
                       problem=f"gives the {target} a second time; kept in the description",
                       hint=f"Give the {target} once.")
                kept.append(f"{key}: {_text(value)}")
        elif target in ("location", "counter_location"):
            text = _location_cell(value)
            if text is None:  # no place read from it: its text is kept
                if value not in ("", [], {}):
                    kept.append(f"{key}: {_text(value)}")
            elif getattr(raw, target) is None:
                setattr(raw, target, text)
            else:
                kept.append(f"{key}: {text}")
        elif target == "confidence":
            raw.confidence = _confidence(b, value, f"findings[{n}].{key}", line)
        elif target in _PROSE and getattr(raw, target):
            if _text(value) not in getattr(raw, target).split("\n\n"):  # the same text once
                setattr(raw, target, f"{getattr(raw, target)}\n\n{_text(value)}")
        elif getattr(raw, target) is not None \
                and _text(value).strip().lower() != getattr(raw, target).strip().lower():
            # `"severity": "critical", "priority": "P3"`: the first key written wins; the
            # other says something too, so it is kept where a reader sees it
            b.diag("SARP405", line, path=f"findings[{n}].{key}",
                   problem=f"gives {target} a second time; kept in the description",
                   hint=f"Give {target} once.")
            kept.append(f"{key}: {_text(value)}")
        elif getattr(raw, target) is None:
            setattr(raw, target, _text(value))
    if kept:
        raw.description = "\n\n".join(filter(None, [raw.description, *kept]))
    text = _place_text(place.get("file"), place.get("line"), place.get("lines"),
                       place.get("end_line"))
    for key in ("line", "lines", "end_line"):
        if place.get(key) not in (None, "", [], {}) and not _ranges(place[key]) \
                and not isinstance(place[key], str):
            b.diag("SARP405", line, path=f"findings[{n}].{key}",
                   problem=f"{_text(place[key])[:40]} is no line number; ignored",
                   hint="Give lines as numbers from 1.")
    if raw.location is None:
        raw.location = text or None
    elif text:
        from sarp.text.locations import parse_location

        loc = parse_location(raw.location)
        file = place.get("file")
        ranges = _line_ranges(place.get("line"), place.get("lines"), place.get("end_line"))[0]
        joined = _lines_at_path(raw.location, loc.path, ranges) \
            if loc is not None and loc.path is not None and loc.line is None and ranges \
            and (file is None or str(file).strip() == loc.path) else None
        if joined is not None:
            # `"location": "db.py (search)", "line": 42`: the line goes with the place named
            raw.location = joined
        elif text != raw.location:  # another place besides the location: kept in words
            raw.description = "\n\n".join(filter(None, [raw.description, f"place: {text}"]))
    b.add(raw)


def _location_cell(value: Any, depth: int = 0) -> str | None:
    """A location value as a cell: text as written, an object by its keys (SARIF's
    `physicalLocation` too), a list of either as places one after another."""
    if isinstance(value, dict):
        named = {key_name(k): v for k, v in value.items()}
        physical = named.get("physical_location")
        if isinstance(physical, dict):  # {"physicalLocation": {"artifactLocation": ...}}
            artifact = physical.get("artifactLocation")
            region = physical.get("region")
            value = {"uri": artifact.get("uri") if isinstance(artifact, dict) else None,
                     **(region if isinstance(region, dict) else {})}
        loc = _location(value)
        return loc.raw if loc is not None and loc.raw else None
    if isinstance(value, list):
        if depth >= 4:
            return None
        cells = [cell for item in value[:64] if (cell := _location_cell(item, depth + 1))]
        return "; ".join(cells) or None
    return str(value) if str(value).strip() else None


def key_name(key: object) -> str:
    """A key as the alias tables spell it: `lineNumber`, `Line-Number` -> `line_number`."""
    text = str(key).strip()
    text = "".join(f"_{ch}" if ch.isupper() and i and text[i - 1].islower() else ch
                   for i, ch in enumerate(text))
    return text.lower().replace("-", "_").replace(" ", "_")


def _text(value: Any, depth: int = 0) -> str:
    """A value as text: lists one item a line, objects as JSON; lists nested deeper than
    a reader follows are written as JSON too (never recursion without end)."""
    if isinstance(value, list) and depth < 8:
        return "\n".join(f"- {_text(item, depth + 1)}" for item in value)
    if isinstance(value, (dict, list)):
        try:
            return json.dumps(value, ensure_ascii=False)
        except RecursionError:
            return repr(value)[:10_000]
    return str(value)


def _location_text_in(text: str) -> str | None:
    from sarp.dialects.common import location_in

    return location_in(text)


JSON: Final = JsonDialect()
