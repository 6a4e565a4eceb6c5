# Choosing a subagent's protocols (seed 002 §4, §6).
#
# Contract: base always loads; then at most two conditional protocols. Each candidate is
# detected at a level: explicit (--protocol / --only-protocol) > skill > label (task
# labels, task type, epic labels) > description (title and description words) >
# default (implementation, only when nothing at all was detected: a detected protocol
# removed by --no-protocol leaves base alone, it does not bring in the default).
# Candidates are tried best level first; explicit ones in the order given, the others by
# each protocol's `priority` (the flowchart's order: release,
# decomposition, implementation, research, specification, consensus, contribution); a
# candidate is rejected when a protocol already loaded excludes it. So whenever two
# protocols exclude each other, the one detected at the stronger level wins, and at the
# same level the flowchart's order decides.
#
# Where seed 002 disagrees with itself, we chose (and test) this:
# - research vs implementation: §4.2 excludes them, §6.1's code loads both, §4.1 lists
#   neither as compatible. They exclude each other (§4.2 and §4.1 agree).
# - decomposition vs implementation: §8.2 always keeps decomposition; here the stronger
#   detection level wins, and decomposition only on a tie. An orchestrator that passes
#   `--protocol implementation` for a task labelled `epic` gets implementation.
# - release "loads alone" (flowchart, §8.2): it excludes every other conditional
#   protocol, by the same rule; a `release` word in a description does not override a
#   protocol chosen by skill or label, it is rejected instead.
# - §4.1's compatibility table is not symmetric (decomposition lists research, research
#   does not list decomposition): two protocols combine when either lists the other.
# - labels match whole labels (case-insensitive), as §6.1's code does; the bash loader's
#   substring grep would read the label `contribution-protocol` as contribution.
#   Description keywords match whole words, so "inspect" is not "spec".
# - the flowchart pairs a lone contribution with implementation; §6.1's code and the
#   tables do not. We load only what was detected.
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sarp import diagnostics
from sarp.stack.registry import Protocol, Registry, StackError

__all__ = ["LEVELS", "Decision", "Overrides", "Selection", "Strategy", "Task", "select"]

Strategy = Literal["minimal", "standard", "comprehensive"]
LEVELS = ("explicit", "skill", "label", "description", "default")
MAX_CONDITIONAL = 2


class Task(BaseModel):
    """What the orchestrator knows about the task (CLEO's `cleo show --format json`)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    id: str = ""
    title: str = ""
    type: str = ""
    description: str = ""
    labels: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    epic_labels: list[str] = Field(default_factory=list, alias="epicLabels")


@dataclass(frozen=True)
class Overrides:
    include: Sequence[str] = ()  # --protocol
    exclude: Sequence[str] = ()  # --no-protocol
    only: Sequence[str] = ()  # --only-protocol
    strategy: Strategy = "standard"


@dataclass(frozen=True)
class Decision:
    """Why `protocol` was loaded or rejected."""

    protocol: str
    loaded: bool
    level: str
    reason: str

    def __str__(self) -> str:
        verb = "loaded" if self.loaded else "rejected"
        return f"{self.protocol}: {verb} ({self.level}) {self.reason}"


@dataclass
class Selection:
    protocols: list[str]  # base first, then primary, then secondary
    decisions: list[Decision] = field(default_factory=list)
    strategy: Strategy = "standard"

    def explain(self) -> str:
        return "\n".join(str(d) for d in self.decisions)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _detect(task: Task, protocol: Protocol) -> tuple[int, str] | None:
    """The strongest level at which `task` triggers `protocol`, and the trigger."""
    skills = [s.lower() for s in task.skills]
    labels = [label.lower() for label in (*task.labels, *([task.type] if task.type else []))]
    for skill in skills:
        if skill in protocol.skills:
            return 1, f"skill {skill!r}"
        label = protocol.skill_labels.get(skill)
        if label is not None and label in labels:
            return 1, f"skill {skill!r} with label {label!r}"
    for label in labels:
        if label in protocol.labels:
            return 2, f"label {label!r}"
    for label in (label.lower() for label in task.epic_labels):
        if label in protocol.epic_labels:
            return 2, f"epic label {label!r}"
    text = f" {_words(task.title + ' ' + task.description)} "
    for keyword in protocol.keywords:
        if f" {_words(keyword)} " in text:
            return 3, f"description word {keyword!r}"
    return None


def _clash(candidate: Protocol, loaded: Protocol, primary: Protocol) -> str | None:
    """Why `candidate` cannot join the protocols loaded so far (None: it can)."""
    if loaded.alone:
        return f"{loaded.name} loads alone"
    if candidate.alone:
        return f"{candidate.name} loads alone and {loaded.name} is already loaded"
    if candidate.name in loaded.excludes or loaded.name in candidate.excludes:
        return f"{loaded.name} and {candidate.name} exclude each other"
    if candidate.conflict_group is not None and (
            candidate.conflict_group == loaded.conflict_group):
        return f"same conflict group {candidate.conflict_group!r} as {loaded.name}"
    if loaded is primary and not (
            primary.compatible is None or candidate.compatible is None or
            candidate.name in primary.compatible or primary.name in candidate.compatible):
        return f"not compatible with the primary protocol {primary.name}"
    return None


def select(task: Task | dict[str, object], overrides: Overrides | None = None,
           registry: Registry | None = None) -> Selection:
    """Base plus up to two conditional protocols for `task`, each decision explained.

    Raises StackError (SARP606) when an override names a protocol the registry lacks.
    """
    task = task if isinstance(task, Task) else Task.model_validate(task)
    overrides = overrides or Overrides()
    registry = registry or Registry()
    unknown = [name for name in (*overrides.include, *overrides.exclude, *overrides.only)
               if name not in registry or name == "base"]
    if unknown:
        raise StackError([diagnostics.make("SARP606", None, name=name,
                                           known=", ".join(p.name for p in
                                                           registry.conditional()))
                          for name in unknown])
    found: dict[str, tuple[int, str]] = {}
    decisions: list[Decision] = []
    if overrides.only:
        found = dict.fromkeys(overrides.only, (0, "--only-protocol"))
        decisions += [Decision(name, False, "explicit", "--protocol, but --only-protocol"
                               " chooses the protocols") for name in overrides.include
                      if name not in found]
    else:
        for protocol in registry.conditional():
            detected = _detect(task, protocol)
            if detected is not None:
                found[protocol.name] = detected
        found.update(dict.fromkeys(overrides.include, (0, "--protocol")))
    detected_any = bool(found)
    for name in overrides.exclude:
        if name in found:
            level, trigger = found.pop(name)
            decisions.append(Decision(name, False, LEVELS[level],
                                      f"{trigger}, but --no-protocol {name}"))
    if not detected_any and not overrides.only:
        if "implementation" in overrides.exclude:
            decisions.append(Decision("implementation", False, "default",
                                      "nothing detected, but --no-protocol implementation"))
        else:
            found["implementation"] = (4, "nothing else detected")
    loaded: list[Protocol] = []
    given = [*overrides.only, *overrides.include]
    order = sorted(found, key=lambda n: (found[n][0], given.index(n) if n in given
                                         else registry[n].priority, n))
    for name in order:
        level, trigger = found[name]
        candidate = registry[name]
        clash = next((why for other in loaded
                      if (why := _clash(candidate, other, loaded[0])) is not None), None)
        if clash is None and len(loaded) == MAX_CONDITIONAL:
            clash = f"at most {MAX_CONDITIONAL} conditional protocols"
        if clash is not None:
            decisions.append(Decision(name, False, LEVELS[level], f"{trigger}; {clash}"))
            continue
        role = "primary" if not loaded else "secondary"
        loaded.append(candidate)
        decisions.append(Decision(name, True, LEVELS[level], f"{trigger}; {role}"))
    decisions.insert(0, Decision("base", True, "always", "the lifecycle every subagent follows"))
    return Selection(["base", *(p.name for p in loaded)],
                     sorted(decisions, key=lambda d: not d.loaded), overrides.strategy)
