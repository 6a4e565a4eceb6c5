"""MANIFEST.jsonl: validation profiles, aliases, safe concurrent append, tolerant read."""
from __future__ import annotations

import errno
import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sarp import manifest
from sarp.manifest import ManifestError


def entry(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "auth-flow-2026-11-21", "file": "2026-11-21_auth-flow.md",
        "title": "Auth flow research", "date": "2026-11-21", "status": "complete",
        "agent_type": "research", "topics": ["auth", "sessions"],
        "key_findings": ["Tokens never expire", "Refresh is unused", "Logout is local"],
        "actionable": True, "needs_followup": ["T12"], "linked_tasks": ["T10"],
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def codes(found: list[Any]) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in found]


# (name, entry changes, strict codes, lenient codes)
CASES: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    ("valid", {}, [], []),
    ("missing title", {"title": None}, ["SARP502"], ["SARP502"]),
    ("bad status", {"status": "done"}, ["SARP503"], ["SARP503"]),
    ("bad date", {"date": "21/11/2026"}, ["SARP503"], ["SARP503"]),
    ("topics not a list", {"topics": "auth"}, ["SARP503"], ["SARP503"]),
    ("actionable not bool", {"actionable": "yes"}, ["SARP503"], ["SARP503"]),
    ("free-form id", {"id": "T12-auth"}, ["SARP503"], []),
    ("file without date", {"file": "auth.md"}, ["SARP503"], []),
    ("two findings", {"key_findings": ["a", "b"]}, ["SARP503"], []),
    ("cli agent type", {"agent_type": "consensus"}, ["SARP503"], []),
    ("skill agent type", {"agent_type": "ct-research-agent"}, ["SARP503"], []),
    ("unknown agent type", {"agent_type": "wizard"}, ["SARP503"], ["SARP503"]),
    ("bad followup", {"needs_followup": ["later"]}, ["SARP503"], []),
    ("blocked followup", {"needs_followup": ["BLOCKED: waiting on keys"]}, [], []),
    ("short title", {"title": "Auth"}, ["SARP503"], []),
    ("impossible date", {"date": "2026-13-45"}, ["SARP503"], ["SARP503"]),
    ("file not a string", {"file": 7}, ["SARP503"], ["SARP503"]),
    ("id not a string", {"id": 5}, ["SARP503"], ["SARP503"]),
    ("title null", {"title": None, "Title": 1}, ["SARP502"], ["SARP502"]),
    ("follow-ups not a list", {"needs_followup": "T1"}, ["SARP503"], ["SARP503"]),
]


@pytest.mark.parametrize(("name", "changes", "strict", "lenient"), CASES,
                         ids=[c[0] for c in CASES])
def test_profiles(name: str, changes: dict[str, Any], strict: list[str],
                  lenient: list[str]) -> None:
    data = entry(**changes)
    assert [d.code for d in manifest.validate(data, "strict")] == strict
    assert [d.code for d in manifest.validate(data, "lenient")] == lenient


def test_missing_keys_are_each_named() -> None:
    found = manifest.validate({"id": "x"}, "lenient")
    assert [d.message for d in found] == [
        f"manifest entry has no {key!r}" for key in
        ("file", "title", "date", "status", "topics", "key_findings", "actionable")]


def test_aliases_are_normalised_and_reported() -> None:
    data = entry(file=None, agent_type=None)
    data.update(outputFile="2026-11-21_auth-flow.md", agentType="research", taskId="T10")
    normal, notes = manifest.normalise(data)
    assert (normal["file"], normal["agent_type"], normal["task_id"]) == (
        "2026-11-21_auth-flow.md", "research", "T10")
    assert codes(notes) == [
        ("SARP504", "manifest key 'outputFile' read as 'file'"),
        ("SARP504", "manifest key 'agentType' read as 'agent_type'"),
        ("SARP504", "manifest key 'taskId' read as 'task_id'"),
    ]
    # aliases are info: the entry is valid in both profiles
    assert [d.code for d in manifest.validate(data, "strict")] == ["SARP504"] * 3


def test_canonical_key_wins_over_alias() -> None:
    normal, notes = manifest.normalise({"output": "a.md", "file": "a.md"})
    assert normal == {"file": "a.md"} and [d.code for d in notes] == ["SARP504"]


@pytest.mark.parametrize("keys", [("output", "outputFile"), ("file", "output"),
                                  ("output", "file")])
def test_disagreeing_spellings_are_an_error(keys: tuple[str, str]) -> None:
    data = entry(file=None)
    data.update({keys[0]: "a.md", keys[1]: "b.md"})
    found = [(d.code, d.message) for d in manifest.validate(data)]
    assert ("SARP503", "manifest entry 'file' is given twice with different values") in found


@pytest.mark.parametrize(("path", "problem"), [
    ("/etc/passwd", "is an absolute path"),
    ("../secrets.md", "climbs out with .."),
    ("notes/../../x.md", "climbs out with .."),
    ("link/x.md", "resolves (through a symlink) outside the output directory"),
    ("ok/2026-11-21_a.md", None),
    ("..\\..\\etc\\passwd", "uses backslashes"),
    ("C:\\Windows\\x", "uses backslashes"),
    ("C:foo.md", "is an absolute path"),
    ("a\0b.md", "contains a NUL byte"),
    ("", "names a directory, not a file"),
    (".", "names a directory, not a file"),
    ("ok/", "names a directory, not a file"),
    ("ok", "names a directory, not a file"),
])
def test_file_must_stay_inside_output_dir(tmp_path: Path, path: str,
                                          problem: str | None) -> None:
    out = tmp_path / "out"
    (out / "ok").mkdir(parents=True)
    (out / "link").symlink_to(tmp_path)
    assert manifest.escapes(path, out) == problem
    found = manifest.validate(entry(file=path), "lenient", output_dir=out)
    expected = [] if problem is None else ["SARP506"]
    assert [d.code for d in found] == (["SARP503", *expected] if path == "" else expected)


def test_append_then_read(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    first = manifest.append(path, entry())
    second = manifest.append(path, entry(id="T11-cache", output="cache.md", file=None))
    assert second["file"] == "cache.md" and "output" not in second
    read = manifest.read(path)
    assert read.diagnostics == []
    assert read.entries == [(1, first), (2, second)]
    assert path.read_text().count("\n") == 2


def test_append_refuses_invalid_entry_with_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    with pytest.raises(ManifestError) as caught:
        manifest.append(path, entry(status="done", date="soon"), profile="strict")
    assert [d.code for d in caught.value.diagnostics] == ["SARP503", "SARP503"]
    assert not path.exists() or path.read_text() == ""


def test_append_refuses_duplicate_id(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    manifest.append(path, entry())
    with pytest.raises(ManifestError) as caught:
        manifest.append(path, entry(title="Another title"))
    assert codes(caught.value.diagnostics) == [
        ("SARP505", "manifest id 'auth-flow-2026-11-21' is already used")]
    assert len(manifest.read(path).entries) == 1


def test_duplicate_id_found_whatever_its_escaping(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    line = json.dumps(entry(id="a/b")).replace("a/b", "a\\/b")
    path.write_text(line + "\n")
    with pytest.raises(ManifestError):
        manifest.append(path, entry(id="a/b"))


def test_repair_of_a_missing_manifest_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        manifest.repair(tmp_path / "nope.jsonl")
    assert not (tmp_path / "nope.jsonl").exists()


def test_append_refuses_escaping_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as caught:
        manifest.append(tmp_path / "M.jsonl", entry(file="../../etc/x.md"),
                        output_dir=tmp_path)
    assert [d.code for d in caught.value.diagnostics] == ["SARP506"]


def test_read_reports_duplicates_written_by_others(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    line = json.dumps(entry())
    path.write_text(f"{line}\n{line}\n")
    read = manifest.read(path)
    assert len(read.entries) == 2  # kept: the reader reports, it does not decide
    assert [(d.code, d.line) for d in read.diagnostics] == [("SARP505", 2)]


def test_torn_last_line_is_reported_and_earlier_entries_kept(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    manifest.append(path, entry())
    manifest.append(path, entry(id="b-2026-11-21"))
    with open(path, "ab") as handle:  # a writer killed mid-line
        handle.write(json.dumps(entry(id="c-2026-11-21")).encode()[:40])
    before = path.read_bytes()
    read = manifest.read(path)
    assert [e["id"] for _, e in read.entries] == ["auth-flow-2026-11-21", "b-2026-11-21"]
    assert [(d.code, d.line, d.message) for d in read.diagnostics] == [
        ("SARP501", 3, "manifest line skipped: a torn last line (a writer stopped mid-line);"
         " the entries before and after it are kept")]
    assert path.read_bytes() == before  # reading never rewrites
    # the next writer starts on a fresh line: only the torn line stays bad
    manifest.append(path, entry(id="d-2026-11-21"))
    read = manifest.read(path)
    assert [e["id"] for _, e in read.entries] == [
        "auth-flow-2026-11-21", "b-2026-11-21", "d-2026-11-21"]
    assert [(d.code, d.line) for d in read.diagnostics] == [("SARP501", 3)]


def test_repair_moves_bad_lines_aside(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    good = json.dumps(entry())
    path.write_text(f"{good}\nnot json\n[1, 2]\n\n{json.dumps(entry(id='b'))}\n{{\"id\": ")
    moved = manifest.repair(path)
    assert [(d.code, d.line) for d in moved] == [("SARP501", 2), ("SARP501", 3),
                                                 ("SARP501", 6)]
    assert (tmp_path / "MANIFEST.jsonl.rejected").read_text() == (
        'not json\n[1, 2]\n{"id": \n')
    read = manifest.read(path)
    assert read.diagnostics == [] and [e["id"] for _, e in read.entries] == [
        "auth-flow-2026-11-21", "b"]
    assert manifest.repair(path) == []  # nothing left to move


def test_query(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    manifest.append(path, entry())
    manifest.append(path, entry(id="T12-cache", status="partial", needs_followup=[],
                                taskId="T12", linked_tasks=[]))
    manifest.append(path, entry(id="T13-db", status="blocked",
                                needs_followup=["BLOCKED: no credentials"]))
    entries = manifest.read(path).entries

    def ids(**conditions: Any) -> list[str]:
        return [e["id"] for e in manifest.query(entries, **conditions)]

    assert ids(id="T12-cache") == ["T12-cache"]
    assert ids(task="T12") == ["T12-cache"]
    assert ids(task="T10") == ["auth-flow-2026-11-21", "T13-db"]  # linked_tasks
    assert ids(status="blocked") == ["T13-db"]
    assert ids(needs_followup=True) == ["auth-flow-2026-11-21", "T13-db"]
    assert ids(needs_followup=False, status="partial") == ["T12-cache"]


def _writer(path: str, worker: int, count: int) -> None:
    for n in range(count):
        manifest.append(path, entry(id=f"w{worker}-{n}", title=f"Worker {worker} entry {n}",
                                    key_findings=["x" * (n % 50)] * 3))


def test_concurrent_writers_lose_and_interleave_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "MANIFEST.jsonl")
    workers, count = 8, 200
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_writer, args=(path, w, count))
                 for w in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    lines = Path(path).read_text().split("\n")
    assert lines[-1] == "" and len(lines) == workers * count + 1
    ids = [json.loads(line)["id"] for line in lines[:-1]]  # every line valid JSON
    assert sorted(ids) == sorted(f"w{w}-{n}" for w in range(workers) for n in range(count))
    read = manifest.read(path)
    assert read.diagnostics == [] and len(read.entries) == workers * count


def _killed_writer(path: str) -> None:
    manifest.append(path, entry(id="before-kill"))
    with open(path, "ab") as handle:
        handle.write(b'{"id": "mid-write", "title": "cut sh')
        handle.flush()
        os._exit(9)  # dies without finishing its line


def test_killed_writer_leaves_earlier_entries_readable(tmp_path: Path) -> None:
    path = str(tmp_path / "MANIFEST.jsonl")
    manifest.append(path, entry())
    process = multiprocessing.get_context("fork").Process(target=_killed_writer,
                                                           args=(path,))
    process.start()
    process.join(timeout=60)
    assert process.exitcode == 9
    read = manifest.read(path)
    assert [e["id"] for _, e in read.entries] == ["auth-flow-2026-11-21", "before-kill"]
    assert [(d.code, d.line) for d in read.diagnostics] == [("SARP501", 3)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Research complete. See MANIFEST.jsonl for summary.", []),
    ("Implementation partial. See MANIFEST.jsonl for details.", []),
    ("Validation blocked. See MANIFEST.jsonl for blocker details.", []),
    ("Decomposition complete. Manifest appended to pipeline_manifest.", []),
    ("Research completed. see MANIFEST.jsonl for summary", ["SARP406"]),
    ("Research complete. See MANIFEST.jsonl for summary.\nAlso I fixed the README.",
     ["SARP410"]),
    ("I looked into it and everything seems fine.", ["SARP507"]),
    ("", ["SARP507"]),
])
def test_return_messages(text: str, expected: list[str]) -> None:
    assert [d.code for d in manifest.check_return_message(text)
            if d.code != "SARP001"] == expected


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            *argv: str, stdin: str = "") -> tuple[int, str, str]:
    import io

    from sarp.cli.main import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_append_validate_query_repair(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "MANIFEST.jsonl")
    aliased = entry(file=None, outputFile="2026-11-21_auth-flow.md")
    assert run_cli(capsys, monkeypatch, "manifest", "append", path,
                   stdin=json.dumps(aliased)) == (
        0, json.dumps(manifest.normalise(aliased)[0], separators=(",", ":")) + "\n",
        "<stdin>:1:1: SARP504 manifest key 'outputFile' read as 'file'\n")
    code, out, err = run_cli(capsys, monkeypatch, "manifest", "append", path,
                             stdin=json.dumps(entry(file="../up.md", status="done")))
    assert (code, out, err) == (1, "", (
        "<stdin>:1:1: SARP503 manifest entry 'status' 'done' is not one of complete,"
        " partial, blocked, archived\n"
        "<stdin>:1:1: SARP506 manifest file '../up.md' climbs out with ..\n"))
    assert run_cli(capsys, monkeypatch, "manifest", "append", path, stdin="[1]")[0] == 2
    with open(path, "a") as handle:
        handle.write('{"id": "torn')
    assert run_cli(capsys, monkeypatch, "manifest", "validate", path, "--profile",
                   "strict") == (1, f"{path}:2:1: SARP501 manifest line skipped: a torn last"
                                 " line (a writer stopped mid-line); the entries before and"
                                 " after it are kept\n", "")
    code, out, _ = run_cli(capsys, monkeypatch, "manifest", "query", path, "--task", "T10")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [
        "auth-flow-2026-11-21"]
    assert run_cli(capsys, monkeypatch, "manifest", "repair", path)[2] == (
        f"{path}: 1 line(s) moved to {path}.rejected\n")
    assert run_cli(capsys, monkeypatch, "manifest", "validate", path) == (
        0, "", f"{path}: 1 entries, valid (lenient)\n")
    assert run_cli(capsys, monkeypatch, "manifest", "validate",
                   str(tmp_path / "missing.jsonl"))[0] == 2


def test_cli_check_return(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    good, loose = tmp_path / "good.txt", tmp_path / "loose.txt"
    good.write_text("Research complete. See MANIFEST.jsonl for summary.\n")
    loose.write_text("research completed, see manifest.jsonl\n")
    assert run_cli(capsys, monkeypatch, "manifest", "check-return", str(good)) == (0, "", "")
    code, out, _ = run_cli(capsys, monkeypatch, "manifest", "check-return", str(good),
                           str(loose))
    assert code == 1 and out.startswith(f"{loose}:1:1: SARP")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_read_never_raises(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    read = manifest.read(path)
    good = [line for line in data.split(b"\n") if line.strip()]
    assert len(read.entries) + sum(d.code == "SARP501" for d in read.diagnostics) == len(good)


@given(value=st.dictionaries(st.sampled_from([*manifest.REQUIRED, *manifest.ALIASES,
                                              "needs_followup", "linked_tasks", "x"]),
                             JSON, max_size=12),
       profile=st.sampled_from(["strict", "lenient"]))
def test_validate_and_query_never_raise(value: dict[str, Any], profile: Any) -> None:
    for diag in manifest.validate(value, profile):
        assert diag.code.startswith("SARP50")
    manifest.query([(1, value)], id="x", task="T1", status="complete", needs_followup=True)


def test_cli_bad_paths_are_not_crashes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "MANIFEST.jsonl")
    code, out, err = run_cli(capsys, monkeypatch, "manifest", "append", path,
                             stdin=json.dumps(entry(file="a\x00b.md")))
    assert (code, out) == (1, "") and "SARP506 manifest file 'a\\x00b.md' contains a NUL" in err
    code, _, err = run_cli(capsys, monkeypatch, "manifest", "repair",
                           str(tmp_path / "typo.jsonl"))
    assert code == 2 and "cannot repair" in err and not (tmp_path / "typo.jsonl").exists()


def test_repair_while_writers_append_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    path.write_text("not json\n")
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_writer, args=(str(path), w, 150)) for w in range(4)]
    for process in processes:
        process.start()
    while len(path.read_bytes()) < 20_000 and any(p.is_alive() for p in processes):
        pass  # let the writers get going
    moved = manifest.repair(path)  # replaces the file while writers hold the old one
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    assert [(d.code, d.line) for d in moved] == [("SARP501", 1)]
    read = manifest.read(path)
    assert read.diagnostics == [] and len(read.entries) == 600
    assert (tmp_path / "MANIFEST.jsonl.rejected").read_text() == "not json\n"


# ADV16 #10: what an agent writes in an entry or a line never ends in a traceback. One
# table per way it used to: a `file` the OS cannot look up, a line the JSON decoder
# cannot follow, a value UTF-8 or JSON cannot write, output a stream cannot encode.

def nested_text(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def manifest_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                 *argv: str, stdin: str = "") -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, monkeypatch, "manifest", *argv, stdin=stdin)
    assert "Traceback" not in err and "internal error" not in err
    return code, out, err


LOOKUP_FAILED = f"cannot be looked up: {os.strerror(errno.ELOOP)}"
NAME_TOO_LONG = f"cannot be looked up: {os.strerror(errno.ENAMETOOLONG)}"

# (case, file, what escapes() says, the code validate gives)
FILES_THE_OS_CANNOT_LOOK_UP: list[tuple[str, str, str, str]] = [
    ("symlink loop", "loop", LOOKUP_FAILED, "SARP506"),
    ("file under a symlink loop", "loop/2026-11-21_a.md", LOOKUP_FAILED, "SARP506"),
    ("name too long", "a" * 300 + ".md", NAME_TOO_LONG, "SARP506"),
    ("path too long", "/".join(["d" * 200] * 30) + "/a.md", NAME_TOO_LONG, "SARP506"),
    # no file name holds a lone surrogate; validate says so once, as a bad value
    ("lone high surrogate", "\ud800.md", "contains a lone surrogate (\\ud800)", "SARP503"),
    ("lone low surrogate", "a/\udcff.md", "contains a lone surrogate (\\udcff)", "SARP503"),
]


@pytest.mark.parametrize(("case", "file", "problem", "code"), FILES_THE_OS_CANNOT_LOOK_UP,
                         ids=[c[0] for c in FILES_THE_OS_CANNOT_LOOK_UP])
def test_file_the_os_cannot_look_up_is_a_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: str, file: str, problem: str, code: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "loop").symlink_to("loop")
    path = out / "MANIFEST.jsonl"
    assert manifest.escapes(file, out) == problem
    assert [d.code for d in manifest.validate(entry(file=file), output_dir=out)] == [code]
    with pytest.raises(ManifestError) as caught:
        manifest.append(path, entry(file=file), output_dir=out)
    assert [d.code for d in caught.value.diagnostics] == [code]

    text = json.dumps(entry(file=file))  # ASCII: a surrogate travels as its \u escape
    status, printed, err = manifest_cli(capsys, monkeypatch, "append", str(path), stdin=text)
    assert (status, printed) == (1, "") and f"<stdin>:1:1: {code} " in err
    assert not path.exists() or path.read_bytes() == b""
    path.write_text(text + "\n")
    status, printed, _ = manifest_cli(capsys, monkeypatch, "validate", str(path))
    assert status == 1 and printed.startswith(f"{path}:1:1: {code} ")


# (case, line, what SARP501 says): lines nested past what the decoder or `==` can follow
LINES_NESTED_TOO_DEEP: list[tuple[str, str]] = [
    ("100,000 open brackets", "[" * 100_000),
    ("an array nested 5,000 deep", nested_text(5_000)),
    ("a value nested 5,000 deep", '{"id":"deep-2026-11-21","x":' + nested_text(5_000) + "}"),
    ("a value nested 150 deep", '{"id":"deep-2026-11-21","x":' + nested_text(150) + "}"),
]


@pytest.mark.parametrize(("case", "line"), LINES_NESTED_TOO_DEEP,
                         ids=[c[0] for c in LINES_NESTED_TOO_DEEP])
def test_line_nested_too_deep_is_skipped_and_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: str, line: str) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    path.write_text(f"{json.dumps(entry())}\n{line}\n")
    skipped = [("SARP501", 2, "manifest line skipped: nested more than 100 levels deep;"
                " the entries before and after it are kept")]
    read = manifest.read(path)
    assert [(d.code, d.line, d.message) for d in read.diagnostics] == skipped
    assert [e["id"] for _, e in read.entries] == ["auth-flow-2026-11-21"]
    # the duplicate check decodes the line too (it holds the id), and sees no entry there
    assert manifest.append(path, entry(id="deep-2026-11-21"))["id"] == "deep-2026-11-21"

    status, printed, _ = manifest_cli(capsys, monkeypatch, "validate", str(path))
    assert status == 1 and printed.startswith(f"{path}:2:1: SARP501 manifest line skipped:"
                                              " nested more than 100 levels deep")
    status, printed, _ = manifest_cli(capsys, monkeypatch, "query", str(path))
    assert status == 0 and [json.loads(text)["id"] for text in printed.splitlines()] == [
        "auth-flow-2026-11-21", "deep-2026-11-21"]
    status, _, err = manifest_cli(capsys, monkeypatch, "repair", str(path))
    assert status == 0 and err.endswith(f"1 line(s) moved to {path}.rejected\n")
    assert (tmp_path / "MANIFEST.jsonl.rejected").read_text() == line + "\n"


def test_duplicate_check_reads_lines_as_read_does(tmp_path: Path) -> None:
    # `read` keeps a line whose bytes are not all UTF-8; the duplicate check must see it
    path = tmp_path / "MANIFEST.jsonl"
    path.write_bytes(json.dumps(entry()).replace("Auth flow", "Auth \\/ flow").encode()
                     .replace(b"research\"", b"research\xff\"", 1) + b"\n")
    assert [e["id"] for _, e in manifest.read(path).entries] == ["auth-flow-2026-11-21"]
    with pytest.raises(ManifestError) as caught:
        manifest.append(path, entry())
    assert [d.code for d in caught.value.diagnostics] == ["SARP505"]


# (case, entry changes, key, problem): values an entry cannot be written with, so that
# every JSON reader takes the line back; append refuses them (SARP503), validate reports
VALUES_NO_JSON_READER_TAKES: list[tuple[str, dict[str, Any], str, str]] = [
    ("lone surrogate in id", {"id": "\ud800-2024-01-01"}, "id",
     "contains a lone surrogate (\\ud800), which UTF-8 cannot encode"),
    ("lone surrogate in title", {"title": "Auth \udcff flow"}, "title",
     "contains a lone surrogate (\\udcff), which UTF-8 cannot encode"),
    ("lone surrogate in a list", {"topics": ["auth", "\udfff"]}, "topics",
     "contains a lone surrogate (\\udfff), which UTF-8 cannot encode"),
    ("lone surrogate in a key", {"note\ud800": "x"}, "note\ud800",
     "contains a lone surrogate (\\ud800), which UTF-8 cannot encode"),
    ("NaN", {"score": float("nan")}, "score", "holds NaN, which is not JSON"),
    ("Infinity in a list", {"scores": [1.0, float("-inf")]}, "scores",
     "holds -Infinity, which is not JSON"),
    ("nested 150 deep", {"extra": nested_list(150)}, "extra",
     "is nested more than 100 levels deep"),
]


@pytest.mark.parametrize(("case", "changes", "key", "problem"), VALUES_NO_JSON_READER_TAKES,
                         ids=[c[0] for c in VALUES_NO_JSON_READER_TAKES])
def test_value_no_json_reader_takes_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: str, changes: dict[str, Any], key: str, problem: str) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    refused = [("SARP503", f"manifest entry {key!r} {problem}")]
    assert codes(manifest.validate(entry(**changes))) == refused
    with pytest.raises(ManifestError) as caught:
        manifest.append(path, entry(**changes))
    assert codes(caught.value.diagnostics) == refused
    assert not path.exists() or path.read_bytes() == b""

    # the CLI gets the same entry as JSON text: surrogates as \u escapes, NaN as NaN
    status, printed, err = manifest_cli(capsys, monkeypatch, "append", str(path),
                                        stdin=json.dumps(entry(**changes)))
    assert (status, printed) == (1, "")
    assert f"<stdin>:1:1: SARP503 manifest entry {key!r} {problem}\n" in err
    assert not path.exists() or path.read_bytes() == b""


def test_entry_nested_past_the_decoder_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(entry())[:-1] + ',"extra":' + nested_text(5_000) + "}"
    assert manifest_cli(capsys, monkeypatch, "append", str(tmp_path / "M.jsonl"),
                        stdin=text) == (
        2, "", "sarp: error: <stdin> is not JSON sarp can decode: nested too deep\n")


def test_spellings_nested_too_deep_to_compare_are_refused_not_compared() -> None:
    deep = entry(file=None, output=nested_list(5_000))
    deep["outputFile"] = nested_list(5_000)
    assert [(d.code, d.message) for d in manifest.validate(deep)
            if d.code == "SARP503"] == [
        ("SARP503", "manifest entry 'file' is nested more than 100 levels deep"),
        ("SARP503", "manifest entry 'file' is not a non-empty string")]


def test_output_escapes_what_a_stream_cannot_encode(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # an agent wrote a lone surrogate as a JSON escape: read keeps the entry; query
    # prints it with the same escape instead of failing to encode it
    path = tmp_path / "MANIFEST.jsonl"
    line = json.dumps(entry(id="\ud800-2024-01-01"), separators=(",", ":"),
                      ensure_ascii=False).replace("\ud800", "\\ud800")
    path.write_text(line + "\n")
    status, printed, _ = manifest_cli(capsys, monkeypatch, "query", str(path))
    assert (status, printed) == (0, line + "\n")
    assert json.loads(printed)["id"] == "\ud800-2024-01-01"
    status, printed, _ = manifest_cli(capsys, monkeypatch, "validate", str(path))
    assert (status, printed) == (1, f"{path}:1:1: SARP503 manifest entry 'id' contains a"
                                 " lone surrogate (\\ud800), which UTF-8 cannot encode\n")


@pytest.mark.parametrize("path", [".", "/"])
def test_repair_of_a_directory_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        path: str) -> None:
    assert manifest_cli(capsys, monkeypatch, "repair", path) == (
        2, "", f"sarp: error: cannot repair {path}: Is a directory\n")


def test_long_values_are_shown_cut_short() -> None:
    found = manifest.validate(entry(status="x" * 10_000, agent_type=[nested_list(50)]))
    assert [len(d.message) < 300 for d in found] == [True, True]


ANY_CHARACTER = st.characters(blacklist_categories=())  # lone surrogates included
WILD_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(ANY_CHARACTER,
                                                                      max_size=8),
    lambda inner: st.lists(inner, max_size=3) |
    st.dictionaries(st.text(ANY_CHARACTER, max_size=6), inner, max_size=3), max_leaves=10)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=st.dictionaries(st.text(ANY_CHARACTER, max_size=6), WILD_JSON, max_size=4))
def test_append_writes_only_what_read_gives_back(tmp_path: Path,
                                                 extra: dict[str, Any]) -> None:
    path = tmp_path / "MANIFEST.jsonl"
    path.unlink(missing_ok=True)
    data = {**entry(), **{f"x-{key}": value for key, value in extra.items()}}
    try:
        written = manifest.append(path, data)
    except ManifestError as refused:
        assert {d.code for d in refused.diagnostics} == {"SARP503"}
        assert not path.exists() or path.read_bytes() == b""
        return
    assert manifest.read(path).entries == [(1, written)]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=st.sampled_from(["", "loop/", "a" * 250]) |
       st.text(st.sampled_from("a./\0\\") | ANY_CHARACTER, max_size=400),
       rest=st.text(st.sampled_from("a./") | ANY_CHARACTER, max_size=300))
def test_escapes_never_raises(tmp_path: Path, file: str, rest: str) -> None:
    if not (tmp_path / "loop").is_symlink():
        (tmp_path / "loop").symlink_to("loop")
    problem = manifest.escapes(file + rest, tmp_path)
    assert problem is None or isinstance(problem, str)
