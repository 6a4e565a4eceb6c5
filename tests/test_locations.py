"""Location strings -> Location records (SPEC §3 list), table-driven."""
from __future__ import annotations

import pytest

from sarp.dialects.common import location_in
from sarp.text.locations import parse_location

CASES = [
    # raw, path, line, end_line, section, symbol
    ("path/to/file.py:42", "path/to/file.py", 42, None, None, None),
    ("src/a.py:42-56", "src/a.py", 42, 56, None, None),
    ("`src/a.py:42`", "src/a.py", 42, None, None, None),
    ("src/a.py:42:7", "src/a.py", 42, None, None, None),
    ("src/a.py#L42", "src/a.py", 42, None, None, None),
    ("src/a.py#L42-L50", "src/a.py", 42, 50, None, None),
    ("src/a.py (L42-50)", "src/a.py", 42, 50, None, None),
    ("src/a.py lines 4-9", "src/a.py", 4, 9, None, None),
    ("src/a.py line 4", "src/a.py", 4, None, None, None),
    ("api.md § Errors", "api.md", None, None, "Errors", None),
    ("api.md § Errors (L40-44)", "api.md", 40, 44, "Errors", None),
    ("doc.md > Section > Sub", "doc.md", None, None, "Section > Sub", None),
    ("doc.md#error-codes", "doc.md", None, None, "error-codes", None),
    ("S12", None, None, None, "S12", None),
    ("§3.2", None, None, None, "§3.2", None),
    ("Errors section", None, None, None, "Errors section", None),
    ("tests/test_x.py::test_parse", "tests/test_x.py", None, None, None, "test_parse"),
    ("src/api/auth.ts:45 (loginHandler)", "src/api/auth.ts", 45, None, None, "loginHandler"),
    ("Makefile:3", "Makefile", 3, None, None, None),
    ("**`netrc.py:89`**", "netrc.py", 89, None, None, None),
    ("C:1", None, None, None, "C:1", None),
    # REVIEW15 #11: bare lines in parentheses after a path are its lines; a symbol may
    # be named by its kind
    ("db.py (42-50)", "db.py", 42, 50, None, None),
    ("db.py (42)", "db.py", 42, None, None, None),
    ("a.py:45 (function `parse_args`)", "a.py", 45, None, None, "parse_args"),
    ("a.py:45 (method search)", "a.py", 45, None, None, "search"),
    ("a.py:45 (class Foo)", "a.py", 45, None, None, "Foo"),
    ("Usage (step 2)", None, None, None, "Usage (step 2)", None),
    # REVIEW16 #22: `(see line 42)` after a place with no line is its line
    ("db.py (see line 42)", "db.py", 42, None, None, None),
    ("config (see 12)", None, None, None, "config (see 12)", None),
]


@pytest.mark.parametrize(("raw", "path", "line", "end", "section", "symbol"), CASES)
def test_location(raw: str, path: str | None, line: int | None, end: int | None,
                  section: str | None, symbol: str | None) -> None:
    loc = parse_location(raw)
    assert loc is not None
    assert (loc.path, loc.line, loc.end_line, loc.section, loc.symbol) == (
        path, line, end, section, symbol)
    assert loc.raw == raw


@pytest.mark.parametrize("raw", ["", "--", "-", "—", "n/a", "N/A", "none", "  "])
def test_no_location(raw: str) -> None:
    assert parse_location(raw) is None


def test_several_places_in_one_cell() -> None:
    loc = parse_location("a.py:10, 20")
    assert loc is not None
    assert (loc.path, loc.line) == ("a.py", 10)
    assert [(x.path, x.line) for x in loc.extra] == [("a.py", 20)]

    loc = parse_location("x.md:3 vs y.md:9")
    assert loc is not None
    assert (loc.path, loc.line) == ("x.md", 3)
    assert [(x.path, x.line) for x in loc.extra] == [("y.md", 9)]


@pytest.mark.parametrize(("raw", "first", "extra"), [
    # a later place written `:25` is in the file named before it; a comma inside the
    # note's parentheses is text (path-to-regexp's clarity review)
    ("package/Readme.md:16, :25 (§ pathToRegexp(path, keys, options))",
     ("package/Readme.md", 16, None, None),
     [("package/Readme.md", 25, "pathToRegexp(path, keys, options)", None)]),
    # a place led by a word names its own file
    ("package/index.js:42-46, 72-76; docstring index.js:16-19",
     ("package/index.js", 42, None, None),
     [("package/index.js", 72, None, None), ("index.js", 16, "docstring", None)]),
    ("a.py:10, see also b.py:20", ("a.py", 10, None, None), [("b.py", 20, "see also", None)]),
    ("a.py:10, 20 (load)", ("a.py", 10, None, None), [("a.py", 20, None, "load")]),
    # REVIEW13: parentheses that list places are places
    ("`Lib/shlex.py:181` (also 37, 97, 338)", ("Lib/shlex.py", 181, None, None),
     [("Lib/shlex.py", 37, None, None), ("Lib/shlex.py", 97, None, None),
      ("Lib/shlex.py", 338, None, None)]),
    ("`utils.py:45` (also `cli.py:12`, `api.py:88`)", ("utils.py", 45, None, None),
     [("cli.py", 12, None, None), ("api.py", 88, None, None)]),
    # the first place with a note on its section (the clarity form), then another file
    ("package/Readme.md:107 (§ bytes.parse, `b` for bytes), index.js:20",
     ("package/Readme.md", 107, "bytes.parse, b for bytes", None), [("index.js", 20, None, None)]),
    # a later line with no file is in the file named just before it
    ("lib/index.js:16-19; README.md:16, 25", ("lib/index.js", 16, None, None),
     [("README.md", 16, None, None), ("README.md", 25, None, None)]),
    # REVIEW14 #17: a note that is no section and no symbol stays in the raw text only,
    # so the place compares as a place; code with parentheses is no list of places
    ("tempfile.py:817 (bug, medium)", ("tempfile.py", 817, None, None), []),
    ("index.js:112 (`fmtShort(1000)`)", ("index.js", 112, None, None), []),
    # REVIEW15 #11: `(also …)` and `(see …)` after any place, in any case, list places
    ("a.py (also b.py:12)", ("a.py", None, None, None), [("b.py", 12, None, None)]),
    ("a.py:45 (see b.py:20)", ("a.py", 45, None, None), [("b.py", 20, None, None)]),
    ("a.py:45 (Also cli.py:12)", ("a.py", 45, None, None), [("cli.py", 12, None, None)]),
    ("a.py:45 (also lines 88, 96)", ("a.py", 45, None, None),
     [("a.py", 88, None, None), ("a.py", 96, None, None)]),
    # words that lead no place stay text
    ("a.py:10, see the docs", ("a.py", 10, None, None), []),
])
def test_the_places_of_a_cell(raw: str, first: tuple[str | None, int | None, str | None,
                                                     str | None],
                              extra: list[tuple[str | None, int | None, str | None,
                                                str | None]]) -> None:
    loc = parse_location(raw)
    assert loc is not None
    assert (loc.path, loc.line, loc.section, loc.symbol) == first
    assert [(x.path, x.line, x.section, x.symbol) for x in loc.extra] == extra


# ADV16 #14: the place inside free text is found from its extension, not by re-reading
# up to 200 characters at every start; what is found stays what it was
@pytest.mark.parametrize(("text", "place"), [
    ("see app/db.py:42 for the query", "app/db.py:42"),
    ("at `src/a.py:42-56`.", "src/a.py:42-56"),
    ("tests/test_x.py::test_parse fails", "tests/test_x.py::test_parse"),
    ("in `lib/index.js`, lines 16-19", "lib/index.js`, lines 16-19"),
    ("in lib/index.js line 7", "lib/index.js line 7"),
    ("a.py:1 then b.py:2", "a.py:1"),
    # the first place that has a path before its extension
    (" .py:3 and a.py:4", "a.py:4"),
    # an extension of more than 8 characters, or with a dash, is no extension
    ("a.abcdefghi:3 b.txt:4", "b.txt:4"),
    ("a.py-x:3", None),
    # the path is the last 200 path characters before the extension
    ("x" * 300 + ".py:3", "x" * 200 + ".py:3"),
    ("a/" * 150 + "b.py:12", ("a/" * 150 + "b")[-200:] + ".py:12"),
    # long dotted runs with no place after them (ADV16 #14's slow inputs)
    ("a." * 5000, None),
    ("www.example.com" * 1000, None),
    ("a." * 5000 + "py:9", ("a." * 4999 + "a")[-200:] + ".py:9"),
    ("no place here", None),
    ("", None),
])
def test_a_place_inside_free_text(text: str, place: str | None) -> None:
    assert location_in(text) == place
