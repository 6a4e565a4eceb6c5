# Which input findings report the same defect: the four merge policies.
#
# Each policy maps the canonical entry list to clusters (lists of entry positions, each
# sorted, the list sorted by first member). All of them are conservative in the same
# ways: a cluster never holds two findings of one result (an agent that says a thing
# twice said two things), and when unsure, both findings are kept.
#   off        every finding alone
#   exact      seed 000: identical location, counter-location and type
#   proximity  seeds 001/004: same file, line within `window` of the cluster's FIRST
#              line (so clusters cannot chain), compatible types; section-only
#              locations merge on an identical section; no location, no merge
#   similar    what the findings say (sarp.aggregation.similar)
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from sarp.aggregation.entries import Entry, location_key
from sarp.aggregation.policy import AggregationPolicy
from sarp.aggregation.similar import similar_clusters

__all__ = ["cluster"]

Clusters = list[list[int]]
SCAN = 64  # findings one proximity cluster examines at most (a crowded window is cut)


def cluster(items: list[Entry], policy: AggregationPolicy) -> Clusters:
    return _POLICIES[policy.dedupe](items, policy)


def _off(items: list[Entry], policy: AggregationPolicy) -> Clusters:
    return [[item.order] for item in items]


def _exact(items: list[Entry], policy: AggregationPolicy) -> Clusters:
    groups: dict[tuple[object, ...], list[Entry]] = defaultdict(list)
    alone: Clusters = []
    for item in items:
        finding = item.finding
        if finding.location is None:
            alone.append([item.order])  # "the same place" needs a place
            continue
        key = (location_key(finding.location), location_key(finding.counter_location),
               item.type)
        groups[key].append(item)
    return _sorted(alone + [c for group in groups.values() for c in _one_per_result(group)])


def _one_per_result(group: list[Entry]) -> Clusters:
    """Split a group of equal findings so no cluster holds two of one result: the
    k-th finding of each result goes to the k-th cluster."""
    seen: dict[int, int] = defaultdict(int)
    out: Clusters = []
    for item in group:
        k = seen[item.result_order]
        seen[item.result_order] = k + 1
        if k == len(out):
            out.append([])
        out[k].append(item.order)
    return out


def _compatible(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _proximity(items: list[Entry], policy: AggregationPolicy) -> Clusters:
    by_line: dict[str | None, list[Entry]] = defaultdict(list)
    by_section: dict[tuple[str | None, str], list[Entry]] = defaultdict(list)
    out: Clusters = []
    for item in items:
        if item.line is not None and item.path is not None:
            by_line[item.path].append(item)
        elif item.section is not None:
            by_section[(item.path, item.section)].append(item)
        else:
            out.append([item.order])
    for group in by_section.values():
        out.extend(_sweep(group, policy.window, lambda item: 0))
    for group in by_line.values():
        group.sort(key=lambda item: (item.line or 0, item.order))
        out.extend(_sweep(group, policy.window, lambda item: item.line or 0))
    return _sorted(out)


def _sweep(group: list[Entry], window: int, line_of: Callable[[Entry], int]) -> Clusters:
    """Greedy clusters over a line-sorted group: each starts at the first unassigned
    finding and takes the findings within `window` lines of THAT line, one per result,
    of a compatible type. Taken findings are skipped by pointer (compressed as it goes)
    and one cluster looks at no more than SCAN findings, so a crowded window costs
    linear time, not quadratic; what is past the cut starts clusters of its own."""
    taken = [False] * len(group)
    following = list(range(1, len(group) + 1))  # a finding's successor, maybe taken
    out: Clusters = []
    for start, first in enumerate(group):
        if taken[start]:
            continue
        taken[start] = True
        members = [first.order]
        results = {first.result_order}
        kind = first.type
        limit = line_of(first) + window
        j = _untaken(following, taken, start + 1)
        looked = 0
        while j < len(group) and line_of(group[j]) <= limit and looked < SCAN:
            other = group[j]
            looked += 1
            if other.result_order not in results and _compatible(kind, other.type):
                taken[j] = True
                members.append(other.order)
                results.add(other.result_order)
                kind = kind or other.type
            j = _untaken(following, taken, j + 1)
        out.append(sorted(members))
    return out


def _untaken(following: list[int], taken: list[bool], i: int) -> int:
    """The first finding at or after `i` not yet taken; compresses the path it walked."""
    end = i
    while end < len(taken) and taken[end]:
        end = following[end]
    while i < end:
        following[i], i = end, following[i]
    return end


def _sorted(clusters: Clusters) -> Clusters:
    for members in clusters:
        members.sort()
    clusters.sort(key=lambda members: members[0])
    return clusters


def _similar(items: list[Entry], policy: AggregationPolicy) -> Clusters:
    return _sorted(similar_clusters(items, policy))


_POLICIES: dict[str, Callable[[list[Entry], AggregationPolicy], Clusters]] = {
    "off": _off,
    "exact": _exact,
    "proximity": _proximity,
    "similar": _similar,
}
