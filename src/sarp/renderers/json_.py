# The Report as JSON: its documented shape (sarp.aggregation.report), stable key order.
from __future__ import annotations

from sarp.aggregation.report import Report

__all__ = ["render"]


def render(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"
