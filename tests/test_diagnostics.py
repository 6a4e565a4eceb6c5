"""The diagnostics registry, and SPEC Appendix A parsed exactly as the SPEC shows it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import sarp
from sarp.diagnostics import CODES, make

APPENDIX = (Path(__file__).parent / "data" / "deviations" / "appendix_a.md").read_text()
RANGES = {"0": "delivery", "1": "envelope", "2": "findings", "3": "consistency",
          "4": "dialect", "5": "manifest", "6": "stack", "7": "flow",
          "8": "conversion"}


def test_codes_are_stable_and_grouped() -> None:
    for code, entry in CODES.items():
        assert re.fullmatch(r"SARP\d{3}", code)
        assert entry.code == code
        assert code[4] in RANGES


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_template_formats(code: str) -> None:
    # every placeholder any caller passes is named; an unknown one stays visible
    diag = make(code, 3, 1)
    assert diag.line == 3 and diag.code == code
    assert diag.message and not diag.message.endswith(" ")


def test_appendix_a() -> None:
    """SPEC Appendix A: the reply, its canonical JSON and its five diagnostics."""
    result = sarp.parse(APPENDIX)
    data = result.model_dump(mode="json", exclude={"raw"})
    assert (data["dialect"], data["status"], data["native_status"], data["conformance"],
            data["delivery"], data["result_type"]) == (
        "clarity", "FINDINGS", "FINDINGS", "repaired", "complete", "consistency")
    assert data["metrics"] == {"Pair": "api.md/impl.md", "Findings": 3, "Critical": 0,
                               "Major": 1, "Minor": 1}
    f1, f2 = data["findings"]
    assert (f1["id"], f1["severity"], f1["native_severity"], f1["type"]) == (
        "F1", "major", "Major", "contradiction")
    assert {k: f1["location"][k] for k in ("raw", "path", "line", "end_line", "section")} == {
        "raw": "api.md § Errors (L40-44)", "path": "api.md", "line": 40, "end_line": 44,
        "section": "Errors"}
    assert (f1["counter_location"]["raw"], f1["counter_location"]["path"],
            f1["counter_location"]["line"]) == ("`impl.py:88`", "impl.py", 88)
    assert (f1["description"], f1["suggestion"]) == ("Doc says 404, code returns 400",
                                                      "Return 404")
    assert (f2["id"], f2["severity"], f2["type"], f2["location"]["path"],
            f2["location"]["line"], f2["counter_location"], f2["suggestion"]) == (
        "F2", "minor", "stale-content", "api.md", 12, None, None)
    assert [(d["code"], d["severity"], d["line"]) for d in data["diagnostics"]] == [
        ("SARP104", "info", 3),
        ("SARP301", "warning", 3),
        ("SARP107", "warning", 4),
        ("SARP201", "info", 7),
        ("SARP205", "warning", 8),
    ]
    messages = [d["message"] for d in data["diagnostics"]]
    assert messages == [
        "summary line is not the first line; 1 line(s) before it read as part of the reply",
        "the summary line says Findings: 3 but 2 findings found",
        "no metadata block (Protocol, Agent, Assigned, Scope, Coverage, Confidence)",
        "severity 'Major' normalised to 'major'",
        "row F2 has 6 of 7 cells; Suggestion left empty",
    ]


def test_appendix_a_cut_mid_row_is_truncated() -> None:
    """The SPEC's note: stopped in the middle of row F2, the reply is truncated."""
    cut = APPENDIX[: APPENDIX.index("| Mentions removed")]
    result = sarp.parse(cut)
    assert (result.status, result.delivery) == (sarp.Status.PARTIAL, sarp.Delivery.TRUNCATED)
    assert [f.id for f in result.findings] == ["F1", "F2"]
    assert "SARP002" in [d.code for d in result.diagnostics]
