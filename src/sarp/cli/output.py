# All terminal output of the CLI goes through here: plain text when the stream is not a
# terminal (pipes, files, tests), rich styling when it is. Agent text is never read as
# rich markup (`[bold]` in a finding stays literal). While a command runs, stdout is
# guarded (`guarded_stdout`): whoever writes to it (click.echo, rich, print), a write the
# system refuses becomes an OutputFailure that names stdout.
from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from rich.console import Console
from rich.text import Text

from sarp.cli.common import OutputFailure
from sarp.model import Diagnostic

__all__ = ["echo", "echo_diagnostic", "guarded_stdout", "styled", "styled_code"]

SEVERITY_STYLES = {
    "critical": "bold red", "major": "yellow", "minor": "cyan",
    "error": "bold red", "warning": "yellow", "info": "dim",
    "CLEAN": "green", "FINDINGS": "yellow", "PARTIAL": "magenta", "BLOCKED": "magenta",
    "ERROR": "bold red",
}


def _stream(err: bool) -> TextIO:
    return sys.stderr if err else sys.stdout


def echo(*parts: str | tuple[str, str], err: bool = False) -> None:
    """Write one line made of plain parts and (text, style) parts."""
    stream = _stream(err)
    if not stream.isatty():
        stream.write("".join(p if isinstance(p, str) else p[0] for p in parts) + "\n")
        return
    text = Text()
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        else:
            text.append(part[0], style=part[1])
    Console(file=stream, soft_wrap=True, highlight=False).print(text)


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
