"""Finding heads of any length (ADV16 #5) and findings after a dialect's closing part
(ADV16 #4): each is read, never dropped."""
from __future__ import annotations

import pytest

import sarp

# longer than every cap the head patterns had (400 and 500 characters, 200 in a bold
# title), and made of words, so no rule reads it as anything but a title
LONG = ("The handler concatenates user input into SQL which allows injection " * 40)[:2400]
LONG = LONG.strip()

# (reply, dialect, native severity); each reply holds one finding whose title is LONG
HEADS = [
    (f"### CRITICAL: {LONG}\n- **Location**: app/db.py:42\n", "adr013", "CRITICAL"),
    (f"# Code Reviewer Review\n\n## Findings\n\n**CRITICAL: {LONG}**\n"
     "- **Location**: app/db.py:42\n\n## Summary\n- **CRITICAL**: 1\n"
     "- **Verdict**: ISSUES FOUND\n", "adr013", "CRITICAL"),
    (f"#### 🔴 High: {LONG}\n- **Location**: app/db.py:42\n", "adr013", "🔴 High"),
    (f"### WARNING W1: {LONG}\n- **Location**: app/db.py:42\n", "text", "WARNING"),
    (f"### F1 (High): {LONG}\n- **Location**: app/db.py:42\n", "text", "High"),
    (f"### F1 — High: {LONG}\n- **Location**: app/db.py:42\n", "text", "High"),
    (f"RESULT: FINDINGS | Type: review | Findings: 1\n\n### F1: {LONG} (critical)\n\n"
     "at app/db.py:42\n", "clarity", "critical"),
    (f"Review notes\n\n### 1. {LONG} (High)\n\nat app/db.py:42\n", "text", "High"),
    (f"Review notes\n\n## 1. {LONG}. **Medium (security)**\n\nat app/db.py:42\n", "text",
     "Medium"),
    (f"Review notes\n\n### 1. {LONG} — High\n\nat app/db.py:42\n", "text", "High"),
    (f"Review notes\n\n[CRITICAL] C-001 app/db.py:42 - {LONG}\n", "text", "CRITICAL"),
    (f"Review notes\n\n**SEC-1 (CRITICAL) — {LONG}**\n", "text", "CRITICAL"),
    (f"Review notes\n\n**F1 — {LONG} (Medium)**\n\nat app/db.py:42\n", "text", "Medium"),
    (f"### F1 — {LONG} (Medium) — lines 216-230\n", "text", "Medium"),
    (f"Review notes\n\n**WARNING — {LONG}** (`app/db.py:42`)\n", "text", "WARNING"),
    (f"Review notes\n\n**Blocking:** {LONG}\n", "text", "Blocking"),
    (f"Review notes\n\n**1. {LONG} (High)**\nSome text.\n", "text", "High"),
    (f"Review notes\n\n**Issue 1:** {LONG} (High)\n", "text", "High"),
    (f"Review notes\n\n**{LONG}** (app/db.py:42) — High\n", "text", "High"),
]


@pytest.mark.parametrize(("reply", "dialect", "native"), HEADS,
                         ids=[reply[:40] for reply, _, _ in HEADS])
def test_a_finding_head_of_any_length_is_read(reply: str, dialect: str, native: str) -> None:
    result = sarp.parse(reply)
    assert result.dialect == dialect
    assert len(result.findings) == 1, result.diagnostics
    finding = result.findings[0]
    assert finding.native_severity == native
    assert LONG in (finding.title or "")
    # the head's caps were what lost it: the same head, short, reads the same way
    short = sarp.parse(reply.replace(LONG, LONG[:60].strip()))
    assert [f.native_severity for f in short.findings] == [native]
    assert [d.code for d in short.diagnostics] == [d.code for d in result.diagnostics]


def test_a_long_lead_review_head_keeps_its_agent() -> None:
    result = sarp.parse(f"### CRITICAL: {LONG} — code-reviewer\n- **Location**: a.py:1\n")
    assert [(f.title, f.agent) for f in result.findings] == [(LONG, "code-reviewer")]


# numbered heads read the same at any number (the patterns took 1-3 digits)
NUMBERED = [
    ("Review notes\n\n**{n}. Tokens leak into logs (a.py:1). High.**\nSome text.\n",
     "Tokens leak into logs (a.py:1)", "High"),
    ("### {n}. CRITICAL: Tokens leak into logs\n- **Location**: a.py:1\n",
     "Tokens leak into logs", "CRITICAL"),
    ("Review notes\n\n### {n}. Tokens leak into logs (High)\n\nat a.py:1\n",
     "Tokens leak into logs", "High"),
    ("Review notes\n\n### {n}. Tokens leak into logs — High\n\nat a.py:1\n",
     "Tokens leak into logs", "High"),
    ("Review notes\n\n**Issue {n}:** Tokens leak into logs (High)\n",
     "Tokens leak into logs", "High"),
    ("Review notes\n\n{n}. [HIGH] Tokens leak into logs at a.py:1\n", None, "HIGH"),
]


@pytest.mark.parametrize("number", ["1", "999", "1000", "123456"])
@pytest.mark.parametrize(("reply", "title", "native"), NUMBERED,
                         ids=[reply[14:40] for reply, _, _ in NUMBERED])
def test_a_numbered_finding_of_any_number(reply: str, title: str | None, native: str,
                                          number: str) -> None:
    result = sarp.parse(reply.format(n=number))
    assert [(f.title, f.native_severity) for f in result.findings] == [(title, native)]


@pytest.mark.parametrize(("line", "title"), [
    ("**1. Foo matches files (medium)** — see glob.py:130.", "Foo matches files (medium)"),
    ("**1. `X/**` returns X/ (medium)**", "`X/**` returns X/ (medium)"),  # stars in code
    ("**1. A lone ` hangs it (high)** see `f()`", "A lone ` hangs it (high)"),
    ("**1. Wildcard * is not escaped (medium)**", "Wildcard * is not escaped (medium)"),
    # a span of more than 200 characters is no span: its backtick closes at the bold
    ("**1. `" + "x" * 300 + "** tail`", "`" + "x" * 300),
    # no `**` outside code: the bold closes at the `**` of the last span that holds one
    ("**1. Glob `a**b` and `c**d` never closes", "Glob `a**b` and `c"),
    ("**1. ab**", None),  # fewer than 3 pieces
    ("**1. `ab`**", None),
    ("**1. never closed", None),
    ("**1. " + "word " * 1000 + "(high)**", "word " * 1000 + "(high)"),
])
def test_where_a_numbered_bold_title_closes(line: str, title: str | None) -> None:
    from sarp.dialects.prose import _numbered_bold

    match = _numbered_bold(line)
    assert (match["inner"] if match is not None else None) == title


ADR_SUMMARY = ("# Code Reviewer Review\n\n## Findings\n\n### IMPORTANT: Missing timeout\n"
               "- **Location**: app/net.py:7\n\n## Summary\n- **CRITICAL**: {critical}\n"
               "- **IMPORTANT**: 1\n- **SUGGESTION**: 0\n- **Verdict**: ISSUES FOUND\n")
APHELION = ("AGENT_RESULT: code\nSTATUS: failure\nWARNING_COUNT: 1\nWARNING_ITEMS:\n"
            "  - W1: `a.py:1` - minor thing\nNEXT: done\n")
JSON = '{"status": "FINDINGS", "summary": "One issue.", "findings": [{"id": "F1", ' \
       '"severity": "major", "title": "Missing timeout", "location": "app/net.py:7"}]}\n'

# (reply, findings read as (severity, title or description), lines SARP216 names)
AFTER_CLOSING = [
    # ADR-013: the Summary closes the reply
    (ADR_SUMMARY.format(critical=0) + "\n### CRITICAL: SQL injection in login\n"
     "- **Location**: app/db.py:42\n",
     [("major", "Missing timeout"), ("critical", "SQL injection in login")], [14]),
    (ADR_SUMMARY.format(critical=1) + "\n**CRITICAL: SQL injection in login** "
     "(`app/db.py:42`)\n", [("major", "Missing timeout"), ("critical", "SQL injection in login")],
     [14]),
    # the Summary written first: the findings after it are all read
    ("# Code Reviewer Review\n\n## Summary\n- **CRITICAL**: 1\n- **Verdict**: ISSUES FOUND\n\n"
     "## Findings\n\n### CRITICAL: SQL injection in login\n- **Location**: app/db.py:42\n",
     [("critical", "SQL injection in login")], [9]),
    # Aphelion: NEXT closes the block
    (APHELION + "\nCRITICAL_ITEMS:\n  - C1: `app/db.py:42` - SQL injection\n",
     [("major", "minor thing"), ("critical", "SQL injection")], [8]),
    # a group of findings after the Summary: each is read
    (ADR_SUMMARY.format(critical=2) + "\n### CRITICAL: see below\n\n- app/db.py:42 string SQL\n"
     "- app/db.py:50 string SQL\n", [("major", "Missing timeout"), ("critical", "string SQL"),
                                     ("critical", "string SQL")], [16, 17]),
    (APHELION + "\nSome notes.\n\nFAILED_TESTS:\n  - test_login - AssertionError\n"
     "  - test_logout - KeyError\n", [("major", "minor thing"), ("major", "test_login"),
                                     ("major", "test_logout")], [10]),
    # JSON: the object closes the reply, fenced or not
    (JSON + "\nOne more thing:\n\n### CRITICAL: SQL injection\n- **Location**: app/db.py:42\n",
     [("major", "Missing timeout"), ("critical", "SQL injection")], [5]),
    ("Here is my review.\n\n```json\n" + JSON + "```\n\n**HIGH: Tokens leak** (`app/log.py:3`)\n",
     [("major", "Missing timeout"), ("major", "Tokens leak")], [7]),
]


@pytest.mark.parametrize(("reply", "read", "lines"), AFTER_CLOSING,
                         ids=[f"{n}" for n in range(len(AFTER_CLOSING))])
def test_a_finding_after_the_closing_part_is_read_and_said(
        reply: str, read: list[tuple[str, str]], lines: list[int]) -> None:
    result = sarp.parse(reply)
    assert [(f.severity.value, f.title or f.description) for f in result.findings] == read
    assert [d.line for d in result.diagnostics if d.code == "SARP216"] == lines
    assert result.conformance is sarp.Conformance.REPAIRED


# what follows a closing part and is no finding: the reply stays as it was
NOT_AFTER = [
    # the Summary's own lines, its counts in bold, a group that says none, a recap of a
    # finding, a sign-off
    (ADR_SUMMARY.format(critical=0) + "\n**CRITICAL: 0**\n\n**Critical:**\n- none\n\n"
     "### IMPORTANT: Missing timeout\n\nThanks, let me know if you want the fix.\n", "adr013",
     ["Missing timeout"]),
    # a group in the Summary that lists the findings again, by their places
    (ADR_SUMMARY.format(critical=0) + "\n**Important — 1 issue**\n"
     "- Missing timeout (app/net.py:7)\n", "adr013", ["Missing timeout"]),
    # an empty list, and a severity written as a prose remark
    (APHELION + "\nWARNING_ITEMS: none\nCRITICAL: none of this blocks the merge.\n", "aphelion",
     ["minor thing"]),
    # a remark in bold with no place, a recap of the object's finding, a sign-off
    (JSON + "\n**Note:** I did not run the tests.\n\n### MAJOR: Missing timeout\n\nThanks!\n",
     "json", ["Missing timeout"]),
]


@pytest.mark.parametrize(("reply", "dialect", "titles"), NOT_AFTER,
                         ids=[f"{n}" for n in range(len(NOT_AFTER))])
def test_what_follows_a_closing_part_and_is_no_finding(reply: str, dialect: str,
                                                       titles: list[str]) -> None:
    result = sarp.parse(reply)
    assert result.dialect == dialect
    assert [f.title or f.description for f in result.findings] == titles
    assert "SARP216" not in [d.code for d in result.diagnostics]
