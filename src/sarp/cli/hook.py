# `sarp hook subagent-stop`: a Claude Code SubagentStop hook that re-asks for the format.
#
# Contract (Claude Code hooks): the payload is JSON on stdin with session_id,
# transcript_path, hook_event_name "SubagentStop", stop_hook_active, and, in recent
# versions, agent_id, agent_type, agent_transcript_path and last_assistant_message. The
# hook lets the subagent stop by printing nothing; it keeps it working by printing
# {"decision": "block", "reason": <text>}, and the reason becomes its next instruction.
# This hook:
# - takes the final message from last_assistant_message, else from the last assistant
#   entry of the subagent's transcript (JSONL); a last entry without text (the subagent
#   ended on a tool call) is an empty final message, not a reason to look further back;
# - parses it in the expected dialect (--dialect, else $SARP_DIALECT, else detected);
# - lets it stop when the reply is conformant (with --lenient: also when its only
#   remarks are info-level repairs), else blocks with `sarp.reask`'s text, at most
#   --max-blocks times per subagent (counted in a small state file, cleared when the
#   reply passes), and only when the payload says which subagent it is; an empty final
#   message is not conformant to any dialect, so it is sent back when one is required;
# - never blocks for its own reasons: a malformed payload, a missing transcript, or a
#   reply in no protocol (empty included) while none was asked for lets the subagent
#   stop, with a warning on stderr. It always exits 0.
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from sarp import DIALECTS, DiagnosticSeverity, parse
from sarp.cli.common import OutputFailure
from sarp.cli.output import echo, echo_text
from sarp.prompts import reask
from sarp.prompts.reask import defects


def _warn(message: str) -> None:
    echo(f"sarp hook: {message}", err=True)


def _state_dir(option: str | None) -> Path:
    if option:
        return Path(option)
    if os.environ.get("SARP_HOOK_STATE_DIR"):
        return Path(os.environ["SARP_HOOK_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "sarp" / "hooks"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content if isinstance(part, dict)
                         and part.get("type") == "text" and isinstance(part.get("text"), str))
    return ""


def final_message(payload: dict[str, Any]) -> str | None:
    """The subagent's final message, from the payload or its transcript: "" when its last
    turn has no text (blank, or only a tool call), None when neither says anything."""
    message = payload.get("last_assistant_message")
    given = message if isinstance(message, str) else None
    if given is not None and given.strip():
        return given
    # the subagent's own transcript; the session's (transcript_path) holds the parent's
    # messages too, and only its sidechain entries can be the subagent's
    path = payload.get("agent_transcript_path")
    sidechain_only = False
    if not isinstance(path, str) or not path:
        path = payload.get("transcript_path")
        sidechain_only = True
    if not isinstance(path, str) or not path:
        return given
    try:
        last = _last_assistant_text(path, sidechain_only)
    except OSError:
        if given is not None:
            return given  # the payload itself says the message is blank
        raise
    return given if last is None else last


def _last_assistant_text(path: str, sidechain_only: bool) -> str | None:
    """The text of the transcript's last assistant entry ("" when it has none, as when
    the subagent ended on a tool call), or None when there is no assistant entry."""
    last: str | None = None
    with open(path, encoding="utf-8", errors="replace") as transcript:
        for line in transcript:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn or foreign line: the transcript is not ours to judge
            if not isinstance(entry, dict) or (sidechain_only and
                                               entry.get("isSidechain") is not True):
                continue
            body = entry.get("message")
            role = body.get("role") if isinstance(body, dict) else None
            if entry.get("type") == "assistant" or role == "assistant":
                last = _text_of(body.get("content") if isinstance(body, dict) else None)
    return last


@click.group("hook")
def hook() -> None:
    """Hooks for agent runtimes."""


@hook.command("subagent-stop")
@click.option("--dialect", default=None, metavar="DIALECT",
              help="Expected dialect (default: $SARP_DIALECT, else detected).")
@click.option("--max-blocks", default="2", show_default=True, metavar="N",
              help="How many times one subagent may be sent back (0-100).")
@click.option("--lenient", is_flag=True,
              help="Also let replies through whose only remarks are info-level repairs.")
@click.option("--state-dir", default=None, help="Where block counts are kept.")
def subagent_stop(dialect: str | None, max_blocks: str, lenient: bool,
                  state_dir: str | None) -> int:
    """Check a subagent's final message; block with a re-ask when it is off-format.

    Options are checked here, not by click: a usage error would exit 2, which Claude
    Code reads as "block", and a typo in settings would send every subagent back.
    """
    try:
        return _subagent_stop(dialect, max_blocks, lenient, state_dir)
    except OutputFailure as exc:  # the decision could not be written
        _warn(f"{exc}; letting the subagent stop")
        return 0
    except Exception as exc:  # the hook must never break a session: warn and let it stop
        _warn(f"internal error ({type(exc).__name__}: {exc}); letting the subagent stop")
        return 0


def _subagent_stop(dialect: str | None, max_blocks_text: str, lenient: bool,
                   state_dir: str | None) -> int:
    wanted = dialect or os.environ.get("SARP_DIALECT") or None
    if wanted is not None and wanted not in DIALECTS:
        _warn(f"unknown dialect {wanted!r}; letting the subagent stop")
        return 0
    if not max_blocks_text.isdigit() or not 0 <= int(max_blocks_text) <= 100:
        _warn(f"--max-blocks {max_blocks_text!r} is not a number from 0 to 100; letting the"
              " subagent stop")
        return 0
    max_blocks = int(max_blocks_text)
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        _warn("the hook payload is not JSON; letting the subagent stop")
        return 0
    if not isinstance(payload, dict):
        _warn("the hook payload is not a JSON object; letting the subagent stop")
        return 0
    try:
        message = final_message(payload)
    except OSError as exc:
        _warn(f"cannot read the transcript ({exc.strerror or exc}); letting the subagent"
              " stop")
        return 0
    if message is None:
        _warn("no final message of the subagent in the payload or its transcript; letting"
              " the subagent stop")
        return 0
    # an empty final message (blank, or a last turn that is only a tool call) is parsed
    # like any other: with a dialect required it is sent back as `sarp reask` would
    result = parse(message, dialect=wanted)
    remarks = defects(result)
    passed = not remarks or (lenient and all(
        d.severity is DiagnosticSeverity.INFO for d in remarks))
    counter = _state_dir(state_dir) / (_key(payload) + ".json")
    if passed or (wanted is None and result.dialect == "text"):
        if not passed:
            what = ("is empty and no result protocol" if not message.strip()
                    else "follows no result protocol and none")
            _warn(f"the final message {what} was required (set --dialect or SARP_DIALECT);"
                  " letting the subagent stop")
        _forget(counter)
        return 0
    if not (payload.get("agent_id") or payload.get("agent_transcript_path")):
        _warn("the payload does not say which subagent this is, so re-asks cannot be"
              " counted; letting the subagent stop")
        return 0
    blocks = _read_count(counter)
    if blocks >= max_blocks:
        _warn(f"the reply is still off-format after {blocks} re-ask(s); letting the"
              " subagent stop")
        _forget(counter)
        return 0
    reason = reask(result) or "Send your result again in the requested format."
    try:
        counter.parent.mkdir(parents=True, exist_ok=True)
        counter.write_text(json.dumps({"blocks": blocks + 1}), encoding="utf-8")
    except OSError as exc:
        _warn(f"cannot record the block count ({exc.strerror or exc}); letting the subagent"
              " stop rather than risk a loop")
        return 0
    echo_text(json.dumps({"decision": "block", "reason": reason}), is_json=True)
    return 0


def _forget(counter: Path) -> None:
    try:
        counter.unlink(missing_ok=True)
    except OSError as exc:
        _warn(f"cannot clear the block count ({exc.strerror or exc})")


def _key(payload: dict[str, Any]) -> str:
    """One subagent: its session, agent id and transcript."""
    parts = [str(payload.get(k) or "") for k in ("session_id", "agent_id",
                                                  "agent_transcript_path", "agent_type")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _read_count(path: Path) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    blocks = data.get("blocks") if isinstance(data, dict) else None
    return blocks if isinstance(blocks, int) and blocks >= 0 else 0
