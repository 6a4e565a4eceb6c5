# Bytes of a reply -> text. Agents and the shells around them write UTF-8 mostly, but
# PowerShell's `>` writes UTF-16 with a byte order mark, and a cut-off or mangled file may
# hold bytes that are no UTF-8 at all. Both are read, never refused, and what was done to
# read them is said (SARP008), so a reply that is merely in another encoding is not
# diagnosed as cut off or unparseable.
from __future__ import annotations

import codecs
from typing import Final, NamedTuple

from sarp import diagnostics
from sarp.model import Conformance, Result

__all__ = ["Note", "decode", "note_decoding"]

# longest mark first: UTF-32 LE starts with the UTF-16 LE mark
_MARKS: Final = ((codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
                 (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
                 (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
                 (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"))


class Note(NamedTuple):
    """What reading a reply's bytes took, and the line it first mattered on."""

    what: str
    line: int = 1


def decode(data: bytes) -> tuple[str, Note | None]:
    """The text of `data`, and what reading it took (None for plain UTF-8, with or without
    its byte order mark)."""
    skipped = 0
    if data.startswith(codecs.BOM_UTF8):
        skipped = len(codecs.BOM_UTF8)
        data = data[skipped:]
    else:
        for mark, codec, name in _MARKS:
            if data.startswith(mark):
                text = data[len(mark):].decode(codec, errors="replace")
                return text, Note(f"{name} with a byte order mark; read as {name}")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        return text, Note(f"bytes that are not UTF-8, the first at byte {exc.start + skipped};"
                          " each replaced with U+FFFD", data.count(b"\n", 0, exc.start) + 1)


def note_decoding(result: Result, note: Note | None) -> Result:
    """`result` with SARP008 when its bytes were not plain UTF-8 (a repair of the reply)."""
    if note is not None:
        result.diagnostics.insert(0, diagnostics.make("SARP008", note.line, what=note.what))
        if result.conformance is Conformance.CONFORMANT:
            result.conformance = Conformance.REPAIRED
    return result


