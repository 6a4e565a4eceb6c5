"""The command line: outputs, formats and exit codes, driven through main(argv)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sarp import Diagnostic, DiagnosticSeverity
from sarp.cli.common import format_diagnostic
from sarp.cli.main import main

CLEAN = """RESULT: CLEAN | Type: digest | Doc: README.md | Sections: 3 | Entities: 2 | Cross-refs: 0
---
**Protocol**: v1
**Agent**: doc-reader
**Assigned**: digest README.md
**Scope**: README.md
**Coverage**: 100%
**Confidence**: high
---

Three sections, two entities, no cross-references.
"""
DRIFTED = """Here's what I found.

RESULT: FINDINGS | Type: consistency | Pair: api.md/impl.md | Findings: 3 | Critical: 0 | Major: 1 | Minor: 1

| ID | Severity | Type | Location | Counter-location | Description | Suggestion |
|----|----------|------|----------|------------------|-------------|------------|
| F1 | Major | contradiction | api.md § Errors (L40-44) | `impl.py:88` | Doc says 404, code returns 400 | Return 404 |
| F2 | minor | stale-content | api.md:12 | -- | Mentions removed flag `--fast` |

Nothing else stood out.
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in {"clean.md": CLEAN, "drifted.md": DRIFTED}.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def test_parse_json(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", files["drifted.md"], "--no-raw"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == files["drifted.md"]
    assert (data["dialect"], data["status"], data["conformance"]) == (
        "clarity", "FINDINGS", "repaired")
    assert "raw" not in data
    assert [f["id"] for f in data["findings"]] == ["F1", "F2"]


def test_parse_several_files_jsonl(files: dict[str, str],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", files["clean.md"], files["drifted.md"], "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["CLEAN", "FINDINGS"]
    assert json.loads(lines[0])["raw"] == CLEAN


def test_parse_text_format(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", files["drifted.md"], "--format", "text"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == (
        f"{files['drifted.md']}: clarity FINDINGS (repaired, complete), 2 finding(s)")
    assert f"{files['drifted.md']}:3:1: SARP104 " in err


def test_parse_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CLEAN.encode())))
    assert main(["parse", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["id"], data["status"], data["conformance"]) == (
        "<stdin>", "CLEAN", "conformant")


def test_lint_clean_exits_0(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", files["clean.md"]]) == 0
    assert capsys.readouterr().out == ""


def test_lint_warnings_exit_0_unless_strict(files: dict[str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", files["drifted.md"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{files['drifted.md']}:3:1: SARP104 summary line is not the first line;"
                      " 1 line(s) before it read as part of the reply")
    assert f"{files['drifted.md']}:8:1: SARP205 row F2 has 6 of 7 cells; Suggestion left empty" \
        in out
    assert main(["lint", "--strict", files["drifted.md"]]) == 1


def test_lint_errors_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.md"
    empty.write_text("", encoding="utf-8")
    assert main(["lint", str(empty)]) == 1
    assert capsys.readouterr().out == f"{empty}:1:1: SARP001 the reply is empty; status set" \
                                      " to ERROR\n"


@pytest.mark.parametrize("text", ["", "  \n", "\n\n"], ids=["no text", "blank", "newlines"])
def test_empty_reply_is_placed_at_1_1_in_every_format(text: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Every diagnostic has a 1-based line and column, the same in JSON as in text."""
    empty = tmp_path / "empty.md"
    empty.write_text(text, encoding="utf-8")
    assert main(["lint", str(empty), "--format", "json"]) == 1
    [record] = json.loads(capsys.readouterr().out)
    assert (record["code"], record["line"], record["column"]) == ("SARP001", 1, 1)
    assert main(["lint", str(empty)]) == 1
    assert capsys.readouterr().out.startswith(f"{empty}:1:1: SARP001 ")

def test_lint_json_and_github(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", files["drifted.md"], "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0] == {
        "file": files["drifted.md"], "code": "SARP104", "severity": "info", "line": 3,
        "column": 1, "message": "summary line is not the first line; 1 line(s) before it"
        " read as part of the reply", "hint": "Make the RESULT line the first line of the reply."}
    assert main(["lint", files["drifted.md"], "--format", "github"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (f"::notice file={files['drifted.md']},line=3,col=1,title=SARP104::summary"
                     " line is not the first line; 1 line(s) before it read as part of the reply")


@pytest.mark.parametrize(("name", "message", "annotation"), [
    ("rev,v2:final.md", "cut off", "::warning file=rev%2Cv2%3Afinal.md,line=3,col=1,"
     "title=SARP002::cut off"),
    ("100%.md", "50% done\r\nthen: stop, here",
     "::warning file=100%25.md,line=3,col=1,title=SARP002::50%25 done%0D%0Athen: stop, here"),
    ("a%2C.md", "%0A stays literal", "::warning file=a%252C.md,line=3,col=1,title=SARP002::"
     "%250A stays literal"),
])
def test_github_annotations_escape_properties_and_message(name: str, message: str,
                                                          annotation: str) -> None:
    """GitHub's rules: `%`, CR and LF everywhere, and `:` and `,` in property values."""
    diag = Diagnostic(code="SARP002", severity=DiagnosticSeverity.WARNING, line=3, column=1,
                      message=message)
    assert format_diagnostic(name, diag, "github") == annotation


def test_lint_github_escapes_the_file_name(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "rev,v2:final.md"
    reply.write_text(DRIFTED, encoding="utf-8")
    assert main(["lint", str(reply), "--format", "github"]) == 0
    escaped = str(reply).replace(",", "%2C").replace(":", "%3A")
    assert capsys.readouterr().out.startswith(f"::notice file={escaped},line=3,col=1,"
                                              "title=SARP104::")

def test_convert(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", files["drifted.md"], "--to", "adr013"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Review\n")
    assert "### IMPORTANT: Doc says 404, code returns 400" in out
    assert "- **Verdict**: ISSUES FOUND" in out


@pytest.mark.parametrize("argv", [
    ["parse"], ["parse", "--format", "xml", "x"], ["lint", "--nope"], ["convert", "x"],
    ["convert", "x", "--to", "klingon"], ["frobnicate"], ["parse", "--dialect", "nope", "x"],
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(tmp_path / "missing.md")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sarp: error: cannot read ")
    assert "Traceback" not in err


def test_binary_input_is_read_not_rejected(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\xff\xfe\x00RESULT: CLEAN\x80")
    assert main(["parse", str(path), "--no-raw"]) == 0
    assert json.loads(capsys.readouterr().out)["dialect"] in ("clarity", "text")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("sarp, version ")


def test_prompt_schema_and_reask_commands(files: dict[str, str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prompt", "--dialect", "clarity", "--type", "digest"]) == 0
    assert capsys.readouterr().out.startswith(
        "Format your reply in the Structured Agent Result Protocol, type digest.")
    assert main(["prompt", "--dialect", "aphelion", "--agent", "bard"]) == 2
    assert "aphelion has no role 'bard'" in capsys.readouterr().err
    assert main(["schema", "--dialect", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "AgentReply"
    assert main(["reask", files["clean.md"]]) == 0
    assert capsys.readouterr().out == ""
    assert main(["reask", files["drifted.md"]]) == 1
    assert "Write instead: RESULT: FINDINGS | Type: consistency" in capsys.readouterr().out


ROOT = Path(__file__).resolve().parent.parent


def run_sarp(*argv: str, stdout_path: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The real `sarp` in a child process, its stdout opened on `stdout_path`."""
    with open(stdout_path, "w", encoding="utf-8") as stdout:
        return subprocess.run([sys.executable, "-c", "from sarp.cli.main import run; run()",
                               *argv], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, check=False, timeout=60)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [
    ["parse", "examples/asking/reply-2.md"],
    ["lint", "examples/asking/reply-1.md"],
    ["convert", "examples/asking/reply-2.md", "--to", "json"],
    ["reask", "examples/asking/reply-1.md"],
    ["prompt", "--dialect", "adr013"],
    ["stack", "examples/cleo/task-T2401.json"],
    ["aggregate", "examples/review-run"],
    ["aggregate", "examples/review-run", "--fail-on", "major"],
], ids=lambda argv: " ".join(argv))
def test_a_refused_write_to_stdout_is_an_io_error_not_a_bug(argv: list[str]) -> None:
    """Exit 2 with one line, as for an unwritable -o; no traceback, no exit 3."""
    done = run_sarp(*argv, stdout_path="/dev/full")
    assert (done.returncode, done.stderr) == (
        2, "sarp: error: cannot write <stdout>: No space left on device\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_refused_summary_keeps_the_fail_on_exit_code(tmp_path: Path) -> None:
    """With -o the report is written; the summary table on stdout is only decoration."""
    report = tmp_path / "x.sarif"
    done = run_sarp("aggregate", "examples/review-run", "--format", "sarif", "-o", str(report),
                    "--fail-on", "major", stdout_path="/dev/full")
    assert done.returncode == 1
    warning, failing = done.stderr.splitlines()
    assert warning == ("sarp: warning: cannot write <stdout>: No space left on device (the"
                       f" summary; the report is in {report})")
    assert failing.endswith(" finding(s) at or above major")
    assert json.loads(report.read_text(encoding="utf-8"))["version"] == "2.1.0"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_hook_lets_the_subagent_stop_when_its_answer_cannot_be_written(
        tmp_path: Path) -> None:
    payload = json.dumps({"agent_id": "a1", "last_assistant_message": "All done."})
    done = run_sarp("hook", "subagent-stop", "--dialect", "adr013", "--state-dir",
                    str(tmp_path), stdout_path="/dev/full", stdin=payload)
    assert (done.returncode, done.stderr) == (
        0, "sarp hook: cannot write <stdout>: No space left on device; letting the subagent"
        " stop\n")
