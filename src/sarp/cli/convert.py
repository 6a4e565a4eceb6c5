# `sarp convert FILE --to DIALECT`: read a reply in any dialect, write it in another.
from __future__ import annotations

import click

from sarp import DIALECTS, render
from sarp.cli.common import dialect_option, format_diagnostic, parse_inputs


@click.command("convert")
@click.argument("file")
@click.option("--to", "target", type=click.Choice(sorted(DIALECTS)), required=True,
              help="Dialect to write.")
@dialect_option("--from", "Read the input as this dialect instead of detecting it.")
def command(file: str, target: str, dialect: str | None) -> int:
    """Convert one reply (FILE, or - for stdin) to another dialect."""
    for result in parse_inputs((file,), dialect):
        for diag in result.diagnostics:
            click.echo(format_diagnostic(result.id or "-", diag, "text"), err=True)
        click.echo(render(result, target), nl=False)
    return 0
