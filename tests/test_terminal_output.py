"""Agent text reaches no terminal with its control characters (ADV16 #13).

A reply's ids, titles, agent names and reasons hold escape sequences: `\\x1b[2K\\x1b[1A`
erases the line above (an earlier lint error), `\\x1b]0;...\\x07` sets the window title,
`\\x1b[8m` hides what follows, and NUL and 8-bit CSI (`\\x9b`) do their own damage. Every
command prints them visibly (`\\x1b`), on a terminal and off it (a CI log shows escape
sequences as a terminal does); the Markdown and HTML reports do too, written to a file
or not. JSON keeps the exact text in its own escapes.

Real CLI runs (`sarp.cli.main.main`) with their output captured.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import sarp
from sarp.cli.main import main
from sarp.cli.output import for_terminal

ESC = "\x1b"
ERASE = f"{ESC}[2K{ESC}[1A"  # erase the line, then go up one: hides what came before
TITLE = f"{ESC}]0;pwned\x07"  # sets the terminal's title
CONCEAL = f"{ESC}[8m"  # what follows is not shown
CSI8 = "\x9b2J"  # the 8-bit CSI: clears the screen where it is honoured
NUL = "\x00"
HOSTILE = (ERASE, TITLE, CONCEAL, CSI8, NUL)
# any control character but tab and newline, raw
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

FINDING_ID = f"F1{ERASE}"
FINDING_TITLE = f"ok{TITLE}{CONCEAL} hidden"


def _run(tmp_path: Path) -> Path:
    """A run folder: a review whose text is full of escape sequences, and a blocked
    agent whose reason is."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "review.json").write_text(json.dumps({
        "status": "FINDINGS", "agent": f"code-reviewer{CONCEAL}",
        "summary": f"two issues{NUL}{CSI8}",
        "findings": [
            {"id": FINDING_ID, "title": FINDING_TITLE, "severity": "bogus"},
            {"id": "F2", "title": f"SQL injection{ERASE}", "severity": "critical",
             "location": f"app/db.py:42{NUL}", "description": f"bad{TITLE}",
             "impact": f"data loss{CSI8}", "suggestion": f"bind{CONCEAL} parameters"}]}),
        encoding="utf-8")
    (run / "blocked.json").write_text(json.dumps({
        "status": "BLOCKED", "agent": f"auditor{TITLE}", "findings": [],
        "blockers": [f"no read permission{ERASE}"]}), encoding="utf-8")
    return run


def _assert_clean(text: str) -> None:
    assert not RAW_CONTROL.search(text), repr(RAW_CONTROL.findall(text))


def _strings(value: object) -> list[str]:
    """Every string in a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    main(list(args))
    out, err = capsys.readouterr()
    return out, err


@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_lint_prints_no_control_character(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          fmt: str) -> None:
    reply = _run(tmp_path) / "review.json"
    out, err = _run_cli(capsys, "lint", str(reply), "--format", fmt)
    _assert_clean(out + err)
    if fmt == "json":  # the exact text, in JSON's escapes
        assert any(FINDING_ID in record["message"] for record in json.loads(out))
    else:
        assert "F1\\x1b[2K\\x1b[1A" in out  # visible: the reader sees something was there


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_parse_prints_no_control_character(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           fmt: str) -> None:
    reply = _run(tmp_path) / "review.json"
    out, err = _run_cli(capsys, "parse", str(reply), "--format", fmt)
    _assert_clean(out + err)
    if fmt == "text":
        assert "ok\\x1b]0;pwned\\x07\\x1b[8m hidden" in out
    else:
        result = json.loads(out.splitlines()[0] if fmt == "jsonl" else out)
        assert [f["id"] for f in result["findings"]] == [FINDING_ID, "F2"]
        assert result["summary"] == f"two issues{NUL}{CSI8}"


def test_parse_on_a_terminal_writes_its_own_styles_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal the output is styled (rich): sarp's own colour codes, none of the
    reply's sequences."""
    reply = _run(tmp_path) / "review.json"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    for command in (["lint", str(reply)], ["parse", str(reply), "--format", "text"]):
        out, err = _run_cli(capsys, *command)
        for sequence in HOSTILE:
            assert sequence not in out + err, (command, sequence)
        assert "\\x1b[2K" in out + err


@pytest.mark.parametrize("fmt", ["markdown", "html", "json", "sarif"])
def test_aggregate_report_on_stdout_holds_no_control_character(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    out, err = _run_cli(capsys, "aggregate", str(_run(tmp_path)), "--format", fmt)
    _assert_clean(out + err)
    if fmt in ("json", "sarif"):  # the exact text, in JSON's escapes
        assert FINDING_TITLE in _strings(json.loads(out))
    else:  # Markdown escapes the backslash and brackets of `\x1b[2K` in a table cell
        assert "SQL injection\\x1b[2K\\x1b[1A" in out.replace("\\\\", "\\").replace("\\[", "[")


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_aggregate_report_file_holds_no_control_character(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    report = tmp_path / f"report.{fmt}"
    out, err = _run_cli(capsys, "aggregate", str(_run(tmp_path)), "--format", fmt,
                        "-o", str(report))
    _assert_clean(out + err + report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("target", sorted(sarp.DIALECTS))
def test_convert_prints_no_control_character(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             target: str) -> None:
    reply = _run(tmp_path) / "review.json"
    out, err = _run_cli(capsys, "convert", str(reply), "--to", target)
    _assert_clean(out + err)


def test_reask_prints_no_control_character(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    reply = _run(tmp_path) / "review.json"
    out, err = _run_cli(capsys, "reask", str(reply))
    _assert_clean(out + err)


def test_a_file_name_with_escapes_is_printed_visibly(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder's file names are as untrusted as its text."""
    name = tmp_path / f"reply{TITLE}.md"
    name.write_text("RESULT: PASS | Type: consistency\n", encoding="utf-8")
    for command in (["lint", str(name)], ["parse", str(name), "--format", "text"],
                    ["lint", str(tmp_path / f"missing{ERASE}.md")]):
        out, err = _run_cli(capsys, *command)
        _assert_clean(out + err)


def test_a_line_break_in_agent_text_starts_no_line_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A diagnostic or a finding is one line: a line break in what the agent wrote would
    start a line that reads as sarp's own (`file:1:1: SARP...`) in a CI log."""
    reply = tmp_path / "r.json"
    forged = "\nfake.md:1:1: SARP000 all good"
    reply.write_text(json.dumps({"status": "FINDINGS", "findings": [
        {"id": f"F1{forged}", "title": "t", "severity": f"bogus{forged}",
         "location": "a.py:1", "description": "d"}]}), encoding="utf-8")
    for command in (["lint", str(reply)], ["lint", str(reply), "--format", "github"],
                    ["parse", str(reply), "--format", "text"],
                    ["convert", str(reply), "--to", "aphelion"]):
        out, err = _run_cli(capsys, *command)
        lines = (out + err).splitlines()
        assert not [line for line in lines if line.startswith("fake.md")], command
        assert any("\\x0afake.md" in line or "%0Afake.md" in line for line in lines), command


def test_for_terminal_keeps_tabs_and_lines_and_json_its_value() -> None:
    assert for_terminal(f"a\tb\nc{ESC}[2K{NUL}\r") == "a\tb\nc\\x1b[2K\\x00\\x0d"
    assert for_terminal("a\tb\nc", one_line=True) == "a\tb\\x0ac"
    encoded = json.dumps({"t": f"x{CSI8}{ESC}\x7f"}, ensure_ascii=False)
    shown = for_terminal(encoded, is_json=True)
    _assert_clean(shown)
    assert json.loads(shown) == {"t": f"x{CSI8}{ESC}\x7f"}
