# Small writers the dialect renderers share: table rows, cells and locations as text.
#
# The renderers' contract is that what they write parses back to the same content, so
# these helpers escape what the scanners would otherwise split on (pipes in cells) and
# flatten what they would read as structure (line breaks inside a cell).
from __future__ import annotations

from collections.abc import Sequence

from sarp.model import Location

__all__ = ["cell", "code_span", "headline", "inline", "location_text", "table"]


def inline(value: object) -> str:
    """A value on one line, edges trimmed (the scanners strip them); inner spacing is
    kept as written, since a code span may depend on it. Outside tables: no escapes."""
    if value is None:
        return ""
    return str(value).replace("\r\n", " ").replace("\n", " ").replace("\r", " ").strip()


def cell(value: object) -> str:
    """A table cell: one line, with pipes escaped."""
    return inline(value).replace("|", "\\|")


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)
    return lines


def location_text(location: Location | None) -> str:
    """A location written the way the parser reads it back."""
    if location is None:
        return "--"
    if location.raw:
        return location.raw
    parts = [_place(location)]
    parts.extend(_place(extra) for extra in location.extra)
    return " vs ".join(parts)


def code_span(text: str) -> str:
    """`text` in backticks, unless it already holds its own (a raw location written as
    `` `a.py:3` `` or `` `a.py:3` vs `b.py:9` ``): doubling them would change the text."""
    return text if "`" in text else f"`{text}`"


def _place(location: Location) -> str:
    if location.raw and not location.extra:
        return location.raw
    text = location.path or ""
    if location.symbol and location.path and location.line is None:
        return f"{text}::{location.symbol}"
    if location.section:
        text = f"{text} § {location.section}" if text else location.section
        if location.line is not None:
            span = f"L{location.line}" + (f"-{location.end_line}" if location.end_line else "")
            text = f"{text} ({span})"
        return text
    if location.line is not None:
        text = f"{text}:{location.line}"
        if location.end_line is not None:
            text = f"{text}-{location.end_line}"
    if location.symbol:
        text = f"{text} ({location.symbol})"
    return text


def headline(title: str | None, description: str | None, fallback: str) -> str:
    """A one-line title: the title, else the first sentence of the description."""
    if title:
        return " ".join(title.split())
    if description:
        text = " ".join(description.split())
        for stop in (". ", "; ", ": "):
            if stop in text[:120]:
                return text[: text.index(stop)]
        return text if len(text) <= 100 else text[:97].rsplit(" ", 1)[0] + "..."
    return fallback
