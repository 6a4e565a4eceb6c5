# `sarp hook subagent-stop`: a Claude Code SubagentStop hook that re-asks for the format.
#
# Contract (Claude Code hooks): the payload is JSON on stdin with session_id,
# transcript_path, hook_event_name "SubagentStop", stop_hook_active, and, in recent
# versions, agent_id, agent_type, agent_transcript_path and last_assistant_message. The
# hook lets the subagent stop by printing nothing; it keeps it working by printing
# {"decision": "block", "reason": <text>}, and the reason becomes its next instruction.
# This hook:
# - takes the final message from last_assistant_message, else from the last assistant
#   entry of the subagent's transcript (JSONL);
# - parses it in the expected dialect (--dialect, else $SARP_DIALECT, else detected);
# - lets it stop when the reply needs no correction (with --strict: only when
#   conformant), else blocks with `sarp.reask`'s text, at most --max-blocks times per
#   subagent (counted in a small state file, cleared when the reply passes);
# - never blocks for its own reasons: a malformed payload, a missing transcript, or a
#   reply in no protocol while none was asked for lets the subagent stop, with a warning
#   on stderr. It always exits 0.
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from sarp import DIALECTS, Conformance, parse
from sarp.prompts import reask
from sarp.prompts.reask import defects


def _warn(message: str) -> None:
    click.echo(f"sarp hook: {message}", err=True)


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
        return "\n".join(part.get("text", "") for part in content
                         if isinstance(part, dict) and part.get("type") == "text")
    return ""


def final_message(payload: dict[str, Any]) -> str | None:
    """The subagent's last assistant text, from the payload or its transcript."""
    message = payload.get("last_assistant_message")
    if isinstance(message, str) and message.strip():
        return message
    path = payload.get("agent_transcript_path") or payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return None
    last: str | None = None
    with open(path, encoding="utf-8", errors="replace") as transcript:
        for line in transcript:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn or foreign line: the transcript is not ours to judge
            if not isinstance(entry, dict):
                continue
            body = entry.get("message")
            role = body.get("role") if isinstance(body, dict) else None
            if entry.get("type") == "assistant" or role == "assistant":
                text = _text_of(body.get("content") if isinstance(body, dict) else None)
                if text.strip():
                    last = text
    return last


@click.group("hook")
def hook() -> None:
    """Hooks for agent runtimes."""


@hook.command("subagent-stop")
@click.option("--dialect", type=click.Choice(sorted(DIALECTS)), default=None,
              help="Expected dialect (default: $SARP_DIALECT, else detected).")
@click.option("--max-blocks", type=click.IntRange(0, 100), default=2, show_default=True,
              help="How many times one subagent may be sent back.")
@click.option("--strict", is_flag=True, help="Accept only conformant replies.")
@click.option("--state-dir", default=None, help="Where block counts are kept.")
def subagent_stop(dialect: str | None, max_blocks: int, strict: bool,
                  state_dir: str | None) -> int:
    """Check a subagent's final message; block with a re-ask when it is off-format."""
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
        _warn("no final message in the payload or transcript; letting the subagent stop")
        return 0
    wanted = dialect or os.environ.get("SARP_DIALECT") or None
    if wanted is not None and wanted not in DIALECTS:
        _warn(f"unknown dialect {wanted!r} in SARP_DIALECT; detecting instead")
        wanted = None
    result = parse(message, dialect=wanted)
    counter = _state_dir(state_dir) / (_key(payload) + ".json")
    passed = result.conformance is Conformance.CONFORMANT if strict else not [
        d for d in defects(result) if d.severity.value != "info"]
    if passed or (wanted is None and result.dialect == "text"):
        if not passed:
            _warn("the final message follows no result protocol and none was required"
                  " (set --dialect or SARP_DIALECT); letting the subagent stop")
        counter.unlink(missing_ok=True)
        return 0
    blocks = _read_count(counter)
    if blocks >= max_blocks:
        _warn(f"the reply is still off-format after {blocks} re-ask(s); letting the"
              " subagent stop")
        counter.unlink(missing_ok=True)
        return 0
    reason = reask(result) or "Send your result again in the requested format."
    try:
        counter.parent.mkdir(parents=True, exist_ok=True)
        counter.write_text(json.dumps({"blocks": blocks + 1}), encoding="utf-8")
    except OSError as exc:
        _warn(f"cannot record the block count ({exc.strerror or exc}); letting the subagent"
              " stop rather than risk a loop")
        return 0
    click.echo(json.dumps({"decision": "block", "reason": reason}))
    return 0


def _key(payload: dict[str, Any]) -> str:
    """One subagent: its session, agent id and transcript."""
    parts = [str(payload.get(k) or "") for k in ("session_id", "agent_id",
                                                  "agent_transcript_path")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _read_count(path: Path) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    blocks = data.get("blocks") if isinstance(data, dict) else None
    return blocks if isinstance(blocks, int) and blocks >= 0 else 0
