# `sarp lint FILE...`: what is wrong with each reply, as `file:line:col: CODE message`.
#
# Exit 0 when no reply has an error diagnostic (nor a warning, with --strict), else 1.
from __future__ import annotations

import json

import click

from sarp import DiagnosticSeverity
from sarp.cli.common import dialect_option, format_diagnostic, parse_inputs
from sarp.cli.output import echo, echo_diagnostic, echo_text


@click.command("lint")
@click.argument("files", nargs=-1, required=True)
@dialect_option()
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text",
              show_default=True, help="text: file:line:col lines; github: workflow annotations.")
def command(files: tuple[str, ...], dialect: str | None, strict: bool, fmt: str) -> int:
    """Check agent replies against their dialect and report every defect."""
    failing = {DiagnosticSeverity.ERROR}
    if strict:
        failing.add(DiagnosticSeverity.WARNING)
    failed = False
    records = []
    for result in parse_inputs(files, dialect):
        name = result.id or "-"
        for diag in result.diagnostics:
            failed = failed or diag.severity in failing
            if fmt == "json":
                records.append({"file": name, **diag.model_dump(mode="json")})
            elif fmt == "github":
                echo(format_diagnostic(name, diag, fmt))
            else:
                echo_diagnostic(name, diag)
    if fmt == "json":
        echo_text(json.dumps(records, indent=2, ensure_ascii=False), is_json=True)
    return 1 if failed else 0
