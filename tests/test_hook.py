"""`sarp hook subagent-stop` on the payload shapes Claude Code sends, through main(argv)."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import sarp
from sarp.cli.main import main

GOOD = sarp.prompt("aphelion", agent="tester").split("Example of a complete reply:\n\n")[1]
BAD = ("AGENT_RESULT: tester\nSTATUS: success\nTOTAL: 5\nPASSED: 3\nFAILED: 0\nSKIPPED: 0\n"
       "NEXT: reviewer\n")


def _payload(**fields: object) -> dict[str, object]:
    return {"session_id": "abc123", "transcript_path": "/tmp/none.jsonl",
            "hook_event_name": "SubagentStop", "stop_hook_active": False,
            "agent_id": "agent-7", "agent_type": "tester", **fields}


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str,
         *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["hook", "subagent-stop", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def state(tmp_path: Path) -> str:
    return str(tmp_path / "state")


def test_conformant_reply_lets_the_subagent_stop(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str],
                                                 state: str) -> None:
    payload = json.dumps(_payload(last_assistant_message=GOOD))
    assert _run(monkeypatch, capsys, payload, "--state-dir", state) == (0, "", "")


def test_off_format_reply_is_blocked_with_the_reask(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    state: str) -> None:
    payload = json.dumps(_payload(last_assistant_message=BAD))
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state,
                          "--dialect", "aphelion")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"decision": "block",
                               "reason": sarp.reask(sarp.parse(BAD, dialect="aphelion"))}
    assert "TOTAL 5 is not PASSED + FAILED + SKIPPED = 3" in json.loads(out)["reason"]


def test_final_message_is_read_from_the_transcript(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   state: str, tmp_path: Path) -> None:
    transcript = tmp_path / "agent.jsonl"
    entries = [
        {"type": "user", "message": {"role": "user", "content": "run the tests"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Running them now."}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Bash", "input": {}}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": BAD}]}},
    ]
    transcript.write_text("\n".join(json.dumps(e) for e in entries) + "\n{torn",
                          encoding="utf-8")
    payload = json.dumps(_payload(agent_transcript_path=str(transcript)))
    code, out, _err = _run(monkeypatch, capsys, payload, "--state-dir", state)
    assert code == 0
    assert json.loads(out)["decision"] == "block"


def _transcript(tmp_path: Path, *contents: object) -> str:
    """A subagent transcript of assistant entries with these contents, in order."""
    path = tmp_path / "agent.jsonl"
    path.write_text("\n".join(json.dumps({"type": "assistant", "message": {
        "role": "assistant", "content": content}}) for content in contents) + "\n",
        encoding="utf-8")
    return str(path)


TOOL_CALL = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]
EMPTY_FINAL_MESSAGES = {
    "empty message": lambda tmp_path: {"last_assistant_message": ""},
    "blank message": lambda tmp_path: {"last_assistant_message": "   \n"},
    "blank message, transcript gone": lambda tmp_path: {
        "last_assistant_message": " ", "agent_transcript_path": str(tmp_path / "gone.jsonl")},
    "ends on a tool call": lambda tmp_path: {"agent_transcript_path": _transcript(
        tmp_path, [{"type": "text", "text": "Reviewing now."}], TOOL_CALL)},
    "ends on blank text": lambda tmp_path: {"agent_transcript_path": _transcript(
        tmp_path, [{"type": "text", "text": GOOD}], [{"type": "text", "text": "\n"}])},
}


@pytest.mark.parametrize("case", list(EMPTY_FINAL_MESSAGES))
def test_an_empty_final_message_is_sent_back_when_a_dialect_is_required(
        case: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        state: str, tmp_path: Path) -> None:
    """The same correction `sarp reask` gives an empty reply, within --max-blocks."""
    payload = json.dumps(_payload(**EMPTY_FINAL_MESSAGES[case](tmp_path)))
    args = ("--state-dir", state, "--dialect", "aphelion", "--max-blocks", "1")
    code, out, err = _run(monkeypatch, capsys, payload, *args)
    assert (code, err) == (0, "")
    reason = json.loads(out)["reason"]
    assert reason == sarp.reask(sarp.parse("", dialect="aphelion"))
    assert "Answer with the result block even when there is nothing to report." in reason
    code, out, err = _run(monkeypatch, capsys, payload, *args)
    assert (code, out) == (0, "")
    assert "still off-format after 1 re-ask(s)" in err


def test_an_empty_final_message_lets_it_stop_when_no_dialect_is_required(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        state: str) -> None:
    monkeypatch.delenv("SARP_DIALECT", raising=False)
    payload = json.dumps(_payload(last_assistant_message=" "))
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state)
    assert (code, out) == (0, "")
    assert err.startswith("sarp hook: the final message is empty and no result protocol was"
                          " required")

def test_missing_transcript_lets_it_stop_with_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str],
                                                        state: str, tmp_path: Path) -> None:
    payload = json.dumps(_payload(agent_transcript_path=str(tmp_path / "gone.jsonl")))
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state)
    assert (code, out) == (0, "")
    assert err.startswith("sarp hook: cannot read the transcript")


@pytest.mark.parametrize("stdin", ["", "{not json", "[1, 2]", '"text"'])
def test_malformed_payload_lets_it_stop_with_a_warning(stdin: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str],
                                                       state: str) -> None:
    code, out, err = _run(monkeypatch, capsys, stdin, "--state-dir", state)
    assert (code, out) == (0, "")
    assert err.startswith("sarp hook: the hook payload is not")


def test_block_cap(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                   state: str) -> None:
    payload = json.dumps(_payload(last_assistant_message=BAD))
    args = ("--state-dir", state, "--dialect", "aphelion", "--max-blocks", "2")
    for _ in range(2):
        code, out, _err = _run(monkeypatch, capsys, payload, *args)
        assert json.loads(out)["decision"] == "block"
    code, out, err = _run(monkeypatch, capsys, payload, *args)
    assert (code, out) == (0, "")
    assert "still off-format after 2 re-ask(s)" in err
    # the count was cleared: a later bad reply of the same subagent is sent back again
    code, out, _err = _run(monkeypatch, capsys, payload, *args)
    assert json.loads(out)["decision"] == "block"


def test_dialect_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str],
                                      state: str) -> None:
    monkeypatch.setenv("SARP_DIALECT", "clarity")
    payload = json.dumps(_payload(last_assistant_message="All done, looks fine to me."))
    code, out, _err = _run(monkeypatch, capsys, payload, "--state-dir", state)
    assert code == 0
    assert "RESULT" in json.loads(out)["reason"]


def test_no_protocol_and_none_required_lets_it_stop(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    state: str) -> None:
    monkeypatch.delenv("SARP_DIALECT", raising=False)
    payload = json.dumps(_payload(last_assistant_message="All done, looks fine to me."))
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state)
    assert (code, out) == (0, "")
    assert "follows no result protocol" in err


@pytest.mark.parametrize("args", [("--dialect", "clarty"), ("--max-blocks", "500"),
                                  ("--no-such-option",)])
def test_option_errors_never_block(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str], state: str) -> None:
    """Claude Code reads exit 2 as "block": a typo in settings must not loop a subagent."""
    payload = json.dumps(_payload(last_assistant_message=BAD))
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state, *args)
    assert (code, out) == (0, "")
    assert err.startswith("sarp hook: ")


@pytest.mark.parametrize(("argv", "warning"), [
    (["subagent-stop", "--wat"], "No such option '--wat'. Letting the subagent stop."),
    (["nonexist"], "No such command 'nonexist'. Letting the subagent stop."),
    (["subagent-stop", "--dialec", "adr013"],
     "No such option '--dialec'. Did you mean '--dialect'? Letting the subagent stop."),
])
def test_usage_error_warnings_read_as_sentences(argv: list[str], warning: str,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """click's message is a sentence; the hook's own part must not be glued on as `.;`."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["hook", *argv]) == 0
    assert capsys.readouterr() == ("", f"sarp hook: {warning}\n")


def test_session_transcript_is_read_only_for_sidechain_entries(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], state: str,
        tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    entries = [
        {"type": "assistant", "isSidechain": True, "message": {"role": "assistant",
                                                               "content": GOOD}},
        {"type": "assistant", "isSidechain": False, "message": {
            "role": "assistant", "content": "Now launching the reviewer."}},
    ]
    transcript.write_text("\n".join(json.dumps(e) for e in entries), encoding="utf-8")
    payload = json.dumps({"session_id": "s", "transcript_path": str(transcript),
                          "agent_id": "a1"})
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state,
                          "--dialect", "aphelion")
    assert (code, out, err) == (0, "", "")


def test_odd_transcripts_and_state_dirs_never_crash(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    transcript = tmp_path / "agent.jsonl"
    transcript.write_text(json.dumps({"type": "assistant", "message": {
        "role": "assistant", "content": [{"type": "text", "text": None}]}}),
        encoding="utf-8")
    payload = json.dumps(_payload(agent_transcript_path=str(transcript)))
    assert _run(monkeypatch, capsys, payload)[:2] == (0, "")
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x", encoding="utf-8")
    for message in (GOOD, BAD):
        code, out, _err = _run(monkeypatch, capsys,
                               json.dumps(_payload(last_assistant_message=message)),
                               "--state-dir", str(not_a_dir), "--dialect", "aphelion")
        assert (code, out) == (0, "")


def test_unidentified_subagents_are_not_blocked(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str],
                                                state: str) -> None:
    payload = json.dumps({"session_id": "s", "last_assistant_message": BAD})
    code, out, err = _run(monkeypatch, capsys, payload, "--state-dir", state,
                          "--dialect", "aphelion")
    assert (code, out) == (0, "")
    assert "does not say which subagent" in err
