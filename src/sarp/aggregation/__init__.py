# Aggregation: many Results into one Report (SPEC §5).
#
# `aggregate(results, policy)` merges findings that report the same defect, applies the
# cross-validation rules, combines confidence, numbers G1.., and judges the run
# (stats, coverage, gaps, decision, verdict). `load_results` reads replies, JSONL of
# Results and SARIF logs from files, directories and globs. Renderers live in
# `sarp.renderers`. `sarp.aggregate` is this package's `aggregate` function.
from __future__ import annotations

from sarp.aggregation.core import aggregate
from sarp.aggregation.inputs import InputError, load_results
from sarp.aggregation.policy import (
    DEFAULT_RULES,
    AggregationPolicy,
    Rule,
    RulesError,
    load_rules,
)
from sarp.aggregation.report import (
    Coverage,
    Decision,
    Escalation,
    Gap,
    Report,
    ReportFinding,
    ResultRow,
    Source,
    Stats,
    Verdict,
)

__all__ = [
    "DEFAULT_RULES",
    "AggregationPolicy",
    "Coverage",
    "Decision",
    "Escalation",
    "Gap",
    "InputError",
    "Report",
    "ReportFinding",
    "ResultRow",
    "Rule",
    "RulesError",
    "Source",
    "Stats",
    "Verdict",
    "aggregate",
    "load_results",
    "load_rules",
]
