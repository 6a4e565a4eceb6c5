"""Plain reviews (no protocol) that a second reader wrote to break the text fallback
(REVIEW10): each file in tests/plain_reviews/ is a realistic reply, and the table says the
findings its author meant, by canonical severity, in order. What each one guards:

- findings under category or emoji headings over lists, and under a `## High` group
  whose `### Verdict` / `### Notes` sections are not findings (e03, e04, t03);
- a finding's own `#### Details` / `#### Fix` sub-headings are its body (t02, t08);
- `**Blocking:** none.`, `**Must fix:** nothing.` are not findings (t06, t12, r03, r04);
- scorecards (`### Readability: High`, `## Confidence: High`) are not findings (r02, t01);
- what was checked, planned, changed or reproduced is not a finding (t04, t05, t10, u01,
  d01's TL;DR, r01's root-cause write-up), nor is "Not critical" a severity (u02);
- a heading that says the rest is fine does not hide the findings under it (g01), nor
  does "fine-grained" (g03);
- titles that start like report sections (`Context manager ...`) are findings (s01);
- one numbered finding with a Severity field is a finding on its own (one01);
- urgency groups beside severities keep the severities' scale (sc02);
- a summary's counts (`**Critical:** 0`, `| Severity | Count |`) are not findings (c01, c02);
- `**Issue 1:** title (High)` is a finding (is01);
- `- **Symptom:**` / `- **Cause:**` / `- **Fix:**` bullets are a finding's fields (fl01);
- a `## 🟢 Verdict:` line that made the reply look like adr013, whose frame it lacks, does
  not cost the findings the text fallback reads (e01).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import sarp

HERE = Path(__file__).parent / "plain_reviews"

MEANT = [
    ("b02_steps", ["critical", "major"]),
    ("c01", ["major"]),
    ("c02", ["major"]),
    ("d01", ["major", "minor"]),
    ("e01", ["critical", "minor"]),
    ("e03", ["critical", "major", "major", "major"]),
    ("e04", ["critical", "critical", "critical", "minor"]),
    ("fl01", ["minor", "minor"]),
    ("g01", ["critical", "major"]),
    ("g03", ["minor", "minor", "minor"]),
    ("is01", ["critical", "minor"]),
    ("one01", ["critical"]),
    ("r01", []),
    ("r02", ["major"]),
    ("r03", []),
    ("r04", []),
    ("s01", ["minor", "minor", "minor", "minor"]),
    ("sc02", ["critical", "minor", "minor"]),
    ("t01_risk", ["critical"]),
    ("t02_subsections", ["critical"]),
    ("t03_notes_under_group", ["critical"]),
    ("t04_checked", ["major"]),
    ("t05_plan", []),
    ("t06_blocking_none", ["minor"]),
    ("t08_numbered_sub", ["minor", "minor"]),
    ("t10_changelog", []),
    ("t12_blocking_variants", ["major"]),
    ("u01", []),
    ("u02", ["minor"]),
    # a third reader's replies (REVIEW11): counts as groups (`## High: 2 issues`), titles that
    # start with "None of" / "Nothing stops", findings explained in bullets under their
    # heading, "risk" / "performance" in a finding's title, `**Blocking:** text` and
    # conventional comments, place-led items after "I checked ...:", severities after a
    # bold lead (`— High —`, `(High severity)`), a `| Severity | Findings |` table, a plain
    # review with a `## Summary` at the top (once read as a clean adr013 reply)
    ("r11_b01", ["critical", "major", "minor"]),
    ("r11_b02", ["critical", "major"]),
    ("r11_cc01", ["critical", "minor", "minor"]),
    ("r11_cc02", ["critical", "major", "minor"]),
    ("r11_cc04", ["critical", "major", "minor"]),
    ("r11_cr01", ["critical", "major", "minor", "minor"]),
    ("r11_g02", ["critical", "minor", "minor"]),
    ("r11_h01", ["critical", "major"]),
    ("r11_h02", ["critical", "major"]),
    ("r11_h03", ["critical", "minor"]),
    ("r11_n02", ["critical", "major", "minor"]),
    ("r11_n03", ["critical", "major", "minor"]),
    ("r11_n04", ["critical", "major", "minor"]),
    ("r11_q01", ["minor", "minor", "minor"]),
    ("r11_q02", ["minor", "minor"]),
    ("r11_q03", ["minor", "minor"]),
    ("r11_q04", ["minor", "minor", "minor"]),
    ("r11_q05", ["minor", "minor"]),
    ("r11_rt01", ["critical", "major", "minor"]),
    ("r11_s01", ["minor", "minor", "minor"]),
    ("r11_s02", ["minor", "minor"]),
    ("r11_tb01", ["critical", "major", "minor"]),
    ("r11_tb02", ["critical", "major"]),
    ("r11_u01", ["critical", "minor", "minor"]),
    ("r11_u02", ["critical", "minor", "minor"]),
    ("r11_v01", ["critical", "critical", "minor", "minor"]),
    ("r11_v02", ["critical", "critical", "major", "minor"]),
]


def test_every_file_has_a_row() -> None:
    assert sorted(p.stem for p in HERE.glob("*.md")) == sorted(name for name, _ in MEANT)


@pytest.mark.parametrize(("name", "severities"), MEANT)
def test_a_plain_review_means_what_its_author_meant(name: str, severities: list[str]) -> None:
    result = sarp.parse((HERE / f"{name}.md").read_text(encoding="utf-8"))
    assert result.dialect == "text"
    assert [f.severity.value for f in result.findings] == severities


def test_the_real_finding_of_a_group_with_sections_keeps_its_title_and_body() -> None:
    [found] = sarp.parse((HERE / "t02_subsections.md").read_text(encoding="utf-8")).findings
    assert found.title == "SQL injection in `find_user`"
    assert found.location is not None and found.location.line == 40
    assert "parameterised query" in (found.description or "")
