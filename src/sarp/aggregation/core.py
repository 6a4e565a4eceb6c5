# aggregate(results, policy) -> Report: SPEC §5 steps 1-7 in order.
#
#   1 collect      results sorted by id; buckets by status, `unparseable` its own
#   2 merge        clusters from the dedupe policy; each becomes one ReportFinding
#   3 cross-check  the rules, judged on the severities as merged (never cascading)
#   4 confidence   max, or mean (agent-weighted) + 10 per extra agreeing agent, <= 100
#   5 renumber     G1.. after sorting by severity, type, location
#   6-7 stats, coverage, gaps, decision, verdict
#
# The report is a pure function of the SET of input results (every step works on the
# canonical order), so `merge_reports` is simply aggregation of both reports' inputs:
# associative and commutative by construction, and partial reports built in other
# processes (pickled with their inputs) merge into the report of the whole.
from __future__ import annotations

import bisect
import gc
import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable

from sarp.aggregation.dedupe import cluster
from sarp.aggregation.entries import Entry, entries, name_of
from sarp.aggregation.policy import AggregationPolicy, Rule, agent_key
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
from sarp.aggregation.similar import file_key
from sarp.model import Conformance, Delivery, Finding, Result, Severity, Status, build

__all__ = ["aggregate", "merge_reports"]

UNPARSEABLE = "unparseable"
BUCKETS = ("CLEAN", "FINDINGS", "PARTIAL", "BLOCKED", "ERROR", UNPARSEABLE)
_BY_RANK = (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR)


def _raised(action: str, severity: Severity) -> Severity | None:
    """The severity a rule's action raises a finding to (None: it raises nothing)."""
    if action == "escalate-critical":
        return Severity.CRITICAL
    if action == "escalate":
        return _BY_RANK[max(0, severity.rank - 1)]
    return None


def aggregate(results: Iterable[Result], policy: AggregationPolicy | None = None) -> Report:
    """One report from many results. Ids must be distinct; a result without one is
    named by its content (`result-<hash>`)."""
    # Aggregation allocates millions of small acyclic objects; the cyclic collector
    # would rescan the whole growing heap again and again (superlinear), so it pauses.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _aggregate(results, policy or AggregationPolicy())
    finally:
        if paused:
            gc.enable()


def _aggregate(results: Iterable[Result], policy: AggregationPolicy) -> Report:
    given = list(results)
    ordered = _canonical(given)
    items = entries(ordered)
    clusters = cluster(items, policy)
    findings = [_merge(items, members) for members in clusters]
    _cross_validate(findings, items, clusters, policy)
    weights = {agent_key(name): weight for name, weight in policy.agent_weights.items()}
    for finding, members in zip(findings, clusters, strict=True):
        finding.confidence = _confidence(items, members, policy, weights)
    order = sorted(range(len(findings)), key=lambda k: _sort_key(findings[k], clusters[k]))
    findings = [findings[k] for k in order]
    for number, finding in enumerate(findings, 1):
        finding.id = f"G{number}"
    rows = [_row(result) for result in ordered]
    report = build(
        Report, findings=findings, results=rows, stats=_stats(rows, findings, len(items)),
        coverage=_coverage(rows), gaps=[_gap(row) for row in rows if row.reason is not None],
        decision=_decision(rows, findings), verdict=_verdict(findings, rows, policy),
        policy=policy.describe())
    # the inputs as given (a result without an id keeps none), so a merge names it again
    # among all the inputs; `_by_id` finds them under the ids this report gave them
    object.__setattr__(report, "__pydantic_private__", {
        "_inputs": given, "_by_id": {r.id: r for r in ordered}, "_settings": policy})
    return report


def merge_reports(a: Report, b: Report) -> Report:
    policy = a._settings or AggregationPolicy()
    if (b._settings or AggregationPolicy()) != policy:
        raise ValueError("cannot merge reports made with different policies")
    if (a.results and not a.inputs) or (b.results and not b.inputs):
        raise ValueError("a report read back from JSON has no inputs to merge; "
                         "merge reports made by aggregate() in this or another process")
    clash = {r.id for r in a.inputs if r.id is not None} & \
        {r.id for r in b.inputs if r.id is not None}
    if clash:
        raise ValueError(f"both reports contain result(s) {', '.join(sorted(map(str, clash)))}")
    return aggregate([*a.inputs, *b.inputs], policy)


def _canonical(results: list[Result]) -> list[Result]:
    """The results sorted by id. A result without an id is named by its content
    (`result-<hash>`), so the same results give the same report in any order."""
    named: list[Result] = []
    seen: set[str] = set()
    anonymous: list[tuple[str, Result]] = []
    for result in results:
        if result.id is None:
            digest = hashlib.sha256(result.model_dump_json().encode("utf-8", "replace"))
            anonymous.append((f"result-{digest.hexdigest()[:12]}", result))
            continue
        if result.id in seen:
            raise ValueError(f"two results have the id {result.id!r}; ids must be distinct")
        seen.add(result.id)
        named.append(result)
    anonymous.sort(key=lambda pair: pair[0])
    for name, result in anonymous:
        unique, number = name, 1
        while unique in seen:  # the same content twice, or an id that looks like ours
            number += 1
            unique = f"{name}#{number}"
        seen.add(unique)
        named.append(result.model_copy(update={"id": unique}))
    named.sort(key=lambda r: r.id or "")
    return named


# -- 2. merge -------------------------------------------------------------------------


def _detail(finding: Finding) -> int:
    return sum(len(part) for part in (finding.description, finding.impact,
                                      finding.suggestion, finding.title) if part)


def _merge(items: list[Entry], members: list[int]) -> ReportFinding:
    group = [items[m] for m in members]
    lead = worst = group[0].finding
    agents = [group[0].agent]
    if len(group) > 1:
        # the finding with the most detailed description speaks for the cluster (the
        # whole text breaks ties, then canonical order)
        lead_length, lead_detail = -1, -1  # the whole text is counted only for a tie
        for entry in group:
            finding = entry.finding
            length = len(finding.description or "")
            if length > lead_length:
                lead, lead_length, lead_detail = finding, length, -1
            elif length == lead_length:
                if lead_detail < 0:
                    lead_detail = _detail(lead)
                detail = _detail(finding)
                if detail > lead_detail:
                    lead, lead_detail = finding, detail
            if finding.severity.rank < worst.severity.rank:
                worst = finding
        agents = _distinct_agents(group)
    sources = [build(Source, result=e.result.id, index=e.index, id=e.finding.id, agent=e.agent,
                     severity=e.finding.severity, native_severity=e.finding.native_severity)
               for e in group]
    notes: list[str] = []
    if len(group) > 1 and len({e.finding.severity for e in group}) > 1:
        notes.append(_disagreement(group, worst.severity))
    location, kind, title = lead.location, lead.type, lead.title
    impact, suggestion = lead.impact, lead.suggestion
    if len(group) > 1:
        findings = [e.finding for e in group]
        location = location or next((f.location for f in findings if f.location), None)
        kind = kind or next((f.type for f in findings if f.type), None)
        title = title or next((f.title for f in findings if f.title), None)
        impact = impact or next((f.impact for f in findings if f.impact), None)
        suggestion = suggestion or next((f.suggestion for f in findings if f.suggestion), None)
    return build(
        ReportFinding, id="", severity=worst.severity, type=kind, title=title,
        location=location, counter_location=lead.counter_location,
        description=lead.description, impact=impact, suggestion=suggestion,
        confidence=None, reported_by=agents, occurrences=len(group),
        # agreement is between agents (seed 004): one agent's retry does not corroborate
        corroborated=len(agents) > 1, sources=sources, notes=notes, escalations=[])


def _distinct_agents(group: list[Entry]) -> list[str]:
    """Each agent once, as first written: `Code Reviewer` and `code-reviewer` are one."""
    first: dict[str, str] = {}
    for entry in group:
        first.setdefault(entry.agent_key, entry.agent)
    return sorted(first.values())


def _disagreement(group: list[Entry], kept: Severity) -> str:
    said = []
    for e in group:
        native = e.finding.native_severity
        extra = f" ({native})" if native and native.lower() != e.finding.severity.value else ""
        said.append(f"{e.agent} ({e.result.id}): {e.finding.severity.value}{extra}")
    return f"severity disagreement: {'; '.join(said)}; kept {kept.value}"


# -- 3. cross-validation ----------------------------------------------------------------


def _cross_validate(findings: list[ReportFinding], items: list[Entry],
                    clusters: list[list[int]], policy: AggregationPolicy) -> None:
    if not policy.rules or not findings:
        return
    agents: list[set[str]] = []
    by_agent: dict[str, list[int]] = defaultdict(list)
    # agent -> file -> sorted (line, merged finding): where each agent said something
    places: dict[str, dict[str, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for k, members in enumerate(clusters):
        names: set[str] = set()
        for m in members:
            entry = items[m]
            name = entry.agent_key
            names.add(name)
            if entry.path is not None and entry.line is not None:
                places[name][file_key(entry.path)].append((entry.line, k))
        agents.append(names)
        for name in names:
            by_agent[name].append(k)
    for files in places.values():
        for rows in files.values():
            rows.sort()
    merged_as = [f.severity for f in findings]  # rules judge these, never their own output
    for number, rule in enumerate(policy.rules):
        for k in sorted(_fired(rule, agents, by_agent, places, policy.window)):
            _apply(number, rule, findings[k], merged_as[k])


def _fired(rule: Rule, agents: list[set[str]], by_agent: dict[str, list[int]],
           places: dict[str, dict[str, list[tuple[int, int]]]], window: int) -> set[int]:
    """The merged findings a rule applies to: those with both agents, and those of one
    agent with a finding of the other agent in the same region (same file, within
    `window` lines). Each side asks "is there one?", never lists pairs: linear-log."""
    first, second = rule.sides()
    if first not in by_agent:
        return set()
    fired = {k for k in by_agent[first]
             if len(agents[k]) > 1 and (second == "any" or second in agents[k])}
    mine = places.get(first, {})
    if second == "any":
        theirs: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for name, files in places.items():
            if name != first:
                for path, rows in files.items():
                    theirs[path].extend(rows)
        for rows in theirs.values():
            rows.sort()
    else:
        theirs = places.get(second, {})
    return fired | _near(mine, theirs, window) | _near(theirs, mine, window)


def _near(mine: dict[str, list[tuple[int, int]]], theirs: dict[str, list[tuple[int, int]]],
          window: int) -> set[int]:
    """The findings in `mine` with a different finding of `theirs` within `window` lines."""
    found: set[int] = set()
    for path, rows in mine.items():
        near = theirs.get(path)
        if not near:
            continue
        lines = [line for line, _ in near]
        # past_run[i]: the first entry after the run of entries equal to near[i]
        past_run = list(range(1, len(near) + 1))
        for i in range(len(near) - 2, -1, -1):
            if near[i] == near[i + 1]:
                past_run[i] = past_run[i + 1]
        for line, k in rows:
            i = bisect.bisect_left(lines, line - window)
            high = bisect.bisect_right(lines, line + window)
            # skip k's own places: one run per line, so at most 2 * window + 1 jumps
            while i < high and near[i][1] == k:
                i = past_run[i]
            if i < high:
                found.add(k)
    return found


def _apply(number: int, rule: Rule, finding: ReportFinding, merged_as: Severity) -> None:
    target = _raised(rule.action, merged_as)
    if target is not None and target.rank < merged_as.rank:
        finding.escalations.append(build(Escalation, rule=rule.name, action=rule.action,
                                         from_severity=merged_as, to_severity=target))
        if target.rank < finding.severity.rank:
            finding.severity = target
    elif rule.action == "corroborate":
        finding.corroborated = True
    finding.notes.append(f"{rule.name}: {rule.note or rule.action}")


# -- 4. confidence -----------------------------------------------------------------------


def _confidence(items: list[Entry], members: list[int], policy: AggregationPolicy,
                weights_by_agent: dict[str, float]) -> float | None:
    said: list[tuple[str, float]] = []
    for m in members:
        entry = items[m]
        value = entry.finding.confidence
        if value is None:
            value = entry.result.confidence
        if value is not None and math.isfinite(value):
            said.append((entry.agent_key, min(100.0, max(0.0, float(value)))))
    if not said:
        return None
    if policy.confidence == "max":
        return max(value for _, value in said)
    weights = [weights_by_agent.get(agent, 1.0) for agent, _ in said]
    total = sum(weights)
    mean = (sum(w * v for w, (_, v) in zip(weights, said, strict=True)) / total if total
            else sum(v for _, v in said) / len(said))
    agreeing = len({items[m].agent_key for m in members})
    return min(100.0, round(mean + 10.0 * (agreeing - 1), 2))


# -- 5. order ----------------------------------------------------------------------------


def _sort_key(finding: ReportFinding, members: list[int]) -> tuple[object, ...]:
    loc = finding.location
    return (finding.severity.rank, finding.type or "~",
            (loc.path or "~") if loc else "~", (loc.line or 0) if loc else 0, members[0])


# -- 6-7. results, stats, coverage, gaps, decision, verdict -------------------------------


def _stated_coverage(result: Result) -> float | None:
    """A PARTIAL result's coverage in percent: `51%` and bare numbers are percents;
    `3/4 files` and `2 of 6 sections` are fractions. Clamped to 0-100; None if unsaid."""
    for source in (result.metrics, result.metadata):
        for key, value in source.items():
            if key.lower() != "coverage":
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                return _percent_of(float(value))
            if isinstance(value, str):
                found = _COVERAGE.match(value.strip())
                if found is None:
                    continue
                part = float(found["part"])
                whole = found["whole"] or found["of"]
                if whole is not None:
                    return _percent_of(100.0 * part / float(whole)) if float(whole) else None
                return _percent_of(part)
    return None


_NUMBER = r"\d{1,9}(?:\.\d{1,6})?"
_COVERAGE = re.compile(rf"(?P<part>{_NUMBER})(?:\s*%|\s*/\s*(?P<whole>{_NUMBER})"
                       rf"|\s+of\s+(?P<of>{_NUMBER}))?")


def _percent_of(value: float) -> float | None:
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return round(min(100.0, max(0.0, value)), 1)


def _reason(result: Result, bucket: str) -> str | None:
    if bucket in ("CLEAN", "FINDINGS"):
        return None
    if bucket == UNPARSEABLE:
        why = next((d.message for d in result.diagnostics), "no protocol recognised")
        return f"unparseable ({result.delivery.value}): {why}"
    if result.status is Status.BLOCKED and result.blocked_reason:
        return result.blocked_reason
    for source in (result.metrics, result.metadata, result.fields):
        for key, value in source.items():
            if key.lower() in ("reason", "error", "blocked_reason") and value:
                return str(value)
    if result.delivery is Delivery.TRUNCATED:
        return "the reply was cut off"
    if result.blockers:
        return result.blockers[0]
    # no reason written: what the parser found wrong says why the status is what it is
    said = next((d for d in result.diagnostics if d.severity.value != "info"), None)
    return said.message if said is not None else f"{bucket} without a stated reason"


def _row(result: Result) -> ResultRow:
    # a reply nothing could be read from counts as PARTIAL (its own bucket), unless it
    # failed outright (ERROR: empty) or is waiting (BLOCKED): those decide retry/blocked
    bucket = UNPARSEABLE if result.conformance is Conformance.UNPARSEABLE and \
        result.status not in (Status.ERROR, Status.BLOCKED) else result.status.value
    if bucket in ("CLEAN", "FINDINGS"):
        coverage: float | None = 100.0
    elif bucket == "PARTIAL":
        coverage = _stated_coverage(result)
    else:
        coverage = 0.0
    meta = result.metadata
    unit = meta.get("scope") or meta.get("assigned") or result.current_task
    files = result.fields.get("files_reviewed") or meta.get("files_reviewed")
    if not unit and isinstance(files, list) and files:
        unit = ", ".join(str(f) for f in files)
    return build(ResultRow, id=result.id, dialect=result.dialect,
                 agent=result.agent or name_of(result.id),
                 work_unit=str(unit) if unit else None, status=result.status.value,
                 bucket=bucket, conformance=result.conformance, delivery=result.delivery,
                 coverage=coverage, findings=len(result.findings),
                 reason=_reason(result, bucket))


def _gap(row: ResultRow) -> Gap:
    return build(Gap, result=row.id, agent=row.agent, bucket=row.bucket,
                 coverage=row.coverage, reason=row.reason or row.bucket)


def _stats(rows: list[ResultRow], findings: list[ReportFinding], inputs: int) -> Stats:
    by_status = dict.fromkeys(BUCKETS, 0)
    for row in rows:
        by_status[row.bucket] = by_status.get(row.bucket, 0) + 1
    by_severity = {s.value: 0 for s in _BY_RANK}
    for finding in findings:
        by_severity[finding.severity.value] += 1
    return build(Stats, results=len(rows), by_status=by_status, input_findings=inputs,
                 findings=len(findings), by_severity=by_severity,
                 corroborated=sum(1 for f in findings if f.corroborated),
                 escalated=sum(1 for f in findings if f.escalations))


def _coverage(rows: list[ResultRow]) -> Coverage:
    complete = sum(1 for r in rows if r.bucket in ("CLEAN", "FINDINGS"))
    partial = sum(1 for r in rows if r.bucket in ("PARTIAL", UNPARSEABLE))
    known = sum(r.coverage for r in rows if r.coverage is not None)
    unknown = sum(1 for r in rows if r.coverage is None)
    count = len(rows) or 1
    return build(Coverage, percent=round(known / count, 1), complete=complete,
                 partial=partial, none=len(rows) - complete - partial, unknown=unknown,
                 upper=round((known + 100.0 * unknown) / count, 1) if unknown else None)


def _decision(rows: list[ResultRow], findings: list[ReportFinding]) -> Decision:
    buckets = {row.bucket for row in rows}
    if not rows:
        return Decision.RETRY  # nothing came back: run the subagents (again)
    if "BLOCKED" in buckets:
        return Decision.BLOCKED
    if "ERROR" in buckets:
        return Decision.RETRY
    if buckets & {"PARTIAL", UNPARSEABLE} or any(
            note.startswith("severity disagreement") for f in findings for note in f.notes):
        return Decision.REVIEW
    return Decision.CONTINUE


def _verdict(findings: list[ReportFinding], rows: list[ResultRow],
             policy: AggregationPolicy) -> Verdict:
    critical = sum(1 for f in findings if f.severity is Severity.CRITICAL)
    major = sum(1 for f in findings if f.severity is Severity.MAJOR)
    if critical >= policy.fix_first_at:
        return Verdict.FIX_ISSUES_FIRST
    if major > policy.review_above:
        return Verdict.REVIEW_RECOMMENDED
    if not any(row.bucket in ("CLEAN", "FINDINGS") for row in rows):
        # nothing was reviewed to the end (no results, or every one failed): not ready
        return Verdict.REVIEW_RECOMMENDED
    return Verdict.READY
