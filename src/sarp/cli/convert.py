# `sarp convert FILE --to DIALECT`: read a reply in any dialect, write it in another, and
# say on stderr what the target dialect cannot carry (SARP8xx, from `sarp.convert`).
#
# Exit code: 1 when the converted reply says something else about the work than the
# input (its status, a finding or a severity is lost: an error-severity SARP8xx), 0
# otherwise, even when detail is lost (warnings). The input's own diagnostics are shown
# as `sarp parse` shows them and do not change the exit code.
from __future__ import annotations

import datetime

import click

from sarp import DIALECTS, Result, convert
from sarp.cli.common import dialect_option, format_diagnostic, parse_inputs
from sarp.cli.output import echo, echo_text
from sarp.dialects.rendering import WRITES_JSON


@click.command("convert")
@click.argument("file")
@click.option("--to", "target", type=click.Choice(sorted(DIALECTS)), required=True,
              help="Dialect to write.")
@dialect_option("--from", "Read the input as this dialect instead of detecting it.")
def command(file: str, target: str, dialect: str | None) -> int:
    """Convert one reply (FILE, or - for stdin) to another dialect; stderr says what the
    target dialect cannot carry, and the exit code is 1 when that changes the status, a
    finding or a severity."""
    code = 0
    for result in parse_inputs((file,), dialect):
        name = result.id or "-"
        for diag in result.diagnostics:
            echo(format_diagnostic(name, diag, "text"), err=True)
        conversion = convert(_dated(result) if target == "cleo" else result, target)
        echo_text(conversion.text, nl=False, is_json=target in WRITES_JSON)
        for diag in conversion.losses:
            echo(format_diagnostic(name, diag, "text"), err=True)
        if not conversion.keeps_meaning:
            code = 1
    return code


def _dated(result: Result) -> Result:
    """A CLEO manifest entry needs its date (and the id and file named after it); the
    renderer is pure, so the command gives today's."""
    if "date" in result.fields:
        return result
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    return result.model_copy(update={"fields": {**result.fields, "date": today}})
