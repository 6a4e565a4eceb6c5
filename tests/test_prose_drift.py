"""Prose shapes met in real replies outside the corpus's dialect folders."""
from __future__ import annotations

import json
from pathlib import Path

import sarp

SHLEX = Path(__file__).parent / "review_runs" / "shlex"


def test_numbered_bold_leads_and_nested_items_in_a_plain_review() -> None:
    # `**1. Title (lines 230-238). Medium.**` paragraphs, then `## Nits` with a bullet
    # whose sub-list details it: the author meant 15 findings
    result = sarp.parse((SHLEX / "plain-review.md").read_text())
    meant = json.loads((SHLEX / "plain-review.meaning.json").read_text())["findings"]
    assert result.dialect == "text" and len(result.findings) == len(meant) == 15
    first = result.findings[0]
    assert (first.title, first.native_severity, first.severity.value) == (
        "Non-POSIX mode joins words across a comment (lines 230–238)", "Medium", "major")
    assert result.findings[2].native_severity is None  # no severity said: none invented
    assert result.findings[8].native_severity == "Low"
    last = result.findings[-1]
    assert last.native_severity == "Nit" and "line 243" in (last.description or "")


# The sdd format makes `### Issues` bullets findings; its author listed only the table.
# Its two Issues bullets restate no row (one merely shared a few words with SHX-006 and
# was once folded into it), so each is a finding of its own.
EXTRA = {"sdd-review": 2}


def test_every_review_run_reply_keeps_every_finding() -> None:
    for meaning in sorted(SHLEX.glob("*.meaning.json")):
        name = meaning.name.removesuffix(".meaning.json")
        reply = next(p for p in SHLEX.glob(f"{name}.*") if p != meaning
                     and not p.name.endswith(".prompt.txt"))
        meant = json.loads(meaning.read_text())["findings"]
        found = sarp.parse(reply.read_text()).findings
        assert len(found) == len(meant) + EXTRA.get(name, 0), name
