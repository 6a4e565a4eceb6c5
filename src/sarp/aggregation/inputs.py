# What `sarp aggregate` reads: files, directories and globs of replies in any dialect,
# JSONL files of Results, and SARIF 2.1.0 logs, mixed.
#
# Each Result's id is where it came from: the path as given (`run/a.md`), `path:<line>`
# for a JSONL line, `path#run<n>` for the runs of a SARIF log with several. Bad input
# never raises here: an unreadable file, a JSONL line that is not a Result or a reply in
# no protocol becomes a Result (unparseable, with a diagnostic) so the report shows the
# gap. Only a path that names nothing is an error (`InputError`), as a usage mistake.
from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from sarp.diagnostics import make
from sarp.model import Conformance, Delivery, Result, Status, build
from sarp.parsing import parse

__all__ = ["InputError", "expand", "load_file", "load_results"]

_GLOB_CHARS = frozenset("*?[")


class InputError(ValueError):
    """A path that is neither a file, a directory nor a glob that matches a file."""


def expand(paths: Iterable[str]) -> list[Path]:
    """Every file the arguments name, in a stable order: a directory gives its files
    (recursively, hidden ones skipped, sorted), a glob its sorted matches."""
    files: list[Path] = []
    seen: set[Path] = set()
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            found = sorted(p for p in _walk(path))
        elif path.is_file():
            found = [path]
        elif _GLOB_CHARS & set(arg):
            found = sorted(Path(p) for p in glob.glob(arg, recursive=True) if Path(p).is_file())
            if not found:
                raise InputError(f"{arg}: the pattern matches no file")
        else:
            raise InputError(f"{arg}: no such file or directory")
        for file in found:
            if file not in seen:
                seen.add(file)
                files.append(file)
    return files


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if not name.startswith("."):
                yield Path(folder) / name


def load_results(paths: Iterable[str]) -> list[Result]:
    return [result for file in expand(paths) for result in load_file(file)]


def load_file(path: Path) -> list[Result]:
    """The Results one file holds (one for a reply, one per line or run otherwise)."""
    source = path.as_posix()
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [_unreadable(source, make("SARP007", None, source=source,
                                         error=exc.strerror or type(exc).__name__))]
    text = data.decode("utf-8", errors="replace")
    name = path.name.lower()
    if name.endswith(".jsonl"):
        return _jsonl(text, source)
    if name.endswith((".sarif", ".sarif.json")) or (name.endswith(".json") and _is_sarif(text)):
        from sarp.dialects.sarif import results_from_sarif

        return results_from_sarif(text, source)
    result = parse(text)
    result.id = source
    return [result]


def _is_sarif(text: str) -> bool:
    from sarp.dialects.sarif import is_sarif

    return is_sarif(text)


def _jsonl(text: str, source: str) -> list[Result]:
    out: list[Result] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            result = Result.model_validate_json(line)
        except ValidationError as exc:
            first = exc.errors()[0] if exc.errors() else {"msg": "invalid"}
            loc = ".".join(str(part) for part in first.get("loc", ()))
            error = f"{loc}: {first['msg']}" if loc else str(first["msg"])
            out.append(_unreadable(where, make("SARP006", number, line=number, source=source,
                                               error=error), raw=line))
            continue
        except (ValueError, json.JSONDecodeError) as exc:
            out.append(_unreadable(where, make("SARP006", number, line=number, source=source,
                                               error=str(exc)), raw=line))
            continue
        result.id = where
        out.append(result)
    return out


def _unreadable(source: str, diagnostic: object, raw: str = "") -> Result:
    return build(Result, id=source, dialect="text", status=Status.PARTIAL,
                 conformance=Conformance.UNPARSEABLE, delivery=Delivery.EMPTY,
                 diagnostics=[diagnostic], raw=raw)
