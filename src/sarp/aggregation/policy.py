# Aggregation settings and cross-validation rules, with the TOML loader for both.
#
# A rules file is TOML; every key is optional:
#
#     defaults = true            # keep the built-in seed-001 rules (false: only these)
#     window = 10                # "same region": same file within this many lines
#     fix_first_at = 1           # criticals that make the verdict FIX ISSUES FIRST
#     review_above = 5           # majors above which it is REVIEW RECOMMENDED
#     similar_threshold = 0.2    # confidence = "mean-boost"; dedupe = "similar"
#
#     [agent_weights]            # mean-boost confidence weights by agent
#     security-auditor = 2.0
#
#     [[rule]]
#     name = "security + tests"  # recorded on every finding the rule changes
#     agents = ["security-auditor", "test-analyzer"]   # the second may be "any"
#     action = "escalate"        # escalate-critical | escalate | corroborate | note
#     note = "no test covers this security finding"
#
# The loader reads the loose form first, then validates it and reports every problem
# with its path (`rule[2].action: ...`) in one `RulesError`, as packaging does.
from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

__all__ = [
    "ACTIONS",
    "DEFAULT_RULES",
    "AggregationPolicy",
    "Rule",
    "RulesError",
    "RulesFile",
    "agent_key",
    "load_rules",
]

Dedupe = Literal["similar", "exact", "proximity", "off"]
ConfidenceMode = Literal["max", "mean-boost"]
ACTIONS: Final = ("escalate-critical", "escalate", "corroborate", "note")
DEDUPE_POLICIES: Final = ("similar", "exact", "proximity", "off")

_SEPARATORS = re.compile(r"[\s_/]+")


@functools.lru_cache(maxsize=4096)
def agent_key(name: str) -> str:
    """Agent names compared loosely: `Code Reviewer`, `code_reviewer` and
    `code-reviewer` are one agent."""
    return _SEPARATORS.sub("-", name.strip().lower()).strip("-")


@dataclass(frozen=True)
class Rule:
    """Seed 001 cross-validation: when findings of these two agents concern the same
    region (or are one merged finding), apply `action` to them."""

    name: str
    agents: tuple[str, str]  # agent keys; the second may be "any"
    action: str
    note: str | None = None

    def sides(self) -> tuple[str, str]:
        return agent_key(self.agents[0]), agent_key(self.agents[1])


DEFAULT_RULES: Final[tuple[Rule, ...]] = (
    Rule("code-reviewer + silent-failure-hunter", ("code-reviewer", "silent-failure-hunter"),
         "escalate-critical", "both flag the same region"),
    Rule("code-reviewer + comment-analyzer", ("code-reviewer", "comment-analyzer"),
         "corroborate", "code change and comment issue at the same location"),
    Rule("test-analyzer + code-reviewer", ("test-analyzer", "code-reviewer"),
         "escalate-critical", "a bug with no test for the same code"),
    Rule("type-design-analyzer + backward-compat", ("type-design-analyzer", "backward-compat"),
         "escalate-critical", "weak types and a breaking change"),
    Rule("type-design-analyzer + silent-failure-hunter",
         ("type-design-analyzer", "silent-failure-hunter"),
         "escalate", "unenforced invariants on an error path"),
    Rule("silent-failure-hunter + backward-compat", ("silent-failure-hunter", "backward-compat"),
         "escalate-critical", "a breaking change with silent suppression"),
    Rule("codex-review-agent + any", ("codex-review-agent", "any"),
         "corroborate", "confirmed by external AI"),
    Rule("code-simplifier + code-reviewer", ("code-simplifier", "code-reviewer"),
         "corroborate", "complexity contributes to the bug"),
    Rule("code-simplifier + silent-failure-hunter", ("code-simplifier", "silent-failure-hunter"),
         "note", "simplifying may fix the error handling"),
)


@dataclass(frozen=True)
class AggregationPolicy:
    """How `aggregate` merges, cross-validates and judges. The defaults follow SPEC §5."""

    dedupe: Dedupe = "similar"
    window: int = 10  # proximity window and the rules' "same region", in lines
    rules: tuple[Rule, ...] = DEFAULT_RULES
    confidence: ConfidenceMode = "max"
    agent_weights: Mapping[str, float] = field(default_factory=dict)  # mean-boost, by agent
    fix_first_at: int = 1  # this many critical findings -> FIX ISSUES FIRST
    review_above: int = 5  # more major findings than this -> REVIEW RECOMMENDED
    similar_threshold: float = 0.2  # `similar`: lowest score that merges two findings

    def __post_init__(self) -> None:
        if self.dedupe not in DEDUPE_POLICIES:
            raise ValueError(f"unknown dedupe policy {self.dedupe!r}; "
                             f"choose from {', '.join(DEDUPE_POLICIES)}")
        if self.window < 0:
            raise ValueError("window must not be negative")
        if self.confidence not in ("max", "mean-boost"):
            raise ValueError(f"unknown confidence mode {self.confidence!r}")
        if self.fix_first_at < 1 or self.review_above < 0:
            raise ValueError("fix_first_at must be at least 1 and review_above at least 0")
        if not 0 < self.similar_threshold <= 10:
            raise ValueError("similar_threshold must be above 0 and at most 10")
        bad = sorted(name for name, weight in self.agent_weights.items()
                     if not weight >= 0 or weight == float("inf"))
        if bad:
            raise ValueError(f"agent weights must be finite and >= 0: {', '.join(bad)}")

    def describe(self) -> dict[str, Any]:
        """The settings as recorded in a report."""
        return {
            "dedupe": self.dedupe, "window": self.window, "confidence": self.confidence,
            "rules": [rule.name for rule in self.rules],
            "fix_first_at": self.fix_first_at, "review_above": self.review_above,
            "similar_threshold": self.similar_threshold,
            "agent_weights": dict(sorted(self.agent_weights.items())),
        }


class RulesError(ValueError):
    """A rules file that cannot be used; `errors` lists every problem with its path."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = errors
        super().__init__(f"{source}: " + "; ".join(errors))


RulesFile = tuple[tuple[Rule, ...], dict[str, Any]]

# settings a rules file may give, with the check each value must pass
_SETTINGS: Final[dict[str, tuple[str, Any]]] = {
    "window": ("a whole number >= 0", lambda v: _whole(v) and v >= 0),
    "fix_first_at": ("a whole number >= 1", lambda v: _whole(v) and v >= 1),
    "review_above": ("a whole number >= 0", lambda v: _whole(v) and v >= 0),
    "similar_threshold": ("a number above 0", lambda v: _number(v) and v > 0),
    "confidence": ('"max" or "mean-boost"', lambda v: v in ("max", "mean-boost")),
    "dedupe": (f"one of {', '.join(DEDUPE_POLICIES)}", lambda v: v in DEDUPE_POLICIES),
}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def load_rules(path: str | Path) -> RulesFile:
    """The rules, and the settings the file gives (keys of AggregationPolicy), from TOML."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(source, [f"cannot read: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(source, [f"not valid TOML: {exc}"]) from None
    return rules_from_data(data, source)


def rules_from_data(data: Mapping[str, Any], source: str = "<rules>") -> RulesFile:
    errors: list[str] = []
    known = ("defaults", "rule", "agent_weights", *_SETTINGS)
    unknown = sorted(set(data) - set(known))
    if unknown:
        errors.append(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(known)}")
    defaults = data.get("defaults", True)
    if not isinstance(defaults, bool):
        errors.append("defaults: must be true or false")
    settings: dict[str, Any] = {}
    for key, (meaning, check) in _SETTINGS.items():
        if key in data:
            if check(data[key]):
                settings[key] = data[key]
            else:
                errors.append(f"{key}: must be {meaning}")
    weights = data.get("agent_weights")
    if weights is not None:
        if not isinstance(weights, dict):
            errors.append("agent_weights: must be a table of agent = weight")
        else:
            for agent, weight in weights.items():
                if not (_number(weight) and weight >= 0):
                    errors.append(f"agent_weights.{agent}: must be a number >= 0")
            settings["agent_weights"] = {str(k): float(v) for k, v in weights.items()
                                         if _number(v)}
    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list):
        errors.append("rule: must be an array of tables ([[rule]])")
        raw_rules = []
    rules = [rule for index, raw in enumerate(raw_rules)
             if (rule := _rule(raw, f"rule[{index}]", errors)) is not None]
    if errors:
        raise RulesError(source, errors)
    base = DEFAULT_RULES if defaults is True else ()
    return base + tuple(rules), settings


def _rule(raw: Any, path: str, errors: list[str]) -> Rule | None:
    if not isinstance(raw, dict):
        errors.append(f"{path}: must be a table")
        return None
    before = len(errors)
    unknown = sorted(set(raw) - {"name", "agents", "action", "note"})
    if unknown:
        errors.append(f"{path}: unknown key(s) {', '.join(unknown)}")
    agents = raw.get("agents")
    if not (isinstance(agents, list) and len(agents) == 2
            and all(isinstance(a, str) and a.strip() for a in agents)):
        errors.append(f"{path}.agents: must be two agent names, e.g. "
                      '["code-reviewer", "silent-failure-hunter"] (the second may be "any")')
        agents = None
    elif agent_key(agents[0]) == "any":
        errors.append(f'{path}.agents: "any" may only be the second agent')
        agents = None
    elif agent_key(agents[0]) == agent_key(agents[1]):
        errors.append(f"{path}.agents: two different agents (a rule compares two reports)")
        agents = None
    action = raw.get("action")
    if action not in ACTIONS:
        errors.append(f"{path}.action: must be one of {', '.join(ACTIONS)}")
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        errors.append(f"{path}.note: must be a string")
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        errors.append(f"{path}.name: must be a string")
    if len(errors) > before or agents is None:
        return None
    return Rule(name or f"{agents[0]} + {agents[1]} ({path})", (agents[0], agents[1]),
                str(action), note)
