# `sarp stack TASK.json`: the prompt for a subagent, from CLEO's protocol stack.
#
# Prints the assembled prompt (or, with --explain, which protocols loaded or were
# rejected and why, and what was cut to fit the budget). Exit 0 ok; 1 the prompt cannot
# be built (unresolved placeholder, does not fit even minimal); 2 usage (unreadable or
# invalid task file, unknown protocol, bad protocol file).
from __future__ import annotations

import json
from collections.abc import Sequence

import click
from pydantic import ValidationError

from sarp.cli.common import UsageFailure, read_inputs
from sarp.cli.output import echo_diagnostic
from sarp.stack import DEFAULT_BUDGET, Overrides, Registry, StackError, Task, assemble

__all__ = ["command"]


def _names(values: tuple[str, ...]) -> list[str]:
    """`--protocol a,b --protocol c` -> [a, b, c] (the seed's comma form and repeats)."""
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _task(name: str, text: str) -> Task:
    """The task `text` holds; a UsageFailure says what is wrong with it in sarp's words
    (`t.json: labels[0]: must be a string`), not pydantic's report."""
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise UsageFailure(f"{name}: not JSON ({exc.msg[:1].lower()}{exc.msg[1:]} at line"
                           f" {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise UsageFailure(f"{name}: a task must be a JSON object")
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        problems = [f"{_field_path(error['loc'])}: {_problem(error['msg'])}"
                    for error in exc.errors()]
        raise UsageFailure(f"{name}: " + "; ".join(problems)) from None


def _field_path(loc: Sequence[int | str]) -> str:
    """pydantic's ('labels', 0) as `labels[0]`."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)[1:]


def _problem(message: str) -> str:
    """pydantic's "Input should be a valid list" as "must be a list"."""
    if message.startswith("Input should be "):
        return "must be " + message.removeprefix("Input should be ").replace("a valid ", "a ", 1)
    return message[:1].lower() + message[1:]


def _fail(where: str, exc: StackError) -> None:
    for diag in exc.diagnostics:
        echo_diagnostic(where, diag, err=True)


@click.command("stack")
@click.argument("task_file", metavar="TASK.json")
@click.option("--protocol", "include", multiple=True, help="Load this protocol (repeatable,"
              " or comma-separated).")
@click.option("--no-protocol", "exclude", multiple=True, help="Never load this protocol.")
@click.option("--only-protocol", "only", multiple=True, help="Load exactly these protocols.")
@click.option("--strategy", type=click.Choice(["minimal", "standard", "comprehensive"]),
              default="standard", show_default=True)
@click.option("--budget", type=click.IntRange(min=1), default=DEFAULT_BUDGET,
              show_default=True, help="Token budget of the whole prompt.")
@click.option("--skill", "skill_file", default=None, metavar="FILE",
              help="A skill file (Markdown) whose text becomes the prompt's Skill Context.")
@click.option("--protocols-dir", "directories", multiple=True,
              help="Folder of protocol files that add to or replace the shipped ones.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="Value of a {{NAME}} placeholder (repeatable).")
@click.option("--explain", is_flag=True, help="Say why each protocol loaded and what was cut,"
              " instead of printing the prompt.")
def command(task_file: str, include: tuple[str, ...], exclude: tuple[str, ...],
            only: tuple[str, ...], strategy: str, budget: int, skill_file: str | None,
            directories: tuple[str, ...], settings: tuple[str, ...], explain: bool) -> int:
    """Choose a subagent's protocols for TASK.json and assemble its prompt."""
    name, text = next(read_inputs((task_file,)))
    task = _task(name, text)
    skill = next(read_inputs((skill_file,)))[1] if skill_file else None
    values = {}
    for setting in settings:
        key, sep, value = setting.partition("=")
        if not sep or not key:
            raise UsageFailure(f"--set {setting!r} is not NAME=VALUE")
        values[key.strip().upper()] = value
    overrides = Overrides(_names(include), _names(exclude), _names(only),
                          strategy)  # type: ignore[arg-type]  # click.Choice checked it
    try:
        registry = Registry(directories)
        prompt = assemble(task, skill, budget, overrides=overrides, registry=registry,
                          values=values)
    except StackError as exc:
        _fail(name, exc)
        if any(d.code in ("SARP605", "SARP606") for d in exc.diagnostics):
            raise UsageFailure("the protocols asked for cannot be loaded") from exc
        return 1
    if explain:
        click.echo(prompt.selection.explain())
        for diag in prompt.diagnostics:
            click.echo(f"{'cut' if diag.code == 'SARP601' else diag.code}: {diag.message}")
        click.echo(f"tokens: {prompt.tokens} of {prompt.budget} ({prompt.strategy})")
        return 0
    for diag in prompt.diagnostics:
        echo_diagnostic(name, diag, err=True)
    click.echo(prompt.text, nl=False)
    return 0
