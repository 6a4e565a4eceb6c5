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


# A finding's keys as agents spell them; `read` is what the finding holds after parsing
# and `codes` the diagnostics the keys gave. Text under a key that is not a finding field
# is kept in the description: a finding never loses what its agent wrote.
KEYS = [
    ({"severity": "major", "defect": "loses data"}, {"description": "loses data"}, ["SARP408"]),
    ({"Severity": "major", "filePath": "a.py", "lineNumber": 7, "suggestedFix": "close it"},
     {"severity": "major", "location": "a.py:7", "suggestion": "close it"},
     ["SARP408", "SARP408", "SARP408"]),
    ({"file": "a.py", "lines": [29, 30, 31, 65], "issue": "x"},
     {"location": "a.py:29-31", "description": "x"}, ["SARP408"]),
    ({"file": "a.py", "lines": [12, 40], "line": 40, "issue": "x"},
     {"location": "a.py:40"}, ["SARP408"]),
    ({"description": "first", "details": "second"}, {"description": "first\n\nsecond"},
     ["SARP408"]),
    ({"description": "d", "cwe": "CWE-400", "repro": ["step 1", "step 2"]},
     {"description": "d\n\ncwe: CWE-400\n\nrepro: - step 1\n- step 2"},
     ["SARP414", "SARP414"]),
    ({"description": "d", "tags": [], "note": None}, {"description": "d"}, []),
]


@pytest.mark.parametrize(("item", "read", "codes"), KEYS)
def test_finding_keys_as_agents_spell_them(item: dict[str, object], read: dict[str, str],
                                           codes: list[str]) -> None:
    import json

    item = {"severity": "minor", **item}  # a key spelled otherwise replaces it
    reply = json.dumps({"status": "FINDINGS", "findings": [{"id": "F1", **item}]})
    result = sarp.parse(reply, dialect="json")
    (found,) = result.findings
    got = {key: str(getattr(found, key)) if key != "location" else found.location.raw
           for key in read if getattr(found, key) is not None}
    assert got == read
    assert [d.code for d in result.diagnostics] == codes
