# Control characters in agent text, made visible before sarp writes that text anywhere a
# terminal or a CI log shows it (ADV16 #13).
#
# An agent's reply can hold ESC, NUL, a bare CR or an 8-bit CSI. Written raw to a
# terminal, `\x1b[2K\x1b[1A` erases the line above (hiding an earlier lint error),
# `\x1b]0;...\x07` sets the window title and `\x1b[8m` hides what follows. So:
# - text meant to be read (terminal lines, Markdown, HTML, the dialect renderers) gets
#   every C0 and C1 control character, and DEL, as a visible `\x1b`-style escape; tab
#   and newline stay, since text is laid out with them;
# - JSON keeps the exact text: its own escapes carry it (`\u001b`), and the C1 and DEL
#   characters that JSON encoders write raw are written as `\u` escapes too, which a
#   JSON reader decodes to the same characters.
from __future__ import annotations

import re
from typing import Final

__all__ = ["json_controls_escaped", "visible_controls"]

# C0 but tab and newline, DEL, C1
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# the same and newline: in a line of its own, a line break is a control too (it would
# start a line that looks like sarp's, `file:1:1: SARP...`)
_CONTROL_IN_LINE: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _hex_escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible_controls(text: str, *, line_breaks: bool = True) -> str:
    """`text` with each control character but tab and newline written as `\\x1b`;
    without `line_breaks` (text that must stay one line), newline too (`\\x0a`)."""
    control = _CONTROL if line_breaks else _CONTROL_IN_LINE
    return control.sub(_hex_escape, text) if control.search(text) else text


def json_controls_escaped(json_text: str) -> str:
    """JSON text that decodes to the same value, with no control character left raw.

    Only for encoder output: outside strings an encoder writes none of these characters
    (its whitespace is space, tab and newline), so each one replaced is inside a string,
    where a `\\u` escape means the same character."""
    return _CONTROL.sub(_json_escape, json_text) if _CONTROL.search(json_text) else json_text
