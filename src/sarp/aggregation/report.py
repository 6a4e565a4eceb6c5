# The Report: what `aggregate` returns and every renderer reads.
#
# JSON shape (field names are the contract; see README "Aggregating results"):
#   findings[]  merged findings, G1.. after sorting by severity, type, location; each
#               with `sources` [{result, index, id, agent, severity, native_severity}] back to
#               every input finding it merges, `reported_by`, `occurrences`, `notes`
#               (severity disagreements, rule notes) and `escalations` (rule that fired,
#               from and to severity)
#   results[]   one row per input result, the coverage map: id, dialect, agent, work
#               unit, status, bucket (status, or `unparseable`), conformance, delivery,
#               stated coverage, finding count, and why it is a gap
#   stats       counts by status bucket and severity, corroborated findings
#   coverage    overall coverage: mean of each result's coverage (CLEAN/FINDINGS 100,
#               PARTIAL as stated, anything else 0)
#   gaps[]      results that did not finish (PARTIAL, ERROR, BLOCKED, unparseable)
#   decision    continue | retry | review | blocked
#   verdict     FIX ISSUES FIRST | REVIEW RECOMMENDED | READY
#   policy      the settings that produced the report
# The input Results stay attached in-process (not serialised) so reports merge.
from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, PrivateAttr

from sarp.model import Conformance, Delivery, Finding, Location, Result, Severity, _Record

__all__ = [
    "Coverage",
    "Decision",
    "Escalation",
    "Gap",
    "Report",
    "ReportFinding",
    "ResultRow",
    "Source",
    "Stats",
    "Verdict",
]


class Decision(StrEnum):
    """What the orchestrator should do next (seed 004's status aggregation)."""

    CONTINUE = "continue"  # every result finished
    RETRY = "retry"  # a subagent failed (ERROR)
    REVIEW = "review"  # partial or unreadable results, or reporters disagree
    BLOCKED = "blocked"  # a subagent is waiting for an answer


class Verdict(StrEnum):
    """Seed 001's lead verdict."""

    FIX_ISSUES_FIRST = "FIX ISSUES FIRST"
    REVIEW_RECOMMENDED = "REVIEW RECOMMENDED"
    READY = "READY"


class Source(_Record):
    """One input finding merged into a report finding."""

    result: str  # Result.id
    index: int  # 0-based position in that result's findings
    id: str  # the finding's local id as written
    agent: str
    severity: Severity
    native_severity: str | None = None


class Escalation(_Record):
    rule: str
    action: str
    from_severity: Severity
    to_severity: Severity


class ReportFinding(_Record):
    id: str  # G1, G2, ...
    severity: Severity
    type: str | None = None
    title: str | None = None
    location: Location | None = None
    counter_location: Location | None = None
    description: str | None = None
    impact: str | None = None
    suggestion: str | None = None
    confidence: float | None = None
    reported_by: list[str]
    occurrences: int
    corroborated: bool = False  # reported by more than one agent, or a rule corroborated it
    sources: list[Source]
    notes: list[str] = Field(default_factory=list)
    escalations: list[Escalation] = Field(default_factory=list)


class ResultRow(_Record):
    id: str
    dialect: str
    agent: str | None = None
    work_unit: str | None = None
    status: str
    bucket: str  # the status, or "unparseable"
    conformance: Conformance
    delivery: Delivery
    coverage: float | None = None  # percent: stated, or 100 for CLEAN/FINDINGS
    findings: int
    reason: str | None = None  # why it is a gap


class Gap(_Record):
    result: str
    agent: str | None = None
    bucket: str
    coverage: float | None = None
    reason: str


class Stats(_Record):
    results: int
    by_status: dict[str, int]  # CLEAN, FINDINGS, PARTIAL, BLOCKED, ERROR, unparseable
    input_findings: int
    findings: int
    by_severity: dict[str, int]
    corroborated: int
    escalated: int


class Coverage(_Record):
    """How much of the work the results cover, as the mean of their coverage (CLEAN and
    FINDINGS 100%, PARTIAL as stated, unparseable, ERROR and BLOCKED 0%). A PARTIAL
    result that states none is `unknown`: `percent` counts it as 0% (the bound a gate
    can trust) and `upper` as 100%, so the truth lies between them."""

    percent: float
    complete: int  # CLEAN or FINDINGS
    partial: int  # PARTIAL, and unparseable (counted as PARTIAL, coverage 0)
    none: int  # ERROR or BLOCKED
    unknown: int = 0  # PARTIAL results that state no coverage
    upper: float | None = None  # `percent` with the unknown ones at 100%; None if none

    def said(self) -> str:
        """`78.7%`, or `68.9-81.4% (1 unknown)`: the overall coverage in words."""
        if not self.unknown or self.upper is None:
            return f"{self.percent:g}%"
        return f"{self.percent:g}-{self.upper:g}% ({self.unknown} unknown)"


class Report(_Record):
    findings: list[ReportFinding]
    results: list[ResultRow]
    stats: Stats
    coverage: Coverage
    gaps: list[Gap]
    decision: Decision
    verdict: Verdict
    policy: dict[str, Any]

    _inputs: list[Result] = PrivateAttr(default_factory=list)
    _by_id: dict[str, Result] = PrivateAttr(default_factory=dict)
    _settings: Any = PrivateAttr(default=None)

    @property
    def inputs(self) -> list[Result]:
        """The Results this report was aggregated from, as given (ids as given)."""
        return self._inputs

    def merge(self, other: Report) -> Report:
        """The report of both reports' inputs together: the same report whatever the
        grouping, `(a.merge(b)).merge(c) == a.merge(b.merge(c))`."""
        from sarp.aggregation.core import merge_reports

        return merge_reports(self, other)

    def source_finding(self, source: Source) -> Finding | None:
        """The input Finding a source points to (None for a report read from JSON)."""
        result = self._by_id.get(source.result)
        if result is None or source.index >= len(result.findings):
            return None
        return result.findings[source.index]
