# What `sarp aggregate` reads: files, directories and globs of replies in any dialect,
# JSONL files of Results, and SARIF 2.1.0 logs, mixed.
#
# Each Result's id is where it came from: the path as given (`run/a.md`), `path:<line>`
# for a JSONL line, `path#run<n>` for the runs of a SARIF log with several. Bad input
# never raises here: an unreadable file, a JSONL line that is not a Result or a reply in
# no protocol becomes a Result (unparseable, with a diagnostic) so the report shows the
# gap. Only a path that names nothing is an error (`InputError`), as a usage mistake.
#
# A report sarp wrote (`sarp aggregate run -o run/report.md`, in any format) is no agent's
# reply: reading it would count every finding again, so it is skipped and the caller told.
# A stored Result (JSONL, JSON) that names no agent keeps the agent its stored id named
# (`run/alice.md` -> alice), so a parse-then-aggregate pipeline cross-validates as
# aggregating the replies themselves does.
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from sarp.aggregation.entries import name_of
from sarp.diagnostics import make
from sarp.dialects.sarif import is_sarif, results_from_sarif
from sarp.model import Conformance, Delivery, Result, Status, build
from sarp.parsing import parse
from sarp.text import jsontext
from sarp.text.decode import decode, note_decoding

__all__ = ["InputError", "distinct_ids", "expand", "load_file", "load_results", "load_text",
           "sarp_report"]

_GLOB_CHARS = frozenset("*?[")


class InputError(ValueError):
    """A path that is neither a file, a directory nor a glob that matches a file."""


def expand(paths: Iterable[str], skipped: list[str] | None = None) -> list[Path]:
    """Every file the arguments name, in a stable order: a directory gives its regular
    files (recursively, hidden ones skipped, sorted), a glob its sorted matches. One
    file named twice (`run/a.md`, `./run/a.md`) is read once. Symlinked folders are not
    followed, and a symlink to a file outside the folder walked is left out (`skipped`
    says so): an agent that can write to the run folder must not pull other files into
    the report."""
    files: list[Path] = []
    seen: set[Path] = set()
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            found = sorted(_walk(path, None, skipped))
        elif path.is_file():
            found = [path]
        elif _GLOB_CHARS & set(arg):
            found = sorted(_glob(arg, skipped))
            if not found:
                raise InputError(f"{arg}: the pattern matches no file")
        elif path.exists():
            raise InputError(f"{arg}: not a regular file or directory")
        else:
            raise InputError(f"{arg}: no such file or directory")
        for file in found:
            identity = file.resolve()
            if identity not in seen:
                seen.add(identity)
                files.append(file)
    return files


def _walk(root: Path, depth: int | None, skipped: list[str] | None) -> Iterator[Path]:
    """Regular files under `root`, at most `depth` folders down (None: any)."""
    inside = root.resolve()
    for folder, dirs, names in os.walk(root):  # (os.walk follows no symlinked folder)
        level = len(Path(folder).relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) \
            if depth is None or level < depth else []
        for name in names:
            path = Path(folder) / name
            # a FIFO or device would block or never end: only regular files are replies
            if name.startswith(".") or not path.is_file():
                continue
            if path.is_symlink() and not path.resolve().is_relative_to(inside):
                if skipped is not None:
                    skipped.append(f"{_printable(path.as_posix())}: a link to a file outside"
                                   f" {_printable(root.as_posix())}; skipped")
                continue
            yield path


def _glob(pattern: str, skipped: list[str] | None) -> Iterator[Path]:
    """The files `pattern` matches (`*`, `?`, `[...]` within a name, `**` as a whole part
    across folders, as the shell's globstar),
    found by walking its fixed leading folder once: `glob.glob(recursive=True)` follows
    symlinked folders, and two links to `.` made it run for minutes."""
    parts = Path(pattern).parts
    fixed = next((n for n, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts))
    base = Path(*parts[:fixed]) if fixed else Path(".")
    if not base.is_dir():
        return
    rest = parts[fixed:]
    depth = None if "**" in rest else len(rest) - 1
    matcher = re.compile(_translate("/".join(rest)))
    for path in _walk(base, depth, skipped):
        if matcher.fullmatch(path.relative_to(base).as_posix()):
            yield path


def _translate(pattern: str) -> str:
    """A glob as a regular expression over `/`-separated paths."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        whole = i == 0 or pattern[i - 1] == "/"  # `**` crosses folders as a whole part only
        if whole and pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif whole and pattern.startswith("**", i) and i + 2 == n:
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (close := pattern.find("]", i + 2)) > 0:
            inner = pattern[i + 1:close].replace("\\", "\\\\")
            out.append("[^" + inner[1:] + "]" if inner.startswith("!") else f"[{inner}]")
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def load_results(paths: Iterable[str], skipped: list[str] | None = None) -> list[Result]:
    """The Results the paths hold, every id distinct (a clash gets `#2`, `#3`, ...);
    `skipped` collects a line for each file left out (a sarp report)."""
    return distinct_ids([result for file in expand(paths)
                         for result in load_file(file, skipped)])


def distinct_ids(results: list[Result]) -> list[Result]:
    seen: set[str] = set()
    for result in results:
        base = result.id or "result"
        name, number = base, 1
        while name in seen:
            number += 1
            name = f"{base}#{number}"
        seen.add(name)
        result.id = name
    return results


def load_file(path: Path, skipped: list[str] | None = None) -> list[Result]:
    """The Results one file holds (one for a reply, one per line or run otherwise)."""
    source = _printable(path.as_posix())
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [_unreadable(source, make("SARP007", None, source=source,
                                         error=exc.strerror or type(exc).__name__))]
    text, note = decode(data)
    return [note_decoding(result, note) for result in load_text(text, source, skipped)]


def load_text(text: str, source: str, skipped: list[str] | None = None) -> list[Result]:
    """The Results in `text` read from `source`: a JSONL file of Results, a JSON Result
    or list of Results (what `sarp parse` writes), a SARIF log, or a reply. The name's
    extension decides first; text from stdin or of another name is judged by content.
    A sarp report gives none, and a line in `skipped` says so."""
    report = sarp_report(text)
    if report is not None:
        if skipped is not None:
            skipped.append(f"{source}: a sarp {report} report, not an agent's reply; skipped")
        return []
    name = source.lower()
    if name.endswith(".jsonl"):
        return _jsonl(text, source)
    if name.endswith((".sarif", ".sarif.json")) or is_sarif(text):
        return results_from_sarif(text, source)
    if text.lstrip()[:1] in ("{", "["):
        stored = _stored_results(text, source)
        if stored is not None:
            return stored
        if not name.endswith(".json") and _looks_like_jsonl(text):
            return _jsonl(text, source)
    result = parse(text)
    result.id = source
    return [result]


_LINE_END = re.compile(r"\r\n?|\n")
_REPORT_KEYS = frozenset({"findings", "results", "stats", "decision", "verdict"})
# the line under the Markdown report's title, which an agent's own title does not bring
_MARKDOWN_MARK = re.compile(r"\n\*\*Decision\*\*: \w+ · \*\*Results\*\*: \d+ · ")
_HTML_MARK = '<meta name="generator" content="sarp">'


def sarp_report(text: str) -> str | None:
    """The format of a report sarp wrote (`markdown`, `html`, `json`, `sarif`), or None.
    Each is known by what only sarp writes: the Markdown title line, the HTML generator
    tag, the JSON report's keys, a SARIF log whose every run's tool is sarp."""
    head = text.lstrip()[:2048]
    if head.startswith("# Aggregated review: ") and _MARKDOWN_MARK.search(head):
        return "markdown"
    if head.startswith(("<!DOCTYPE html>", "<html")):
        return "html" if _HTML_MARK in head else None
    if not head.startswith("{") or ('"verdict"' not in text and '"sarp"' not in text):
        return None
    try:
        data = jsontext.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if data.keys() >= _REPORT_KEYS:
        return "json"
    runs = data.get("runs")
    if isinstance(runs, list) and runs and all(
            isinstance(run, dict) and isinstance(run.get("tool"), dict)
            and isinstance(run["tool"].get("driver"), dict)
            and run["tool"]["driver"].get("name") == "sarp" for run in runs):
        return "sarif"
    return None


def _looks_like_jsonl(text: str) -> bool:
    """Several lines, the first of them a whole Result object."""
    first, *rest = _LINE_END.split(text.strip(), 1)
    if not rest or not rest[0].strip():
        return False
    try:
        value = jsontext.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and {"dialect", "status", "conformance"} <= value.keys()


def _printable(text: str) -> str:
    """A file name as text that can be written anywhere: undecodable bytes become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _stored_results(text: str, source: str) -> list[Result] | None:
    """Results as `sarp parse --format json` writes them: one object, or a list. None
    when the JSON is not Results (then it is a reply in the json dialect)."""
    try:
        data = jsontext.loads(text)
    except (ValueError, RecursionError):
        return None
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) and {"dialect", "status", "conformance"}
                            <= item.keys() for item in items):
        return None
    out: list[Result] = []
    for number, item in enumerate(items, 1):
        where = source if len(items) == 1 else f"{source}#{number}"
        try:
            result = Result.model_validate(item)
        except ValidationError as exc:
            out.append(_unreadable(where, make("SARP006", None, line=number, source=source,
                                               error=_first_error(exc))))
            continue
        _keep_agent(result, where)
        result.id = where
        out.append(result)
    return out


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0] if exc.errors() else {"msg": "invalid"}
    loc = ".".join(str(part) for part in first.get("loc", ()))
    return f"{loc}: {first['msg']}" if loc else str(first["msg"])


def _jsonl(text: str, source: str) -> list[Result]:
    out: list[Result] = []
    # JSON strings may hold U+2028 and other line separators raw: lines end at \n, \r\n
    # or a lone \r only (no JSON string holds a raw \r); a line may start with the BOM
    # of a file that was concatenated (`cat a.jsonl b.jsonl`)
    for number, line in enumerate(_LINE_END.split(text), 1):
        line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            if jsontext.has_surrogate_escape(line):  # decode, scrub, then validate
                result = Result.model_validate(jsontext.loads(line))
            else:
                result = Result.model_validate_json(line)
        except ValidationError as exc:
            out.append(_unreadable(where, make("SARP006", number, line=number, source=source,
                                               error=_first_error(exc)), raw=line))
            continue
        except (ValueError, RecursionError) as exc:
            out.append(_unreadable(where, make("SARP006", number, line=number, source=source,
                                               error=str(exc)[:200]), raw=line))
            continue
        _keep_agent(result, where)
        result.id = where
        out.append(result)
    return out


def _keep_agent(result: Result, where: str) -> None:
    """A stored Result's agent, when it names none, is the one its stored id names; with
    no id to go by (`null`, `<stdin>`), each stored Result is its own reporter, named by
    where it is stored (`run.jsonl:2`), as separate reply files would be."""
    if result.agent is None:
        stored = result.id if result.id and not result.id.startswith("<") else None
        if stored:
            result.agent = name_of(stored)
        else:  # `run.jsonl:2` -> run:2, `run.json#2` -> run#2
            tail = where.replace("\\", "/").rsplit("/", 1)[-1]
            result.agent = name_of(where) + tail[len(tail.split(":")[0].split("#")[0]):]


def _unreadable(source: str, diagnostic: object, raw: str = "") -> Result:
    return build(Result, id=source, dialect="text", status=Status.PARTIAL,
                 conformance=Conformance.UNPARSEABLE,
                 delivery=Delivery.COMPLETE if raw else Delivery.EMPTY,
                 diagnostics=[diagnostic], raw=raw)
