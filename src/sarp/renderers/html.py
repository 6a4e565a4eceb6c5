# The Report as one self-contained HTML page that a person opens from disk (SPEC §5).
#
# Contract:
# - `render(report)` returns one HTML5 document that needs nothing else: the style sheet
#   and the script are inline; there are no links out, images, fonts or fetches. A
#   Content-Security-Policy allows exactly that style sheet and that script, by their
#   sha256, and nothing else (no other script, no inline event handler, no network).
# - Every string that came from an agent or a user (titles, descriptions, paths, agent
#   names, result ids, work units, notes, reasons, rule names) goes through `_text`,
#   html.escape with quote=True, whether it lands in element content or an attribute,
#   and control characters written visibly (`\x1b`: a browser shows NUL and ESC as
#   nothing, and the page may be shown as text).
#   Escaping is the wall; the CSP only backs it up.
# - The script carries no data. It sorts and filters the table rows already in the
#   page, taking numeric and rank keys from `data-sort` attributes and every other key
#   from the cells' text, and it never writes markup, so nothing it reads can run.
# - Sections, in order: verdict and decision, stats with a severity chart, the unified
#   finding table, details of critical and major findings with each reporter's own
#   words, the coverage map, the gaps, the settings.
from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from html import escape

from sarp.aggregation.report import Report, ReportFinding, Source
from sarp.model import Location, Severity
from sarp.text.controls import visible_controls

__all__ = ["render"]

_SEVERITIES = (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR)
_NOTHING = "\N{EM DASH}"

_STYLE = """
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0;
  --critical: #b42318; --major: #b54708; --minor: #4b5563; --ok: #1a7f37; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 84rem; padding: 1.5rem; color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 0.9em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
h1 { margin: 0 0 0.5rem; font-size: 1.6rem; }
h2 { margin-top: 2rem; border-bottom: 1px solid var(--rule); padding-bottom: 0.25rem; }
.verdict { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline;
  padding: 1rem 1.25rem; border-radius: 6px; border: 2px solid currentColor; }
.verdict strong { font-size: 1.5rem; letter-spacing: 0.02em; }
.verdict-fix { color: var(--critical); }
.verdict-review { color: var(--major); }
.verdict-ready { color: var(--ok); }
.stats { display: flex; flex-wrap: wrap; gap: 2rem; align-items: flex-start; }
.stats table { min-width: 12rem; }
table { border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: 0.3rem 0.6rem;
  border-bottom: 1px solid var(--rule); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.wide { width: 100%; }
.wide td { overflow-wrap: break-word; }
.wide td.mono { overflow-wrap: anywhere; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 2px solid var(--ink); }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
.sev { font-weight: 600; text-transform: uppercase; font-size: 0.8em; }
.sev-critical { color: var(--critical); }
.sev-major { color: var(--major); }
.sev-minor { color: var(--minor); }
.desc { margin: 0.2rem 0 0; color: var(--muted); white-space: pre-wrap; }
.filters { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; margin: 1rem 0; }
.filters input[type="search"] { min-width: 18rem; padding: 0.25rem 0.5rem; }
.muted { color: var(--muted); }
.chart text { fill: var(--ink); font-size: 13px; }
.chart .bar-critical { fill: var(--critical); }
.chart .bar-major { fill: var(--major); }
.chart .bar-minor { fill: var(--minor); }
article { border-left: 4px solid var(--rule); padding: 0 1rem; margin: 1.5rem 0; }
article.critical { border-color: var(--critical); }
article.major { border-color: var(--major); }
article h3 { margin-bottom: 0.25rem; }
.sources li { margin-bottom: 0.75rem; }
"""

_SCRIPT = """
"use strict";
(function () {
  const table = document.getElementById("finding-table");
  if (!table) { return; }
  const body = table.tBodies[0];
  const headers = Array.from(table.tHead.rows[0].cells);
  const search = document.getElementById("finding-search");
  const boxes = Array.from(document.querySelectorAll("input[name=severity]"));
  const counter = document.getElementById("finding-count");

  // a cell's key: its data-sort when it has one (numbers, ranks), else its text;
  // empty keys come back null so that they sort last in both directions
  function keyOf(row, column, kind) {
    const cell = row.cells[column];
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    if (raw === "") { return null; }
    return kind === "number" ? Number(raw) : raw.toLowerCase();
  }

  function sortRows(column, kind, direction) {
    const keyed = Array.from(body.rows, function (row) {
      return { row: row, key: keyOf(row, column, kind), order: Number(row.dataset.order) };
    });
    keyed.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) { return a.order - b.order; }
        return a.key === null ? 1 : -1;
      }
      const by = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      // ties keep the report's own order (G1, G2, ...) whichever the direction
      return direction * by || a.order - b.order;
    });
    for (const item of keyed) { body.appendChild(item.row); }
  }

  headers.forEach(function (header, column) {
    header.addEventListener("click", function () {
      const direction = header.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      for (const other of headers) { other.setAttribute("aria-sort", "none"); }
      header.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
      sortRows(column, header.dataset.kind, direction);
    });
  });

  function applyFilters() {
    const query = search.value.trim().toLowerCase();
    const wanted = new Set(boxes.filter(function (box) { return box.checked; })
      .map(function (box) { return box.value; }));
    let shown = 0;
    for (const row of body.rows) {
      const visible = wanted.has(row.dataset.severity)
        && (query === "" || row.textContent.toLowerCase().includes(query));
      row.hidden = !visible;
      if (visible) { shown += 1; }
    }
    counter.textContent = shown + " of " + body.rows.length + " findings shown";
  }

  search.addEventListener("input", applyFilters);
  for (const box of boxes) { box.addEventListener("change", applyFilters); }
})();
"""


def _sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


# Only the two inline blocks above may run or apply: a hash, unlike 'unsafe-inline',
# also refuses event-handler attributes and any <script> or <style> that text smuggles in.
_POLICY = (f"default-src 'none'; script-src {_sha256(_SCRIPT)}; style-src {_sha256(_STYLE)}; "
           "base-uri 'none'; form-action 'none'")


def render(report: Report) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        _head(report),
        "<body>",
        _verdict(report),
        _stats(report),
        _finding_table(report),
        _details(report),
        _coverage_map(report),
        _gaps(report),
        _settings(report),
        f"<script>{_SCRIPT}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


# -- text ----------------------------------------------------------------------------------


def _text(value: object) -> str:
    """Any value as HTML text, safe inside element content and quoted attributes."""
    return escape(visible_controls(str(value)), quote=True)


def _where(location: Location | None) -> str:
    """`path:line-end`, or the section or symbol, or what the reply wrote."""
    if location is None:
        return ""
    if location.path:
        place = location.path
        if location.line is not None:
            place += f":{location.line}"
            if location.end_line is not None and location.end_line != location.line:
                place += f"-{location.end_line}"
        return place
    return location.section or location.symbol or location.raw


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _percent(value: float | None) -> str:
    return f"{_number(value)}%" if value is not None else "not stated"


def _or_nothing(value: object | None) -> str:
    return _text(value) if value not in (None, "") else _NOTHING


def _severity(severity: Severity) -> str:
    return f'<span class="sev sev-{_text(severity.value)}">{_text(severity.value)}</span>'


# -- page ----------------------------------------------------------------------------------


def _head(report: Report) -> str:
    count = len(report.findings)
    title = f"sarp report: {report.verdict.value} ({count} finding{'s' * (count != 1)})"
    return "\n".join([
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="generator" content="sarp">',  # so a report is never read as a reply
        f'<meta http-equiv="Content-Security-Policy" content="{_text(_POLICY)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{_text(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
    ])


_VERDICT_CLASS = {
    "FIX ISSUES FIRST": "verdict-fix",
    "REVIEW RECOMMENDED": "verdict-review",
    "READY": "verdict-ready",
}


def _verdict(report: Report) -> str:
    tone = _VERDICT_CLASS.get(report.verdict.value, "verdict-review")
    return "\n".join([
        "<header>",
        "<h1>Review report</h1>",
        f'<div class="verdict {tone}" id="verdict">',
        f"<span>Verdict</span> <strong>{_text(report.verdict.value)}</strong>",
        f'<span>Decision</span> <strong id="decision">{_text(report.decision.value)}</strong>',
        "</div>",
        f'<p class="muted">{report.stats.results} results, {report.stats.input_findings} '
        f"findings as reported, {report.stats.findings} after merging; overall coverage "
        f"{_text(report.coverage.said())}.</p>",
        "</header>",
    ])


def _count_table(caption: str, counts: Iterable[tuple[str, object]]) -> str:
    rows = "".join(f'<tr><th scope="row">{_text(name)}</th><td class="num">{_text(value)}</td>'
                   "</tr>" for name, value in counts)
    return f"<table><caption>{_text(caption)}</caption><tbody>{rows}</tbody></table>"


def _stats(report: Report) -> str:
    stats, coverage = report.stats, report.coverage
    merged = [
        ("findings", stats.findings),
        ("as reported", stats.input_findings),
        ("corroborated", stats.corroborated),
        ("escalated", stats.escalated),
    ]
    covered = [
        ("overall", coverage.said()),
        ("complete", coverage.complete),
        ("partial", coverage.partial),
        ("none", coverage.none),
    ]
    return "\n".join([
        '<section id="stats">',
        "<h2>Stats</h2>",
        '<div class="stats">',
        _count_table("Results by status", stats.by_status.items()),
        _count_table("Findings by severity", stats.by_severity.items()),
        _count_table("Merged findings", merged),
        _count_table("Coverage", covered),
        _severity_chart(report),
        "</div>",
        "</section>",
    ])


def _severity_chart(report: Report) -> str:
    """One horizontal bar per severity, as inline SVG: geometry lives in attributes, so
    the CSP needs no inline style for it."""
    counts = [(s.value, report.stats.by_severity.get(s.value, 0)) for s in _SEVERITIES]
    longest = max((count for _, count in counts), default=0) or 1
    label_width, bar_width, row_height = 70, 220, 26
    summary = ", ".join(f"{count} {name}" for name, count in counts)
    bars = []
    for row, (name, count) in enumerate(counts):
        y = row * row_height
        width = round(bar_width * count / longest)
        bars.append(
            f'<text x="0" y="{y + 17}">{_text(name)}</text>'
            f'<rect class="bar-{_text(name)}" x="{label_width}" y="{y + 4}" '
            f'width="{width}" height="{row_height - 8}" rx="2"></rect>'
            f'<text x="{label_width + width + 6}" y="{y + 17}">{count}</text>')
    height = row_height * len(counts)
    return (f'<figure id="severity-chart"><figcaption>Severity</figcaption>'
            f'<svg class="chart" role="img" aria-label="{_text(summary)}" '
            f'width="{label_width + bar_width + 40}" height="{height}" '
            f'viewBox="0 0 {label_width + bar_width + 40} {height}">'
            f'{"".join(bars)}</svg></figure>')


# -- the unified finding table --------------------------------------------------------------

# (heading, key kind for the script, numeric cell)
_COLUMNS = (
    ("ID", "number", False),
    ("Severity", "number", False),
    ("Type", "text", False),
    ("Location", "text", False),
    ("Finding", "text", False),
    ("Reported by", "text", False),
    ("Occurrences", "number", True),
    ("Confidence", "number", True),
)


def _finding_table(report: Report) -> str:
    if not report.findings:
        return '<section id="findings"><h2>Findings</h2><p>No findings.</p></section>'
    boxes = "".join(
        f'<label><input type="checkbox" name="severity" value="{_text(s.value)}" checked> '
        f"{_text(s.value)}</label>" for s in _SEVERITIES)
    headings = "".join(
        f'<th scope="col" class="{"num" if numeric else "text"}" data-kind="{kind}" '
        f'aria-sort="none"><button type="button">{_text(name)}</button></th>'
        for name, kind, numeric in _COLUMNS)
    rows = "\n".join(_finding_row(finding, order)
                     for order, finding in enumerate(report.findings))
    total = len(report.findings)
    return "\n".join([
        '<section id="findings">',
        "<h2>Findings</h2>",
        '<div class="filters">',
        boxes,
        '<label>Filter <input type="search" id="finding-search" '
        'placeholder="text in any column" autocomplete="off"></label>',
        f'<span id="finding-count" class="muted">{total} of {total} findings shown</span>',
        "</div>",
        '<table id="finding-table" class="wide">',
        f"<thead><tr>{headings}</tr></thead>",
        "<tbody>",
        rows,
        "</tbody>",
        "</table>",
        "</section>",
    ])


def _id_number(finding_id: str) -> str:
    """G12 sorts as 12, so G10 follows G9; ids of another shape sort by position."""
    digits = finding_id[1:] if finding_id[:1] == "G" else ""
    return digits if digits.isdigit() else ""


def _location_key(location: Location | None) -> str:
    """Path, then line as a number: zero-padding makes text order numeric order."""
    if location is None:
        return ""
    if location.path:
        return f"{location.path}\t{location.line or 0:010d}"
    return _where(location)


def _finding_row(finding: ReportFinding, order: int) -> str:
    ident = _text(finding.id)
    link = f'<a href="#detail-{ident}">{ident}</a>' if _has_details(finding) else ident
    title = f"<strong>{_text(finding.title)}</strong>" if finding.title else ""
    description = (f'<p class="desc">{_text(finding.description)}</p>'
                   if finding.description else "")
    cells = [
        f'<td class="mono" data-sort="{_text(_id_number(finding.id) or order)}">{link}</td>',
        f'<td data-sort="{finding.severity.rank}">{_severity(finding.severity)}</td>',
        f"<td>{_text(finding.type or '')}</td>",
        f'<td class="mono" data-sort="{_text(_location_key(finding.location))}">'
        f"{_text(_where(finding.location))}</td>",
        f"<td>{title}{description}</td>",
        f"<td>{_text(', '.join(finding.reported_by))}</td>",
        f'<td class="num">{finding.occurrences}</td>',
        f'<td class="num">{_text(_number(finding.confidence))}</td>',
    ]
    return (f'<tr data-id="{ident}" data-order="{order}" '
            f'data-severity="{_text(finding.severity.value)}">{"".join(cells)}</tr>')


# -- details of critical and major findings ---------------------------------------------------


def _has_details(finding: ReportFinding) -> bool:
    return finding.severity in (Severity.CRITICAL, Severity.MAJOR)


def _details(report: Report) -> str:
    serious = [f for f in report.findings if _has_details(f)]
    if not serious:
        return ('<section id="details"><h2>Critical and major findings</h2>'
                "<p>None.</p></section>")
    return "\n".join([
        '<section id="details">',
        "<h2>Critical and major findings</h2>",
        *(_finding_details(report, finding) for finding in serious),
        "</section>",
    ])


def _paragraph(label: str, text: str | None) -> str:
    if not text:
        return ""
    return f'<p><b>{_text(label)}</b></p><p class="desc">{_text(text)}</p>'


def _finding_details(report: Report, finding: ReportFinding) -> str:
    ident = _text(finding.id)
    where = _where(finding.location)
    facts = [f"{_severity(finding.severity)}"]
    if finding.type:
        facts.append(_text(finding.type))
    if where:
        facts.append(f'<code>{_text(where)}</code>')
    if finding.counter_location is not None:
        facts.append(f"against <code>{_text(_where(finding.counter_location))}</code>")
    if finding.confidence is not None:
        facts.append(f"confidence {_text(_number(finding.confidence))}")
    parts = [
        f'<article id="detail-{ident}" class="{_text(finding.severity.value)}">',
        f"<h3>{ident}: {_text(finding.title or '(untitled)')}</h3>",
        f"<p>{' &middot; '.join(facts)}</p>",
        _paragraph("Description", finding.description),
        _paragraph("Impact", finding.impact),
        _paragraph("Suggestion", finding.suggestion),
        f"<p><b>Reported by {len(finding.reported_by)} agent"
        f"{'s' * (len(finding.reported_by) != 1)}, {finding.occurrences} time"
        f"{'s' * (finding.occurrences != 1)}</b></p>",
        '<ul class="sources">',
        *(_source_item(report, source) for source in finding.sources),
        "</ul>",
    ]
    if finding.escalations:
        parts.append("<p><b>Escalations</b></p><ul>")
        parts.extend(f"<li>{_text(e.rule)}: {_text(e.action)}, {_text(e.from_severity.value)}"
                     f" &rarr; {_text(e.to_severity.value)}</li>" for e in finding.escalations)
        parts.append("</ul>")
    if finding.notes:
        parts.append("<p><b>Notes</b></p><ul>")
        parts.extend(f"<li>{_text(note)}</li>" for note in finding.notes)
        parts.append("</ul>")
    parts.append("</article>")
    return "\n".join(part for part in parts if part)


def _source_item(report: Report, source: Source) -> str:
    """One reporter's own account: its severity as it wrote it and its description
    (the input Finding is gone when the report was read back from JSON)."""
    said = _text(source.severity.value)
    if source.native_severity and source.native_severity.lower() != source.severity.value:
        said += f" (wrote &ldquo;{_text(source.native_severity)}&rdquo;)"
    head = (f"<b>{_text(source.agent)}</b> in <code>{_text(source.result)}</code> as "
            f"<code>{_text(source.id)}</code>: {said}")
    original = report.source_finding(source)
    if original is None:
        return f'<li>{head}<p class="desc">(its own text is not in this report)</p></li>'
    where = _where(original.location)
    body = "".join([
        f"<p>{_text(original.title)}</p>" if original.title else "",
        f'<p class="muted">at <code>{_text(where)}</code></p>' if where else "",
        f'<p class="desc">{_text(original.description)}</p>' if original.description else "",
    ])
    return f"<li>{head}{body}</li>"


# -- coverage map, gaps, settings --------------------------------------------------------------


def _coverage_map(report: Report) -> str:
    headings = ("Result", "Agent", "Dialect", "Work unit", "Status", "Coverage", "Findings",
                "Conformance", "Delivery")
    head = "".join(f'<th scope="col">{_text(h)}</th>' for h in headings)
    rows = []
    for row in report.results:
        status = _text(row.status) if row.bucket == row.status else \
            f"{_text(row.status)} ({_text(row.bucket)})"
        rows.append(
            f'<tr><td class="mono">{_text(row.id)}</td><td>{_or_nothing(row.agent)}</td>'
            f"<td>{_text(row.dialect)}</td><td>{_or_nothing(row.work_unit)}</td>"
            f'<td>{status}</td><td class="num">{_text(_percent(row.coverage))}</td>'
            f'<td class="num">{row.findings}</td><td>{_text(row.conformance.value)}</td>'
            f"<td>{_text(row.delivery.value)}</td></tr>")
    return "\n".join([
        '<section id="coverage">',
        "<h2>Coverage map</h2>",
        '<table id="coverage-table" class="wide">',
        f"<thead><tr>{head}</tr></thead>",
        f"<tbody>{''.join(rows)}</tbody>",
        "</table>",
        "</section>",
    ])


def _gaps(report: Report) -> str:
    if not report.gaps:
        return '<section id="gaps"><h2>Gaps</h2><p>None: every result finished.</p></section>'
    rows = "".join(
        f'<tr><td class="mono">{_text(gap.result)}</td><td>{_or_nothing(gap.agent)}</td>'
        f'<td>{_text(gap.bucket)}</td><td class="num">{_text(_percent(gap.coverage))}</td>'
        f"<td>{_text(gap.reason)}</td></tr>" for gap in report.gaps)
    return "\n".join([
        '<section id="gaps">',
        "<h2>Gaps</h2>",
        '<table id="gap-table" class="wide">',
        '<thead><tr><th scope="col">Result</th><th scope="col">Agent</th>'
        '<th scope="col">Bucket</th><th scope="col">Coverage</th>'
        '<th scope="col">Why</th></tr></thead>',
        f"<tbody>{rows}</tbody>",
        "</table>",
        "</section>",
    ])


def _settings(report: Report) -> str:
    described = json.dumps(report.policy, indent=2, sort_keys=True, default=str,
                           ensure_ascii=False)
    return ('<section id="settings"><details><summary>Aggregation settings</summary>'
            f"<pre>{_text(described)}</pre></details></section>")
