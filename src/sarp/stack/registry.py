# The protocol registry: protocols are Markdown files with TOML front matter between
# `+++` lines (name, budget, priority, conflict_group, alone, excludes, compatible;
# triggers: skills, labels, keywords, epic_labels, skill_labels; and `[sections]`:
# heading -> priority 1..6 of seed 002 §7.2). The eight shipped protocols live in
# `protocols/`; a user directory adds protocols or replaces one of the same name.
#
# Loading is loose-then-strict: every file is read, every problem of every file is
# collected with its path and key, and one StackError reports them all.
from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from sarp import diagnostics
from sarp.model import Diagnostic

__all__ = ["BUILTIN_DIR", "Protocol", "Registry", "Section", "StackError", "load_protocol"]

BUILTIN_DIR: Final = Path(__file__).parent / "protocols"
_FRONT: Final = re.compile(r"\A\+\+\+\n(?P<front>.*?)\n\+\+\+\n", re.DOTALL)
_HEADING: Final = re.compile(r"^## (?P<title>.+?)\s*$", re.MULTILINE)


class StackError(ValueError):
    """Selection or assembly cannot go on; `diagnostics` say why."""

    def __init__(self, found: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in found))
        self.diagnostics = found


@dataclass(frozen=True)
class Section:
    """One `## ` section of a protocol and its compression priority (1 keep .. 6 drop)."""

    title: str
    body: str
    priority: int


@dataclass(frozen=True)
class Protocol:
    name: str
    budget: int
    priority: int  # rank among protocols detected at the same level (lower first)
    sections: tuple[Section, ...]
    conflict_group: str | None = None
    alone: bool = False
    skills: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    epic_labels: tuple[str, ...] = ()
    skill_labels: Mapping[str, str] = field(default_factory=dict)
    excludes: tuple[str, ...] = ()
    compatible: tuple[str, ...] | None = None  # None: combines with any protocol
    source: str = ""


def _strings(front: dict[str, Any], key: str, problems: list[str]) -> tuple[str, ...]:
    value = front.get(key, [])
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        problems.append(f"{key!r} is not a list of strings")
        return ()
    return tuple(v.lower() for v in value)


def load_protocol(path: Path) -> tuple[Protocol | None, list[Diagnostic]]:
    """The protocol in `path`, or None and every problem found (SARP605)."""
    problems: list[str] = []
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, [diagnostics.make("SARP605", None, path=str(path),
                                       problem=f"cannot be read: {reason}")]
    match = _FRONT.match(text)
    if match is None:
        return None, [diagnostics.make("SARP605", 1, path=str(path),
                                       problem="has no +++ front matter")]
    try:
        front = tomllib.loads(match["front"])
    except tomllib.TOMLDecodeError as exc:
        return None, [diagnostics.make("SARP605", 2, path=str(path), problem=str(exc))]
    name, budget, priority = front.get("name"), front.get("budget"), front.get("priority", 50)
    if not (isinstance(name, str) and re.fullmatch(r"[a-z][a-z0-9-]*", name)):
        problems.append("'name' is not a lower-case word")
    if not (type(budget) is int and budget > 0):
        problems.append("'budget' is not a positive integer")
    if type(priority) is not int:
        problems.append("'priority' is not an integer")
    if not isinstance(front.get("alone", False), bool):
        problems.append("'alone' is not true or false")
    if not isinstance(front.get("conflict_group", ""), str):
        problems.append("'conflict_group' is not a string")
    section_priorities = front.get("sections", {})
    if not (isinstance(section_priorities, dict) and all(
            isinstance(v, int) and 1 <= v <= 6 for v in section_priorities.values())):
        problems.append("'sections' is not a table of heading = priority 1..6")
        section_priorities = {}
    skill_labels = front.get("skill_labels", {})
    if not (isinstance(skill_labels, dict) and all(
            isinstance(v, str) for v in skill_labels.values())):
        problems.append("'skill_labels' is not a table of skill = label")
        skill_labels = {}
    body = text[match.end():]
    headings = list(_HEADING.finditer(body))
    sections = []
    for i, heading in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(body)
        title = heading["title"]
        if title not in section_priorities:
            problems.append(f"section {title!r} has no priority in [sections]")
        sections.append(Section(title, body[heading.end():end].strip("\n"),
                                section_priorities.get(title, 1)))
    titles = {s.title for s in sections}
    problems += [f"[sections] names {title!r}, which the body does not have"
                 for title in section_priorities if title not in titles]
    fields = {key: _strings(front, key, problems)
              for key in ("skills", "labels", "keywords", "epic_labels", "excludes")}
    compatible = _strings(front, "compatible", problems) if "compatible" in front else None
    if problems:
        return None, [diagnostics.make("SARP605", 1, path=str(path), problem=p)
                      for p in problems]
    return Protocol(name=str(name), budget=int(str(budget)), priority=int(str(priority)),
                    sections=tuple(sections), conflict_group=front.get("conflict_group"),
                    alone=front.get("alone", False) is True,
                    skill_labels={k.lower(): v.lower() for k, v in skill_labels.items()},
                    compatible=compatible, source=str(path), **fields), []


class Registry:
    """Protocols by name: the shipped ones, then each user directory in order."""

    def __init__(self, directories: Iterable[str | Path] = ()) -> None:
        self.protocols: dict[str, Protocol] = {}
        problems: list[Diagnostic] = []
        for directory in (BUILTIN_DIR, *map(Path, directories)):
            if not directory.is_dir():
                problems.append(diagnostics.make("SARP605", None, path=str(directory),
                                                 problem="is not a directory"))
                continue
            for path in sorted(directory.glob("*.md")):
                protocol, found = load_protocol(path)
                problems += found
                if protocol is not None:
                    self.protocols[protocol.name] = protocol
        if "base" not in self.protocols and not problems:
            problems.append(diagnostics.make("SARP605", None, path="registry",
                                             problem="has no 'base' protocol"))
        if problems:
            raise StackError(problems)

    def __getitem__(self, name: str) -> Protocol:
        return self.protocols[name]

    def __contains__(self, name: object) -> bool:
        return name in self.protocols

    def conditional(self) -> list[Protocol]:
        """Every protocol but base, in priority order."""
        return sorted((p for p in self.protocols.values() if p.name != "base"),
                      key=lambda p: (p.priority, p.name))
