# Building a subagent's prompt from the selected protocols (seed 002 §7, §8.3).
#
# Contract: the prompt has four parts in §8.3's order: Task Context, Protocol
# Requirements, Skill Context (when a skill is given), Output Requirements. Tokens are
# counted by a pluggable counter (default: characters / 4, CLEO's estimate). Over budget,
# sections are compressed one at a time in §7.2's order, secondary protocol first, base
# last: priority 6 (detailed explanations) and 5 (anti-patterns) are removed, 4
# (rationale) is cut to its first paragraph, 3 (examples) keeps one example; priorities 1
# (rules) and 2 (output format) are never touched. If that is not enough, the minimal
# strategy (priorities 1-2 only, the skill's first section) is used; if even that does
# not fit, StackError. Every cut is a diagnostic. Never silently over budget.
#
# Placeholders `{{NAME}}` in protocols, skill and output requirements are filled from
# `values`, then the task (TASK_ID, TITLE, DATE, TOPIC_SLUG and any extra task field by
# its upper-case name); one left unresolved is an error. Task text is quoted as given.
from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from sarp import diagnostics
from sarp.dialects.cleo import return_message
from sarp.model import Diagnostic, Status
from sarp.stack.registry import Protocol, Registry, Section, StackError
from sarp.stack.select import Overrides, Selection, Strategy, Task, select

__all__ = ["DEFAULT_BUDGET", "Prompt", "TokenCounter", "assemble", "estimate_tokens"]

TokenCounter = Callable[[str], int]
DEFAULT_BUDGET: Final = 20_000  # §8.3: above this CLEO falls back to minimal loading
# `{{ task_id }}` is read as `{{TASK_ID}}`: spacing and case are not worth an error
_PLACEHOLDER: Final = re.compile(r"\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}")
_ACTIONS: Final = {6: "removed", 5: "removed", 4: "cut to its first paragraph",
                   3: "cut to one example"}


def estimate_tokens(text: str) -> int:
    """CLEO's estimate: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


@dataclass
class Prompt:
    text: str
    tokens: int
    budget: int
    selection: Selection
    strategy: Strategy
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _first_paragraph(body: str) -> str:
    return body.strip().split("\n\n", 1)[0]


def _one_example(body: str) -> str:
    parts = re.split(r"(?m)^(?=### )", body.strip())
    examples = [p for p in parts if p.startswith("### ")]
    return examples[0].strip() if examples else _first_paragraph(body)


def _condense(section: Section) -> Section | None:
    if section.priority >= 5:
        return None
    body = _first_paragraph(section.body) if section.priority == 4 else _one_example(
        section.body)
    return Section(section.title, body, section.priority)


def _demote(body: str, levels: int) -> str:
    # protocol and skill headings sit deeper in the prompt than in their own files; the
    # prompt's four `##` parts stay the only top-level sections
    return re.sub(r"(?m)^(#{1,4}) ", lambda m: "#" * (len(m[1]) + levels) + " ", body)


def _protocol_text(protocol: Protocol, sections: list[Section]) -> str:
    parts = [f"### {protocol.name.capitalize()}"]
    parts += [f"#### {s.title}\n\n{_demote(s.body, 2)}" for s in sections]
    return "\n\n".join(parts)


def _references(protocol: Protocol) -> list[Section]:
    folder = Path(protocol.source).with_suffix("") / "references"
    if not folder.is_dir():
        return []
    sections = []
    for path in sorted(folder.glob("*.md")):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise StackError([diagnostics.make("SARP605", None, path=str(path),
                                               problem=f"cannot be read: {exc}")]) from exc
        sections.append(Section(f"Reference: {path.stem}", text, 6))
    return sections


def _skill_minimal(skill: str) -> str:
    headings = list(re.finditer(r"(?m)^## ", skill))
    return skill[:headings[1].start()].rstrip() if len(headings) > 1 else skill


def _output_requirements(primary: str) -> str:
    kind = primary.capitalize()
    forms = " / ".join(f'"{return_message(status, kind)}"'
                       for status in (Status.CLEAN, Status.PARTIAL, Status.BLOCKED))
    return ("1. MUST write output to {{OUTPUT_DIR}}/{{DATE}}_{{TOPIC_SLUG}}.md\n"
            "2. MUST append ONE line to {{OUTPUT_DIR}}/MANIFEST.jsonl\n"
            f"3. MUST return ONLY one of: {forms}\n"
            "4. MUST NOT return content in response")


def _values(task: Task, values: Mapping[str, str] | None,
            today: datetime.date | None) -> dict[str, str]:
    found = {key.upper(): str(value) for key, value in (task.model_extra or {}).items()
             if isinstance(value, str | int) and not isinstance(value, bool)}
    slug = "-".join(re.findall(r"[a-z0-9]+", task.title.lower())[:6])
    found.update({"TITLE": task.title, "DATE": (today or datetime.date.today()).isoformat()})
    if task.id:
        found["TASK_ID"] = task.id
    if slug:
        found["TOPIC_SLUG"] = slug
    found.update(values or {})
    return found


def _fill(text: str, values: Mapping[str, str], missing: dict[str, None]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match[1].upper()
        if name in values:
            return values[name]
        missing[f"{{{{{name}}}}}"] = None
        return match[0]
    return _PLACEHOLDER.sub(one, text)


def assemble(task: Task | dict[str, object], skill: str | None = None,
             budget: int = DEFAULT_BUDGET, *, overrides: Overrides | None = None,
             registry: Registry | None = None, counter: TokenCounter = estimate_tokens,
             values: Mapping[str, str] | None = None,
             today: datetime.date | None = None) -> Prompt:
    """The prompt for `task` within `budget` tokens, saying what was cut to fit.

    Raises StackError when a placeholder has no value (SARP604) or the minimal prompt
    does not fit (SARP603).
    """
    task = task if isinstance(task, Task) else Task.model_validate(task)
    registry = registry or Registry()
    selection = select(task, overrides, registry)
    protocols = [registry[name] for name in selection.protocols]
    fill_values = _values(task, values, today)
    missing: dict[str, None] = {}
    context = f"**{task.id or 'Task'}**" + (f": {task.title}" if task.title else "")
    if task.description:
        context += f"\n\n{task.description.strip()}"
    output = _fill(_output_requirements(
        selection.protocols[1] if len(selection.protocols) > 1 else "task"),
        fill_values, missing)
    skill_text = _fill(skill.strip(), fill_values, missing) if skill else None

    def render(kept: dict[str, list[Section | None]], skill_part: str | None) -> str:
        parts = ["## Task Context", context, "## Protocol Requirements",
                 "\n\n".join(_fill(_protocol_text(p, [s for s in kept[p.name] if s]),
                                   fill_values, missing) for p in protocols)]
        if skill_part:
            parts += ["## Skill Context", _demote(skill_part, 1)]
        parts += ["## Output Requirements", output]
        return "\n\n".join(parts) + "\n"

    def minimal() -> dict[str, list[Section | None]]:
        return {p.name: [s for s in p.sections if s.priority <= 2] for p in protocols}

    found = [diagnostics.make("SARP607", None, placeholder=placeholder)
             for placeholder in dict.fromkeys(
                 m[0] for m in _PLACEHOLDER.finditer(f"{task.title}\n{task.description}"))]
    for protocol in protocols:  # a protocol that outgrew its declared size is a warning
        size = counter(_protocol_text(protocol, list(protocol.sections)))
        if size > protocol.budget:
            found.append(diagnostics.make("SARP608", None, name=protocol.name, tokens=size,
                                          budget=protocol.budget))
    strategy = selection.strategy
    if strategy == "minimal":
        kept, skill_part = minimal(), skill_text and _skill_minimal(skill_text)
    else:
        kept = {p.name: [*p.sections, *(_references(p) if strategy == "comprehensive"
                                        else [])] for p in protocols}
        skill_part = skill_text
    text = render(kept, skill_part)
    if missing:
        raise StackError([diagnostics.make("SARP604", None, placeholder=placeholder,
                                           name=placeholder.strip("{}"))
                          for placeholder in missing])
    # compress: lowest-value sections first, secondary protocol before primary and base
    for level in (6, 5, 4, 3):
        for protocol in reversed(protocols):
            sections = kept[protocol.name]
            for i, section in enumerate(sections):
                if section is None or section.priority != level or counter(text) <= budget:
                    continue
                condensed = _condense(section)
                if condensed is not None and condensed.body == section.body:
                    continue  # already as short as this step makes it
                sections[i] = condensed
                found.append(diagnostics.make("SARP601", None, protocol=protocol.name,
                                              section=section.title,
                                              action=_ACTIONS[level]))
                text = render(kept, skill_part)
    tokens = counter(text)
    if tokens > budget and strategy != "minimal":
        found.append(diagnostics.make("SARP602", None, tokens=tokens, budget=budget))
        strategy = "minimal"
        skill_part = skill_text and _skill_minimal(skill_text)
        found += [diagnostics.make("SARP601", None, protocol=name, section=section.title,
                                   action="removed (minimal strategy)")
                  for name, sections in kept.items() for section in sections
                  if section is not None and section.priority > 2]
        if skill_part != skill_text:
            found.append(diagnostics.make("SARP601", None, protocol="skill",
                                          section="(after its first section)",
                                          action="removed"))
        text = render(minimal(), skill_part)
        tokens = counter(text)
    if tokens > budget:
        raise StackError([*found, diagnostics.make("SARP603", None, tokens=tokens,
                                                   budget=budget)])
    return Prompt(text, tokens, budget, selection, strategy, found)
