# Lines of a reply, each classified once: plain, blank, fenced, fence marker or quoted.
#
# Strategy:
# - Line endings are normalised once (CRLF, CR -> LF) and a BOM dropped; the lines are
#   then `src.split("\n")`, so line i (0-based) is line i + 1 of the input.
# - Fences follow CommonMark closely enough for agent replies: a line whose text starts
#   with 3+ backticks or tildes opens a fence; the same character repeated at least as
#   often, and nothing else, closes it. Indentation is allowed (agents fence inside
#   lists). A fence still open at the end is recorded in `unclosed_fence` (evidence of
#   truncation).
# - Classification is one forward pass; when the text holds no fence marker at all the
#   pass is skipped (the common case, and the benchmarked one).
# - `unwrap(open, close)` returns a Document in which one fenced block reads as plain
#   text (a reply wrapped whole in a fence, or an envelope fenced inside prose); it
#   re-classifies only that block.
from __future__ import annotations

from typing import Final

__all__ = ["BLANK", "FENCED", "MARKER", "PLAIN", "Document", "normalise"]

PLAIN: Final = 0
BLANK: Final = 1
MARKER: Final = 2  # a fence opening or closing line
FENCED: Final = 3  # inside a fence


def normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _fence_marker(line: str) -> tuple[str, int, str] | None:
    """(char, run length, info string) when `line` is a fence marker."""
    stripped = line.lstrip(" \t>")
    if not stripped or stripped[0] not in "`~":
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    if run < 3:
        return None
    info = stripped[run:].strip()
    if char == "`" and "`" in info:
        return None  # inline code such as ```x``` on one line
    return char, run, info


class Document:
    """The lines of one reply with their kinds; all scanners work over this."""

    __slots__ = ("_headings", "cache", "fences", "kinds", "lines", "src", "unclosed_fence")

    def __init__(self, text: str) -> None:
        self.src = normalise(text)
        self.lines = self.src.split("\n")
        self.fences: list[tuple[int, int, str]] = []  # (open, close, info), close = -1 open
        self.unclosed_fence: int | None = None
        self.kinds = self._classify(0, len(self.lines))
        self._headings: list[int] | None = None
        # what scanners computed over this document's lines and kinds (tables, ...)
        self.cache: dict[str, object] = {}

    def _classify(self, start: int, end: int) -> list[int]:
        lines = self.lines
        kinds = [BLANK if not line.strip() else PLAIN for line in lines[start:end]]
        if "```" not in self.src and "~~~" not in self.src:
            return kinds
        open_at = -1
        char = ""
        run = 0
        info = ""
        for i in range(start, end):
            line = lines[i]
            if "`" not in line and "~" not in line:
                if open_at >= 0:
                    kinds[i - start] = FENCED
                continue
            marker = _fence_marker(line)
            if open_at < 0:
                if marker is not None:
                    char, run, info = marker
                    open_at = i
                    kinds[i - start] = MARKER
            elif marker is not None and marker[0] == char and marker[1] >= run and not marker[2]:
                kinds[i - start] = MARKER
                self.fences.append((open_at, i, info))
                open_at = -1
            else:
                kinds[i - start] = FENCED
        if open_at >= 0:
            self.fences.append((open_at, -1, info))
            self.unclosed_fence = open_at
        return kinds

    def unwrap(self, open_at: int, close_at: int) -> Document:
        """A copy in which the fence opened on `open_at` reads as plain text."""
        doc = Document.__new__(Document)
        doc.src = self.src
        doc.lines = self.lines
        doc._headings = None
        doc.cache = {}
        kinds = list(self.kinds)
        end = close_at if close_at >= 0 else len(self.lines)
        kinds[open_at] = MARKER
        if close_at >= 0:
            kinds[close_at] = MARKER
        # Fences inside the block are found again below; those after it stand, and so
        # does a fence left open after it (evidence of truncation).
        doc.fences = [f for f in self.fences if f[0] < open_at or f[0] > end]
        unclosed = self.unclosed_fence
        doc.unclosed_fence = unclosed if unclosed is not None and unclosed > end else None
        inner = doc._classify(open_at + 1, end)
        kinds[open_at + 1 : end] = inner
        doc.kinds = kinds
        return doc

    # -- queries -------------------------------------------------------------------
    def headings(self) -> list[int]:
        """Indices of plain lines that start with `#` (computed once)."""
        if self._headings is None:
            kinds = self.kinds
            self._headings = [i for i, line in enumerate(self.lines)
                              if line[:1] == "#" and kinds[i] == PLAIN]
        return self._headings

    def is_text(self, i: int) -> bool:
        """A non-blank line outside fences and outside blockquotes."""
        return self.kinds[i] == PLAIN and not self.lines[i].lstrip().startswith(">")

    def first_text(self, start: int = 0) -> int:
        """Index of the first non-blank line outside fences at or after `start`, or -1."""
        kinds = self.kinds
        for i in range(start, len(kinds)):
            if kinds[i] == PLAIN:
                return i
        return -1

    def last_nonblank(self) -> int:
        lines = self.lines
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip():
                return i
        return -1

    def first_nonblank(self) -> int:
        lines = self.lines
        for i in range(len(lines)):
            if lines[i].strip():
                return i
        return -1

    def last_content(self) -> int:
        """The last non-blank line that is not a fence marker (a wrapper's close)."""
        lines, kinds = self.lines, self.kinds
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip() and kinds[i] != MARKER:
                return i
        return -1

    def whole_fence(self) -> tuple[int, int] | None:
        """(open, close) when the reply is one fenced block and nothing else.

        Decided from the first and last lines alone, so fences inside the block (which
        a plain ``` wrapper does not really contain) do not hide the wrapper. `close` is
        -1 when the wrapper is never closed.
        """
        first, last = self.first_nonblank(), self.last_nonblank()
        if first < 0:
            return None
        opener = _fence_marker(self.lines[first])
        if opener is None or self.lines[first].startswith((" ", "\t", ">")):
            return None
        if last > first:
            closer = _fence_marker(self.lines[last])
            if closer is not None and closer[0] == opener[0] and closer[1] >= opener[1] \
                    and not closer[2]:
                return first, last
        if self.fences and self.fences[0][:2] == (first, -1):
            return first, -1
        return None
