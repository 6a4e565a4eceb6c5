# Inline markup of one line: emphasis, list markers, headings, `Key: value` pairs.
#
# Every function takes one line (or cell) and returns plain data; none looks beyond
# its argument, so each is linear in the length of the line. Emphasis is removed, not
# interpreted: agents bold keys (`**Location**:`), values (`**READY**`) and whole
# summary lines, and the words underneath are what matter.
from __future__ import annotations

import re
from typing import Final

__all__ = [
    "bold_end",
    "heading",
    "key_value",
    "list_item",
    "strip_code",
    "strip_emphasis",
    "strip_markup",
]

# an ordered marker has up to 9 digits (CommonMark): `1000. [HIGH] text` is an item too
_LIST_MARKER: Final = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]+")
_CHECKBOX: Final = re.compile(r"\[[ xX]\][ \t]+")


_BOLD_OUTSIDE_CODE: Final = re.compile(r"(`[^`]*`)|\*\*")


def _keep_code(match: re.Match[str]) -> str:
    return match.group(1) or ""


def bold_end(text: str) -> int:
    """Where the bold span that opens `text` closes: the index of its closing `**`, stars
    inside code spans being code (`**`X/**` returns X/**`), or -1. When only a lone
    backtick's text would close it, the first `**` does (`**A lone ` hangs (high)**`)."""
    first = close = text.find("**", 2)
    tick = text.find("`", 2)
    while close >= 0 and 0 <= tick < close:
        shut = text.find("`", tick + 1)
        if shut < 0:
            break  # a lone backtick is text
        if shut > close:
            close = text.find("**", shut + 1)  # those stars were code
        tick = text.find("`", shut + 1)
    return close if close >= 0 else first


def strip_emphasis(text: str) -> str:
    """`**Key**` -> `Key`; `__x__` -> `x`; `~~x~~` kept (strike-through means something)."""
    if "*" not in text and "_" not in text:
        return text.strip()
    if "**" in text:
        # stars inside a code span are code: `X/**` stays as written
        text = _BOLD_OUTSIDE_CODE.sub(_keep_code, text) if "`" in text else text.replace(
            "**", "")
    if text.startswith("__") and text.endswith("__") and len(text) > 4:
        text = text[2:-2]
    if len(text) > 2 and text[0] == "*" and text[-1] == "*" and text[1] != " ":
        text = text[1:-1]
    return text.strip()


def strip_code(text: str) -> str:
    """Remove backticks around a value: `` `a.py:3` `` -> `a.py:3`."""
    if "`" in text:
        text = text.replace("`", "")
    return text.strip()


def strip_markup(text: str) -> str:
    return strip_code(strip_emphasis(text.strip()))


def list_item(line: str) -> str | None:
    """The text of a list item (`- x`, `* x`, `1. x`, `- [ ] x`), or None."""
    match = _LIST_MARKER.match(line)
    if match is None:
        return None
    rest = line[match.end() :]
    checkbox = _CHECKBOX.match(rest)
    if checkbox is not None:
        rest = rest[checkbox.end() :]
    return rest.rstrip()


def heading(line: str) -> tuple[int, str] | None:
    """(level, text) for an ATX heading `### text`, or None."""
    if not line.startswith("#"):
        stripped = line.lstrip(" ")
        if not stripped.startswith("#") or len(line) - len(stripped) > 3:
            return None
        line = stripped
    level = len(line) - len(line.lstrip("#"))
    if level > 6 or (len(line) > level and line[level] not in " \t"):
        return None
    text = line[level:].strip().rstrip("#").strip()
    return level, text


def key_value(text: str, *, max_key: int = 48) -> tuple[str, str, bool] | None:
    """(key, value, emphasised) for `Key: value`, `**Key**: value`, `**Key:** value`.

    The key must be short and must not hold a pipe, so prose with a colon in it is not
    mistaken for a pair. `emphasised` says whether markup had to be removed.
    """
    colon = text.find(":")
    if colon <= 0 or colon > max_key + 6:
        return None
    key = text[:colon]
    value = text[colon + 1 :]
    emphasised = "*" in key or "_" in key[:2]
    if not key.endswith(("**", "__")) and value.startswith("**") and key.startswith("**"):
        value = value[2:]  # `**Key:** value`
        emphasised = True
    key = strip_emphasis(key).strip("`").strip()
    if not key or "|" in key or len(key) > max_key or key.endswith(" "):
        return None
    if "://" in text[: colon + 3] and value.startswith("//"):
        return None  # a URL, not a pair
    return key, value.strip(), emphasised
