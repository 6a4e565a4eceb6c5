# MANIFEST.jsonl: CLEO's append-only record of what subagents produced (SPEC §8).
#
# Contract:
# - `append` validates an entry (profile `strict`: the JSON Schema rules; `lenient`: the
#   CLI rules), normalises field-name aliases (reported), refuses duplicate ids, and
#   writes it as ONE line with ONE `os.write` under an exclusive `flock` on the file,
#   then fsyncs: many writer processes never interleave or lose lines.
# - `read` is tolerant: a non-JSON line (a torn last line after a crash, a stray line)
#   is reported with its line number and skipped; every other entry is kept; nothing is
#   rewritten. `repair` moves bad lines to a side file, only when asked.
# - An entry's `file` must resolve inside the output directory: absolute paths, `..`
#   and symlinks that escape are rejected.
# Diagnostics use the 5xx range of the one registry.
from __future__ import annotations

import datetime
import fcntl
import json
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from sarp import diagnostics
from sarp.dialects.cleo import ALIASES
from sarp.dialects.cleo import REQUIRED_KEYS as REQUIRED
from sarp.model import Diagnostic, DiagnosticSeverity

__all__ = ["ALIASES", "ManifestError", "ManifestRead", "Profile", "append", "check_return_message",
           "escapes", "normalise", "query", "read", "repair", "validate"]

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
        if canonical in out and out[canonical] != value:
            # two spellings of one key that disagree: keeping either would lose the other
            notes.append(diagnostics.make("SARP503", line, key=canonical,
                                          problem="is given twice with different values"))
        if canonical == key or canonical not in out:
            out[canonical] = value
    return out, notes


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
    status = data.get("status")
    if "status" in data and status not in STATUSES:
        bad("status", f"{status!r} is not one of {', '.join(STATUSES)}")
    for key in ("id", "file", "title"):
        if key in data and not (isinstance(data[key], str) and data[key].strip()):
            bad(key, "is not a non-empty string")
    if "date" in data and not _is_date(data["date"]):
        bad("date", f"{data['date']!r} is not a date written YYYY-MM-DD")
    for key in ("topics", "key_findings", "needs_followup", "linked_tasks"):
        if key in data and not isinstance(data[key], list) and (
                key in REQUIRED or data[key] is not None):
            bad(key, "is not a list")
    if "actionable" in data and not isinstance(data["actionable"], bool):
        bad("actionable", f"{data['actionable']!r} is not true or false")
    agent_type = data.get("agent_type")
    allowed = STRICT_AGENT_TYPES if profile == "strict" else LENIENT_AGENT_TYPES
    if agent_type is not None and agent_type not in allowed and not (
            profile == "lenient" and isinstance(agent_type, str) and
            agent_type.startswith("ct-")):
        bad("agent_type", f"{agent_type!r} is not one of {', '.join(allowed)}")
    if profile == "strict":
        _strict(data, bad)
    if output_dir is not None and isinstance(data.get("file"), str):
        problem = escapes(data["file"], output_dir)
        if problem:
            found.append(diagnostics.make("SARP506", line, file=data["file"], problem=problem))
    return found


def _strict(data: dict[str, Any], bad: Any) -> None:
    """The JSON Schema rules (schemas/research-manifest.schema.json)."""
    if isinstance(data.get("id"), str) and not _STRICT_ID.fullmatch(data["id"]):
        bad("id", f"{data['id']!r} is not <slug>-YYYY-MM-DD")
    if isinstance(data.get("file"), str) and not _STRICT_FILE.fullmatch(data["file"]):
        bad("file", f"{data['file']!r} is not YYYY-MM-DD_<slug>.md")
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
            bad("needs_followup", f"item {item!r} is not T<number> or BLOCKED:<reason>")
    for item in _list(data.get("linked_tasks")):
        if not (isinstance(item, str) and _TASK.fullmatch(item)):
            bad("linked_tasks", f"item {item!r} is not T<number>")


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


def escapes(path: str, output_dir: str | os.PathLike[str]) -> str | None:
    """Why `path` is not a file inside `output_dir`, or None when it is."""
    if "\0" in path:
        return "contains a NUL byte"
    if "\\" in path:
        # on Windows `..\x` climbs out and `C:\x` is absolute; refuse them everywhere
        return "uses backslashes"
    if os.path.isabs(path) or _DRIVE.match(path):
        return "is an absolute path"
    if ".." in Path(path).parts:
        return "climbs out with .."
    root = Path(output_dir).resolve()
    target = (root / path).resolve()  # follows symlinks
    if not target.is_relative_to(root):
        return "resolves (through a symlink) outside the output directory"
    if target == root or path.endswith("/") or target.is_dir():
        return "names a directory, not a file"
    return None


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
    line = (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
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
            try:
                found = json.loads(raw_line)
            except ValueError:
                continue
            if isinstance(found, dict) and found.get("id") == wanted:
                return True
    return False


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
        text = raw_line.decode("utf-8", errors="replace")
        try:
            entry = json.loads(text)
        except ValueError:
            torn = n == len(lines) and not data.endswith(b"\n")
            out.diagnostics.append(diagnostics.make(
                "SARP501", n, what="a torn last line (a writer stopped mid-line)" if torn
                else "not a JSON line"))
            continue
        if not isinstance(entry, dict):
            out.diagnostics.append(diagnostics.make("SARP501", n, what="not a JSON object"))
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
        if task is not None and data.get("task_id") != task and task not in (
                _list(data.get("linked_tasks"))) and not str(data.get("id", "")).startswith(
                    f"{task}-"):
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
    side = Path(side_file) if side_file is not None else target.with_name(
        target.name + ".rejected")
    with _locked(target, create=False):
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
