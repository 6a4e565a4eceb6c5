# `sarp prompt`, `sarp schema`, `sarp reask`: the asking side on the command line.
from __future__ import annotations

import json

import click

from sarp.cli.common import UsageFailure, dialect_option, parse_inputs
from sarp.cli.output import echo_text
from sarp.prompts import prompt, reask, schema
from sarp.prompts.examples import ROLES


@click.command("prompt")
@click.option("--dialect", "dialect", type=click.Choice(sorted(ROLES)), default="clarity",
              show_default=True, help="Dialect to ask for.")
@click.option("--type", "result_type", default=None,
              help="Result type or agent family (clarity types, sdd families, cleo kinds).")
@click.option("--agent", default=None, help="Agent role (adr013 and aphelion agents).")
@click.option("--style", type=click.Choice(["compact", "full"]), default="compact",
              show_default=True)
def prompt_command(dialect: str, result_type: str | None, agent: str | None,
                   style: str) -> int:
    """Print the instruction to paste into a subagent's prompt."""
    try:
        text = prompt(dialect, result_type, agent, style="full" if style == "full"
                      else "compact")
    except ValueError as exc:
        raise UsageFailure(str(exc)) from exc
    click.echo(text, nl=False)
    return 0


@click.command("schema")
@click.option("--dialect", type=click.Choice(["json"]), default=None,
              help="json: the lean agent-reply schema; default: the full Result.")
def schema_command(dialect: str | None) -> int:
    """Print a JSON Schema (2020-12) for structured-output APIs."""
    click.echo(json.dumps(schema(dialect), indent=2))
    return 0


@click.command("reask")
@click.argument("file")
@dialect_option()
def reask_command(file: str, dialect: str | None) -> int:
    """Print the correction to send back for a reply; exit 1 when one is needed."""
    for result in parse_inputs((file,), dialect):
        message = reask(result)
        if message is None:
            return 0
        echo_text(message)  # it quotes the reply
    return 1
