# The fallback for replies that follow no protocol (SPEC §4 "text").
#
# Status follows the `missing_summary` policy (PARTIAL by default, Clarity's graceful
# degradation). Findings are salvaged only where they are unambiguous: a list item or
# line that names a `path:line` (or `file::test`) place. Its severity is a severity word
# on the same line, else the severity word of the heading it sits under, else minor.
from __future__ import annotations

from typing import Final

from sarp.dialects import common
from sarp.dialects.adr013 import finding_bullets
from sarp.dialects.base import Builder, Policy, RawFinding
from sarp.dialects.prose import read_prose_findings
from sarp.dialects.rendering import prose_lines, stop_reason
from sarp.model import Finding, Result, Severity, Status
from sarp.text.lines import Document
from sarp.text.tables import find_tables
from sarp.text.write import headline, inline

__all__ = ["TEXT", "TextDialect"]



class TextDialect:
    name = "text"
    severities: Final = {"critical": Severity.CRITICAL, "major": Severity.MAJOR,
                         "minor": Severity.MINOR}
    case_sensitive = False
    vocab = None

    def detect(self, doc: Document) -> int:
        return 1

    def parse(self, b: Builder) -> None:
        b.envelope_name = "result envelope (no protocol recognised)"
        # a table with a Severity column is unambiguous; so is prose that names a place
        for table in find_tables(b.doc):
            if common.classify_table(table) == "findings":
                common.read_finding_table(b, table)
        read_prose_findings(b, 0, len(b.doc.lines), loose=True)

    def render(self, result: Result) -> str:
        # No protocol has a status slot: the status line is for the reader (a re-parse
        # reads the status by the missing_summary policy; sarp.convert says so).
        status = f"Status: {result.status.value}"
        reason = stop_reason(result) if result.status not in (
            Status.CLEAN, Status.FINDINGS) else None
        lines = [f"{status} ({inline(reason)})" if reason else status]
        if result.summary:  # for the reader: no reader takes its lines for findings
            lines += ["", *prose_lines(result.summary.strip(), loose=True)]
        for f in result.findings:  # a bold head, then ADR-013's field bullets
            lines += ["", _head(f), *finding_bullets(f)]
        return "\n".join(lines) + "\n"


def _head(f: Finding) -> str:
    """`**Major A1: title**`: the first form the prose reader takes back with the
    finding's id and title (`**Major 7: title**` reads 7 as a number, so the id is left
    out there); a finding with neither title nor text is called by its id. A title the
    reader cuts (`'**' follows ...`) is kept as far as it reads (sarp.convert says so);
    one that leaves no head the reader takes is left out, since without a head the
    bullets below would be read as findings of their own."""
    word = f.severity.value.capitalize()
    title = inline(headline(f.title, f.description, f"Finding {f.id}"))
    forms = (f"**{word} {f.id}: {title}**", f"**{word}: {title}**")
    for form in forms:
        read = _read_head(form)
        if read is not None and read.title == title and read.id in (f.id, None):
            return form
    for form in (*forms, f"**{word} {f.id}: Finding {f.id}**", f"**{word}: Finding {f.id}**"):
        read = _read_head(form)
        if read is not None and read.id in (f.id, None):
            return form
    return f"**{word}: Finding**"


def _read_head(line: str) -> RawFinding | None:
    """The finding this reader takes `line` alone for (a head it reads as `nothing to
    report`, `**Major: -**`, is none)."""
    builder = Builder(Document(line), "text", Policy(), None, TEXT.severities,
                      case_sensitive=False)
    read_prose_findings(builder, 0, 1, loose=True)
    return builder.findings[0] if len(builder.findings) == 1 else None


TEXT: Final = TextDialect()
