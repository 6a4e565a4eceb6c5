"""Status and severity vocabularies (SPEC §3 tables), table-driven."""
from __future__ import annotations

import pytest

from sarp.model import Severity, Status
from sarp.vocab import BY_CONTENT, STATUS, SeverityReader

C, M, m = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR

STATUS_CASES = [
    ("clarity", "CLEAN", Status.CLEAN, "canonical"),
    ("clarity", "FINDINGS", Status.FINDINGS, "canonical"),
    ("clarity", "COMPLETE", BY_CONTENT, "alias"),
    ("clarity", "FAILED", Status.ERROR, "alias"),
    ("clarity", "INCOMPLETE", Status.PARTIAL, "alias"),
    ("clarity", "clean", Status.CLEAN, "alias"),
    ("bowser", "PASS", Status.CLEAN, "canonical"),
    ("bowser", "FAIL", Status.FINDINGS, "canonical"),
    ("adr013", "APPROVED", BY_CONTENT, "canonical"),
    ("adr013", "ISSUES FOUND", Status.FINDINGS, "canonical"),
    ("adr013", "SKIPPED", Status.CLEAN, "canonical"),
    ("adr013", "ADR REQUIRED", Status.FINDINGS, "canonical"),
    ("adr013", "PASS with one IMPORTANT note", BY_CONTENT, "alias"),
    ("adr013", "SKIPPED — no tenant code in scope", Status.CLEAN, "alias"),
    ("adr013", "FIX ISSUES FIRST", Status.FINDINGS, "alias"),
    ("sdd", "SUCCESS", BY_CONTENT, "canonical"),
    ("sdd", "FAILED", Status.ERROR, "canonical"),
    ("aphelion", "success", BY_CONTENT, "canonical"),
    ("aphelion", "conditional", Status.FINDINGS, "canonical"),
    ("aphelion", "suspended", Status.PARTIAL, "canonical"),
    ("aphelion", "blocked", Status.BLOCKED, "canonical"),
    ("aphelion", "skipped", Status.CLEAN, "warn"),
    ("aphelion", "Failure", Status.FINDINGS, "alias"),
    ("cleo", "complete", Status.CLEAN, "canonical"),
    ("cleo", "completed", Status.CLEAN, "alias"),
    ("cleo", "archived", Status.CLEAN, "canonical"),
    ("json", "FINDINGS", Status.FINDINGS, "canonical"),
    ("json", "success", BY_CONTENT, "alias"),
]


@pytest.mark.parametrize(("dialect", "word", "meaning", "kind"), STATUS_CASES)
def test_status_words(dialect: str, word: str, meaning: object, kind: str) -> None:
    assert STATUS[dialect].read(word) == (meaning, kind)


def test_unknown_status_word() -> None:
    assert STATUS["clarity"].read("MAYBE") == (None, "unknown")


CLARITY = {"critical": C, "major": M, "minor": m}
ADR = {"CRITICAL": C, "IMPORTANT": M, "SUGGESTION": m}

SEVERITY_CASES = [
    # dialect words, agent, words used in the reply, expected, expected scale name
    (CLARITY, None, ["critical", "major"], [C, M], None),
    (CLARITY, None, ["Major", "minor"], [M, m], None),
    (ADR, None, ["HIGH", "MEDIUM", "LOW"], [C, M, m], "high/medium/low"),
    (ADR, None, ["HIGH", "MEDIUM"], [C, M], "high/medium/low"),
    (ADR, None, ["CRITICAL", "HIGH", "MEDIUM"], [C, M, m], "critical/high/medium"),
    (ADR, None, ["Critical", "High", "Medium", "Low"], [C, M, m, m], "critical/high/medium/low"),
    (ADR, None, ["P0", "P1", "P2", "P3"], [C, M, m, m], "P0/P1/P2/P3"),
    (ADR, None, ["🔴", "🟡", "🟢"], [C, M, m], "red/yellow/green"),
    (ADR, None, ["Error", "Warning", "Info"], [C, M, m], "error/warning/info"),
    (ADR, "silent-failure-hunter", ["CRITICAL", "HIGH", "MEDIUM"], [C, M, m],
     "silent-failure-hunter"),
    (ADR, "code-reviewer", ["confidence 95", "confidence 85", "confidence 60"], [C, M, m],
     "code-reviewer confidence"),
    (ADR, "test-analyzer", ["rating 9/10", "rating 7/10", "rating 5/10"], [C, M, m],
     "test-analyzer rating"),
    (ADR, "codex-review-agent", ["High", "Medium", "Low"], [C, M, m], "codex-review-agent"),
    (ADR, None, ["blocker", "nit"], [C, m], "default alias"),
    (ADR, None, ["IMPORTANT", "HIGH"], [M, M], None),
]


@pytest.mark.parametrize(("words", "agent", "used", "expected", "scale"), SEVERITY_CASES)
def test_severity_scales(words: dict[str, Severity], agent: str | None, used: list[str],
                         expected: list[Severity], scale: str | None) -> None:
    reader = SeverityReader(words, agent)
    reader.prepare(used)
    readings = [reader.read(word) for word in used]
    assert [r.severity if r else None for r in readings] == expected
    if scale is not None:
        assert any(r is not None and r.scale == scale for r in readings)


def test_unknown_severity_word() -> None:
    reader = SeverityReader(CLARITY)
    reader.prepare(["whatever"])
    assert reader.read("whatever") is None


def test_cut_off_severity_word_reads_by_prefix() -> None:
    reader = SeverityReader({"critical": C, "important": M, "minor": m}, case_sensitive=False)
    reader.prepare(["Imp"])
    reading = reader.read("Imp")
    assert reading is not None and reading.severity is M
