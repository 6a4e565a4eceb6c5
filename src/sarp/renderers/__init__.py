# Report renderers: one module per output format, each `render(report) -> str`.
#
#   markdown  the seed-000 unified report (stats, coverage map, unified table, details,
#             gaps, decision and verdict)
#   json      the Report's documented JSON shape
#   sarif     SARIF 2.1.0 for GitHub code scanning and other SARIF consumers
#   html      one self-contained page (inline CSS/JS, no network) that escapes all
#             agent-supplied text
from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sarp.aggregation.report import Report
from sarp.renderers import html, json_, markdown, sarif

__all__ = ["REPORT_FORMATS", "render_report"]

REPORT_FORMATS: Final[dict[str, Callable[[Report], str]]] = {
    "markdown": markdown.render,
    "json": json_.render,
    "sarif": sarif.render,
    "html": html.render,
}


def render_report(report: Report, fmt: str = "markdown") -> str:
    try:
        renderer = REPORT_FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r}; "
                         f"choose from {', '.join(REPORT_FORMATS)}") from None
    return renderer(report)
