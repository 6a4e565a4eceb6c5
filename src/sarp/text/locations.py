# Location strings -> Location records (SPEC §3 "Location").
#
# Recognised: `path:42`, `path:42-56`, `path:42:7`, `` `path:42` ``, `path#L42`,
# `path#L42-L50`, `path (L42-50)`, `path lines 4-9`, `path line 4`, `doc.md § Section`,
# `doc.md > Section > Sub`, `doc.md#section`, `S12`/`§3.2` section ids, section-only
# text, `file::test_name`, `path:42 (symbol)`, and cells naming several places
# (`a.py:10, 20`, `x.md:3 vs y.md:9`), whose later places go to `extra`.
#
# Every regular expression here is anchored and bounded (no nested quantifiers), and
# each is tried at most once per part, so parsing is linear in the length of the cell.
from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from sarp.model import Location, build
from sarp.text.inline import strip_emphasis

__all__ = ["looks_like_path", "parse_location", "place_of"]

NO_LOCATION: Final = frozenset({"", "-", "--", "---", "—", "–", "n/a", "na", "none", "null",
                                "nil", "(none)", "not applicable", "—-", "n.a."})

_PATH_LINE: Final = re.compile(
    r"(?P<path>[^\s:#()\[\]<>|,;`'\"]{1,400}?)"
    r"(?::L?(?P<a>\d{1,9})(?:\s?[-–]\s?L?(?P<b>\d{1,9}))?(?::\d{1,6})?"
    r"|#L(?P<c>\d{1,9})(?:-L?(?P<d>\d{1,9}))?)"
    r"(?![\w/])"
)
_LINES_WORD: Final = re.compile(
    r"(?:\(\s?)?(?:lines?|L|ll?\.)\s?(?P<a>\d{1,9})(?:\s?(?:[-–]|to)\s?L?(?P<b>\d{1,9}))?\s?\)?",
    re.IGNORECASE,
)
# parentheses after a place that list more places: `a.py:45 (also cli.py:12)`, `:9 (88, 96)`
_ONE_PLACE: Final = r"(?:[\w./-]{1,200}:)?\d{1,9}(?:[-–]\d{1,9})?"
_ALSO_WORD: Final = r"(?:also|see(?: also)?|and|plus|cf\.?) (?:lines? )?"
_FILE_PLACE: Final = r"[\w./-]{1,200}:\d{1,9}(?:[-–]\d{1,9})?"
_ALSO: Final = re.compile(
    rf"(?:(?<=[\d`]) ?\((?:{_ALSO_WORD})?(?P<places>{_ONE_PLACE}(?:, ?{_ONE_PLACE}){{0,64}})"
    # after a place with no line only other files: `db.py (see line 42)` is db.py's line
    rf"|(?<=\w) \({_ALSO_WORD}(?P<files>{_FILE_PLACE}(?:, ?{_ONE_PLACE}){{0,64}}))\)",
    re.IGNORECASE)
# bare lines in parentheses after a path: `db.py (42-50)`
_PAREN_LINES: Final = re.compile(r"\(\s?(?:(?:see|cf\.?|at)\s)?(?:lines?\s|L)?(?P<a>\d{1,9})"
                                 r"(?:\s?[-–]\s?L?(?P<b>\d{1,9}))?\s?\)$", re.IGNORECASE)
_VERSUS: Final = re.compile(r" (?:vs\.?|versus|↔|<->) ", re.IGNORECASE)
_COMMA: Final = re.compile(r"[,;] ?")
_EXTENSION: Final = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_SECTION_ID: Final = re.compile(r"(?:§\s?|S)\d{1,3}(?:\.\d{1,3}){0,4}$")
_SYMBOL: Final = re.compile(r"\(\s?(?:in\s)?(?:(?:function|method|class|def|fn)\s)?"
                            r"`?(?P<s>[A-Za-z_][\w.]{0,120}?)(?:\(\))?`?\s?\)$")
# a later place in the file named before it: `20`, `L20-30`, `:25 (§ Usage)`
_BARE_NUMBER: Final = re.compile(r"(?:L|lines?\s|:)?(?P<a>\d{1,9})(?:\s?[-–]\s?(?P<b>\d{1,9}))?"
                                 r"(?:\s?\((?P<note>.{1,400})\))?$")
# a place led by a few words: `docstring index.js:16-19`, `see also b.py:20`
_LED_PLACE: Final = re.compile(r"[A-Za-z][\w-]{0,30}(?: [A-Za-z][\w-]{0,30}){0,2} "
                               r"(?=[^\s:]{1,400}?:L?\d)")
_KNOWN_FILES: Final = frozenset({"Makefile", "Dockerfile", "Justfile", "LICENSE", "README",
                                 "Gemfile", "Rakefile", "Procfile", "Vagrantfile"})


def looks_like_path(token: str) -> bool:
    """A token an agent would write for a file: has a slash, an extension, or a known name."""
    if not token or " " in token or len(token) > 400:
        return False
    if token.startswith(("http://", "https://")):
        return False
    if "/" in token and any(ch.isalnum() for ch in token):
        return True
    return bool(_EXTENSION.search(token)) or token in _KNOWN_FILES


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _split_places(text: str) -> list[str]:
    """`a.py:3 vs b.py:9` -> two parts; `a.py:10, 20` -> `a.py:10`, `20`.

    One split on the separators, then a comma starts a new place only when what follows
    it looks like one (a number, `path:line` or a path); otherwise the comma is text.
    """
    out: list[str] = []
    for piece in _VERSUS.split(text):
        if "," not in piece and ";" not in piece:
            out.append(piece)
            continue
        # a comma inside parentheses is text: `:25 (§ f(a, b))` is one part
        joined: list[list[str]] = []
        depth = 0
        for part in _COMMA.split(piece):
            if depth and joined:
                joined[-1].append(part.strip())
            else:
                joined.append([part])
            depth = max(0, depth + part.count("(") - part.count(")"))
        groups: list[list[str]] = []
        for part in map(", ".join, joined):
            candidate = part.strip()
            if not groups:
                groups.append([part])
            elif not candidate:
                continue
            elif _BARE_NUMBER.match(candidate) or _PATH_LINE.match(candidate) or \
                    looks_like_path(candidate.split(" ", 1)[0]) or _LED_PLACE.match(candidate):
                groups.append([candidate])
            else:
                groups[-1].append(candidate)
        out.extend(", ".join(group) for group in groups)
    return out


def parse_location(raw: str | None) -> Location | None:
    """Parse one location cell; None when the cell says there is no location."""
    if raw is None:
        return None
    # long cells are read afresh: the cache must not hold megabytes of agent text
    places = _read(raw) if len(raw) <= 512 else _read.__wrapped__(raw)
    if places is None:
        return None
    first, *more = places
    return _location(first, raw.strip(), [_location(p, p.raw, []) for p in more])


def place_of(raw: str | None) -> tuple[str, int] | None:
    """(path, line) of a location cell, or None; no Location is built (for matching)."""
    if not raw:
        return None
    places = _read(raw) if len(raw) <= 512 else _read.__wrapped__(raw)
    if not places or places[0].path is None or places[0].line is None:
        return None
    return places[0].path, places[0].line


def _location(place: _Place, raw: str, extra: list[Location]) -> Location:
    return build(Location, raw=raw, path=place.path, line=place.line, end_line=place.end_line,
                 section=place.section, symbol=place.symbol, extra=extra)


class _Place:
    """A place being read; frozen into the cache, copied into a Location per caller."""

    __slots__ = ("end_line", "line", "path", "raw", "section", "symbol")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.path: str | None = None
        self.line: int | None = None
        self.end_line: int | None = None
        self.section: str | None = None
        self.symbol: str | None = None


@lru_cache(maxsize=8192)
def _read(raw: str) -> tuple[_Place, ...] | None:
    # Replies repeat their places (a table row, then its details section, then the
    # summary), so each distinct cell is read once.
    text = strip_emphasis(raw.strip()).replace("`", "").strip()
    if text.lower() in NO_LOCATION:
        return None
    parts = _split_places(_ALSO.sub(_also_places, text) if "(" in text else text)
    places = [_parse_place(parts[0], None)]
    last_path = places[0].path
    for part in parts[1:]:  # a later place with no file is in the file named before it
        places.append(_parse_place(part, last_path))
        last_path = places[-1].path or last_path
    return tuple(places)


def _also_places(match: re.Match[str]) -> str:
    return ", " + (match["places"] or match["files"])


def _parse_place(text: str, default_path: str | None) -> _Place:
    text = text.strip().strip("()").strip() if text.startswith("(") else text.strip()
    loc = _Place(text)
    if not text:
        return loc
    bare = _BARE_NUMBER.match(text)
    if bare and default_path is not None:
        loc.path = default_path
        loc.line, loc.end_line = _int(bare["a"]), _int(bare["b"])
        if bare["note"]:
            _note(loc, bare["note"].strip())
        return loc

    if "::" in text:  # file::test_name
        path, _, symbol = text.partition("::")
        if looks_like_path(path.strip()):
            loc.path, loc.symbol = path.strip(), symbol.strip() or None
            return loc

    rest = text
    match = _PATH_LINE.match(rest)
    if match is not None and looks_like_path(match["path"]) and rest.endswith(")") \
            and rest[match.end():].lstrip().startswith("("):
        # `Readme.md:107 (§ bytes.parse, Returns)`: the place, then a note on it
        loc.path = match["path"]
        loc.line = _int(match["a"] or match["c"])
        loc.end_line = _int(match["b"] or match["d"])
        _note(loc, rest[match.end():].strip()[1:-1].strip())
        return loc
    if "§" in rest:  # doc.md § Section (L40-44)
        left, _, right = rest.partition("§")
        left = left.strip()
        section, line_a, line_b = _section_and_lines(right.strip())
        if looks_like_path(left):
            loc.path = left
        elif left:
            section = f"{left} § {section}" if section else left
        if _SECTION_ID.match("§" + right.strip()) and not looks_like_path(left):
            section = "§" + right.strip()
        loc.section, loc.line, loc.end_line = section or None, line_a, line_b
        return loc
    if " > " in rest:  # doc.md > Section > Sub
        head, _, tail = rest.partition(" > ")
        if looks_like_path(head.strip()):
            loc.path = head.strip()
            section, loc.line, loc.end_line = _section_and_lines(tail.strip())
            loc.section = section or None
            return loc

    match = _PATH_LINE.match(rest)
    if match is not None and looks_like_path(match["path"]):
        loc.path = match["path"]
        loc.line = _int(match["a"] or match["c"])
        loc.end_line = _int(match["b"] or match["d"])
        tail = rest[match.end() :].strip()
        if tail:
            sym = _SYMBOL.match(tail)
            if sym is not None:
                loc.symbol = sym["s"]
        return loc

    token, _, tail = rest.partition(" ")
    if "#" in token and not token.startswith("#"):  # doc.md#anchor
        path, _, anchor = token.partition("#")
        if looks_like_path(path):
            loc.path, loc.section = path, anchor or None
            lines = _LINES_WORD.search(tail) if tail else None
            if lines is not None:
                loc.line, loc.end_line = _int(lines["a"]), _int(lines["b"])
            return loc
    if looks_like_path(token.rstrip(":,")):
        loc.path = token.rstrip(":,")
        lines = _PAREN_LINES.match(tail.strip()) if tail else None
        if lines is not None:
            loc.line, loc.end_line = _int(lines["a"]), _int(lines["b"])
        elif tail:
            section, loc.line, loc.end_line = _section_and_lines(tail.strip())
            sym = _SYMBOL.match(tail.strip())
            if sym is not None and loc.line is None:
                loc.symbol = sym["s"]
            elif section:
                loc.section = section
        return loc

    lead = _LED_PLACE.match(rest)
    if lead is not None:
        # the rest starts with `path:line` (no space before its colon), so this recurses once
        led = _parse_place(rest[lead.end():], default_path)
        if led.path is not None:
            led.raw, led.section = text, led.section or lead.group(0).strip()
            return led

    # No path: a section id, a line reference, or section-only text.
    section, loc.line, loc.end_line = _section_and_lines(rest)
    loc.section = section or None
    return loc


def _note(loc: _Place, note: str) -> None:
    """What a place says in parentheses after its lines: a section (`§ Usage`) or a
    symbol (`loginHandler`); any other note (`bug, medium`, `via 407`) stays in the raw
    text only, so places compare as places."""
    if note.startswith("§"):
        loc.section = note.lstrip("§ ") or None
        return
    sym = _SYMBOL.match(f"({note})")
    if sym is not None:
        loc.symbol = sym["s"]


def _section_and_lines(text: str) -> tuple[str, int | None, int | None]:
    """`Errors (L40-44)` -> ("Errors", 40, 44); `lines 4-9` -> ("", 4, 9)."""
    match = _LINES_WORD.search(text)
    if match is None:
        return text.strip(" ,:-"), None, None
    # Only take a line reference that stands apart: `L4` or `line 4`, not `HTML5`.
    start = match.start()
    if start > 0 and text[start - 1].isalnum():
        return text.strip(" ,:-"), None, None
    section = (text[:start] + text[match.end() :]).strip(" ,:-()")
    return section, _int(match["a"]), _int(match["b"])
