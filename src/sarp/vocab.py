# Status and severity vocabularies: what each dialect's words mean canonically.
#
# Contract (SPEC §3 "Canonical status", "Canonical severity"):
# - `StatusVocab.read(word)` gives the canonical Status (or BY_CONTENT when the word does
#   not say whether anything was found) and whether the word was an alias, so the parser
#   can report the repair.
# - `SeverityReader` reads all severity words of one reply together, because the scale
#   a word belongs to is a property of the reply: "High" is critical in High/Medium/Low
#   but major in Critical/High/Medium. Order of preference: the dialect's own words, the
#   reporting agent's scale (seed 001 Severity Mapping), the smallest known ranked scale
#   holding every word used, then a default alias table. Users add scales with
#   `register_scale`.
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from sarp.model import Severity, Status

__all__ = [
    "BY_CONTENT",
    "CONFIDENCE_WORDS",
    "STATUS",
    "URGENCY",
    "RankedScale",
    "SeverityReader",
    "StatusVocab",
    "normalise_word",
    "register_scale",
    "worse",
]

BY_CONTENT: Final = "by-content"  # the word does not say; findings decide
CRIT, MAJOR, MINOR = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR
CONFIDENCE_WORDS: Final = {"high": 85.0, "medium": 65.0, "moderate": 65.0, "low": 40.0,
                           "very high": 95.0, "certain": 97.0, "uncertain": 30.0}

StatusValue = Status | str  # a Status, or BY_CONTENT


@dataclass(frozen=True)
class StatusVocab:
    """The status words of one dialect: canonical spellings and tolerated aliases."""

    canonical: dict[str, StatusValue]  # exact spelling -> meaning
    aliases: dict[str, StatusValue]  # lower-case alias -> meaning
    warn: frozenset[str] = frozenset()  # aliases that deserve a warning, not a note

    def read(self, word: str) -> tuple[StatusValue | None, str]:
        """(meaning, kind) with kind in canonical|alias|warn|unknown."""
        if word in self.canonical:
            return self.canonical[word], "canonical"
        key = normalise_word(word)
        for spelling, meaning in self.canonical.items():
            if spelling.lower() == key:
                return meaning, "alias"
        if key in self.aliases:
            return self.aliases[key], "warn" if key in self.warn else "alias"
        # prose verdicts: "PASS with one IMPORTANT note", "SKIPPED — no tenant code"
        first = _leading_words(key)
        for candidate in first:
            for spelling, meaning in self.canonical.items():
                if spelling.lower() == candidate:
                    return meaning, "alias"
            if candidate in self.aliases:
                return self.aliases[candidate], "alias"
        return None, "unknown"

    def allowed(self) -> str:
        return ", ".join(self.canonical)


def _leading_words(key: str) -> list[str]:
    words = re.split(r"[\s,;:.(—–-]+", key, maxsplit=4)
    return [" ".join(words[:n]) for n in (3, 2, 1) if len(words) >= n]


_GENERIC_ALIASES: Final[dict[str, StatusValue]] = {
    "clean": Status.CLEAN, "findings": Status.FINDINGS, "partial": Status.PARTIAL,
    "error": Status.ERROR, "blocked": Status.BLOCKED,
    "complete": BY_CONTENT, "completed": BY_CONTENT, "done": BY_CONTENT,
    "success": BY_CONTENT, "succeeded": BY_CONTENT, "ok": BY_CONTENT, "pass": BY_CONTENT,
    "passed": BY_CONTENT, "approved": BY_CONTENT, "ready": BY_CONTENT,
    "issues found": Status.FINDINGS, "issues": Status.FINDINGS, "fail": Status.FINDINGS,
    "failed": Status.ERROR, "failure": Status.ERROR, "errored": Status.ERROR,
    "incomplete": Status.PARTIAL, "in progress": Status.PARTIAL, "timeout": Status.PARTIAL,
    "suspended": Status.PARTIAL, "skipped": Status.CLEAN,
}

STATUS: Final[dict[str, StatusVocab]] = {
    "clarity": StatusVocab(
        canonical={"CLEAN": Status.CLEAN, "FINDINGS": Status.FINDINGS,
                   "PARTIAL": Status.PARTIAL, "ERROR": Status.ERROR},
        aliases={**_GENERIC_ALIASES, "consistent": Status.CLEAN, "tension": Status.FINDINGS,
                 "conflict": Status.FINDINGS, "planned": Status.CLEAN,
                 "needs_components": Status.FINDINGS, "fail": Status.FINDINGS},
    ),
    "bowser": StatusVocab(
        canonical={"PASS": Status.CLEAN, "FAIL": Status.FINDINGS},
        aliases={**_GENERIC_ALIASES, "passed": Status.CLEAN, "success": Status.CLEAN,
                 "failed": Status.FINDINGS, "failure": Status.FINDINGS},
    ),
    "adr013": StatusVocab(
        canonical={"APPROVED": BY_CONTENT, "ISSUES FOUND": Status.FINDINGS,
                   "SKIPPED": Status.CLEAN, "BLOCKED": Status.FINDINGS,
                   "REFACTORING RECOMMENDED": Status.FINDINGS, "ADR REQUIRED": Status.FINDINGS},
        aliases={**_GENERIC_ALIASES, "blocked": Status.FINDINGS,
                 "fix issues first": Status.FINDINGS, "review recommended": Status.FINDINGS,
                 "changes requested": Status.FINDINGS, "request changes": Status.FINDINGS,
                 "rejected": Status.FINDINGS, "needs work": Status.FINDINGS,
                 "approved with changes": Status.FINDINGS, "fail": Status.FINDINGS,
                 "failed": Status.FINDINGS, "ready for pr": BY_CONTENT, "lgtm": BY_CONTENT},
    ),
    "sdd": StatusVocab(
        canonical={"SUCCESS": BY_CONTENT, "PARTIAL": Status.PARTIAL, "FAILED": Status.ERROR},
        aliases=dict(_GENERIC_ALIASES),
    ),
    "aphelion": StatusVocab(
        canonical={"success": BY_CONTENT, "approved": BY_CONTENT, "failure": Status.FINDINGS,
                   "conditional": Status.FINDINGS, "rejected": Status.FINDINGS,
                   "error": Status.ERROR, "suspended": Status.PARTIAL,
                   "blocked": Status.BLOCKED},
        aliases={**_GENERIC_ALIASES, "skipped": Status.CLEAN, "failed": Status.FINDINGS,
                 "fail": Status.FINDINGS, "partial": Status.PARTIAL},
        warn=frozenset({"skipped"}),
    ),
    "cleo": StatusVocab(
        canonical={"complete": Status.CLEAN, "partial": Status.PARTIAL,
                   "blocked": Status.BLOCKED, "archived": Status.CLEAN},
        aliases={**_GENERIC_ALIASES, "completed": Status.CLEAN, "done": Status.CLEAN,
                 "success": Status.CLEAN, "deferred": Status.PARTIAL},
    ),
    "json": StatusVocab(
        canonical={"CLEAN": Status.CLEAN, "FINDINGS": Status.FINDINGS,
                   "PARTIAL": Status.PARTIAL, "BLOCKED": Status.BLOCKED, "ERROR": Status.ERROR},
        aliases={**_GENERIC_ALIASES, "issues found": Status.FINDINGS,
                 "rejected": Status.FINDINGS, "conditional": Status.FINDINGS},
    ),
}


_EMOJI_WORDS: Final = {"🔴": "red", "🟠": "orange", "🟡": "yellow", "🟢": "green",
                       "⚪": "white", "⚫": "black",
                       "🔵": "blue", "⚠️": "warning", "⚠": "warning", "❌": "error",
                       "🚨": "critical", "💡": "suggestion", "ℹ️": "info", "ℹ": "info"}
_WORD_EDGES: Final = " \t*_`[](){}:.,;!#~-–—>"


def normalise_word(word: str) -> str:
    """Lower-case a severity or status word, drop markup, spell emoji as colour words."""
    text = word.strip()
    if text.isascii():
        return " ".join(text.strip(_WORD_EDGES).lower().split())
    for emoji, name in _EMOJI_WORDS.items():
        if emoji in text:
            rest = text.replace(emoji, "").replace("\ufe0f", "").strip(_WORD_EDGES).lower()
            if not rest or rest == name:
                return name
            text = rest
    return " ".join(text.strip(_WORD_EDGES).lower().split())


@dataclass(frozen=True)
class RankedScale:
    """An ordered scale of words, worst first; mapping is by rank (SPEC §3)."""

    name: str
    words: tuple[tuple[str, ...], ...]  # each rank may have several spellings

    def rank_of(self, word: str) -> int | None:
        for rank, spellings in enumerate(self.words):
            if word in spellings:
                return rank
        return None

    def severity(self, rank: int) -> Severity:
        # three levels: top critical, middle major, bottom minor; longer scales put
        # every level below the second on minor (seed 001).
        return (CRIT, MAJOR)[rank] if rank < 2 else MINOR


def _scale(name: str, *levels: str | tuple[str, ...]) -> RankedScale:
    return RankedScale(name, tuple((lv,) if isinstance(lv, str) else lv for lv in levels))


_SCALES: list[RankedScale] = [
    _scale("critical/major/minor", "critical", "major", "minor"),
    _scale("critical/important/suggestion", "critical", "important", "suggestion"),
    _scale("critical/important/minor", "critical", "important", "minor"),
    _scale("high/medium/low", ("high", "hi"), ("medium", "med", "moderate"), "low"),
    _scale("critical/high/medium", "critical", "high", ("medium", "moderate")),
    _scale("critical/medium/low", "critical", "medium", "low"),
    _scale("error/warning/info", "error", ("warning", "warn"), ("info", "note", "notice")),
    _scale("critical/warning/info", "critical", "warning", ("info", "suggestion", "advisory")),
    _scale("red/yellow/green", "red", "yellow", "green"),
    _scale("blocker/major/minor", "blocker", "major", "minor"),
    _scale("must/should/could", ("must", "must fix"), ("should", "should fix"),
           ("could", "nice to have", "nit")),
    _scale("critical/high/medium/low", "critical", "high", "medium", "low"),
    _scale("P0/P1/P2/P3", "p0", "p1", "p2", "p3"),
    _scale("red/orange/yellow/green", "red", "orange", "yellow", "green"),
    _scale("blocker/critical/major/minor", "blocker", "critical", "major", "minor"),
    _scale("critical/major/minor/trivial", "critical", "major", "minor", ("trivial", "nit")),
    _scale("critical/high/medium/low/info", "critical", "high", "medium", "low",
           ("info", "informational")),
]

_DEFAULT_ALIASES: Final[dict[str, Severity]] = {
    "critical": CRIT, "blocker": CRIT, "blocking": CRIT, "error": CRIT, "fatal": CRIT,
    "severe": CRIT, "red": CRIT, "p0": CRIT, "must fix": CRIT,
    # Outside a ranked scale (a reply mixing `CRITICAL` with `HIGH`), "high" is read as
    # the level below the top one.
    "high": MAJOR, "major": MAJOR, "important": MAJOR, "warning": MAJOR, "warn": MAJOR,
    "medium": MAJOR,
    "moderate": MAJOR, "significant": MAJOR, "yellow": MAJOR, "orange": MAJOR, "p1": MAJOR,
    "inconsistency": MAJOR, "should fix": MAJOR, "bug": MAJOR, "worth fixing": MAJOR,
    "minor": MINOR, "low": MINOR, "info": MINOR, "informational": MINOR, "note": MINOR,
    "nit": MINOR, "nitpick": MINOR, "suggestion": MINOR, "advisory": MINOR, "trivial": MINOR,
    "cosmetic": MINOR, "green": MINOR, "p2": MINOR, "p3": MINOR, "optional": MINOR,
    "improvement": MINOR, "style": MINOR, "non-blocking": MINOR, "nice to have": MINOR,
    "nonblocking": MINOR, "nice-to-have": MINOR, "nitpicks": MINOR, "must-fix": CRIT,
    "should-fix": MAJOR,
    "should": MAJOR, "must": CRIT,
}


# Where no known scale holds every word a reply uses (`HIGH`, `MEDIUM` and `info`
# together), the reply's own scale is built from this ordering: its distinct levels,
# worst first, are then mapped by rank like any ranked scale.
_LEVEL: Final[dict[str, int]] = {
    "blocker": 0, "critical": 0, "severe": 0, "fatal": 0, "p0": 0, "red": 0,
    "high": 1, "error": 1, "important": 1, "major": 1, "p1": 1, "orange": 1,
    "medium": 2, "med": 2, "moderate": 2, "warning": 2, "yellow": 2, "p2": 2,
    "low": 3, "minor": 3, "suggestion": 3, "green": 3, "p3": 3, "advisory": 3,
    "info": 4, "informational": 4, "nit": 4, "note": 4, "trivial": 4, "white": 4,
    # urgency, as plain reviews group by it
    "blocking": 0, "must fix": 0, "must": 0, "should fix": 1, "should": 1,
    "nice to have": 3, "non-blocking": 3, "optional": 4, "nitpick": 4, "nitpicks": 4,
    "must-fix": 0, "should-fix": 1, "nice-to-have": 3, "nonblocking": 3,
}


def worse(a: str, b: str) -> bool:
    """Whether severity word `a` ranks worse than `b` (both read by `_LEVEL`; a word it
    does not know ranks nowhere)."""
    level_a, level_b = _LEVEL.get(normalise_word(a)), _LEVEL.get(normalise_word(b))
    return level_a is not None and (level_b is None or level_a < level_b)


# how plain reviews rank by urgency (`## Must fix`, `**Blocking:** text`): another axis than
# severity, so these words never choose a reply's severity scale
URGENCY: Final = frozenset({"blocking", "non-blocking", "nonblocking", "must fix", "must-fix",
                            "should fix", "should-fix", "nice to have", "nice-to-have",
                            "nitpick", "nitpicks", "optional"})


def _reply_scale(keys: set[str]) -> RankedScale | None:
    if not all(k in _LEVEL for k in keys):
        return None
    levels = sorted({_LEVEL[k] for k in keys})
    if levels[0] >= 2:
        # worst said is "medium": ranking would make it critical; the words keep
        # their usual meaning instead
        return None
    words = tuple(tuple(k for k in sorted(keys) if _LEVEL[k] == level) for level in levels)
    return RankedScale("/".join("|".join(w) for w in words) + " (as used in the reply)", words)


def register_scale(name: str, *levels: str | tuple[str, ...]) -> None:
    """Add a ranked scale (worst first) that replies may use; words are matched lower-case."""
    normalised = [tuple(normalise_word(w) for w in ((lv,) if isinstance(lv, str) else lv))
                  for lv in levels]
    _SCALES.append(RankedScale(name, tuple(normalised)))


# Agent scales from seed 001's Severity Mapping table, keyed by agent name.
_NUMBER: Final = re.compile(r"(\d{1,3})(?:\.\d+)?")


def _numbers(word: str) -> list[int]:
    return [int(m) for m in _NUMBER.findall(word)]


def _score(critical_from: int, major_from: int, top: int) -> Callable[[str], Severity | None]:
    """A numeric scale: the first number up to `top` in the word, read by thresholds."""
    def read(word: str) -> Severity | None:
        nums = [n for n in _numbers(word) if n <= top]
        if not nums:
            return None
        return CRIT if nums[0] >= critical_from else MAJOR if nums[0] >= major_from else MINOR

    return read


def _type_design(word: str) -> Severity | None:
    """The worst of the four 1-10 dimension ratings decides (seed 001)."""
    ratings = [n for n in _numbers(word) if n <= 10]
    if not ratings:
        return None
    worst = min(ratings)
    return CRIT if worst <= 3 else MAJOR if worst <= 6 else MINOR


def _words(mapping: dict[str, Severity]) -> Callable[[str], Severity | None]:
    def read(word: str) -> Severity | None:
        key = normalise_word(word)
        if key in mapping:
            return mapping[key]
        for spelling, sev in mapping.items():
            if key.startswith(spelling):
                return sev
        return None

    return read


AGENT_SCALES: Final[dict[str, tuple[str, Callable[[str], Severity | None]]]] = {
    "code-reviewer": ("code-reviewer confidence", _score(90, 80, 100)),
    "test-analyzer": ("test-analyzer rating", _score(9, 7, 10)),
    "type-design-analyzer": ("type-design-analyzer dimensions", _type_design),
    "silent-failure-hunter": ("silent-failure-hunter", _words(
        {"critical": CRIT, "high": MAJOR, "medium": MINOR})),
    "backward-compatibility-checker": ("backward-compat", _words(
        {"critical": CRIT, "red": CRIT, "medium": MAJOR, "yellow": MAJOR, "low": MINOR,
         "green": MINOR})),
    "comment-analyzer": ("comment-analyzer", _words(
        {"critical": CRIT, "critical issue": CRIT, "critical issues": CRIT,
         "improvement": MAJOR, "improvements": MAJOR, "removal": MINOR, "removals": MINOR})),
    "codex-review-agent": ("codex-review-agent", _words(
        {"high": CRIT, "medium": MAJOR, "low": MINOR})),
    "tool-validator": ("tool-validator", _words(
        {"error": CRIT, "critical": CRIT, "warning": MAJOR, "medium": MAJOR, "info": MINOR,
         "low": MINOR})),
    "code-simplifier": ("code-simplifier", lambda word: MINOR),
}
_AGENT_ALIASES: Final = {"backward-compat": "backward-compatibility-checker",
                         "codex": "codex-review-agent", "codex-review": "codex-review-agent"}


def agent_scale(agent: str | None) -> tuple[str, Callable[[str], Severity | None]] | None:
    if not agent:
        return None
    key = "-".join(agent.lower().replace("_", " ").split())
    key = _AGENT_ALIASES.get(key, key)
    if key in AGENT_SCALES:
        return AGENT_SCALES[key]
    # `silent-failure` for silent-failure-hunter: a name that starts one agent's name
    known = [name for name in AGENT_SCALES if name.startswith(key + "-")]
    return AGENT_SCALES[known[0]] if len(known) == 1 else None


@dataclass
class SeverityReading:
    severity: Severity
    kind: str  # canonical | case | scale | alias | unknown
    scale: str | None = None


@dataclass
class SeverityReader:
    """Reads the severity words of one reply (see the module contract for the order)."""

    dialect_words: Mapping[str, Severity]  # exact canonical spelling -> severity
    agent: str | None = None
    case_sensitive: bool = True
    _scale: RankedScale | None = field(default=None, init=False)
    _agent: tuple[str, Callable[[str], Severity | None]] | None = field(default=None,
                                                                         init=False)

    def prepare(self, words: Iterable[str]) -> None:
        """Look at every word the reply uses before reading any of them."""
        written = [w.strip() for w in words if w and w.strip()]
        keys = {normalise_word(w) for w in written}
        if keys - URGENCY:
            # urgency groups (`## Nice to have`) beside severities (`## High`) are another
            # axis: the severities choose the scale, the urgency words read on their own
            keys -= URGENCY
            written = [w for w in written if normalise_word(w) not in URGENCY]
        lowered = {k.lower() for k in self.dialect_words}
        if not keys or keys <= lowered:
            return
        # Whether the reply uses the dialect's own words as the dialect spells them
        # (`major` in a json reply; `info` is not `INFO` in a case-sensitive dialect).
        own_words = any((w if self.case_sensitive else w.lower()) in (
            self.dialect_words if self.case_sensitive else lowered) for w in written)
        self._agent = agent_scale(self.agent)
        if self._agent is not None and all(self._agent[1](k) is not None for k in keys):
            return
        self._agent = None
        # The smallest known scale holding every word, preferring one whose top word the
        # reply uses; a reply that uses three or more levels of no known scale whose top
        # it reaches (`HIGH`, `MEDIUM`, `info`) is read on its own scale.
        holding = [sc for sc in _SCALES if all(sc.rank_of(k) is not None for k in keys)]
        topped = [sc for sc in holding if any(sc.rank_of(k) == 0 for k in keys)]
        own = _reply_scale(keys)
        best: RankedScale | None = None
        if topped:
            best = min(topped, key=lambda sc: len(sc.words))
        elif own is not None and len(own.words) >= 3 and not own_words:
            best = own  # (a reply mixing the dialect's words with others reads per word)
        elif holding:
            best = min(holding, key=lambda sc: len(sc.words))
        self._scale = best

    def read(self, word: str) -> SeverityReading | None:
        """The canonical severity of `word`, or None when no table knows it."""
        if word in self.dialect_words:
            return SeverityReading(self.dialect_words[word], "canonical")
        key = normalise_word(word)
        # a dialect word in another case (`Major`): read before a scale only when the
        # reply has no scale of its own
        other_case = {s.lower(): sev for s, sev in self.dialect_words.items()}.get(key)
        case_kind = "case" if self.case_sensitive else "canonical"
        if other_case is not None and self._scale is None and self._agent is None:
            return SeverityReading(other_case, case_kind)
        if self._agent is not None:
            by_agent = self._agent[1](word)
            if by_agent is not None:
                return SeverityReading(by_agent, "scale", self._agent[0])
        if self._scale is not None:
            rank = self._scale.rank_of(key)
            if rank is not None:
                return SeverityReading(self._scale.severity(rank), "scale", self._scale.name)
        if other_case is not None:
            return SeverityReading(other_case, case_kind)
        if key in _DEFAULT_ALIASES:
            return SeverityReading(_DEFAULT_ALIASES[key], "alias", "default alias")
        head = key.split(" ", 1)[0] if key else key
        if head in _DEFAULT_ALIASES:
            return SeverityReading(_DEFAULT_ALIASES[head], "alias", "default alias")
        if len(key) >= 3:  # a word cut off by truncation: `Imp`
            matches = {sev for spelling, sev in self.dialect_words.items()
                       if spelling.lower().startswith(key)}
            if len(matches) == 1:
                return SeverityReading(matches.pop(), "scale", "prefix of a dialect word")
        return None
