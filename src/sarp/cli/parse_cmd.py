# `sarp parse FILE...`: replies -> Results as JSON, JSON Lines or a short text summary.
from __future__ import annotations

import json
from typing import Any

import click

from sarp.cli.common import dialect_option, parse_inputs
from sarp.cli.output import echo, echo_text, styled


def _dump(result: Any, no_raw: bool) -> dict[str, Any]:
    data: dict[str, Any] = result.model_dump(mode="json", exclude={"raw"} if no_raw else None)
    return data


@click.command("parse")
@click.argument("files", nargs=-1, required=True)
@dialect_option()
@click.option("--format", "fmt", type=click.Choice(["json", "jsonl", "text"]), default="json",
              show_default=True, help="Output format.")
@click.option("--no-raw", is_flag=True, help="Leave the reply text out of the JSON.")
def command(files: tuple[str, ...], dialect: str | None, fmt: str, no_raw: bool) -> int:
    """Parse agent replies (FILE, or - for stdin) into sarp Results."""
    results = list(parse_inputs(files, dialect))
    if fmt == "jsonl":
        for result in results:
            echo_text(json.dumps(_dump(result, no_raw), ensure_ascii=False), is_json=True)
    elif fmt == "json":
        payload: Any = [_dump(r, no_raw) for r in results]
        if len(results) == 1:
            payload = payload[0]
        echo_text(json.dumps(payload, indent=2, ensure_ascii=False), is_json=True)
    else:
        for result in results:
            echo(f"{result.id}: {result.dialect} ", styled(result.status.value),
                 f" ({result.conformance.value}, {result.delivery.value}), "
                 f"{len(result.findings)} finding(s)")
            for finding in result.findings:
                where = finding.location.raw if finding.location else "-"
                text = finding.title or finding.description or ""
                echo(f"  {finding.id:<8} ", styled(f"{finding.severity.value:<8}".rstrip()),
                     " " * (9 - len(finding.severity.value)),
                     f"{where}  {' '.join(text.split())[:100]}")
            for diag in result.diagnostics:
                echo(diag.format(result.id or "-"), err=True)
    return 0
