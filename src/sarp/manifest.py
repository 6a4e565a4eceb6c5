# MANIFEST.jsonl: CLEO's append-only record of what subagents produced (SPEC §8).
#
# Contract:
# - `append` validates an entry (profile `strict`: the JSON Schema rules; `lenient`: the
#   CLI rules), normalises field-name aliases (reported), refuses duplicate ids, and
#   writes it as ONE line with ONE `os.write` under an exclusive `flock` on the file,
#   then fsyncs: many writer processes never interleave or lose lines.
# - `read` is tolerant: a non-JSON line (a torn last line after a crash, a stray line,
#   one nested deeper than MAX_NESTING) is reported with its line number and skipped;
#   every other entry is kept; nothing is rewritten. `repair` moves bad lines to a side
#   file, only when asked.
# - An entry's `file` must resolve inside the output directory: absolute paths, `..`
#   and symlinks that escape are rejected, and so is a name that cannot be looked up (a
#   symlink loop, a name too long for the file system) - a SARP506, never an OSError.
# - A value no JSON reader would take back is refused on append and reported by validate
#   (SARP503): a lone surrogate (UTF-8 cannot encode it), NaN or Infinity, nesting
#   deeper than MAX_NESTING. Nothing agent-written reaches the caller as an exception:
#   each walk over a value uses its own stack, never Python's recursion.
# Diagnostics use the 5xx range of the one registry.
from __future__ import annotations

import datetime
import errno
import fcntl
import json
import math
import os
import re
import reprlib
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from sarp import diagnostics
from sarp.dialects.cleo import ALIASES
from sarp.dialects.cleo import REQUIRED_KEYS as REQUIRED
from sarp.model import Diagnostic, DiagnosticSeverity

__all__ = ["ALIASES", "MAX_NESTING", "ManifestError", "ManifestRead", "Profile", "append",
           "check_return_message", "escapes", "json_line", "normalise", "query", "read",
           "repair", "validate"]

Profile = Literal["strict", "lenient"]
STATUSES: Final = ("complete", "partial", "blocked", "archived")
STRICT_AGENT_TYPES: Final = ("research", "implementation", "validation", "documentation",
                             "analysis")
LENIENT_AGENT_TYPES: Final = (*STRICT_AGENT_TYPES, "consensus", "contribution",
                              "specification", "decomposition", "release", "testing",
                              "cleanup", "design", "architecture", "report", "synthesis",
                              "orchestrator", "handoff", "verification", "review",
                              "task-executor")
_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_STRICT_ID: Final = re.compile(r"[a-z0-9-]+-\d{4}-\d{2}-\d{2}")
_STRICT_FILE: Final = re.compile(r"\d{4}-\d{2}-\d{2}_[a-z0-9-]+\.md")
_FOLLOWUP: Final = re.compile(r"T\d+|BLOCKED:.+")
_TASK: Final = re.compile(r"T\d+")
_DRIVE: Final = re.compile(r"[A-Za-z]:")
_LONE_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
# Far more than any entry needs, and far less than the JSON decoder or `==` on nested
# lists can follow on Python's stack: a line nested deeper is not an entry.
MAX_NESTING: Final = 100
_NOT_JSON: Final = "not a JSON line"
_TOO_DEEP: Final = f"nested more than {MAX_NESTING} levels deep"

# Values quoted in messages are cut short: an agent's value may be megabytes long or
# nested a hundred levels, and the message only has to show which value it is.
_quoted = reprlib.Repr()
_quoted.maxstring = _quoted.maxother = 80
_quoted.maxlevel = 3


class ManifestError(ValueError):
    """An entry was refused; `diagnostics` says why, each with the key it concerns."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


@dataclass
class ManifestRead:
    """What `read` found: entries with their 1-based line numbers, and the bad lines."""

    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def normalise(entry: Mapping[str, Any], line: int | None = None
              ) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The entry with canonical key names; each alias used is reported (SARP504)."""
    out: dict[str, Any] = {}
    notes: list[Diagnostic] = []
    for key, value in entry.items():
        canonical = ALIASES.get(key, key)
        if canonical != key:
            notes.append(diagnostics.make("SARP504", line, written=key, canonical=canonical))
        if canonical in out and _disagree(out[canonical], value):
            # two spellings of one key that disagree: keeping either would lose the other
            notes.append(diagnostics.make("SARP503", line, key=canonical,
                                          problem="is given twice with different values"))
        if canonical == key or canonical not in out:
            out[canonical] = value
    return out, notes


def _disagree(first: Any, second: Any) -> bool:
    """Whether two values differ. Values nested too deep for `!=` to follow on Python's
    stack are not compared: `validate` refuses each of them on its own."""
    return not _too_deep(first) and not _too_deep(second) and first != second


def validate(entry: Mapping[str, Any], profile: Profile = "lenient", *,
             output_dir: str | os.PathLike[str] | None = None,
             line: int | None = None) -> list[Diagnostic]:
    """Every problem of one entry (after alias normalisation), each naming its key."""
    data, found = normalise(entry, line)

    def bad(key: str, problem: str) -> None:
        found.append(diagnostics.make("SARP503", line, key=key, problem=problem))

    for key in REQUIRED:
        if key not in data:
            found.append(diagnostics.make("SARP502", line, key=key))
    for key, value in data.items():
        problem = _unwritable(key) or _unwritable(value)
        if problem:
            bad(key, problem)
    status = data.get("status")
    if "status" in data and status not in STATUSES:
        bad("status", f"{_quoted.repr(status)} is not one of {', '.join(STATUSES)}")
    for key in ("id", "file", "title"):
        if key in data and not (isinstance(data[key], str) and data[key].strip()):
            bad(key, "is not a non-empty string")
    if "date" in data and not _is_date(data["date"]):
        bad("date", f"{_quoted.repr(data['date'])} is not a date written YYYY-MM-DD")
    for key in ("topics", "key_findings", "needs_followup", "linked_tasks"):
        if key in data and not isinstance(data[key], list) and (
                key in REQUIRED or data[key] is not None):
            bad(key, "is not a list")
    if "actionable" in data and not isinstance(data["actionable"], bool):
        bad("actionable", f"{_quoted.repr(data['actionable'])} is not true or false")
    agent_type = data.get("agent_type")
    allowed = STRICT_AGENT_TYPES if profile == "strict" else LENIENT_AGENT_TYPES
    if agent_type is not None and agent_type not in allowed and not (
            profile == "lenient" and isinstance(agent_type, str) and
            agent_type.startswith("ct-")):
        bad("agent_type", f"{_quoted.repr(agent_type)} is not one of {', '.join(allowed)}")
    if profile == "strict":
        _strict(data, bad)
    if output_dir is not None and isinstance(data.get("file"), str) and not (
            _unwritable(data["file"])):  # that problem is reported above
        problem = escapes(data["file"], output_dir)
        if problem:
            found.append(diagnostics.make("SARP506", line, file=data["file"], problem=problem))
    return found


def _strict(data: dict[str, Any], bad: Any) -> None:
    """The JSON Schema rules (schemas/research-manifest.schema.json)."""
    if isinstance(data.get("id"), str) and not _STRICT_ID.fullmatch(data["id"]):
        bad("id", f"{_quoted.repr(data['id'])} is not <slug>-YYYY-MM-DD")
    if isinstance(data.get("file"), str) and not _STRICT_FILE.fullmatch(data["file"]):
        bad("file", f"{_quoted.repr(data['file'])} is not YYYY-MM-DD_<slug>.md")
    title = data.get("title")
    if "title" in data and not (isinstance(title, str) and 5 <= len(title) <= 200):
        bad("title", "is not a string of 5 to 200 characters")
    topics = data.get("topics")
    if isinstance(topics, list) and not (1 <= len(topics) <= 10 and all(
            isinstance(t, str) for t in topics)):
        bad("topics", "is not 1 to 10 strings")
    findings = data.get("key_findings")
    if isinstance(findings, list) and not (3 <= len(findings) <= 7 and all(
            isinstance(f, str) and len(f) <= 200 for f in findings)):
        bad("key_findings", "is not 3 to 7 strings of at most 200 characters")
    for item in _list(data.get("needs_followup")):
        if not (isinstance(item, str) and _FOLLOWUP.fullmatch(item)):
            bad("needs_followup",
                f"item {_quoted.repr(item)} is not T<number> or BLOCKED:<reason>")
    for item in _list(data.get("linked_tasks")):
        if not (isinstance(item, str) and _TASK.fullmatch(item)):
            bad("linked_tasks", f"item {_quoted.repr(item)} is not T<number>")


def _is_date(value: Any) -> bool:
    if not (isinstance(value, str) and _DATE.fullmatch(value)):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _walk(value: Any, level: int) -> Iterator[tuple[Any, int]]:
    """`value` and every value and key inside it, each with its nesting level.

    A list of pending values instead of recursion, and containers deeper than
    MAX_NESTING are not opened: no value, however deep (or one that contains itself),
    exhausts Python's stack.
    """
    pending = [(value, level)]
    while pending:
        item, at = pending.pop()
        yield item, at
        if at > MAX_NESTING:
            continue
        if isinstance(item, Mapping):
            pending.extend((inner, at + 1) for pair in item.items() for inner in pair)
        elif isinstance(item, list | tuple):
            pending.extend((inner, at + 1) for inner in item)


def _too_deep(value: Any, level: int = 2) -> bool:
    """Whether `value` (at `level`; an entry is level 1) nests containers past MAX_NESTING."""
    return any(at > MAX_NESTING and isinstance(item, Mapping | list | tuple)
               for item, at in _walk(value, level))


def _unwritable(value: Any, level: int = 2) -> str | None:
    """Why `value` (at `level`; an entry is level 1) cannot be written as JSON that every
    reader takes back, or None."""
    for item, at in _walk(value, level):
        if isinstance(item, str):
            surrogate = _LONE_SURROGATE.search(item)
            if surrogate:
                return (f"contains a lone surrogate (\\u{ord(surrogate.group()):04x}),"
                        " which UTF-8 cannot encode")
        elif isinstance(item, Mapping | list | tuple):
            if at > MAX_NESTING:
                return f"is {_TOO_DEEP}"
            if isinstance(item, Mapping) and not all(isinstance(key, str) for key in item):
                return "has a key that is not a string"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"holds {json.dumps(item)}, which is not JSON"
        elif isinstance(item, int):  # bool included
            try:
                str(item)
            except ValueError:  # over Python's limit on the digits of an int
                return "holds a number too long to write"
        elif item is not None:
            return f"holds a {type(item).__name__}, which is not a JSON value"
    return None


def escapes(path: str, output_dir: str | os.PathLike[str]) -> str | None:
    """Why `path` is not a file inside `output_dir`, or None when it is."""
    if "\0" in path:
        return "contains a NUL byte"
    if "\\" in path:
        # on Windows `..\x` climbs out and `C:\x` is absolute; refuse them everywhere
        return "uses backslashes"
    surrogate = _LONE_SURROGATE.search(path)
    if surrogate:  # no file name is made of one; the OS cannot even be asked
        return f"contains a lone surrogate (\\u{ord(surrogate.group()):04x})"
    if os.path.isabs(path) or _DRIVE.match(path):
        return "is an absolute path"
    if ".." in Path(path).parts:
        return "climbs out with .."
    try:
        root = Path(output_dir).resolve()
        target = (root / path).resolve()  # follows symlinks
        if not target.is_relative_to(root):
            return "resolves (through a symlink) outside the output directory"
        if target == root or path.endswith("/") or _is_directory(target):
            return "names a directory, not a file"
    except RuntimeError:  # how Path.resolve reports a symlink loop before Python 3.13
        return f"cannot be looked up: {os.strerror(errno.ELOOP)}"
    except OSError as exc:  # a symlink loop (3.13 on), a name too long, no permission
        return f"cannot be looked up: {exc.strerror or exc}"
    return None


def _is_directory(path: Path) -> bool:
    """Whether `path` is a directory; a file not written yet is not. Any other failure
    to look it up is raised, for `escapes` to report."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


@contextmanager
def _locked(path: Path, create: bool) -> Iterator[int]:
    """An fd of `path` under an exclusive lock, opened for appending.

    `repair` replaces the file with a new one; a writer that opened the old one waits
    for the lock, sees it is no longer the file at `path`, and opens again.
    """
    while True:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            current: int | None = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        except BaseException:
            os.close(fd)
            raise
        if current == os.fstat(fd).st_ino:
            break
        os.close(fd)  # closing drops the lock
    try:
        yield fd
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def append(path: str | os.PathLike[str], entry: Mapping[str, Any], *,
           profile: Profile = "lenient",
           output_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Validate `entry` and append it as one line; return the normalised entry.

    Raises ManifestError (with every problem) when the entry is invalid or its id is
    already in the manifest; OSError when the file cannot be written.
    """
    data, _notes = normalise(entry)
    problems = [d for d in validate(data, profile, output_dir=output_dir)
                if d.severity is DiagnosticSeverity.ERROR]
    if problems:
        raise ManifestError(problems)
    # validate refused every string UTF-8 cannot encode: this line is exactly `data`
    line = (json_line(data) + "\n").encode()
    target = Path(path)
    with _locked(target, create=True) as fd:
        # under the lock the file is stable: look for the id, then write the one line
        if _has_id(target, data.get("id")):
            raise ManifestError([diagnostics.make("SARP505", None, id=data.get("id"))])
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            # a writer died mid-line: start ours on a fresh line so the torn one stays
            # the only bad line and ours is readable
            line = b"\n" + line
        # O_APPEND: the kernel places this one write at the end, whoever else appends
        _write_all(fd, line)
    return data


def _has_id(path: Path, wanted: Any) -> bool:
    """Whether an entry of the manifest has id `wanted`.

    Only lines that contain the id as JSON text (or an escape) are decoded, so an append
    stays cheap on a long manifest; both escapings of a non-ASCII id are looked for.
    """
    needles = {json.dumps(wanted, ensure_ascii=flag).encode() for flag in (True, False)}
    if not isinstance(wanted, str):
        needles = {b""}  # numbers and lists can be spaced any way: decode every line
    for raw_line in path.read_bytes().split(b"\n"):
        # a line with an escape may spell the id differently (`a\/b` for `a/b`)
        if b"\\" in raw_line or any(needle in raw_line for needle in needles):
            found, _why_not = _entry(raw_line)  # as `read` sees it: it reports duplicates
            if found is not None and found.get("id") == wanted:
                return True
    return False


def json_line(entry: Mapping[str, Any]) -> str:
    """`entry` as sarp writes it: one line of compact JSON, without the newline.

    UTF-8 text, except a lone surrogate (which `read` keeps from a `\\ud800` escape),
    written as that escape again: the JSON means the same and any stream can encode it.
    """
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _entry(raw_line: bytes) -> tuple[dict[str, Any] | None, str]:
    """The entry one manifest line holds, or None and why not (SARP501's words).

    The one place a line is decoded, for `read` and the duplicate check alike. Bytes
    that are not UTF-8 are replaced, as everywhere in sarp; a line nested deeper than
    the decoder can follow raises RecursionError, which is no ValueError.
    """
    try:
        value = json.loads(raw_line.decode("utf-8", errors="replace"))
    except RecursionError:
        return None, _TOO_DEEP
    except ValueError:
        return None, _NOT_JSON
    if not isinstance(value, dict):
        return None, "not a JSON object"
    if _too_deep(value, level=1):
        return None, _TOO_DEEP
    return value, ""


def read(path: str | os.PathLike[str]) -> ManifestRead:
    """Every entry of the manifest, and a diagnostic for each line that is not one."""
    out = ManifestRead()
    seen: dict[str, int] = {}
    with open(path, "rb") as handle:
        data = handle.read()
    lines = data.split(b"\n")
    for n, raw_line in enumerate(lines, 1):
        if not raw_line.strip():  # blank lines separate nothing and lose nothing
            continue
        entry, why_not = _entry(raw_line)
        if entry is None:
            if why_not == _NOT_JSON and n == len(lines) and not data.endswith(b"\n"):
                why_not = "a torn last line (a writer stopped mid-line)"
            out.diagnostics.append(diagnostics.make("SARP501", n, what=why_not))
            continue
        # an id may be any JSON value an agent wrote; compare its canonical text
        key = json.dumps(entry.get("id"), sort_keys=True)
        if "id" in entry and key in seen:
            out.diagnostics.append(diagnostics.make("SARP505", n, id=entry.get("id")))
        seen.setdefault(key, n)
        out.entries.append((n, entry))
    return out


def query(entries: list[tuple[int, dict[str, Any]]], *, id: str | None = None,
          task: str | None = None, status: str | None = None,
          needs_followup: bool | None = None) -> list[dict[str, Any]]:
    """Entries matching every given condition (aliases normalised first)."""
    out = []
    for _line, entry in entries:
        data, _ = normalise(entry)
        if id is not None and data.get("id") != id:
            continue
        entry_id = data.get("id")
        if task is not None and data.get("task_id") != task and task not in (
                _list(data.get("linked_tasks"))) and not (
                    isinstance(entry_id, str) and entry_id.startswith(f"{task}-")):
            continue
        if status is not None and data.get("status") != status:
            continue
        if needs_followup is not None and bool(_list(data.get("needs_followup"))) != needs_followup:
            continue
        out.append(data)
    return out


def repair(path: str | os.PathLike[str], side_file: str | os.PathLike[str] | None = None
           ) -> list[Diagnostic]:
    """Move the lines `read` reports to `side_file` (default `<path>.rejected`).

    Runs under the writers' lock and rewrites the manifest with its good lines only;
    returns the diagnostics of the lines moved.
    """
    target = Path(path)
    # the lock comes first: it is what fails, as an OSError, on a path that names no
    # file (`.`, `/`), whose name `with_name` could not extend
    with _locked(target, create=False):
        side = Path(side_file) if side_file is not None else target.with_name(
            target.name + ".rejected")
        found = read(target)
        bad_lines = {d.line for d in found.diagnostics if d.code == "SARP501"}
        if not bad_lines:
            return []
        lines = target.read_bytes().split(b"\n")
        keep = [line for n, line in enumerate(lines, 1) if n not in bad_lines and line.strip()]
        moved = [line for n, line in enumerate(lines, 1) if n in bad_lines]
        # the bad lines are safe on disk before the manifest changes, and the manifest is
        # replaced whole: a crash at any point leaves the old file or the new one
        side_fd = os.open(side, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_all(side_fd, b"".join(line + b"\n" for line in moved))
        finally:
            os.close(side_fd)
        fresh = target.with_name(f".{target.name}.repair")
        fresh_fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fresh_fd, b"".join(line + b"\n" for line in keep))
        finally:
            os.close(fresh_fd)
        os.replace(fresh, target)
    return [d for d in found.diagnostics if d.code == "SARP501"]


def check_return_message(text: str) -> list[Diagnostic]:
    """Diagnostics of a subagent's return message (empty when it is an accepted form).

    The accepted forms are the cleo dialect's: `<Type> complete|partial|blocked. See
    MANIFEST.jsonl for summary|details|blocker details.` and the pipeline form.
    """
    from sarp.parsing import parse

    result = parse(text, dialect="cleo")
    if result.fields.get("return_type") is None:
        return [diagnostics.make("SARP507", 1)] + [
            d for d in result.diagnostics if d.severity is DiagnosticSeverity.ERROR]
    return list(result.diagnostics)
