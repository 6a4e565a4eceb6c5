# ADR-013 standardized review output (seed 001) and the lead-review extensions.
#
# Envelope: `# <Agent> Review`, `## Files Reviewed`, `## Findings` with one
# `### <SEVERITY>: <title>` heading per finding and `- **Location**/Description/Impact/Fix`
# bullets, then `## Summary` with `- **CRITICAL**: X` counts and `- **Verdict**: ...`.
# The Summary is the required closing part: a reply in that frame without it was cut off
# (or forgot it), so it is read as truncated. Severity headings alone (`## High: title`
# in a message with no `# X Review`, `## Files Reviewed` or `## Findings`) are read the
# same way, but without a Summary only an abrupt end says the reply was cut.
#
# Drift handled: severities other than the three (HIGH/MEDIUM/LOW, emoji, read through the
# reply's scale), finding heads as bold lines (`**SUGGESTION 1: title** (`file:26`)`),
# struck-through or resolved heads (kept under fields.resolved, not counted), lead-review
# suffixes (`— agent`), `**Agents**:` bullets, counts followed by prose or
# `(Y corroborated)`, prose verdicts (`PASS with one IMPORTANT note`), SKIPPED with the
# reason inline.
from __future__ import annotations

import re
from typing import Final

from sarp.dialects import common
from sarp.dialects.base import Builder
from sarp.dialects.prose import (
    SEVERITY_WORDS,
    finding_head_line,
    heads_a_group,
    keep_findings_after,
    read_prose_findings,
)
from sarp.dialects.rendering import NOT_GIVEN, prose_line, status_word, stop_reason
from sarp.model import Finding, Result, Severity, Status
from sarp.text.inline import key_value, list_item, strip_emphasis, strip_markup
from sarp.text.lines import PLAIN, Document
from sarp.text.write import code_span, headline, inline, location_text
from sarp.vocab import STATUS, normalise_word

__all__ = ["ADR013", "Adr013Dialect", "finding_bullets"]

SEVERITIES: Final = {"CRITICAL": Severity.CRITICAL, "IMPORTANT": Severity.MAJOR,
                     "SUGGESTION": Severity.MINOR}
FINDING_FIELDS: Final = (("Location", "location"), ("Counter-location", "counter_location"),
                         ("Type", "type"), ("Description", "description"),
                         ("Impact", "impact"), ("Fix", "suggestion"),
                         ("Confidence", "confidence"), ("Agent", "agent"))
VERDICTS: Final = ("ISSUES FOUND", "APPROVED")
# the verdict a renderer writes per status: ADR-013 has none for PARTIAL and ERROR (their
# names are written, see dialects/rendering.py), and its own BLOCKED verdict means
# blocking findings, so a blocked agent's review is written as the unfinished one it is
VERDICT_FOR: Final = {Status.CLEAN: "APPROVED", Status.FINDINGS: "ISSUES FOUND",
                      Status.BLOCKED: "PARTIAL"}
_COUNT: Final = re.compile(r"(?P<n>\d{1,6})(?P<rest>.{0,500})$")
_CORROBORATED: Final = re.compile(r"\((?P<n>\d{1,6}) corroborated\)")


_HEADS: Final = re.compile(
    r"^#{2,4} [^\w\n]{0,4}\[?(?:CRITICAL|IMPORTANT|SUGGESTION|HIGH|MEDIUM|LOW|Critical|"
    r"Important|Suggestion|High|Medium|Low)\]?(?: \d{1,3}| [A-Z]{1,4}-?\d{1,3})?:")


_REVIEW_TITLE: Final = re.compile(r"(?P<agent>.{1,80}) Review\b", re.IGNORECASE)
_BOLD_HEAD: Final = re.compile(
    r"\n\*\*[^\n*]{0,4}(?:CRITICAL|IMPORTANT|SUGGESTION|HIGH|MEDIUM|LOW)\b")


class Adr013Dialect:
    name = "adr013"
    severities = SEVERITIES
    case_sensitive = True

    def __init__(self) -> None:
        self.vocab = STATUS["adr013"]

    def detect(self, doc: Document) -> int:
        src = doc.src
        score = 0
        if "#" in src and any(_HEADS.match(doc.lines[i]) for i in doc.headings()):
            score += 35
        if "## Summary" in src or "**Verdict**" in src or "Verdict:" in src:
            score += 25
        if "### CRITICAL" in src or "### IMPORTANT" in src or "### SUGGESTION" in src:
            score += 10
        elif "**CRITICAL**" in src or "**IMPORTANT**" in src or "**SUGGESTION" in src:
            score += 25
        if "## Files Reviewed" in src:
            score += 15
        if " Review\n" in src or src.lstrip().startswith("# ") or "\n# " in src:
            score += 5
        if score and _BOLD_HEAD.search(src) is not None:
            score += 20  # findings written as bold lines: `**🟠 MEDIUM — title**`
        return score if score >= 30 else 0

    def parse(self, b: Builder) -> None:
        b.envelope_name = "## Summary section"
        doc = b.doc
        secs = common.sections(doc)
        summary = next((s for s in secs if s.level <= 3 and
                        strip_emphasis(s.title).lower().startswith(("summary", "verdict"))), None)
        for sec in secs:
            named = _REVIEW_TITLE.match(sec.title) if sec.level == 1 else None
            if named is not None:
                b.fields["title"] = sec.title
                if b.agent is None:  # `# Silent Failure Review — sndhdr`
                    b.agent = "-".join(named["agent"].lower().split()) or None
            elif strip_emphasis(sec.title).lower().startswith("files reviewed"):
                files = [strip_markup(t) for _, t in common.bullets(doc, sec.line + 1, sec.end)]
                b.metadata["files_reviewed"] = files
        stop = summary.line if summary is not None else len(doc.lines)
        self._findings(b, 0, stop)
        if summary is not None:
            b.envelope = True
            b.closing_seen = True
            self._summary(b, summary.line, summary.end)
            # a finding written after the Summary is still a finding (ADV16 #4)
            count, said = len(b.findings), len(b.diagnostics)
            self._findings(b, summary.line + 1, len(doc.lines))
            keep_findings_after(b, count, said, "## Summary section")
        else:
            framed = "title" in b.fields or "files_reviewed" in b.metadata or any(
                strip_emphasis(s.title).lower().startswith("findings") for s in secs)
            if b.findings or framed:
                b.envelope = True
                b.diag("SARP401", doc.last_nonblank(), dialect="adr013",
                       part="## Summary section",
                       hint="End with ## Summary: counts and **Verdict**.")
            if framed:
                b.truncated("the closing ## Summary section is missing", doc.last_nonblank())
            # else: severity headings in a message with none of the review's frame (no
            # `# X Review`, `## Files Reviewed` or `## Findings`): a missing Summary is
            # not evidence of a cut; how the text ends is

    def _findings(self, b: Builder, start: int, stop: int) -> None:
        doc = b.doc
        heads = [(i, head) for i in range(start, stop) if doc.kinds[i] == PLAIN
                 and (head := finding_head_line(doc.lines[i])) is not None]
        ends = [h[0] for h in heads[1:]] + [stop] if heads else []
        for (i, head), end in zip(heads, ends, strict=True):
            end = _section_end(doc, i, end)
            if heads_a_group(head, doc.lines, doc.kinds, i, end):
                read_prose_findings(b, i, end)  # `## High:` over a list: its items
                continue
            severity, title, resolved = head.severity, head.title, head.resolved
            raw = head.finding(i)
            if head.form != "heading":
                b.diag("SARP209", i, form=head.form, expected="`### SEVERITY: title`")
            common.read_body(b, raw, i + 1, end)
            if raw.agent is None:
                agents = _agents_bullet(doc, i + 1, end)
                if agents:
                    raw.agent = agents
            if raw.location is None and raw.description:
                raw.location = common.location_in(raw.description)
            if resolved:
                b.fields.setdefault("resolved", []).append(
                    {"severity": severity, "title": title, "line": i + 1})
                b.diag("SARP210", i, title=title)
                continue
            b.add(raw)
        b.requires_location = True

    def _summary(self, b: Builder, start: int, end: int) -> None:
        doc = b.doc
        verdict_line = -1
        reason: str | None = None
        for i in range(start + 1, end):
            if doc.kinds[i] != PLAIN:
                continue
            text = list_item(doc.lines[i])
            text = doc.lines[i].strip() if text is None else text
            pair = key_value(text)
            if pair is None:
                continue
            key, value, _ = pair
            word = normalise_word(key)
            if word == "verdict":
                verdict_line = i
                verdict = strip_emphasis(value).strip("`* ")
                b.set_status(verdict, i)
                for sep in (" — ", " - ", " – ", ": "):
                    if verdict.upper().startswith("SKIPPED") and sep in verdict:
                        reason = verdict.split(sep, 1)[1].strip()
                        break
            elif word == "reason":
                reason = strip_emphasis(value)
            elif word in SEVERITY_WORDS or word.rstrip("s") in SEVERITY_WORDS:
                self._count(b, i, key, value)
        if reason:
            b.fields["reason"] = reason
        if verdict_line < 0:
            # A title-line verdict (`## Verdict: APPROVED`) also counts.
            title = strip_emphasis(doc.lines[start].lstrip("# "))
            pair = key_value(title)
            if pair is not None and normalise_word(pair[0]) == "verdict":
                b.set_status(strip_emphasis(pair[1]).strip("`* "), start)
                verdict_line = start
        if verdict_line < 0:
            b.diag("SARP401", start, dialect="adr013", part="**Verdict** line",
                   hint="End the Summary with `- **Verdict**: ISSUES FOUND | APPROVED`.")
            return
        verdict_word = (b.status_word or "").upper()
        if verdict_word == "APPROVED":  # APPROVED with findings listed: ISSUES FOUND meant
            b.expect_count("the Verdict", "APPROVED, findings", 0, len, "findings",
                           verdict_line)
        if verdict_word.startswith("SKIPPED") and not reason:
            b.diag("SARP403", verdict_line)
        elif verdict_word.startswith("SKIPPED"):
            b.fields["skipped"] = True

    def _count(self, b: Builder, i: int, key: str, value: str) -> None:
        text = strip_emphasis(value)
        match = _COUNT.match(text.strip())
        if match is None:
            return
        declared = int(match["n"])
        corroborated = _CORROBORATED.search(match["rest"])
        name = strip_emphasis(key).strip()
        if corroborated is not None:
            b.fields.setdefault("corroborated", {})[name] = int(corroborated["n"])
        if match["rest"].strip():
            b.fields.setdefault("count_notes", {})[name] = match["rest"].strip(" —–-")
        canonical = SEVERITIES.get(name.upper())
        native = normalise_word(name)

        def count(findings: list[Finding]) -> int:
            if canonical is not None:
                return sum(1 for f in findings if f.severity is canonical)
            return sum(1 for f in findings if f.native_severity is not None and
                       normalise_word(f.native_severity) == native)

        b.expect_count("the Summary", name, declared, count, f"{name} findings", i)

    def render(self, result: Result) -> str:
        agent = result.agent or ""
        written = inline(result.fields.get("title"))  # a field: it may hold lines
        title = written if _REVIEW_TITLE.match(written) else " ".join(
            [*(w.capitalize() for w in agent.split("-") if w), "Review"])
        # the agent's name leads the title: `# Result: fail Review` must not be a RESULT
        # line, nor `# Verdict: approved Review` the Summary (which findings precede)
        title = prose_line(title, "# ")
        if strip_emphasis(title).lower().startswith(("summary", "verdict")):
            title = f"\\{title}"
        lines = [f"# {title}", ""]
        files = result.metadata.get("files_reviewed")
        if files:
            lines += ["## Files Reviewed", *[f"- {prose_line(str(f), '- ')}" for f in files],
                      ""]
        lines += ["## Findings", ""]
        word = {Severity.CRITICAL: "CRITICAL", Severity.MAJOR: "IMPORTANT",
                Severity.MINOR: "SUGGESTION"}
        for f in result.findings:
            title = headline(f.title, f.description, f.id)
            lines.append(f"### {word[f.severity]}: {inline(title)}")
            lines.extend(finding_bullets(f))
            lines.append("")
        lines.append("## Summary")
        for sev, name in word.items():
            lines.append(f"- **{name}**: {sum(1 for f in result.findings if f.severity is sev)}")
        if result.status is Status.CLEAN and (result.fields.get("skipped") or (
                result.native_status or "").startswith("SKIPPED")):
            lines.append("- **Verdict**: SKIPPED")
            reason = inline(result.fields.get("reason")) or "nothing to review"
            lines.append(f"- **Reason**: {reason}")
            return "\n".join(lines) + "\n"
        verdict = status_word(result, self.vocab, VERDICT_FOR)
        if verdict == "APPROVED" and result.findings:  # the template's APPROVED: none found
            verdict = VERDICT_FOR[Status.FINDINGS]
        lines.append(f"- **Verdict**: {verdict}")
        if result.status not in (Status.CLEAN, Status.FINDINGS):
            # a review that did not finish says why, as SKIPPED does
            lines.append(f"- **Reason**: {inline(stop_reason(result) or NOT_GIVEN)}")
        return "\n".join(lines) + "\n"


def finding_bullets(f: Finding) -> list[str]:
    """`- **Location**: ...` and the other field bullets under a finding's head, as the
    ADR-013 template writes them (the text renderer writes them too: the prose reader
    takes them back field by field)."""
    out = []
    for label, name in FINDING_FIELDS:
        value = getattr(f, name)
        if name in ("location", "counter_location"):
            if value is not None:
                out.append(f"- **{label}**: {code_span(location_text(value))}")
            continue
        if value is not None and value != "":
            shown = f"{value:g}" if isinstance(value, float) else inline(value)
            out.append(f"- **{label}**: {shown}")
    return out


def _section_end(doc: Document, start: int, end: int) -> int:
    for i in range(start + 1, end):
        if doc.kinds[i] == PLAIN and doc.lines[i].startswith("#"):
            return i
    return end


def _agents_bullet(doc: Document, start: int, end: int) -> str | None:
    for i in range(start, end):
        text = list_item(doc.lines[i])
        if text is None:
            continue
        pair = key_value(text)
        if pair is not None and normalise_word(pair[0]) in ("agents", "reported by"):
            return strip_markup(pair[1])
    return None


ADR013: Final = Adr013Dialect()
