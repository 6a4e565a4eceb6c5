# All terminal output of the CLI goes through here: plain text when the stream is not a
# terminal (pipes, files, tests), rich styling when it is. Agent text is never read as
# rich markup (`[bold]` in a finding stays literal). While a command runs, stdout is
# guarded (`guarded_stdout`): whoever writes to it (click.echo, rich, print), a write the
# system refuses becomes an OutputFailure that names stdout.
#
# Agent text reaches the terminal (or a CI log, which shows escape sequences the same
# way) only through `for_terminal` (ADV16 #13): whatever `echo` and `echo_text` write
# has its control characters made visible (`\x1b[2K` erases no line, `\x1b]0;...` sets
# no title), on a terminal or not. `echo` writes one line, so a line break in agent
# text is shown too (`\x0a`), never starting a line that looks like one of sarp's;
# `echo_text` writes text laid out on lines (a report, a converted reply). JSON
# (`echo_text(..., is_json=True)`) keeps the exact text in its own `\u` escapes.
from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

import click
from rich.console import Console
from rich.text import Text

from sarp.cli.common import OutputFailure
from sarp.model import Diagnostic
from sarp.text.controls import json_controls_escaped, visible_controls

__all__ = ["echo", "echo_diagnostic", "echo_text", "for_terminal", "guarded_stdout",
           "styled", "styled_code"]

SEVERITY_STYLES = {
    "critical": "bold red", "major": "yellow", "minor": "cyan",
    "error": "bold red", "warning": "yellow", "info": "dim",
    "CLEAN": "green", "FINDINGS": "yellow", "PARTIAL": "magenta", "BLOCKED": "magenta",
    "ERROR": "bold red",
}


def _stream(err: bool) -> TextIO:
    return sys.stderr if err else sys.stdout


def for_terminal(text: str, *, is_json: bool = False, one_line: bool = False) -> str:
    """`text` as it may be written to a terminal: no control character left raw (tab
    and newline lay it out, newline unless it is `one_line`); JSON text keeps its value
    (`\\u001b`)."""
    if is_json:
        return json_controls_escaped(text)
    return visible_controls(text, line_breaks=not one_line)


def echo(*parts: str | tuple[str, str], err: bool = False) -> None:
    """Write one line made of plain parts and (text, style) parts (`for_terminal`)."""
    stream = _stream(err)
    if not stream.isatty():
        line = "".join(p if isinstance(p, str) else p[0] for p in parts)
        stream.write(for_terminal(line, one_line=True) + "\n")
        return
    text = Text()
    for part in parts:
        if isinstance(part, str):
            text.append(for_terminal(part, one_line=True))
        else:
            text.append(for_terminal(part[0], one_line=True), style=part[1])
    Console(file=stream, soft_wrap=True, highlight=False).print(text)


def echo_text(text: str, *, err: bool = False, nl: bool = True, is_json: bool = False) -> None:
    """Write `text` (a line, a converted reply, a report, a JSON document) as it is,
    but for its control characters (`for_terminal`)."""
    click.echo(for_terminal(text, is_json=is_json), err=err, nl=nl)


def styled_code(code: str, severity: str) -> tuple[str, str]:
    """A diagnostic code in the style of its severity."""
    return code, SEVERITY_STYLES.get(severity, "")


def styled(word: str) -> tuple[str, str]:
    """`word` with the style its meaning has (a severity or a status)."""
    return word, SEVERITY_STYLES.get(word, "")


def echo_diagnostic(name: str, diag: Diagnostic, *, err: bool = False) -> None:
    """`name:line:col: CODE message`, the code styled by its severity."""
    location, _, message = diag.format(name).partition(f" {diag.code} ")
    echo(location, " ", styled_code(diag.code, diag.severity.value), " ", message, err=err)


class _GuardedStdout:
    """sys.stdout, except that a refused write raises OutputFailure. A closed pipe stays
    BrokenPipeError: the reader has gone (`| head`), which is not an error at all."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _refused(exc) from exc

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _refused(exc) from exc

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, ...: the stream's
        return getattr(self._stream, name)


def _refused(exc: OSError) -> OutputFailure:
    return OutputFailure(f"cannot write <stdout>: {exc.strerror or exc}")


@contextmanager
def guarded_stdout() -> Iterator[None]:
    """Guard sys.stdout for the duration (see _GuardedStdout)."""
    stream = sys.stdout
    guard = cast(TextIO, _GuardedStdout(stream))
    sys.stdout = guard
    try:
        yield
    finally:
        if sys.stdout is guard:  # click swaps in its own wrapper after a broken pipe
            sys.stdout = stream
