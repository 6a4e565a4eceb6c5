"""Every reply in tests/data parses to exactly its expected JSON (see golden.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden import DATA, dump, expected_path, replies

REPLIES = replies()


def test_corpus_is_not_empty() -> None:
    assert len(REPLIES) >= 60
    dialects = {p.parent.name for p in REPLIES}
    assert {"clarity", "adr013", "aphelion", "sdd", "cleo", "json", "text"} <= dialects


@pytest.mark.parametrize("reply", REPLIES, ids=lambda p: str(p.relative_to(DATA)))
def test_golden(reply: Path) -> None:
    expected = json.loads(expected_path(reply).read_text(encoding="utf-8"))
    assert dump(reply) == expected
