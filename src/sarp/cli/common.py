# What the subcommands share: reading inputs, the dialect option, diagnostic formats.
from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from sarp import DIALECTS, Diagnostic, Result, parse

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
    """(name, text) per input; `-` is stdin. Bytes that are not UTF-8 are replaced."""
    for path in paths:
        if path == "-":
            yield "<stdin>", sys.stdin.buffer.read().decode("utf-8", errors="replace")
            continue
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise UsageFailure(f"cannot read {path}: {exc.strerror or exc}") from exc
        yield path, data.decode("utf-8", errors="replace")


def parse_inputs(paths: tuple[str, ...], dialect: str | None) -> Iterator[Result]:
    for name, text in read_inputs(paths):
        result = parse(text, dialect=dialect)
        result.id = name
        yield result


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
