# The Report as the seed-000 unified report, in Markdown:
#
#   # Aggregated review: <verdict>     decision, one line of stats
#   ## Stats                          results per status bucket, findings per severity
#   ## Coverage map                   one row per result
#   ## Findings                       the unified table, G1..
#   ## Details                        each critical/major finding with every reporter's
#                                     assessment, notes and escalations
#   ## Gaps                           results that did not finish, and why
#
# Agent text is untrusted: table cells have pipes escaped and newlines folded, so a
# reply cannot break the table or open a heading, and control characters are written
# visibly (`\x1b`), so the report can go to a terminal (`sarp aggregate` prints it).
from __future__ import annotations

import re

from sarp.aggregation.report import Report, ReportFinding
from sarp.model import Location, Severity
from sarp.text.controls import visible_controls

__all__ = ["render"]

_CELL_LIMIT = 160


def _html_safe(value: str) -> str:
    """Raw HTML, links and images in agent text stay text wherever the report is rendered
    (renderers that pass HTML through, previews that fetch images). Code spans are left
    alone: Markdown shows their content as written, and escapes there would show."""
    if _NOTHING_TO_ESCAPE.fullmatch(value):
        return value
    parts = value.split("`")
    if len(parts) % 2 == 0:  # an unclosed backtick: no span, and none to pair elsewhere
        return _inert(value).replace("`", "\\`")
    parts[::2] = map(_inert, parts[::2])  # the even parts lie outside code spans
    return "`".join(parts)


_NOTHING_TO_ESCAPE = re.compile(r"[^&<>\[\]`]*")


def _inert(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("[", "\\[").replace("]", "\\]"))


def _cell(text: object, limit: int = _CELL_LIMIT) -> str:
    """Agent text as one table cell: one line, pipes escaped, HTML inert."""
    value = visible_controls(" ".join(str(text).split())) if text is not None else ""
    if len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return _html_safe(value.replace("\\", "\\\\").replace("|", "\\|")) or "--"


def _inline(text: object) -> str:
    """Agent prose on one line of its own, unable to start a heading or a list."""
    value = _html_safe(visible_controls(" ".join(str(text or "").split())))
    return "\\" + value if value[:1] in "#>-*+|=" and value else value


def where(location: Location | None) -> str:
    """`path:line-end`, `path § section`, or `--`."""
    if location is None:
        return "--"
    text = location.path or ""
    if location.line is not None:
        text += f":{location.line}"
        if location.end_line is not None and location.end_line > location.line:
            text += f"-{location.end_line}"
    if location.section:
        text += f" § {location.section}" if text else location.section
    return text or location.raw or "--"


def _percent(value: float | None) -> str:
    return "?" if value is None else f"{value:g}%"


def render(report: Report) -> str:
    out: list[str] = []
    stats = report.stats
    sev = stats.by_severity
    out.append(f"# Aggregated review: {report.verdict.value}")
    out.append("")
    out.append(f"**Decision**: {report.decision.value} · **Results**: {stats.results} · "
               f"**Findings**: {stats.findings} from {stats.input_findings} reported "
               f"(critical {sev['critical']}, major {sev['major']}, minor {sev['minor']}) · "
               f"**Corroborated**: {stats.corroborated} · "
               f"**Coverage**: {report.coverage.said()}")
    out += ["", "## Stats", "", "| Status | Results |", "|---|---|"]
    out += [f"| {bucket} | {count} |" for bucket, count in stats.by_status.items() if count]
    out += ["", "| Severity | Findings |", "|---|---|"]
    out += [f"| {name} | {count} |" for name, count in sev.items()]
    out += ["", "## Coverage map", "",
            "| Result | Agent | Work unit | Dialect | Status | Coverage | Findings | Parsed |",
            "|---|---|---|---|---|---|---|---|"]
    for row in report.results:
        out.append(f"| {_cell(row.id)} | {_cell(row.agent)} | {_cell(row.work_unit, 60)} | "
                   f"{_cell(row.dialect)} | {row.bucket} | {_percent(row.coverage)} | "
                   f"{row.findings} | {row.conformance.value} |")
    out += ["", "## Findings", ""]
    if not report.findings:
        out.append("No findings.")
    else:
        out += ["| ID | Severity | Type | Location | Finding | Reported by | × |",
                "|---|---|---|---|---|---|---|"]
        for finding in report.findings:
            out.append(f"| {finding.id} | {finding.severity.value} | {_cell(finding.type)} | "
                       f"{_cell(where(finding.location))} | {_cell(_headline(finding))} | "
                       f"{_cell(', '.join(finding.reported_by))} | {finding.occurrences} |")
    details = [f for f in report.findings if f.severity is not Severity.MINOR]
    if details:
        out += ["", "## Details"]
        for finding in details:
            out += ["", *_details(report, finding)]
    out += ["", "## Gaps", ""]
    if not report.gaps:
        out.append("None: every result finished.")
    for gap in report.gaps:
        out.append(f"- **{_cell(gap.result)}** ({_cell(gap.agent)}): {gap.bucket}, coverage "
                   f"{_percent(gap.coverage)}: {_cell(gap.reason, 300)}")
    return "\n".join(out) + "\n"


def _headline(finding: ReportFinding) -> str:
    return finding.title or finding.description or "(no text)"


def _details(report: Report, finding: ReportFinding) -> list[str]:
    lines = [f"### {finding.id}: {_inline(_headline(finding))} ({finding.severity.value})", ""]
    lines.append(f"- **Location**: {_inline(where(finding.location))}")
    if finding.description and finding.description != finding.title:
        lines.append(f"- **Description**: {_inline(finding.description)}")
    if finding.impact:
        lines.append(f"- **Impact**: {_inline(finding.impact)}")
    if finding.suggestion:
        lines.append(f"- **Suggestion**: {_inline(finding.suggestion)}")
    if finding.confidence is not None:
        lines.append(f"- **Confidence**: {finding.confidence:g}")
    lines.append(f"- **Reported by** ({finding.occurrences}):")
    for source in finding.sources:
        said = report.source_finding(source)
        native = f" ({_cell(source.native_severity, 40)})" if source.native_severity and \
            source.native_severity.lower() != source.severity.value else ""
        text = ""
        if said is not None:
            text = ": " + _cell(said.title or said.description, 200)
            if said.location is not None and said.location != finding.location:
                text += f" at {_cell(where(said.location))}"
        lines.append(f"  - {_inline(source.agent)}, {source.severity.value}{native}, "
                     f"{_inline(source.result)} {_inline(source.id)}{text}")
    lines.extend(f"- **Note**: {_inline(note)}" for note in finding.notes)
    lines.extend(f"- **Escalated** by rule {_inline(step.rule)} ({step.action}): "
                 f"{step.from_severity.value} -> {step.to_severity.value}"
                 for step in finding.escalations)
    return lines
