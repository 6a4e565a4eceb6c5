# The flat view of every input finding that the merge policies work on.
#
# `entries(results)` gives one Entry per (result, finding), in canonical order: results
# sorted by id, findings in source order. Every policy is a pure function of this list,
# so a report is the same whatever order or grouping its results arrived in.
from __future__ import annotations

from sarp.aggregation.policy import agent_key
from sarp.model import Finding, Location, Result

__all__ = ["Entry", "entries", "location_key", "name_of", "section_key", "type_key"]


class Entry:
    """One input finding and what the policies ask of it, computed once."""

    __slots__ = ("agent", "agent_key", "end", "finding", "index", "line", "order", "path",
                 "result", "result_order", "section", "type")

    def __init__(self, order: int, result_order: int, result: Result, index: int,
                 finding: Finding, agent_keys: dict[str, str]) -> None:
        self.order = order  # position in the canonical order: the tie-breaker everywhere
        self.result_order = result_order
        self.result = result
        self.index = index
        self.finding = finding
        # a reply that names no agent is known by its file name: `colleague-notes`
        self.agent = finding.agent or result.agent or name_of(result.id)
        # the agent as rules and agreement compare it (`agent_keys`: the batch's cache)
        key = agent_keys.get(self.agent)
        if key is None:
            key = agent_keys[self.agent] = agent_key(self.agent)
        self.agent_key = key
        loc = finding.location
        self.path: str | None = None
        self.line: int | None = None
        self.end: int | None = None
        self.section: str | None = None
        if loc is not None:
            self.path = loc.path or None
            self.line = loc.line
            self.end = loc.end_line if loc.end_line is not None else loc.line
            if loc.section:
                self.section = section_key(loc.section)
        self.type = type_key(finding.type)


def name_of(result_id: str | None) -> str:
    """What to call the agent of a result that names none: its file name."""
    if not result_id:
        return "?"
    name = result_id.replace("\\", "/").rsplit("/", 1)[-1]
    stem = name.split(":", 1)[0].split("#", 1)[0]
    return stem.rsplit(".", 1)[0] if "." in stem[1:] else stem


def section_key(section: str) -> str:
    """`§ Errors` and `§  errors` are one section."""
    return " ".join(section.lower().split())


def type_key(text: str | None) -> str | None:
    return "-".join(text.lower().replace("_", " ").split()) if text else None


def location_key(loc: Location | None) -> tuple[object, ...] | None:
    """What `exact` compares: the place, not how it was written."""
    if loc is None:
        return None
    section = section_key(loc.section) if loc.section else None
    return (loc.path, loc.line, loc.end_line, section, loc.symbol,
            tuple(location_key(extra) for extra in loc.extra))


def entries(results: list[Result]) -> list[Entry]:
    """Every finding of every result, in canonical order (results sorted by id)."""
    out: list[Entry] = []
    keys: dict[str, str] = {}
    for result_order, result in enumerate(results):
        for index, finding in enumerate(result.findings):
            out.append(Entry(len(out), result_order, result, index, finding, keys))
    return out
