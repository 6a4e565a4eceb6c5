# `sarp manifest append|validate|query|repair|check-return`: CLEO's MANIFEST.jsonl.
#
# Exit codes: 0 ok; 1 an entry was refused, the manifest has error lines, or a return
# message is not word for word an accepted form (any diagnostic); 2 usage (unreadable
# file, an entry that is not a JSON object, or is nested too deep to decode).
# Whatever an agent wrote in an entry or a line ends in one of these, never a traceback:
# `sarp.manifest` turns it into diagnostics, and output goes through `json_line`, which
# any stream can encode.
# An entry's `file` is checked against --output-dir, by default the manifest's folder.
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import click

from sarp import DiagnosticSeverity, manifest
from sarp.cli.common import UsageFailure, read_inputs
from sarp.cli.output import echo_diagnostic, echo_text
from sarp.model import Diagnostic

__all__ = ["group"]

_profile = click.option("--profile", type=click.Choice(["lenient", "strict"]),
                        default="lenient", show_default=True,
                        help="lenient: the CLI rules; strict: the JSON Schema rules.")
_output_dir = click.option("--output-dir", type=click.Path(file_okay=False), default=None,
                           help="Folder every entry's file must stay inside"
                                " [default: the manifest's folder].")


def _show(name: str, found: Iterable[Diagnostic], *, err: bool = False) -> bool:
    """Print each diagnostic; whether any is an error."""
    failed = False
    for diag in found:
        failed = failed or diag.severity is DiagnosticSeverity.ERROR
        echo_diagnostic(name, diag, err=err)
    return failed


def _read(path: str) -> manifest.ManifestRead:
    try:
        return manifest.read(path)
    except OSError as exc:
        raise UsageFailure(f"cannot read {path}: {exc.strerror or exc}") from exc


@click.group("manifest")
def group() -> None:
    """Append to, check, query and repair a MANIFEST.jsonl."""


@group.command("append")
@click.argument("path")
@click.argument("entry", default="-")
@_profile
@_output_dir
def append_command(path: str, entry: str, profile: manifest.Profile,
                   output_dir: str | None) -> int:
    """Validate ENTRY (a JSON object; `-` reads stdin) and append it to PATH."""
    name, text = next(read_inputs((entry,)))
    try:
        data = json.loads(text)
    except RecursionError as exc:  # no ValueError: the decoder ran out of stack
        raise UsageFailure(f"{name} is not JSON sarp can decode: nested too deep") from exc
    except ValueError as exc:
        raise UsageFailure(f"{name} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageFailure(f"{name} is not a JSON object")
    _, notes = manifest.normalise(data, 1)
    _show(name, notes, err=True)  # stdout is the entry as written
    try:
        written = manifest.append(path, data, profile=profile,
                                  output_dir=output_dir or Path(path).parent)
    except manifest.ManifestError as exc:
        _show(name, exc.diagnostics, err=True)
        return 1
    except OSError as exc:  # only the manifest's own file: `file` problems are SARP506
        raise UsageFailure(f"cannot write {path}: {exc.strerror or exc}") from exc
    echo_text(manifest.json_line(written), is_json=True)
    return 0


@group.command("validate")
@click.argument("path")
@_profile
@_output_dir
def validate_command(path: str, profile: manifest.Profile, output_dir: str | None) -> int:
    """Check every line of PATH: JSON, required keys, values, duplicate ids, files."""
    read = _read(path)
    found = list(read.diagnostics)
    for line, data in read.entries:
        found += manifest.validate(data, profile, line=line,
                                   output_dir=output_dir or Path(path).parent)
    found.sort(key=lambda d: d.line or 0)
    failed = _show(path, found)
    if not failed:
        click.echo(f"{path}: {len(read.entries)} entries, valid ({profile})", err=True)
    return 1 if failed else 0


@group.command("query")
@click.argument("path")
@click.option("--id", "id_", default=None, help="The entry with this id.")
@click.option("--task", default=None, help="Entries of this task (task_id, linked_tasks).")
@click.option("--status", type=click.Choice(manifest.STATUSES), default=None)
@click.option("--needs-followup/--no-followup", default=None,
              help="Entries that do (or do not) need a follow-up.")
def query_command(path: str, id_: str | None, task: str | None, status: str | None,
                  needs_followup: bool | None) -> int:
    """Print the entries of PATH matching every condition, one JSON object per line."""
    read = _read(path)
    _show(path, read.diagnostics, err=True)  # stdout stays JSON lines
    for data in manifest.query(read.entries, id=id_, task=task, status=status,
                               needs_followup=needs_followup):
        echo_text(manifest.json_line(data), is_json=True)
    return 0


@group.command("repair")
@click.argument("path")
@click.option("--side-file", default=None, help="Where bad lines go [default: PATH.rejected].")
def repair_command(path: str, side_file: str | None) -> int:
    """Move lines of PATH that are not JSON objects to a side file."""
    try:
        moved = manifest.repair(path, side_file)
    except OSError as exc:
        raise UsageFailure(f"cannot repair {path}: {exc.strerror or exc}") from exc
    _show(path, moved)
    side = side_file or f"{path}.rejected"
    click.echo(f"{path}: {len(moved)} line(s) moved" + (f" to {side}" if moved else ""),
               err=True)
    return 0


@group.command("check-return")
@click.argument("files", nargs=-1, required=True)
def check_return_command(files: tuple[str, ...]) -> int:
    """Check subagent return messages against the accepted forms."""
    failed = False
    for name, text in read_inputs(files):
        found = manifest.check_return_message(text)
        _show(name, found)
        failed = failed or bool(found)
    return 1 if failed else 0
