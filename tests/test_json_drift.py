"""Replies a third reader wrote around JSON (REVIEW11): a JSON reply under a title, with
scope notes or a summary after it, is still the reply; a review that quotes an API's
`{"status": "ERROR", ...}` is not one."""
from __future__ import annotations

from pathlib import Path

import pytest

import sarp

HERE = Path(__file__).parent / "json_drift"

READ = [
    ("j01", "json", 1),  # `## Review:` title, lead-in, fenced reply
    ("j02", "json", 2),  # the fenced reply first, then notes on scope in bullets
    ("j03", "json", 1),  # a fence, then `### Notes`
    ("j04", "json", 1),  # `# Review result`, then a one-line reply
    ("j05", "json", 1),  # a lead-in, a one-line reply, a closing paragraph
    ("j06", "json", 0),  # CLEAN with a `**Summary**` after it: still CLEAN, not PARTIAL
    ("j07", "text", 0),  # a review quoting `{"status": "ERROR", "code": ...}`
]


def test_every_file_has_a_row() -> None:
    assert sorted(p.stem for p in HERE.glob("*.md")) == sorted(name for name, _, _ in READ)


@pytest.mark.parametrize(("name", "dialect", "findings"), READ)
def test_a_json_reply_among_prose(name: str, dialect: str, findings: int) -> None:
    result = sarp.parse((HERE / f"{name}.md").read_text(encoding="utf-8"))
    assert (result.dialect, len(result.findings)) == (dialect, findings)
    if name == "j06":
        assert result.status is sarp.Status.CLEAN
