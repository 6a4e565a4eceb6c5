# SDD toolkit subagent contract (seed 004, research notes §5).
#
# Envelope: `## <Agent> Result`, then `###` sections: Status (SUCCESS|PARTIAL|FAILED),
# Summary, Findings (agent-specific subsections and tables: `Issues Detected` is the
# finding table, `**SEC-001: title**` details with **Risk**/**Fix** expand its rows),
# Key References (Item | Location | Relevance), Confidence (`92 - reason`), Issues
# (`- name: desc | Severity: important`), Next Steps, Blockers, Severity Summary, and the
# Error Result Format (Error Details table, Attempted Actions, Recovery Options).
#
# The toolkit's own agents drift (`## Exploration: Topic` with no Status): with no
# Status the content decides the status and a warning says so. Sections the contract
# does not name are kept in `fields` under their title.
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from sarp.dialects import common
from sarp.dialects.base import Builder, Matcher, RawFinding
from sarp.dialects.prose import read_prose_findings
from sarp.dialects.rendering import prose_line, prose_lines, status_word, stop_reason
from sarp.model import ChecklistItem, ChecklistStatus, Finding, Result, Severity, Status
from sarp.text.inline import key_value, list_item, strip_emphasis, strip_markup
from sarp.text.lines import PLAIN, Document
from sarp.text.locations import looks_like_path
from sarp.text.tables import find_tables
from sarp.text.write import inline, location_text, table
from sarp.vocab import STATUS, normalise_word

__all__ = ["SDD", "SddDialect"]

SEVERITIES: Final = {"critical": Severity.CRITICAL, "important": Severity.MAJOR,
                     "minor": Severity.MINOR}
SECTIONS: Final = ("Status", "Summary", "Findings", "Key References", "Confidence", "Issues",
                   "Next Steps", "Blockers")
_WORD_FOR: Final = {Severity.CRITICAL: "Critical", Severity.MAJOR: "Important",
                    Severity.MINOR: "Minor"}
ISSUE_COLUMNS: Final = ("ID", "Issue", "File:Line", "Severity", "Confidence")
STATUS_WORDS: Final = ("SUCCESS", "PARTIAL", "FAILED")
# the Status a renderer writes (SDD has no word for BLOCKED: see dialects/rendering.py)
STATUS_FOR: Final = {Status.CLEAN: "SUCCESS", Status.FINDINGS: "SUCCESS",
                     Status.PARTIAL: "PARTIAL", Status.ERROR: "FAILED"}
_RESULT_HEAD: Final = re.compile(r"(?P<agent>.{1,120}?)\s(?:Result|Report|Results)\b")
_SEVERITY_TAIL: Final = re.compile(r"\|\s?\**Severity\**\s?:\s?(?P<sev>[^|]{1,40})", re.I)
def _bold_status_line(src: str) -> bool:
    """A line that starts `**Status:**` or `**Status**:`."""
    at = src.find("**Status")
    while at >= 0:
        if (at == 0 or src[at - 1] == "\n") and src.startswith((":**", "**:"), at + 8):
            return True
        at = src.find("**Status", at + 8)
    return False
_CANONICAL: Final = {"status", "summary", "findings", "key references", "confidence",
                     "issues", "next steps", "blockers", "severity summary", "error details",
                     "attempted actions", "root cause analysis", "recovery options"}


def _title_key(title: str) -> str:
    key = strip_emphasis(title).lower()
    for tail in ("(if any)", "(if applicable)", "(optional)"):
        key = key.replace(tail, "")
    return key.strip(" :")


class SddDialect:
    name = "sdd"
    severities = SEVERITIES
    case_sensitive = False

    def __init__(self) -> None:
        self.vocab = STATUS["sdd"]

    def detect(self, doc: Document) -> int:
        src = doc.src
        score = 0
        if "### Status" in src or ("**Status" in src and _bold_status_line(src)):
            score += 40
        if "### Summary" in src:
            score += 10
        if "### Key References" in src or "### Confidence" in src:
            score += 20
        if " Result\n" in src and "## " in src:
            score += 15
        if "## Exploration:" in src or "## Verification Report" in src or \
                "## Architecture Blueprint" in src:
            score += 30
        if "### Findings" in src or "### Issues" in src:
            score += 10
        return score if score >= 30 else 0

    def parse(self, b: Builder) -> None:
        b.envelope_name = "### Status section"
        doc = b.doc
        secs = common.sections(doc)
        for sec in secs:
            if sec.level <= 2:
                match = _RESULT_HEAD.match(strip_emphasis(sec.title))
                if match is not None or sec.title.lower().startswith(("exploration", "verif")):
                    b.envelope = True
                    b.envelope_line = sec.line
                    name = match["agent"] if match is not None else None
                    if name and b.agent is None and ":" not in name:
                        b.agent = "-".join(name.lower().split())
                    b.fields.setdefault("title", sec.title)
                    break
        status_found = False
        # sections holding a table sarp reads into the model are not also kept as text
        read_tables = [t.header_line for t in find_tables(doc)
                       if common.classify_table(t) in _MODEL_TABLES]
        for sec in secs:
            key = _title_key(sec.title)
            if key.startswith("status"):
                status_found = self._status(b, sec.line, sec.end, sec.title) or status_found
            elif key in _CANONICAL or key.startswith("findings"):
                b.envelope = True
                self._section(b, key, sec.line, sec.end)
            elif sec.level >= 3 and key not in b.fields and not key.startswith(
                    ("issues detected", "issue details", "compliance")) and not any(
                    sec.line < t < sec.end for t in read_tables):
                b.fields[sec.title.strip()] = common.section_text(doc, sec.line + 1, sec.end)
        if not status_found:
            status_found = self._bold_status(b)
        closing = {"confidence", "key references", "next steps", "blockers"}
        b.closing_seen = any(_title_key(sec.title) in closing for sec in secs)
        if status_found and not b.closing_seen and b.doc.last_nonblank() > 0:
            b.diag("SARP401", b.doc.last_nonblank(), dialect="sdd",
                   part="closing sections (Key References, Confidence, Next Steps)",
                   hint="End with ### Key References, ### Confidence and ### Next Steps.")
            b.truncated("the closing sections (Key References, Confidence, Next Steps) are"
                        " missing", b.doc.last_nonblank())
        if not status_found and b.envelope:
            b.diag("SARP401", b.envelope_line, dialect="sdd", part="### Status section",
                   hint="Write `### Status` and then SUCCESS, PARTIAL or FAILED.")
        # finding tables anywhere under Findings (or anywhere at all when drifted)
        findings_sec = next((s for s in secs if _title_key(s.title).startswith("findings")),
                            None)
        start, end = (findings_sec.line, findings_sec.end) if findings_sec else (0, len(
            doc.lines))
        self._finding_tables(b, start, end)
        known = {f.id.upper() for f in b.findings if f.id}
        common.read_details(b, start, end, known_ids=known)
        if not b.findings and not b.details:
            read_prose_findings(b, start, end)
        for sec in secs:
            if _title_key(sec.title).startswith("issues") and sec.level >= 2 and \
                    not _title_key(sec.title).startswith(("issues detected", "issue details")):
                self._issues(b, sec.line + 1, sec.end)
        if b.findings:
            b.recovered = True

    def _status(self, b: Builder, line: int, end: int, title: str) -> bool:
        doc = b.doc
        pair = key_value(strip_emphasis(title))
        if pair is not None and pair[1]:
            b.set_status(strip_markup(pair[1]), line)
            b.diag("SARP110", line, what="status (written on the heading line)")
            b.envelope = True
            return True
        for i in range(line + 1, end):
            if doc.kinds[i] == PLAIN and doc.lines[i].strip():
                word = strip_markup(doc.lines[i].strip().lstrip("-* ").strip())
                b.set_status(word.strip("[]"), i)
                b.envelope = True
                return True
        return False

    def _bold_status(self, b: Builder) -> bool:
        """`**Status**: PARTIAL` before the first ### section (later ones are per item)."""
        doc = b.doc
        first_section = next((s.line for s in common.sections(doc) if s.level >= 3),
                             len(doc.lines))
        for i, line in enumerate(doc.lines[:first_section]):
            if doc.kinds[i] != PLAIN or "Status" not in line:
                continue
            pair = key_value(line.strip().lstrip("-* ").strip() if line.lstrip().startswith(
                ("- ", "* ")) else line.strip())
            if pair is not None and pair[0].lower() == "status" and pair[2] and \
                    self.vocab.read(normalise_word(pair[1]))[0] is not None:
                b.set_status(normalise_word(pair[1]).upper(), i)
                b.diag("SARP110", i, what="status (a bold key instead of a ### Status section)")
                b.envelope = True
                return True
        return False

    def _section(self, b: Builder, key: str, line: int, end: int) -> None:
        doc = b.doc
        body = common.section_text(doc, line + 1, end)
        if key == "summary":
            b.summary = body or None
        elif key == "confidence":
            first = body.split("\n", 1)[0].strip() if body else ""
            b.confidence = b.confidence_from(first)
            if b.confidence is None and first:
                b.diag("SARP409", line + 1, key="Confidence", value=first,
                       action="confidence left empty")
            b.metadata["confidence"] = first
        elif key == "key references":
            for tbl in find_tables(doc, line + 1, end):
                common.read_references_table(b, tbl)
        elif key == "next steps":
            b.next_steps.extend(text for _, text in common.bullets(doc, line + 1, end))
        elif key == "blockers":
            b.blockers.extend(text for _, text in common.bullets(doc, line + 1, end))
        elif key == "severity summary":
            for i in range(line + 1, end):
                item = list_item(doc.lines[i])
                pair = key_value(item if item is not None else doc.lines[i].strip())
                if pair is None:
                    continue
                name = normalise_word(pair[0])
                digits = strip_markup(pair[1]).split(" ", 1)[0]
                if name in ("critical", "important", "minor", "high", "medium", "low") and \
                        digits.isdigit():
                    b.expect_count("the Severity Summary", pair[0], int(digits),
                                   _count_word(name), f"{name} findings", i)
        elif key == "error details":
            details: dict[str, str] = {}
            for tbl in find_tables(doc, line + 1, end):
                for row in tbl.rows:
                    if len(row.cells) >= 2:
                        details[strip_markup(row.cells[0])] = row.cells[1]
            b.fields["error_details"] = details
        elif key in ("attempted actions", "recovery options", "root cause analysis"):
            b.fields[key] = body

    def _finding_tables(self, b: Builder, start: int, end: int) -> None:
        for tbl in find_tables(b.doc, start, end):
            shape = common.classify_table(tbl)
            if shape == "findings":
                common.read_finding_table(b, tbl)
            elif shape in ("checklist", "criteria"):
                before = len(b.findings)
                common.read_checklist_table(b, tbl, failures_are_findings=True, pass_fail=True)
                self._drop_restated_checks(b, before)
            elif shape == "tests":
                b.fields.setdefault("tests", []).extend(
                    common.read_tests_table(b, tbl, "test"))

    def _drop_restated_checks(self, b: Builder, before: int) -> None:
        """A failed check whose notes cite finding ids (`FAIL | SEC-001, SEC-002`) restates
        those findings; one that cites none is a finding of its own."""
        known = {f.id.upper() for f in b.findings[:before] if f.id}
        kept = [f for f in b.findings[before:]
                if not (set(_ID_TOKEN.findall((f.description or "").upper())) & known)]
        del b.findings[before:]
        for finding in kept:
            b.add(finding)

    def _issues(self, b: Builder, start: int, end: int) -> None:
        """`- name: description | Severity: important` lines.

        The Issues list often restates rows of the findings table in other words. An
        issue is the same finding as a row when it names the row's id, or, briefly, the
        row's place (a restatement is a line: `- Type dispatch: `a.py:60``; a paragraph
        that names a row's line in passing reports another defect there), or, failing
        both, when it has the row's severity word and shares at least two significant
        words with it; otherwise it is a finding of its own.
        """
        rows = _RowWords(b.findings)
        matcher = Matcher(list(b.findings))
        for i, text in common.bullets(b.doc, start, end):
            sev = _SEVERITY_TAIL.search(text)
            body = text[: sev.start()].strip() if sev is not None else text
            plain = strip_markup(body).strip(" .*_")
            if len(plain) <= _NO_ISSUES_MAX and _NO_ISSUES.fullmatch(plain) and (
                    _YET.search(plain) is None and common.location_in(plain) is None):
                continue  # `None beyond the table. | Severity: minor`: nothing more
            raw = RawFinding(line=i, severity=strip_markup(sev["sev"]) if sev else None,
                             type="issue")
            pair = key_value(body, max_key=120)
            if pair is not None and pair[1][:1].isdigit() and pair[0].split() \
                    and looks_like_path(pair[0].split()[-1]):
                pair = None  # `dispatch at a.py:60 compares ...`: a place, not a name
            if pair is not None:
                name, desc, _ = pair
                if common.is_id_like(strip_markup(name)):
                    raw.id = strip_markup(name)
                else:
                    raw.title = strip_markup(name)
                raw.description = desc or None
            else:
                raw.description = body
            raw.location = common.location_in(body)
            # `decode() at a.py:160 also accepts …`: it adds to a row, never restates one
            adds = _ANOTHER.search(_IN_PARENS.sub("", strip_markup(body)).lstrip("-*• ")) \
                is not None
            twin = rows.restated(raw) if not adds else None
            if twin is not None:
                raw.type = None
                twin.fill(raw)
            elif not raw.id and (adds or (
                    len(body.split()) > _BRIEF and not _says_again(matcher.find(raw), raw))):
                b.add(raw)  # it adds, or names a place in a paragraph of its own
            else:
                if matcher.find(raw) is not None:
                    raw.type = None  # it restates a table row: the row keeps its kind
                b.add_or_fill(raw, matcher)

    def render(self, result: Result) -> str:
        agent = result.agent or "agent"
        written = inline(result.fields.get("title"))  # a field: it may hold lines
        title = written[: -len(" Result")] if written.endswith(" Result") else " ".join(
            w.capitalize() for w in agent.split("-"))
        word = status_word(result, self.vocab, STATUS_FOR)
        blockers = list(result.blockers)
        reason = stop_reason(result)
        if not blockers and reason and result.status in (Status.ERROR, Status.BLOCKED) and \
                not result.fields.get("error_details"):
            blockers = [reason]  # the contract's place for what stopped the work
        lines = [f"## {prose_line(title, '## ')} Result", "", "### Status", word, ""]
        if result.summary:
            lines += ["### Summary", *prose_lines(result.summary), ""]
        derived = common.derived_findings(result, checklist=True, tables=("tests",))
        issues = [f for f in result.findings if f.type == "issue"]
        rows = [f for f in result.findings if f.id not in derived and f.type != "issue"]
        if rows or result.checklist or result.fields.get("tests"):
            lines += ["### Findings", ""]
        if rows:
            lines += ["#### Issues Detected", *_issue_table(rows), ""]
            details = [line for f in rows for line in _issue_details(f)]
            if details:
                lines += ["#### Issue Details", "", *details]
        if result.checklist:
            lines += ["#### Compliance Check", *table(
                ("Standard", "Status", "Notes"),
                [(c.item, _CHECK_WORD.get(c.status.value, c.status.value),
                  _check_notes(c, result, derived)) for c in result.checklist]), ""]
        tests = result.fields.get("tests")
        if isinstance(tests, list) and tests and isinstance(tests[0], dict):
            header = list(tests[0])
            lines += ["#### Test Results", *table(header, [[t.get(h, "") for h in header]
                                                           for t in tests]), ""]
        confidence = result.metadata.get("confidence")
        if confidence is None and result.confidence is not None:
            confidence = f"{result.confidence:g}"
        if result.references:
            lines += ["### Key References", *table(
                ("Item", "Location", "Relevance"),
                [(r.item, location_text(r.location) if r.location else "--", r.relevance or "")
                 for r in result.references]), ""]
        elif confidence is None and not result.next_steps and not blockers:
            # the contract's closing sections are how a reader knows the reply is whole:
            # with nothing to put in them, the Key References section still says so
            lines += ["### Key References", "None.", ""]
        if confidence is not None:
            lines += ["### Confidence", prose_line(str(confidence)), ""]
        if issues:
            lines += ["### Issues", *[_issue_line(f) for f in issues], ""]
        if result.next_steps:
            lines += ["### Next Steps", *[f"{n}. {prose_line(s, f'{n}. ')}" for n, s in
                                          enumerate(result.next_steps, 1)], ""]
        if blockers:
            lines += ["### Blockers", *[f"- {prose_line(s, '- ')}" for s in blockers], ""]
        details_table = result.fields.get("error_details")
        if isinstance(details_table, dict) and details_table:
            lines += ["### Error Details", *table(("Aspect", "Value"),
                                                  list(details_table.items())), ""]
        for key, value in result.fields.items():
            if key in _OWN_FIELDS or not isinstance(value, str) or _reserved(key):
                continue
            lines += [f"### {prose_line(_SECTION_TITLES.get(key, key), '### ')}",
                      *prose_lines(value),
                      ""]
        return "\n".join(lines).rstrip() + "\n"


_MODEL_TABLES: Final = frozenset({"findings", "checklist", "criteria", "tests"})
_CHECK_WORD: Final = {"applied": "PASS", "missing": "FAIL"}
_OWN_FIELDS: Final = frozenset({"title", "tests", "error_details"})
_SECTION_TITLES: Final = {"attempted actions": "Attempted Actions",
                          "recovery options": "Recovery Options",
                          "root cause analysis": "Root Cause Analysis"}


def _reserved(key: str) -> bool:
    """Whether a field (another dialect's `status`, `summary`) would be read back as one of
    the contract's own sections if written under its name."""
    title = _title_key(key)
    return key not in _SECTION_TITLES and (
        title in _CANONICAL or title.startswith(("status", "findings")))


def _check_notes(item: ChecklistItem, result: Result, derived: set[str]) -> str:
    """A failed check that is no finding of its own restates the findings: say which, so
    the next parse does not count it again (`_drop_restated_checks`)."""
    notes = item.notes or ""
    failed = item.status in (ChecklistStatus.MISSING, ChecklistStatus.PARTIAL)
    own = any(f.title == item.item for f in result.findings if f.id in derived)
    others = [f.id for f in result.findings if f.id not in derived]
    if failed and not own and others and not _ID_TOKEN.search(notes.upper()):
        notes = f"{notes} (see {', '.join(others)})".strip()
    return notes


def _issue_table(findings: list[Finding]) -> list[str]:
    typed = any(f.type for f in findings)
    header = [*ISSUE_COLUMNS, "Category"] if typed else list(ISSUE_COLUMNS)
    rows = []
    for f in findings:
        row = [f.id, (f.description or "").split("\n\n", 1)[0],
               location_text(f.location) if f.location else "--", _WORD_FOR[f.severity],
               f"{f.confidence:g}" if f.confidence is not None else ""]
        if typed:
            row.append(f.type or "")
        rows.append(row)
    return table(header, rows)


def _issue_details(f: Finding) -> list[str]:
    """`**SEC-001: title**` with Risk and Fix: what a table row cannot hold."""
    more = (f.description or "").split("\n\n", 1)[1:]
    if not (f.title or f.impact or f.suggestion or more):
        return []
    out = [f"**{prose_line(f.id)}: {inline(f.title or '')}**".replace(": **", ":**")]
    for n, paragraph in enumerate(more[0].split("\n\n") if more else ()):
        line = prose_line(inline(paragraph))
        out.extend([line] if n == 0 else ["", line])
    if f.impact:
        out.append(f"**Risk**: {inline(f.impact)}")
    if f.suggestion:
        out.append(f"**Fix**: {inline(f.suggestion)}")
    return [*out, ""]


def _issue_line(f: Finding) -> str:
    """`- name: description | Severity: important`, the Issues section's form."""
    name = f.title or (f.id if not re.fullmatch(r"F\d+", f.id) else "")
    text = inline(f.description or "")
    body = f"{inline(name)}: {text}" if name else text
    return f"- {body} | Severity: {_WORD_FOR[f.severity].lower()}"


_ID_TOKEN: Final = re.compile(rf"\b{common.ID}\b")
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


def _words(*texts: str | None) -> set[str]:
    return {w.lower() for t in texts if t for w in _WORD.findall(t)}


# an Issues line that says there are none: `None.`, `None beyond SEC-001 to SEC-004 in the
# table`, `No other issues found` (but `None of the callers check it` is an issue)
# words that say a line goes on to report something after all
_EXCEPT: Final = r"(?:apart from|aside from|other than|besides|except|however|though|although)"
# what a "nothing more" line may point back at, ending the line: a short phrase that ends
# at the table (`the seven findings in the table`, `what the table lists`, `the above`),
# or row ids (`SEC-001 & SEC-002`, `sdd-001..sdd-010`); not `values above 255 ...`
_ROW_ID: Final = r"[A-Za-z]{1,5}-?\d{1,4}"
_ID_JOIN: Final = r"(?:, ?| and |,? or | to | through | ?[–&/-] ?|\.\.)"
_BACK_TO_TABLE: Final = (
    r"(?:[\w'-]+ ){0,6}?(?:tables?|rows?|findings|issues|items|above|below|listed|lists)"
    r"(?: above| below)?(?: \([^()]{0,80}\))?[.!]?$"
    rf"|{_ROW_ID}(?:{_ID_JOIN}{_ROW_ID}){{0,20}}(?: above| below| in the table)?"
    r"(?: \([^()]{0,80}\))?\.?$")
_NO_ISSUES: Final = re.compile(
    r"(?:none|n/a|nothing(?: else| blocking| further| more)?|"
    r"no (?:other |further |additional |new |more )?(?:issues|problems|findings|concerns))"
    r"(?: (?:found|to report|to add|identified|noted|at this time|so far|blocking|further|"
    r"additional|else)\b(?:(?! (?:other than|apart from|aside from|besides|except)\b)"
    r"[^,;(—–])*)?"
    # what follows may only point straight back at the table (`None beyond the table`,
    # `No other issues other than those in the table`, `None beyond R-1`) or say, within
    # a few words, that all is well (`None — the module is in good shape`); not `None
    # other than values above 255 …` nor `None, apart from the MD5 comment`
    r"(?:,? (?:beyond|besides|other than|outside(?: of)?|apart from|aside from|"
    rf"except(?: for)?) (?:{_BACK_TO_TABLE})"
    rf"|(?: [—–-] |, ?| ?\()(?!{_EXCEPT}\b|beyond\b|outside\b)"
    r"(?=(?:\S+ ){0,5}?(?<!not )(?:table|covered|listed|rows?|findings|good|fine|correct|"
    r"checks? out|clean|ok|okay|see above|see below)\b)"
    rf"(?!.*\b{_EXCEPT}\b).*)?", re.IGNORECASE)
_NO_ISSUES_MAX: Final = 400  # characters: a longer line says something; keeps it linear
# ... but it goes on to report one: `No other issues, but cli.py:40 swallows errors`
_YET: Final = re.compile(r"\b(?:but|except that|however)\b", re.IGNORECASE)
# an Issues line that says it adds to what the table says, not restates it: it opens so,
# or names another defect (`X is also affected` restates a row; `Also, X` adds one)
_ANOTHER: Final = re.compile(r"^(?:also|additionally|in addition|separately|another)\b"
                             r"|\banother (?:issue|defect|bug|problem|case|finding)\b",
                             re.IGNORECASE)
_IN_PARENS: Final = re.compile(r"\([^()]*\)")  # `a.py:95 (also 101, 117)` names places
_BRIEF: Final = 30  # words: at most this long, an issue naming a row's place restates it


class _RowWords:
    """Table rows by severity word, with their significant words, for `restated`."""

    LIMIT: Final = 64  # rows compared per issue: keeps the matching linear

    def __init__(self, rows: list[RawFinding]) -> None:
        self._open: dict[str, list[tuple[RawFinding, set[str]]]] = {}
        for row in rows:
            self._open.setdefault(normalise_word(row.severity or ""), []).append(
                (row, _words(row.title, row.description)))

    def restated(self, issue: RawFinding) -> RawFinding | None:
        """The unmatched row with the issue's severity word that shares the most (at
        least two) significant words with it; it is then matched and leaves the pool."""
        if issue.id or issue.location:
            return None  # matched (or not) by id and place in add_or_fill
        words = _words(issue.title, issue.description)
        candidates = self._open.get(normalise_word(issue.severity or ""), [])
        best, best_shared = -1, 1
        for n, (_row, row_words) in enumerate(candidates[: self.LIMIT]):
            shared = len(words & row_words)
            # a long issue shares a few words with any row: ask for a quarter of the
            # shorter text's words too
            if shared > best_shared and 4 * shared >= min(len(words), len(row_words)):
                best, best_shared = n, shared
        return candidates.pop(best)[0] if best >= 0 else None


def _says_again(row: RawFinding | None, issue: RawFinding) -> bool:
    """Whether a long issue at a row's place says what the row says: at least two of the
    same significant words, a quarter of the shorter text's (`_RowWords.restated`'s bar)."""
    if row is None or (issue.severity and row.severity and normalise_word(issue.severity)
                       != normalise_word(row.severity)):
        return False  # another rank: another defect at that place
    words, row_words = _words(issue.title, issue.description), _words(row.title, row.description)
    shared = len(words & row_words)
    return shared >= 2 and 4 * shared >= min(len(words), len(row_words))


def _count_word(name: str) -> Callable[[list[Finding]], int]:
    canonical = {"critical": Severity.CRITICAL, "important": Severity.MAJOR,
                 "minor": Severity.MINOR, "high": Severity.CRITICAL, "medium": Severity.MAJOR,
                 "low": Severity.MINOR}[name]

    def count(findings: list[Finding]) -> int:
        return sum(1 for f in findings if f.severity is canonical)

    return count


SDD: Final = SddDialect()
