# Readers that several dialects share: finding tables matched by column name, details
# sections (`### F1: title (critical)`, `**SEC-001: title**`), checklist / test /
# criteria tables, headings as sections, and `**Key**: value` bullets.
#
# Each reader takes the Builder and a line range and records loose data in it; none
# decides severities or statuses (the Builder does, once, in `finish`).
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from sarp.dialects.base import Builder, RawFinding
from sarp.model import ChecklistItem, ChecklistStatus, Reference, Result, Severity, build
from sarp.text.inline import (
    bold_end,
    heading,
    key_value,
    list_item,
    strip_emphasis,
    strip_markup,
)
from sarp.text.lines import PLAIN, Document
from sarp.text.locations import parse_location
from sarp.text.tables import Table

__all__ = [
    "COLUMN",
    "Section",
    "classify_table",
    "read_checklist_table",
    "read_details",
    "read_finding_table",
    "read_tests_table",
    "sections",
]

# Header name (lower-case, markup removed) -> finding field.
COLUMN: Final[dict[str, str]] = {
    "id": "id", "#": "id", "no": "id", "no.": "id", "ref": "id", "key": "id",
    "finding id": "id", "issue id": "id",
    "severity": "severity", "sev": "severity", "level": "severity", "priority": "severity",
    "impact level": "severity", "rating": "severity", "risk level": "severity",
    "type": "type", "category": "type", "kind": "type", "class": "type", "rule": "type",
    "location": "location", "file": "location", "file:line": "location", "where": "location",
    "loc": "location", "path": "location", "source": "location", "file / line": "location",
    "file/line": "location", "location(s)": "location", "doc location": "location",
    "counter-location": "counter_location", "counter location": "counter_location",
    "counterlocation": "counter_location", "conflicts with": "counter_location",
    "counter-loc": "counter_location", "vs": "counter_location",
    "description": "description", "issue": "description", "finding": "description",
    "problem": "description", "details": "description", "findings": "description",
    "detail": "description",
    "summary": "description", "observation": "description", "what": "description",
    "suggestion": "suggestion", "fix": "suggestion", "recommendation": "suggestion",
    "remediation": "suggestion", "resolution": "suggestion", "suggested fix": "suggestion",
    "action": "suggestion", "proposed fix": "suggestion",
    "impact": "impact", "risk": "impact", "consequence": "impact",
    "title": "title", "name": "title",
    "confidence": "confidence", "conf": "confidence", "conf.": "confidence",
    "agent": "agent", "reporter": "agent", "reported by": "agent",
    "line": "line", "lines": "line", "line(s)": "line",
}
# A finding id: a short label, then a number (F1, SEC-001, QA_12, RV-2b). LABEL is the
# label alone, which leads list items without being an id (`TC: name - error`).
LABEL: Final = r"[A-Z][A-Za-z0-9]{0,9}(?:[-_][A-Za-z0-9]{1,10}){0,3}"
ID: Final = LABEL + r"[-_]?\d{1,5}"
_ID_LIKE: Final = re.compile(ID + r"[a-z]?$")
_DETAILS_HEAD: Final = re.compile(rf"(?P<id>{ID})\s?[:.)—–-]\s?(?P<title>.*)$")
# `ID: text`, `ID (text`, `ID `text``, `ID - text`: the id that leads a list item
_ITEM_HEAD: Final = re.compile(rf"(?P<id>{LABEL}|\d{{1,4}})(?:\s?:\s|\s(?=[(`])|\s-\s)")
STATUS_COLUMNS: Final = ("status", "result", "outcome", "pass/fail", "verdict", "state")
PLACE_COLUMNS: Final = ("location", "file", "where", "path")
_TRAILING_SEVERITY: Final = re.compile(r"(?:^|\s)[(\[](?P<sev>[^()\[\]]{1,30})[)\]]\s?$")
NO_VALUE: Final = frozenset({"", "-", "--", "—", "–", "n/a", "na", "none", "null", "?"})
_FAIL_WORDS: Final = frozenset({"fail", "failed", "failing", "failure", "error", "errored",
                                "broken", "no", "❌", "✗", "x", "red", "not met", "unmet",
                                "timeout", "timed out", "crash", "crashed"})
_PASS_WORDS: Final = frozenset({"pass", "passed", "passing", "ok", "success", "yes", "✅",
                                "✓", "met", "green", "done", "applied"})
_SKIP_WORDS: Final = frozenset({"skip", "skipped", "n/a", "na", "not run", "xfail", "pending",
                                "not-applicable", "not applicable", "-", "—", "⏭"})


@dataclass(slots=True)
class Section:
    level: int
    title: str
    line: int  # heading line
    end: int  # first line after the section's body (exclusive)


def sections(doc: Document, start: int = 0, end: int | None = None) -> list[Section]:
    """ATX headings outside fences in [start, end), each with the extent of its body."""
    stop = len(doc.lines) if end is None else end
    found: list[Section] = []
    lines, kinds = doc.lines, doc.kinds
    for i in range(start, stop):
        if kinds[i] != PLAIN:
            continue
        line = lines[i]
        if "#" not in line[:4]:
            continue
        head = heading(line)
        if head is not None:
            found.append(Section(head[0], head[1], i, stop))
    # A section ends where the next heading of its level or above begins: one pass
    # with a stack of the sections still open.
    open_sections: list[Section] = []
    for sec in found:
        while open_sections and open_sections[-1].level >= sec.level:
            open_sections.pop().end = sec.line
        open_sections.append(sec)
    return found


def _counts_only(table: Table, keys: list[str]) -> bool:
    """`| Severity | Count |`, `| Severity | Findings | IDs |`: a table that counts findings.
    Every cell beside the severity is a count (`0`, `None`, `n/a`, `1 (logging)`, a dash)
    or a list of row ids, and every row has a count, whatever the columns are called."""
    at = [n for n, k in enumerate(keys) if COLUMN.get(k) != "severity"]
    if not at or not table.rows:
        return False
    for row in table.rows:
        cells = [strip_emphasis(row.cells[n]).strip() for n in at if n < len(row.cells)]
        if not all(_COUNT_CELL.fullmatch(cell) or _ID_LIST.fullmatch(cell) for cell in cells):
            return False
        if not any(_COUNT_CELL.fullmatch(cell) for cell in cells):
            return False
    return True


_COUNT_CELL: Final = re.compile(r"(?:\d{1,9}|none|n/?a|nil|zero|[-—–]|)(?:\s*\([^()]{0,80}\))?",
                                re.IGNORECASE)
_ID_LIST: Final = re.compile(r"[A-Za-z]{1,6}-?\d{1,4}(?:\s*,\s*[A-Za-z]{1,6}-?\d{1,4}){0,50}")


def classify_table(table: Table) -> str:
    """findings | checklist | tests | criteria | steps | references | other."""
    keys = table.column_keys()
    fields = {COLUMN.get(k) for k in keys}
    first = keys[0] if keys else ""
    if "severity" in fields and not _counts_only(table, keys):
        return "findings"
    has_status = any(k in STATUS_COLUMNS for k in keys)
    if {"item", "location", "relevance"} <= set(keys) or (
        first in ("item", "name", "symbol", "entry") and "relevance" in keys
    ):
        return "references"
    if has_status:
        if any(k.startswith("step") or k == "action" for k in keys):
            return "steps"
        if any(k.startswith("test") for k in keys):
            return "tests"
        if any(k.startswith(("criterion", "criteria", "acceptance")) for k in keys):
            return "criteria"
        if any(k in ("item", "check", "claim", "requirement", "standard", "rule", "control")
               or k.startswith(("checklist", "item")) for k in keys):
            return "checklist"
    if "id" in fields and "description" in fields and fields & {
            "location", "type", "suggestion", "impact", "counter_location"}:
        return "findings"
    return "other"


def _cells(builder: Builder, table: Table, row_index: int, what_id: str) -> list[str]:
    """The row's cells padded or folded to the header width, with diagnostics."""
    row = table.rows[row_index]
    cells = row.cells
    width = len(table.header)
    if len(cells) < width:
        missing = ", ".join(table.header[len(cells):])
        builder.diag("SARP205", row.line, id=what_id, count=len(cells), total=width,
                     missing=missing)
        cells = cells + [""] * (width - len(cells))
    elif len(cells) > width:
        builder.diag("SARP206", row.line, id=what_id, count=len(cells), total=width)
        cells = [*cells[: width - 1], " | ".join(cells[width - 1 :])]
    return cells


def _row_id(cells: list[str], index: int) -> str:
    return strip_markup(cells[0]) if cells and cells[0] else f"row {index + 1}"


def read_finding_table(builder: Builder, table: Table, *, default: Severity = Severity.MINOR,
                       required: tuple[str, ...] = (),
                       columns: tuple[str, ...] = ()) -> list[RawFinding]:
    """One RawFinding per body row; columns matched by name, not position.

    `required` names the fields the dialect's table must have (one diagnostic lists all
    missing ones); `columns` is the header the dialect asks for, for the hint."""
    fields = [COLUMN.get(k) for k in table.column_keys()]
    missing = [c.replace("_", "-").title() for c in required if c not in fields]
    if missing:
        builder.diag("SARP208", table.header_line, column=", ".join(missing),
                     columns=" | ".join(columns or table.header))
    keys = table.column_keys()
    status_col = _column(keys, *STATUS_COLUMNS)
    out: list[RawFinding] = []
    for n, row in enumerate(table.rows):
        if not any(row.cells):
            continue
        cells = _cells(builder, table, n, _row_id(row.cells, n))
        raw = RawFinding(line=row.line, default=default)
        extra_line: str | None = None
        for name, cell in zip(fields, cells, strict=False):
            value = cell.strip()
            if name is None or value.lower() in NO_VALUE:
                continue
            if name == "line":
                extra_line = strip_markup(value)
            elif name == "confidence":
                raw.confidence = builder.confidence_from(value)
            elif name == "severity":
                written = strip_markup(value)
                raw.severity = None if written.lower() in NO_VALUE else written
            elif name == "id":
                raw.id = strip_markup(value)
            else:
                setattr(raw, name, value)
        if status_col >= 0 and raw.severity is None and is_pass(cells[status_col]):
            # a verification row that held: a checklist item, not a finding
            item = raw.description or raw.title or raw.id or ""
            builder.checklist.append(build(ChecklistItem,
                item=strip_emphasis(item), status=ChecklistStatus.APPLIED,
                native_status=strip_markup(cells[status_col]), notes=None))
            continue
        if extra_line and raw.location and ":" not in raw.location:
            raw.location = f"{strip_markup(raw.location)}:{extra_line}"
        elif extra_line and not raw.location:
            raw.location = f"line {extra_line}"
        if raw.location is None or raw.location.strip().lower() in NO_VALUE:
            raw.location = None
            for other, cell in zip(fields, cells, strict=False):
                if other not in ("location", "counter_location", "id", "severity"):
                    found = location_in(cell)
                    if found:
                        raw.location = found
                        break
        builder.add(raw)
        out.append(raw)
    builder.recovered = True
    return out


def _status_word(cell: str) -> str:
    return " ".join(strip_markup(cell).lower().split())


def is_fail(cell: str) -> bool:
    word = _status_word(cell)
    return word in _FAIL_WORDS or word.startswith(("fail", "❌", "✗", "error"))


def is_pass(cell: str) -> bool:
    word = _status_word(cell)
    return word in _PASS_WORDS or word.startswith(("pass", "✅", "✓", "ok"))


def is_skip(cell: str) -> bool:
    word = _status_word(cell)
    return word in _SKIP_WORDS or word.startswith("skip")


_CHECKLIST: Final[dict[str, ChecklistStatus]] = {
    "applied": ChecklistStatus.APPLIED, "partial": ChecklistStatus.PARTIAL,
    "missing": ChecklistStatus.MISSING, "not-applicable": ChecklistStatus.NOT_APPLICABLE,
}
_CHECKLIST_ALIASES: Final[dict[str, ChecklistStatus]] = {
    "not applicable": ChecklistStatus.NOT_APPLICABLE, "n/a": ChecklistStatus.NOT_APPLICABLE,
    "na": ChecklistStatus.NOT_APPLICABLE, "partially applied": ChecklistStatus.PARTIAL,
    "partially": ChecklistStatus.PARTIAL, "partly": ChecklistStatus.PARTIAL,
    "incomplete": ChecklistStatus.PARTIAL, "absent": ChecklistStatus.MISSING,
    "not applied": ChecklistStatus.MISSING, "verified": ChecklistStatus.APPLIED,
    "confirmed": ChecklistStatus.APPLIED, "unverified": ChecklistStatus.MISSING,
    "present": ChecklistStatus.APPLIED, "implemented": ChecklistStatus.APPLIED,
}


def checklist_status(builder: Builder, written: str, item: str, line: int, *,
                     pass_fail: bool = False) -> ChecklistStatus:
    """The canonical status of a checklist cell; `pass_fail` when PASS/FAIL are the
    dialect's own words for it (SDD's Compliance Check), so reading them is no repair."""
    word = _status_word(written)
    if pass_fail and word in ("pass", "fail"):
        return ChecklistStatus.APPLIED if word == "pass" else ChecklistStatus.MISSING
    if word in _CHECKLIST:
        if strip_markup(written) != word:
            builder.diag("SARP213", line, written=written, canonical=_CHECKLIST[word].value)
        return _CHECKLIST[word]
    status = _CHECKLIST_ALIASES.get(word)
    if status is None:
        if is_pass(written):
            status = ChecklistStatus.APPLIED
        elif is_fail(written):
            status = ChecklistStatus.MISSING
        elif is_skip(written):
            status = ChecklistStatus.NOT_APPLICABLE
        elif word.startswith("partial"):
            status = ChecklistStatus.PARTIAL
    if status is None:
        builder.diag("SARP214", line, written=written, item=item, canonical="missing")
        return ChecklistStatus.MISSING
    builder.diag("SARP213", line, written=written, canonical=status.value)
    return status


def _column(keys: list[str], *prefixes: str) -> int:
    for n, key in enumerate(keys):
        if key.startswith(prefixes):
            return n
    return -1


def read_checklist_table(builder: Builder, table: Table, *, failures_are_findings: bool,
                         kind: str = "check", pass_fail: bool = False) -> None:
    """Checklist rows (Item | Status | Notes); partial/missing rows become findings too."""
    keys = table.column_keys()
    item_col = _column(keys, "item", "check", "claim", "requirement", "standard", "criteri",
                       "acceptance", "rule", "control", "checklist")
    status_col = _column(keys, *STATUS_COLUMNS)
    notes_col = _column(keys, "note", "evidence", "detail", "comment", "finding", "reason")
    loc_col = _column(keys, *PLACE_COLUMNS)
    if item_col < 0:
        item_col = 0
    for n, row in enumerate(table.rows):
        if not any(row.cells):
            continue
        cells = _cells(builder, table, n, _row_id(row.cells, n))
        item = strip_emphasis(cells[item_col])
        written = cells[status_col] if status_col >= 0 else ""
        status = checklist_status(builder, written, item, row.line, pass_fail=pass_fail)
        notes = cells[notes_col] if notes_col >= 0 and cells[notes_col] else None
        builder.checklist.append(build(ChecklistItem,
            item=item, status=status, native_status=strip_markup(written) or None, notes=notes))
        if failures_are_findings and status in (ChecklistStatus.MISSING,
                                                ChecklistStatus.PARTIAL):
            location = cells[loc_col] if loc_col >= 0 else location_in(notes or item)
            builder.add(RawFinding(
                line=row.line, type=f"{status.value}" if kind == "check" else f"failed-{kind}",
                title=item, description=notes, location=location,
                default=Severity.MAJOR, severity_expected=False,
            ))
    builder.recovered = True


def read_tests_table(builder: Builder, table: Table, kind: str) -> list[dict[str, str]]:
    """Tests, criteria or steps: a failed row is a finding (major by default)."""
    keys = table.column_keys()
    name_col = _column(keys, "test", "name", "step", "criteri", "acceptance", "action",
                       "scenario", "case")
    if name_col < 0:
        name_col = 0
    status_col = _column(keys, *STATUS_COLUMNS)
    notes_col = _column(keys, "note", "evidence", "error", "detail", "reason", "message",
                        "comment", "observ", "expected", "actual")
    loc_col = _column(keys, *PLACE_COLUMNS)
    rows: list[dict[str, str]] = []
    for n, row in enumerate(table.rows):
        if not any(row.cells):
            continue
        cells = _cells(builder, table, n, _row_id(row.cells, n))
        record = {table.header[i].strip() or f"col{i}": cells[i] for i in range(len(cells))}
        rows.append(record)
        written = cells[status_col] if status_col >= 0 else ""
        if status_col >= 0 and is_fail(written):
            name = strip_emphasis(cells[name_col])
            notes = cells[notes_col] if notes_col >= 0 and cells[notes_col] else None
            location = cells[loc_col] if loc_col >= 0 else None
            if location is None and kind != "step":  # a browser step's text names no file
                location = location_in(name) or location_in(notes or "")
            builder.add(RawFinding(line=row.line, type=f"failed-{kind}", title=name,
                                   description=notes, location=location,
                                   default=Severity.MAJOR, severity_expected=False))
    builder.recovered = True
    return rows


# A place in free text is `path.ext` (up to 200 path characters before the extension's
# dot) followed by `:42`, `:42-56`, `::test_name` or ` line(s) 4`. Searching for the whole
# shape re-reads up to 200 characters at every start (seconds per MB of `a.a.a…`), so the
# search looks for a path character, the extension and what follows it, which is
# bounded, and only then reads the path backwards from the extension's dot.
_EXTENSION_BEFORE_PLACE: Final = re.compile(
    r"(?<=[\w./\-])\.[A-Za-z]\w{0,7}(?=:\d|::[\w\[\]-]|`?,? lines? \d)")
_PLACE_AFTER_PATH: Final = re.compile(
    r":\d{1,9}(?:-\d{1,9})?|::[\w\[\]-]{1,200}|`?,? lines? \d{1,9}(?:-\d{1,9})?")
_PATH_CHARS: Final = re.compile(r"[\w./\-]{1,200}")


def location_in(text: str | None) -> str | None:
    """The first `path:line` or `file::test` written inside free text."""
    if not text or ("." not in text):
        return None
    ext = _EXTENSION_BEFORE_PLACE.search(text)
    if ext is None:
        return None
    # the path is the run of path characters right before the dot (the lookbehind saw
    # one), its last 200 at most; the extension holds no dot, so no later dot is its
    dot = ext.start()
    path = _PATH_CHARS.match(text[max(0, dot - 200):dot][::-1])
    place = _PLACE_AFTER_PATH.match(text, ext.end())  # the lookahead saw its start
    if path is None or place is None:
        return None
    return text[dot - path.end():place.end()]


def read_references_table(builder: Builder, table: Table) -> None:
    keys = table.column_keys()
    item_col = _column(keys, "item", "name", "symbol", "entry", "component")
    loc_col = _column(keys, *PLACE_COLUMNS)
    rel_col = _column(keys, "relevance", "why", "note", "purpose", "role")
    for n, row in enumerate(table.rows):
        if not any(row.cells):
            continue
        cells = _cells(builder, table, n, _row_id(row.cells, n))
        builder.references.append(build(Reference,
            item=strip_emphasis(cells[item_col if item_col >= 0 else 0]),
            location=parse_location(cells[loc_col]) if loc_col >= 0 and cells[loc_col] else None,
            relevance=cells[rel_col] if rel_col >= 0 and cells[rel_col] else None,
        ))


# -- details sections -----------------------------------------------------------------
DETAIL_KEYS: Final[dict[str, str]] = {
    "location": "location", "file": "location", "where": "location", "loc": "location",
    "locations": "location", "lines": "location", "line": "location",
    "counter-location": "counter_location", "counter location": "counter_location",
    "description": "description", "issue": "description", "problem": "description",
    "details": "description", "what": "description", "why": "description",
    "impact": "impact", "risk": "impact", "consequence": "impact", "why it matters": "impact",
    "symptom": "impact", "symptoms": "impact", "cause": "description",
    "root cause": "description",
    "fix": "suggestion", "suggestion": "suggestion", "recommendation": "suggestion",
    "remediation": "suggestion", "suggested fix": "suggestion", "resolution": "suggestion",
    "severity": "severity", "type": "type", "category": "type",
    "confidence": "confidence", "agent": "agent", "agents": "agent", "evidence": "evidence",
}


def read_body(builder: Builder, raw: RawFinding, start: int, end: int) -> None:
    """Fill `raw` from a finding body: `- **Key**: value` bullets, else prose."""
    doc = builder.doc
    paragraphs: list[list[str]] = [[]]  # prose, a blank line (or a code sample) apart
    prose = paragraphs[-1]
    current: str | None = None
    more: dict[str, list[str]] = {}  # continuation lines per field, joined once at the end
    for i in range(start, end):
        line = doc.lines[i]
        if doc.kinds[i] != PLAIN or line.lstrip().startswith("|"):
            # code samples and tables stay in `raw` (tables also in `fields`), not in
            # the description; they end a paragraph
            if prose:
                prose = []
                paragraphs.append(prose)
            continue
        text = list_item(line)
        candidate = text if text is not None else line.strip()
        fields = _detail_fields(candidate)
        if fields:
            for name, value in fields:
                current = name
                if name == "confidence":
                    raw.confidence = builder.confidence_from(value)
                elif name == "severity":
                    raw.severity = strip_markup(value)
                    raw.severity_line = i
                elif name == "evidence":
                    prose.append(value)
                    current = None
                elif name == "agent":
                    raw.agent = strip_markup(value)
                else:
                    setattr(raw, name, value)
                    more[name] = []
        elif current in ("description", "impact", "suggestion") and text is None and (
            line.startswith(("  ", "\t"))
        ):
            more[current].append(line.strip())
        else:
            current = None
            if candidate:
                prose.append(strip_emphasis(candidate) if text is None else candidate)
    for name, lines in more.items():
        if lines:
            setattr(raw, name, " ".join([getattr(raw, name) or "", *lines]).strip())
    text = "\n\n".join(" ".join(p) for p in paragraphs if p)
    if text and not raw.description:
        raw.description = text
    elif text and raw.description and len(text) > len(raw.description) * 2:
        raw.description = f"{raw.description}\n\n{text}"


def _detail_fields(text: str) -> list[tuple[str, str]]:
    """The finding fields a body line holds: `**Fix**: x`, or several on one line
    (`**Severity:** High | **File:** a.py:12`); [] for a line that is not one."""
    pair = key_value(text)
    if pair is None or pair[0].lower() not in DETAIL_KEYS:
        return []
    if " | " not in pair[1]:
        return [(DETAIL_KEYS[pair[0].lower()], pair[1])]
    parts = [key_value(part.strip()) for part in text.split(" | ")]
    if all(part is not None and part[0].lower() in DETAIL_KEYS for part in parts):
        return [(DETAIL_KEYS[part[0].lower()], part[1]) for part in parts if part is not None]
    return [(DETAIL_KEYS[pair[0].lower()], pair[1])]  # a pipe inside one value


def details_heading(text: str) -> tuple[str, str, str | None] | None:
    """(id, title, severity) for `F1: title (critical)`, `SEC-001: title`, `F2 — title`."""
    cleaned = strip_emphasis(text).strip()
    match = _DETAILS_HEAD.match(cleaned)
    if match is None:
        return None
    title = match["title"].strip().strip("*").strip()
    severity = None
    sev = _TRAILING_SEVERITY.search(title)
    if sev is not None:
        severity = sev["sev"].strip()
        title = title[: sev.start()].strip()
    return match["id"], title, severity


def read_details(builder: Builder, start: int, end: int, *, known_ids: set[str] | None = None,
                 bold: bool = True) -> int:
    """Attach `### F1: title (sev)` and `**F1: title**` sections in [start, end).

    With `known_ids`, a bold line only counts when it names a known id (bold lines are
    common in prose). Returns the number of sections read.
    """
    doc = builder.doc
    heads: list[tuple[int, str, str, str | None]] = []
    for i in range(start, end):
        if doc.kinds[i] != PLAIN:
            continue
        line = doc.lines[i].strip()
        if line.startswith("#"):
            head = heading(line)
            if head is None:
                continue
            parsed = details_heading(head[1])
        elif bold and line.startswith("**"):
            inner_end = bold_end(line)
            if inner_end < 0:
                continue
            parsed = details_heading(line[2:inner_end])
            if parsed is not None and known_ids is not None and \
                    parsed[0].upper() not in known_ids:
                continue
            if parsed is not None and not parsed[1]:
                parsed = (parsed[0], strip_emphasis(line[inner_end + 2 :]).strip(" :—-"),
                          parsed[2])
        else:
            continue
        if parsed is not None:
            heads.append((i, *parsed))
    body_end = _body_ends(doc, [h[0] for h in heads], end)
    for (line_no, finding_id, title, severity), stop in zip(heads, body_end, strict=True):
        raw = RawFinding(line=line_no, id=finding_id, title=title or None, severity=severity)
        read_body(builder, raw, line_no + 1, stop)
        builder.attach(finding_id, raw)
    return len(heads)


def _body_ends(doc: Document, starts: list[int], end: int) -> list[int]:
    """Each details body runs to the next details head or the next heading."""
    out: list[int] = []
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else end
        for i in range(start + 1, stop):
            if doc.kinds[i] == PLAIN and doc.lines[i].startswith("#"):
                stop = i
                break
        out.append(stop)
    return out


def is_id_like(text: str) -> bool:
    return bool(_ID_LIKE.match(text))


def item_id(text: str) -> tuple[str, str] | None:
    """(label, rest) when a list item starts with a label or id: `SEC-1: a.py:3 - x`."""
    match = _ITEM_HEAD.match(text)
    return (match["id"], text[match.end() :]) if match is not None else None


def bullets(doc: Document, start: int, end: int) -> list[tuple[int, str]]:
    """(line, text) of list items in [start, end), continuation lines folded in."""
    items: list[tuple[int, list[str]]] = []  # parts joined once at the end: linear
    for i in range(start, end):
        if doc.kinds[i] != PLAIN:
            continue
        line = doc.lines[i]
        item = list_item(line)
        if item is not None:
            items.append((i, [item.strip()]))
        elif items and line.startswith(("  ", "\t")) and line.strip():
            items[-1][1].append(line.strip())
    return [(i, " ".join(parts)) for i, parts in items]


def section_text(doc: Document, start: int, end: int) -> str:
    """The text of lines [start, end) with fences kept, trimmed of blank edges."""
    return "\n".join(doc.lines[start:end]).strip()


_TABLE_FAILURES: Final = {"failed-test": "tests", "failed-criterion": "criteria",
                          "failed-step": "steps"}


def derived_findings(result: Result, *, checklist: bool,
                     tables: tuple[str, ...] = ("tests", "criteria", "steps")) -> set[str]:
    """Ids of findings that parsing derives from a table the renderer writes: failed
    rows of the `tables` it writes from `fields` and, with `checklist`, the checklist's
    partial and missing items. The renderer writes those tables and not these findings,
    or the next parse would count them twice."""
    failed_items = {c.item for c in result.checklist if c.status in (
        ChecklistStatus.MISSING, ChecklistStatus.PARTIAL)} if checklist else set()
    out = set()
    for f in result.findings:
        source = _TABLE_FAILURES.get(f.type or "")
        from_table = source in tables and isinstance(result.fields.get(source), list)
        if from_table or (f.type in ("missing", "partial") and f.title in failed_items):
            out.add(f.id)
    return out
