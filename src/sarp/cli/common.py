# What the subcommands share: reading inputs, the dialect option, diagnostic formats.
from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from sarp import DIALECTS, Diagnostic, Result, parse
from sarp.dialects.sarif import is_sarif, results_from_sarif
from sarp.text.decode import Note, decode, note_decoding

__all__ = ["OutputFailure", "UsageFailure", "dialect_option", "format_diagnostic",
           "read_inputs"]


F = TypeVar("F", bound=Callable[..., Any])


class UsageFailure(Exception):
    """A user error outside click's own parsing (an unreadable file): exit code 2."""


class OutputFailure(UsageFailure):
    """stdout refused a write (a full disk, a closed log): the same exit 2 as an
    unwritable -o FILE, since nothing is wrong with sarp."""


def dialect_option(name: str = "--dialect", help_text: str = "Force this dialect instead"
                   " of detecting it.") -> Callable[[F], F]:
    return click.option(name, "dialect", type=click.Choice(sorted(DIALECTS)), default=None,
                        help=help_text)


def read_inputs(paths: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(name, text) per input; `-` is stdin. Text that is not UTF-8 is read anyway."""
    for name, text, _note in _decoded_inputs(paths):
        yield name, text


def _decoded_inputs(paths: tuple[str, ...]) -> Iterator[tuple[str, str, Note | None]]:
    """(name, text, what decoding it took) per input (see `sarp.text.decode`)."""
    for path in paths:
        if path == "-":
            yield "<stdin>", *decode(sys.stdin.buffer.read())
            continue
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise UsageFailure(f"cannot read {path}: {exc.strerror or exc}") from exc
        yield path, *decode(data)


def parse_inputs(paths: tuple[str, ...], dialect: str | None) -> Iterator[Result]:
    for name, text, note in _decoded_inputs(paths):
        if dialect is None and is_sarif(text):  # one Result per run, as aggregate reads it
            for run in results_from_sarif(text, name):
                yield note_decoding(run, note)
            continue
        result = parse(text, dialect=dialect)
        result.id = name
        yield note_decoding(result, note)


# GitHub's workflow-command escapes (@actions/core's escapeData and escapeProperty): `%`
# first, so the escapes themselves are not escaped again; a property value also may not
# hold the `,` between properties or the `:` that ends them.
_DATA_ESCAPES: Final = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES: Final = (*_DATA_ESCAPES, (":", "%3A"), (",", "%2C"))


def _escape(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for char, escape in escapes:
        text = text.replace(char, escape)
    return text


def format_diagnostic(name: str, diag: Diagnostic, fmt: str) -> str:
    if fmt == "github":
        level = {"error": "error", "warning": "warning"}.get(diag.severity.value, "notice")
        properties = {"file": name, "line": diag.line or 1, "col": diag.column or 1,
                      "title": diag.code}
        listed = ",".join(f"{key}={_escape(str(value), _PROPERTY_ESCAPES)}"
                          for key, value in properties.items())
        return f"::{level} {listed}::{_escape(diag.message, _DATA_ESCAPES)}"
    if fmt == "json":
        return json.dumps({"file": name, **diag.model_dump(mode="json")}, ensure_ascii=False)
    return diag.format(name)
