# The fallback for replies that follow no protocol (SPEC §4 "text").
#
# Status follows the `missing_summary` policy (PARTIAL by default, Clarity's graceful
# degradation). Findings are salvaged only where they are unambiguous: a list item or
# line that names a `path:line` (or `file::test`) place. Its severity is a severity word
# on the same line, else the severity word of the heading it sits under, else minor.
from __future__ import annotations

from typing import Final

from sarp.dialects import common
from sarp.dialects.base import Builder
from sarp.dialects.prose import read_prose_findings
from sarp.model import Result, Severity
from sarp.text.lines import Document
from sarp.text.tables import find_tables
from sarp.text.write import location_text

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
        lines = [result.summary or f"Status: {result.status.value}"]
        lines.extend(f"- {f.severity.value}: {location_text(f.location)} "
                     f"{f.description or ''}".rstrip() for f in result.findings)
        return "\n".join(lines) + "\n"


TEXT: Final = TextDialect()
