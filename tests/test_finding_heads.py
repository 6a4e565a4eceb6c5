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
