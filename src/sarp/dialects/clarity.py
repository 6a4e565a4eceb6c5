# Clarity Loop's Structured Agent Result Protocol (seed 000) and its ancestor Bowser.
#
# Envelope: a summary line `RESULT: <STATUS> | Type: <type> | <metrics>`, a metadata
# block between `---` lines with bold keys, then a type-specific detail section (finding
# table, checklist, files/criteria/tests, inventory). Bowser is the same summary line
# with `PASS|FAIL | Steps: x/y` and a step table.
#
# Summary-line choice (SPEC §4): candidates are RESULT lines outside fences and
# blockquotes. Take the first non-blank line if it is one; else the last non-blank line;
# else the first candidate. When no candidate is outside a fence, a fence whose first
# line is a RESULT line is read as if unfenced (the envelope fenced inside prose).
#
# The spec below (`TYPES`, `METADATA_KEYS`, `FINDING_COLUMNS`, vocabularies) is read by
# the parser, the renderer and the prompt writer alike.
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from sarp.dialects import common
from sarp.dialects.base import Builder, RawFinding
from sarp.dialects.prose import read_prose_findings
from sarp.dialects.rendering import NOT_GIVEN, prose_line, status_word, stop_reason
from sarp.model import ChecklistStatus, Finding, Result, Severity, Status
from sarp.text.inline import key_value, strip_emphasis
from sarp.text.lines import MARKER, Document
from sarp.text.tables import find_tables
from sarp.text.write import headline, inline, location_text, table
from sarp.vocab import STATUS

__all__ = ["BOWSER", "CLARITY", "ClarityDialect"]

TYPES: Final[dict[str, tuple[str, ...]]] = {
    "digest": ("Doc", "Sections", "Entities", "Cross-refs"),
    "consistency": ("Pair", "Findings", "Critical", "Major", "Minor"),
    "verification": ("Items", "Applied", "Partial", "Missing"),
    "implementation": ("Task", "Files", "Criteria", "Tests"),
    "design-plan": ("Screen", "Components"),
}
TAIL_METRICS: Final = ("Coverage", "Reason")  # appended on PARTIAL and ERROR
# bowser's two words; the statuses it has none for keep their names (dialects/rendering.py)
BOWSER_WORDS: Final = {Status.CLEAN: "PASS", Status.FINDINGS: "FAIL"}
BOWSER_STEP_COLUMNS: Final = ("#", "Step", "Status", "Location", "Evidence")
# what each metric holds, for instructions and for metrics a renderer does not know
PLACEHOLDERS: Final = {"Doc": "<path>", "Pair": "<docA>/<docB>", "Task": "<ID>",
                       "Screen": "<name>", "Criteria": "<pass>/<total>",
                       "Tests": "<pass>/<total>", "Coverage": "<X%>", "Reason": "<reason>",
                       "Steps": "<passed>/<total>"}
METADATA_KEYS: Final = ("Protocol", "Agent", "Assigned", "Scope", "Coverage", "Confidence")
FINDING_COLUMNS: Final = ("ID", "Severity", "Type", "Location", "Counter-location",
                          "Description", "Suggestion")
FINDING_TYPES: Final = ("contradiction", "terminology-drift", "broken-reference",
                        "stale-content", "missing-coverage", "redundant-spec",
                        "abstraction-leak", "fidelity-loss", "scope-violation", "regression")
SEVERITIES: Final = {"critical": Severity.CRITICAL, "major": Severity.MAJOR,
                     "minor": Severity.MINOR}
_KNOWN_METRICS: Final = {name.lower(): name for names in TYPES.values() for name in names} | {
    "type": "Type", "coverage": "Coverage", "reason": "Reason", "dimension": "Dimension",
    "confirmed": "Confirmed", "failed": "Failed", "steps": "Steps", "assertions": "Assertions",
    "duration": "Duration", "cross refs": "Cross-refs", "crossrefs": "Cross-refs",
    "xrefs": "Cross-refs", "cross-references": "Cross-refs", "document": "Doc",
    "file": "Doc", "criteria passed": "Criteria", "tests passed": "Tests",
    "checks": "Items", "items checked": "Items", "pass": "Applied", "passed": "Applied",
    "fail": "Missing",
}
_METRIC_TYPE_HINTS: Final = {"Pair": "consistency", "Items": "verification",
                             "Criteria": "implementation", "Screen": "design-plan",
                             "Sections": "digest", "Dimension": "consistency"}
_INT: Final = re.compile(r"\d{1,9}")
_BREAKDOWN: Final = re.compile(r"^(?P<head>[^()]{0,200}?)\s?\((?P<inner>[^()]{1,400})\)\s?$")
_BOWSER_WORD: Final = re.compile(r"\W{0,4}(PASS|FAIL)\b")
_STEPS_PROSE: Final = re.compile(r"(?P<passed>\d{1,4})\s?(?:of|/)\s?(?P<total>\d{1,4})\s"
                                 r"steps?", re.IGNORECASE)
_PAIR_SPLIT: Final = re.compile(r"\s?[:=]\s?")


@dataclass(frozen=True)
class _Variant:
    name: str
    status_words: tuple[str, ...]


def _result_word(line: str) -> int:
    """Offset just after `RESULT:` when `line` is a summary-line candidate, else -1."""
    text = line.lstrip(" \t*_`#>-")
    if text[:6].upper() != "RESULT" or text[6:7].isalpha() or text[6:7] == "_":
        return -1
    rest = text[6:].lstrip("*_ `")
    if not rest.startswith((":", "=")):
        return -1
    if text[:6] != "RESULT":  # `Result: ...` in prose only counts with a status word
        word = rest[1:].strip(" *_`").split(" ", 1)[0].split("|", 1)[0].strip().upper()
        if word not in _ALL_STATUS_WORDS:
            return -1
    return len(line) - len(rest) + 1


_ALL_STATUS_WORDS: Final = frozenset(
    w.upper() for v in ("clarity", "bowser") for w in
    (*STATUS[v].canonical, *STATUS[v].aliases)
)


class ClarityDialect:
    case_sensitive = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.vocab = STATUS[name]
        self.severities: dict[str, Severity] = dict(SEVERITIES)

    # -- detect ----------------------------------------------------------------------
    def detect(self, doc: Document) -> int:
        best = 0
        low = doc.src.lower()
        at = low.find("result")
        i = counted = 0  # line index of `counted`, moved forward only (linear)
        while at >= 0:
            i += low.count("\n", counted, at)
            # each line is looked at once: go on from the start of the next line
            counted = low.find("\n", at)
            if counted < 0:
                counted = len(low)
            at = low.find("result", counted)
            line = doc.lines[i]
            offset = _result_word(line)
            if offset < 0 or line.lstrip()[:1] == ">":
                continue  # not a summary line, or one quoted from another agent
            upper = line.upper()
            is_bowser = "STEPS:" in upper or _BOWSER_WORD.match(upper, offset) is not None
            score = 60 if doc.is_text(i) else 10
            if "TYPE:" in upper:
                score += 20
            if is_bowser:
                score += 15 if self.name == "bowser" else 0
            elif self.name == "clarity":
                score += 10
            best = max(best, score)
        return best

    # -- parse -----------------------------------------------------------------------
    def parse(self, b: Builder) -> None:
        b.envelope_name = "RESULT summary line"
        doc = b.doc
        candidates = [i for i, line in enumerate(doc.lines)
                      if "RESULT" in line.upper() and doc.is_text(i) and _result_word(line) >= 0]
        if not candidates:
            for open_at, close_at, _info in doc.fences:
                first = _first_inside(doc, open_at)
                if first >= 0 and _result_word(doc.lines[first]) >= 0:
                    b.doc = doc = doc.unwrap(open_at, close_at)
                    b.diag("SARP005", open_at, what="RESULT line", open=open_at + 1)
                    candidates = [first]
                    break
        if not candidates:
            self._detail(b, 0)
            return
        first, last = doc.first_nonblank(), doc.last_nonblank()
        if candidates[0] == first:
            chosen = first
        elif candidates[-1] == last:
            chosen = last
            b.closing_seen = True  # a summary line written last closes the reply
            if self.name != "bowser":  # Bowser's stories end with the RESULT line
                b.diag("SARP105", chosen)
        else:
            chosen = candidates[0]
            b.diag("SARP104", chosen, count=_count_text_lines(doc, first, chosen))
        if len(candidates) > 1:
            b.diag("SARP106", candidates[1], count=len(candidates), used=chosen + 1)
        b.envelope = True
        b.envelope_line = chosen
        self._summary(b, chosen)
        after = self._metadata(b, chosen) if chosen != last or chosen == first \
            else chosen + 1
        # The detail is the whole reply but the summary line and metadata block:
        # findings written before a summary line that comes last count too.
        self._detail(b, 0, skip=(chosen, after))

    def _summary(self, b: Builder, i: int) -> None:
        line = b.doc.lines[i]
        start = _result_word(line)
        text = line[start:].strip()
        stripped_line = line.strip()
        if stripped_line.startswith(("**", "`", "__")) or "**" in text:
            b.diag("SARP110", i, what="summary line")
        text = text.replace("**", "").strip().strip("`").strip()
        separator = "|" if "|" in text else " — " if " — " in text else " -- "
        if separator != "|" and separator in text:
            b.diag("SARP113", i, text=f"fields separated by {separator.strip()!r}, not |")
        segments = [s.strip() for s in text.split(separator)]
        head = segments[0].strip(" *_`")
        status_word, _, rest = head.partition(" ")
        if rest.strip():
            # `COMPLETE — 12/12 sections read`: the word, then prose
            status_word = status_word.strip(",.;:")
            note = rest.strip(" —–-,")
            if note:
                b.metrics.setdefault("notes", []).append(note)
                b.diag("SARP113", i, text=note)
        if head.upper() == "ISSUES FOUND":
            status_word = head
        b.set_status(status_word, i)
        previous: str | None = None
        reason_tail: list[str] = []  # a reason with pipes in it, joined once
        for segment in segments[1:]:
            if not segment:
                continue
            previous = self._metric(b, i, segment, previous, reason_tail)
        if reason_tail:
            b.metrics["Reason"] = " | ".join([str(b.metrics["Reason"]), *reason_tail])
        if self.name == "bowser" and "Steps" not in b.metrics:
            self._steps_in_prose(b, text)
        self._type_checks(b, i)

    def _metric(self, b: Builder, i: int, segment: str, previous: str | None,
                reason_tail: list[str]) -> str | None:
        if segment.lower() in TYPES and "Type" not in b.metrics and b.result_type is None:
            b.result_type = segment.lower()  # a bare `consistency`: the type, unlabelled
            b.diag("SARP108", i, written=segment, canonical=f"Type: {segment.lower()}")
            return "Type"
        pair = _PAIR_SPLIT.split(segment, maxsplit=1)
        if len(pair) != 2 or not pair[0] or len(pair[0]) > 40 or " " in pair[0].strip()[:1]:
            if previous == "Reason":  # a pipe inside the reason: joined in _summary
                reason_tail.append(segment)
                return previous
            b.metrics.setdefault("notes", []).append(segment)
            b.diag("SARP113", i, text=segment)
            return previous
        written, value = pair[0].strip(" *_`"), pair[1].strip(" *_`")
        canonical = _KNOWN_METRICS.get(written.lower(), written)
        if canonical != written:
            b.diag("SARP108", i, written=written, canonical=canonical)
        if canonical == "Type":
            b.result_type = value.lower() if value else None
            return canonical
        breakdown = _BREAKDOWN.match(value)
        if breakdown is not None and ("=" in breakdown["inner"] or ":" in breakdown["inner"]):
            value = breakdown["head"].strip()
            for part in re.split(r"[,;]\s?", breakdown["inner"]):
                inner = _PAIR_SPLIT.split(part.strip(), maxsplit=1)
                if len(inner) == 2:
                    self._metric(b, i, f"{inner[0]}: {inner[1]}", None, [])
        b.metrics[canonical] = _number(value)
        return canonical

    def _steps_in_prose(self, b: Builder, text: str) -> None:
        """`4 of 6 steps ok` after the status word: the Steps metric, unlabelled."""
        match = _STEPS_PROSE.search(text)
        if match is not None:
            b.metrics["Steps"] = f"{match['passed']}/{match['total']}"

    def _type_checks(self, b: Builder, i: int) -> None:
        if self.name == "bowser":
            if "Steps" not in b.metrics:
                b.diag("SARP109", i, name="Steps", result_type="bowser",
                       expected="RESULT: PASS|FAIL | Steps: <passed>/<total>")
            return
        if b.result_type is None:
            for metric, hint in _METRIC_TYPE_HINTS.items():
                if metric in b.metrics:
                    b.result_type = hint
                    break
            b.diag("SARP111", i)
        kind = b.result_type
        if kind is not None and kind not in TYPES:
            b.diag("SARP112", i, result_type=kind)
            return
        if kind is None:
            return
        status = (b.status_word or "").upper()
        if status in ("PARTIAL", "ERROR", "BLOCKED"):  # unfinished: a reason, no counts
            if "Reason" not in b.metrics:
                b.diag("SARP109", i, name="Reason", result_type=kind,
                       expected="`| Coverage: <X%> | Reason: <reason>`")
            return
        expected = " | ".join(f"{m}: {PLACEHOLDERS.get(m, '<N>')}" for m in TYPES[kind])
        missing = [m for m in TYPES[kind] if m not in b.metrics
                   and not (m == "Pair" and "Dimension" in b.metrics)]
        if missing:
            b.diag("SARP109", i, name=", ".join(missing), result_type=kind, expected=expected)

    def _metadata(self, b: Builder, i: int) -> int:
        """Read the metadata block after line i; return the first line after it."""
        if self.name == "bowser":
            return i + 1
        doc = b.doc
        j = doc.first_text(i + 1)
        if j < 0:  # nothing after the summary line
            b.diag("SARP107", i, keys=", ".join(METADATA_KEYS))
            return i + 1
        dashed = doc.lines[j].strip() == "---"
        if not dashed:
            # a heading or a sentence before the block: find it within the next lines
            k, seen = j, 0
            while k >= 0 and seen < 4 and not doc.lines[k].lstrip().startswith("|"):
                if doc.lines[k].strip() == "---":
                    b.diag("SARP116", k)
                    j, dashed = k, True
                    break
                seen += 1
                k = doc.first_text(k + 1)
        start = j + 1 if dashed else j
        end = start
        limit = min(len(doc.lines), start + 40)
        read = 0
        while end < limit:
            line = doc.lines[end].strip()
            if dashed and line == "---":
                break
            if not line:
                if not dashed:
                    break
                end += 1
                continue
            pair = key_value(line.lstrip("-* ").strip() if line.startswith(("- ", "* "))
                             else line)
            if pair is not None and dashed and pair[0].lower() not in _METADATA_ALIASES:
                # inside the block, a key the protocol does not name is kept as written
                b.metadata[pair[0].lower().replace(" ", "_")] = strip_emphasis(pair[1])
                read += 1
                end += 1
                continue
            if pair is None or pair[0].lower() not in _METADATA_ALIASES:
                if dashed and line.startswith(("#", "|")):
                    b.diag("SARP115", end - 1, end=end)
                    return end
                if not dashed:
                    break
                end += 1
                continue
            key = _METADATA_ALIASES[pair[0].lower()]
            if key.title() != pair[0] and pair[0] not in METADATA_KEYS:
                b.diag("SARP114", end, written=pair[0], canonical=key.title())
            self._meta_value(b, key, pair[1])
            read += 1
            end += 1
        if dashed and end >= limit:
            if end >= len(doc.lines):
                b.truncated("the metadata block is never closed", end - 1)
            else:
                b.diag("SARP115", end - 1, end=end)
            return end
        if read == 0:
            b.diag("SARP107", i + 1, keys=", ".join(METADATA_KEYS))
            return start if not dashed else end + 1
        if not dashed:
            b.diag("SARP107", i + 1, keys="between --- lines")
            return end
        return end + 1

    def _meta_value(self, b: Builder, key: str, value: str) -> None:
        value = strip_emphasis(value)
        if key == "coverage":
            number = value.rstrip("%").strip()
            b.metadata[key] = _number(number) if value.endswith("%") and \
                number.replace(".", "", 1).isdigit() else value
        elif key == "confidence":
            b.metadata[key] = value
            b.confidence = b.confidence_from(value)
        elif key == "agent":
            b.metadata[key] = value
            b.agent = value or b.agent
        else:
            b.metadata[key] = value

    def _detail(self, b: Builder, start: int, skip: tuple[int, int] = (0, 0)) -> None:
        doc = b.doc
        kind = b.result_type
        from_checklist: list[RawFinding] = []
        for tbl in find_tables(doc, start):
            if skip[0] <= tbl.header_line < skip[1]:
                continue
            shape = common.classify_table(tbl)
            if shape == "findings":
                required: tuple[str, ...] = ("severity", "location", "description") \
                    if self.name == "clarity" else ()
                if self.name == "clarity" and kind in (None, "consistency"):
                    required = ("id", "severity", "type", "location", "counter_location",
                                "description", "suggestion")
                common.read_finding_table(b, tbl, required=required, columns=FINDING_COLUMNS)
            elif shape in ("checklist",):
                # a verification reply's partial and missing items are its findings
                before = len(b.findings)
                common.read_checklist_table(b, tbl, failures_are_findings=kind in (
                    "verification", None) and self.name == "clarity" and b.envelope)
                from_checklist.extend(b.findings[before:])
            elif shape == "criteria":
                rows = common.read_tests_table(b, tbl, "criterion")
                b.fields.setdefault("criteria", []).extend(rows)
            elif shape == "tests":
                rows = common.read_tests_table(b, tbl, "test")
                b.fields.setdefault("tests", []).extend(rows)
            elif shape == "steps":
                rows = common.read_tests_table(b, tbl, "step")
                b.fields.setdefault("steps", []).extend(rows)
            elif shape == "references":
                common.read_references_table(b, tbl)
            else:
                b.fields.setdefault("tables", []).append(
                    {"header": tbl.header, "rows": [r.cells for r in tbl.rows]})
        if from_checklist and len(b.findings) > len(from_checklist):
            # the reply lists its findings in a table of their own: the checklist's
            # failures are those findings again, not more of them
            derived = {id(f) for f in from_checklist}
            b.findings[:] = [f for f in b.findings if id(f) not in derived]
        known = {f.id.upper() for f in b.findings if f.id}
        common.read_details(b, start, len(doc.lines), known_ids=known)
        self._checklist_details(b, start)
        if not b.findings and not b.details:
            read_prose_findings(b, start, len(doc.lines))
        if not b.envelope and (b.findings or b.details):
            b.recovered = True
        self._bowser_failures(b)
        self._declared_counts(b)

    def _checklist_details(self, b: Builder, start: int) -> None:
        """`### Partial: ...` / `### Missing: ...` sections expand the checklist's
        partial and missing items, in order; their evidence gives the place."""
        pending = {kind: [f for f in b.findings if f.type == kind and f.location is None]
                   for kind in ("partial", "missing")}
        if not pending["partial"] and not pending["missing"]:
            return
        for sec in common.sections(b.doc, start):
            kind = strip_emphasis(sec.title).lower().split(":", 1)[0].split(" ", 1)[0]
            if pending.get(kind):
                finding = pending[kind].pop(0)
                body = common.section_text(b.doc, sec.line + 1, sec.end)
                finding.location = common.location_in(body)
                if body and not finding.description:
                    finding.description = " ".join(body.split())

    def _bowser_failures(self, b: Builder) -> None:
        """Failed steps without a step table: `❌` list items, else the metrics."""
        if self.name != "bowser" or b.findings or (b.status_word or "").upper() != "FAIL":
            return

        for i, text in common.bullets(b.doc, 0, len(b.doc.lines)):
            plain = strip_emphasis(text)
            if plain.startswith(("❌", "✗", "FAIL", "[FAIL]", "✘")):
                step = plain.lstrip("❌✗✘ ").removeprefix("[FAIL]").removeprefix("FAIL")
                b.add(RawFinding(line=i, type="failed-step", title=step.strip(" :—-") or None,
                                 default=Severity.MAJOR, severity_expected=False))
        if b.findings:
            return
        failed = b.metrics.get("Failed")
        steps = _fraction(b.metrics.get("Steps"))
        title = str(failed).strip('"') if failed else None
        if title or (steps and steps[0] < steps[1]):
            b.add(RawFinding(line=b.envelope_line, type="failed-step",
                             title=title or f"step {steps[0] + 1 if steps else '?'} failed",
                             default=Severity.MAJOR, severity_expected=False))

    def _declared_counts(self, b: Builder) -> None:
        if not b.envelope:
            return
        line = b.envelope_line
        where = "the summary line"
        metrics = b.metrics
        if isinstance(metrics.get("Findings"), int):
            b.expect_count(where, "Findings", metrics["Findings"], len, "findings", line)
        for name, sev in (("Critical", Severity.CRITICAL), ("Major", Severity.MAJOR),
                          ("Minor", Severity.MINOR)):
            if isinstance(metrics.get(name), int):
                b.expect_count(where, name, metrics[name], _count_severity(sev),
                               f"{name.lower()} findings", line)
        if b.result_type == "verification" and b.checklist:
            self._checklist_counts(b, line)

    def _checklist_counts(self, b: Builder, line: int) -> None:
        counts = {"Items": len(b.checklist)}
        for name, status in (("Applied", ChecklistStatus.APPLIED),
                             ("Partial", ChecklistStatus.PARTIAL),
                             ("Missing", ChecklistStatus.MISSING)):
            counts[name] = sum(1 for item in b.checklist if item.status is status)
        for name, found in counts.items():
            declared = b.metrics.get(name)
            if isinstance(declared, int) and declared != found:
                b.diag("SARP301", line, where="the summary line", name=name,
                       declared=declared, found=found, what="checklist items")

    # -- render ----------------------------------------------------------------------
    def render(self, result: Result) -> str:
        if self.name == "bowser":
            return self._render_bowser(result)
        kind = result.result_type or "consistency"
        word = status_word(result, self.vocab, {})  # Clarity's words are the canonical names
        metrics = _render_metrics(result, kind)
        lines = [" | ".join([f"RESULT: {word}", f"Type: {kind}", *metrics])]
        lines.append("---")
        meta = dict(result.metadata)
        if result.agent and "agent" not in meta:
            meta["agent"] = result.agent
        if not meta:
            meta["protocol"] = "v1"  # an empty block is no block: say the version
        for key, value in meta.items():
            lines.append(f"**{prose_line(key.title())}**: {_scalar(value, key)}")
        lines.append("---")
        lines.append("")
        # a verification reply's failed items, and the failed rows of the test, criteria
        # and step tables, are findings that parse derives again: written once, as rows
        derived = common.derived_findings(result, checklist=kind == "verification")
        own = [f for f in result.findings if f.id not in derived]
        if result.checklist:
            lines.extend(table(("Item", "Status", "Notes"),
                               [(c.item, c.status.value, c.notes or "") for c in
                                result.checklist]))
            lines.append("")
            # where a partial or missing item is: the `### Partial: item` sections the
            # parser pairs with those items in order (`_checklist_details`), one for
            # each item of a kind once any of that kind has a place
            items = [f for f in result.findings if f.id in derived and f.type in (
                "partial", "missing")]
            placed = {f.type for f in items if f.location}
            for f in items:
                if f.type in placed:
                    lines.extend([f"### {(f.type or '').title()}: {inline(f.title or f.id)}",
                                  prose_line(location_text(f.location)) if f.location else "",
                                  ""])
        if own:
            lines.extend(table(FINDING_COLUMNS, [_finding_row(f) for f in own]))
            lines.append("")
            for f in own:
                lines.extend(_details(f))
        for name in ("criteria", "tests", "steps"):
            rows = result.fields.get(name)
            if isinstance(rows, list) and rows and isinstance(rows[0], dict):
                header = list(rows[0])
                lines.extend([*table(header, [[r.get(h, "") for h in header] for r in rows]),
                              ""])
        for extra in result.fields.get("tables", []):
            if isinstance(extra, dict) and extra.get("header"):
                lines.extend([*table(extra["header"], extra.get("rows", [])), ""])
        return "\n".join(lines).rstrip() + "\n"

    def _render_bowser(self, result: Result) -> str:
        word = status_word(result, self.vocab, BOWSER_WORDS)
        steps = result.metrics.get("Steps")
        rows = result.fields.get("steps")
        if steps is None:  # known only from the findings: each one a failed step
            steps = f"0/{0 if rows else len(result.findings)}"
        metrics = _with_reason(result, "bowser")
        more = [f"{k}: {v}" for k, v in metrics.items() if k not in ("Steps", "notes")]
        lines = [" | ".join([f"RESULT: {word}", f"Steps: {steps}", *more])]
        if rows:
            header = list(rows[0])
            lines.append("")
            lines.extend(table(header, [[r.get(h, "") for h in header] for r in rows]))
        elif result.findings and word == "FAIL" and all(
                f.location is None and not f.description for f in result.findings):
            lines.append("")  # failed steps that are only a title: `❌` lines, as written
            lines.extend(f"- ❌ {inline(f.title or f.id)}" for f in result.findings)
        elif result.findings:
            # a step table: its failed rows are read whatever the status word, and it has
            # a place for each finding's location and text (none for a severity)
            lines.append("")
            lines.extend(table(BOWSER_STEP_COLUMNS, [
                (n, headline(f.title, f.description, f.id), "FAIL",
                 location_text(f.location) if f.location else "",
                 (f.description or "").split("\n\n", 1)[0])
                for n, f in enumerate(result.findings, 1)]))
        return "\n".join(lines) + "\n"


_METADATA_ALIASES: Final = {k.lower(): k.lower() for k in METADATA_KEYS} | {
    "duration": "duration", "role": "agent", "task": "assigned", "assignment": "assigned",
    "protocol version": "protocol", "version": "protocol", "documents": "scope",
    "work unit": "scope", "target": "scope", "files": "scope",
}


def _first_inside(doc: Document, open_at: int) -> int:
    for i in range(open_at + 1, len(doc.lines)):
        if doc.kinds[i] == MARKER:
            return -1
        if doc.lines[i].strip():
            return i
    return -1


def _count_text_lines(doc: Document, start: int, end: int) -> int:
    return sum(1 for i in range(start, end) if doc.lines[i].strip())


def _number(value: str) -> Any:
    text = value.strip()
    if _INT.fullmatch(text):
        return int(text)
    return text


def _fraction(value: object) -> tuple[int, int] | None:
    if not isinstance(value, str) or "/" not in value:
        return None
    left, _, right = value.partition("/")
    if left.strip().isdigit() and right.strip().isdigit():
        return int(left), int(right)
    return None


def _count_severity(severity: Severity) -> Any:
    def count(findings: list[Finding]) -> int:
        return sum(1 for f in findings if f.severity is severity)

    return count


def _with_reason(result: Result, dialect: str) -> dict[str, Any]:
    """The summary line's metrics, with a `Reason` when the work stopped short. Metrics
    are the source dialect's own: another dialect's (Aphelion's PASSED/FAILED, Clarity's
    severity counts in a bowser line) would be read as this one's and contradict it."""
    metrics = dict(result.metrics) if result.dialect == dialect else {}
    if result.status not in (Status.CLEAN, Status.FINDINGS):
        metrics.setdefault("Reason", inline(stop_reason(result) or NOT_GIVEN))
    return metrics


def _render_metrics(result: Result, kind: str) -> list[str]:
    metrics = _with_reason(result, "clarity")
    if kind == "consistency" and result.status in (Status.CLEAN, Status.FINDINGS):
        metrics["Findings"] = len(result.findings)
        for name, sev in (("Critical", Severity.CRITICAL), ("Major", Severity.MAJOR),
                          ("Minor", Severity.MINOR)):
            metrics[name] = sum(1 for f in result.findings if f.severity is sev)
    order = [*TYPES.get(kind, ()), *TAIL_METRICS]
    out = []
    for name in order:
        if name in metrics:
            out.append(f"{name}: {metrics[name]}")
        elif name in TYPES.get(kind, ()) and result.status in (Status.CLEAN, Status.FINDINGS):
            out.append(f"{name}: {_default_metric(result, name)}")
    for name, value in metrics.items():
        if name not in order and name != "notes":
            out.append(f"{name}: {value}")
    return out


def _default_metric(result: Result, name: str) -> object:
    counts = {"Items": len(result.checklist)}
    for status in ChecklistStatus:
        counts[status.value.title()] = sum(1 for c in result.checklist if c.status is status)
    return counts.get(name, PLACEHOLDERS.get(name, 0))


def _scalar(value: object, key: str) -> str:
    if key == "coverage" and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:g}%"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return " ".join(str(value).split())


def _finding_row(f: Finding) -> list[str]:
    summary = (f.description or "").split("\n\n", 1)[0]
    return [f.id, f.severity.value, f.type or "--", location_text(f.location),
            location_text(f.counter_location), summary, f.suggestion or ""]


def _details(f: Finding) -> list[str]:
    """The `### F1: title (severity)` section: what the table row cannot hold."""
    more = (f.description or "").split("\n\n", 1)[1:]
    bullets = [(label, value) for label, value in (
        ("Impact", f.impact), ("Confidence", None if f.confidence is None
                               else f"{f.confidence:g}"), ("Agent", f.agent)) if value]
    if not (f.title or more or bullets):
        return []
    out = [f"### {prose_line(f.id)}: {f.title or ''} ({f.severity.value})".replace(":  (", ": (")]
    out.extend(f"- **{label}**: {inline(value)}" for label, value in bullets)
    for paragraph in more[0].split("\n\n") if more else ():
        out.extend(["", prose_line(inline(paragraph))])
    return [*out, ""]


CLARITY: Final = ClarityDialect("clarity")
BOWSER: Final = ClarityDialect("bowser")
