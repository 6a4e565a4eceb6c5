"""SARIF as input: a linter's and a scanner's log read into Results exactly, any text read
without raising, and sarp's own SARIF read back with every finding intact."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sarp
from sarp.aggregation import aggregate
from sarp.dialects.base import Policy
from sarp.dialects.sarif import is_sarif, results_from_sarif
from sarp.model import Conformance, Delivery, Status
from sarp.renderers.sarif import render, rule_id

RUNS = Path(__file__).parent / "review_runs"

# Two runs in the shapes ruff and CodeQL write: rules in the driver and in an extension,
# results pointing at them by index, by `rule` reference and by hierarchical id, levels
# written and defaulted, regions, base ids, an artifact index, message ids with
# arguments, a fix, a suppressed and a passing result.
LINT_LOG: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
    "version": "2.1.0",
    "runs": [
        {
            "tool": {"driver": {
                "name": "ruff", "version": "0.6.9",
                "informationUri": "https://github.com/astral-sh/ruff",
                "rules": [
                    {"id": "F401", "name": "unused-import",
                     "shortDescription": {"text": "`{name}` imported but unused"},
                     "fullDescription": {"text": "Checks for unused imports."},
                     "defaultConfiguration": {"level": "error"},
                     "helpUri": "https://docs.astral.sh/ruff/rules/unused-import"},
                    {"id": "E501", "name": "line-too-long",
                     "shortDescription": {"text": "Line too long ({width} > {limit})"},
                     "defaultConfiguration": {"level": "note"}},
                ],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "file:///home/ci/project/"}},
            "invocations": [{"executionSuccessful": True,
                             "workingDirectory": {"uri": "file:///home/ci/project/"}}],
            "results": [
                {"ruleId": "F401", "ruleIndex": 0, "level": "error",
                 "message": {"text": "`os` imported but unused"},
                 "locations": [{"physicalLocation": {
                     "artifactLocation": {"uri": "src/app/main.py", "uriBaseId": "%SRCROOT%"},
                     "region": {"startLine": 3, "startColumn": 8, "endLine": 3,
                                "endColumn": 10}}}],
                 "fixes": [{"description": {"text": "Remove unused import: `os`"},
                            "artifactChanges": []}]},
                {"ruleId": "E501", "ruleIndex": 1,
                 "message": {"text": "Line too long (112 > 100)"},
                 "locations": [{"physicalLocation": {
                     "artifactLocation": {"uri": "file:///home/ci/project/src/app/util%20s.py"},
                     "region": {"startLine": 88}}}]},
            ],
        },
        {
            "tool": {
                "driver": {"name": "CodeQL", "semanticVersion": "2.19.0"},
                "extensions": [{"name": "codeql/python-queries", "version": "1.2.0", "rules": [
                    {"id": "py/sql-injection", "name": "py/sql-injection",
                     "shortDescription": {"text": "SQL query built from user-controlled sources"},
                     "defaultConfiguration": {"level": "error"},
                     "properties": {"security-severity": "8.8", "tags": ["security"]}},
                    {"id": "py/unused-local-variable",
                     "shortDescription": {"text": "Unused local variable"},
                     "defaultConfiguration": {"level": "note"},
                     "messageStrings": {"default": {"text": "Variable {0} is not used; {{ok}}."}}},
                ]}],
            },
            "automationDetails": {"id": "/language:python/"},
            "originalUriBaseIds": {"SRC": {"uri": "services/", "uriBaseId": "ROOT"},
                                   "ROOT": {"uri": "file:///work/repo/"}},
            "artifacts": [{"location": {"uri": "api/db.py", "uriBaseId": "SRC"}}],
            "results": [
                {"ruleId": "py/sql-injection",
                 "rule": {"id": "py/sql-injection", "index": 0, "toolComponent": {"index": 0}},
                 "message": {"text": "This SQL query depends on a [user-provided value](1)."},
                 "locations": [{
                     "physicalLocation": {"artifactLocation": {"index": 0},
                                          "region": {"startLine": 42, "endLine": 44}},
                     "logicalLocations": [{"fullyQualifiedName": "api.db.find_user",
                                           "kind": "function"}]}],
                 "relatedLocations": [{"id": 1, "physicalLocation": {
                     "artifactLocation": {"uri": "api/views.py", "uriBaseId": "SRC"},
                     "region": {"startLine": 12}}}],
                 "partialFingerprints": {"primaryLocationLineHash": "5fd3a1c2:1"},
                 "properties": {"confidence": 0.9}},
                {"ruleId": "py/unused-local-variable",
                 "rule": {"id": "py/unused-local-variable", "index": 1,
                          "toolComponent": {"index": 0}},
                 "message": {"id": "default", "arguments": ["tmp"]},
                 "locations": [{"physicalLocation": {
                     "artifactLocation": {"uri": "api/views.py", "uriBaseId": "SRC"},
                     "region": {"startLine": 17}}}]},
                {"ruleId": "py/unused-local-variable",
                 "rule": {"id": "py/unused-local-variable", "index": 1,
                          "toolComponent": {"index": 0}},
                 "message": {"id": "default", "arguments": ["_"]},
                 "suppressions": [{"kind": "inSource"}],
                 "locations": [{"physicalLocation": {
                     "artifactLocation": {"uri": "api/views.py", "uriBaseId": "SRC"},
                     "region": {"startLine": 30}}}]},
                {"ruleId": "py/sql-injection", "kind": "pass",
                 "message": {"text": "Query in api/report.py is parameterised."}},
                {"ruleId": "py/sql-injection/orm", "level": "warning",
                 "message": {"text": "Raw SQL passed through the ORM."},
                 "locations": [
                     {"physicalLocation": {
                         "artifactLocation": {"uri": "file:///work/repo/services/api/orm.py"},
                         "region": {"startLine": 9}}},
                     {"physicalLocation": {
                         "artifactLocation": {"uri": "services/api/orm_helpers.py"},
                         "region": {"startLine": 30, "endLine": 31}}},
                 ]},
            ],
        },
    ],
}


def loc(raw: str, path: str | None, line: int | None, end: int | None = None, *,
        section: str | None = None, symbol: str | None = None,
        extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"raw": raw, "path": path, "line": line, "end_line": end, "section": section,
            "symbol": symbol, "extra": extra or []}


def finding(fid: str, severity: str, native: str | None, type_: str, title: str,
            location: dict[str, Any] | None, description: str | None, *,
            suggestion: str | None = None, confidence: float | None = None) -> dict[str, Any]:
    return {"id": fid, "severity": severity, "native_severity": native, "type": type_,
            "title": title, "location": location, "counter_location": None,
            "description": description, "impact": None, "suggestion": suggestion,
            "confidence": confidence, "agent": None, "line": None}


def codes(result: sarp.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


def test_linter_log_golden() -> None:
    text = json.dumps(LINT_LOG, indent=2)
    assert is_sarif(text)
    ruff, codeql = results_from_sarif(text, "scans/lint.sarif")

    assert (ruff.id, ruff.dialect, ruff.agent, ruff.status, ruff.conformance,
            ruff.delivery) == ("scans/lint.sarif#run1", "sarif", "ruff", Status.FINDINGS,
                               Conformance.CONFORMANT, Delivery.COMPLETE)
    assert ruff.raw == text and ruff.diagnostics == []
    assert ruff.fields == {"run": 1, "tool": {
        "name": "ruff", "version": "0.6.9", "informationUri": "https://github.com/astral-sh/ruff"}}
    assert [f.model_dump(mode="json") for f in ruff.findings] == [
        # USER16 #11: a rule description with template holes is no title; the message is
        finding("F1", "critical", "error", "F401", "`os` imported but unused",
                loc("src/app/main.py:3", "src/app/main.py", 3), "`os` imported but unused",
                suggestion="Remove unused import: `os`"),
        # no level: the rule's default, as written there
        finding("F2", "minor", "note", "E501", "Line too long (112 > 100)",
                loc("file:///home/ci/project/src/app/util%20s.py:88", "src/app/util s.py", 88),
                "Line too long (112 > 100)"),
    ]

    assert (codeql.id, codeql.agent, codeql.status, codeql.conformance) == (
        "scans/lint.sarif#run2", "CodeQL", Status.FINDINGS, Conformance.CONFORMANT)
    assert [(d.code, d.severity.value, d.message) for d in codeql.diagnostics] == [
        ("SARP412", "info", "run 2: 2 result(s) (1 passing, 1 suppressed) not read as"
                            " findings (SARIF says they are not problems)")]
    assert codeql.fields == {"run": 2, "tool": {"name": "CodeQL", "semanticVersion": "2.19.0"},
                             "automation_id": "/language:python/",
                             "not_findings": {"passing": 1, "suppressed": 1}}
    assert [f.model_dump(mode="json") for f in codeql.findings] == [
        finding("F1", "critical", "error", "py/sql-injection",
                "SQL query built from user-controlled sources",
                loc("services/api/db.py:42-44 (api.db.find_user)", "services/api/db.py", 42, 44,
                    symbol="api.db.find_user"),
                "This SQL query depends on a [user-provided value](1).", confidence=90.0),
        finding("F2", "minor", "note", "py/unused-local-variable", "Unused local variable",
                loc("services/api/views.py:17", "services/api/views.py", 17),
                "Variable tmp is not used; {ok}."),
        # `py/sql-injection/orm` is a case of rule py/sql-injection
        finding("F3", "major", "warning", "py/sql-injection/orm",
                "SQL query built from user-controlled sources",
                loc("file:///work/repo/services/api/orm.py:9", "services/api/orm.py", 9,
                    extra=[loc("services/api/orm_helpers.py:30-31",
                               "services/api/orm_helpers.py", 30, 31)]),
                "Raw SQL passed through the ORM."),
    ]


def test_one_run_is_named_by_its_source() -> None:
    log = {**LINT_LOG, "runs": LINT_LOG["runs"][:1]}
    (result,) = results_from_sarif(json.dumps(log), "ruff.sarif")
    assert result.id == "ruff.sarif"


def test_clean_run() -> None:
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "mypy"}}, "results": []}]}
    (result,) = results_from_sarif(json.dumps(log), "mypy.sarif")
    assert (result.status, result.conformance, result.findings, result.diagnostics) == (
        Status.CLEAN, Conformance.CONFORMANT, [], [])


def _failed_run(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "semgrep"}},
        "invocations": [{"executionSuccessful": False, "toolExecutionNotifications": [
            {"level": "error", "message": {"text": "rules.yml: invalid pattern"}}]}],
        "results": results}]}


def test_failed_execution_without_results_is_an_error() -> None:
    (result,) = results_from_sarif(json.dumps(_failed_run([])), "semgrep.sarif")
    assert (result.status, result.conformance) == (Status.ERROR, Conformance.REPAIRED)
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("SARP411", "run 1: the tool reports that its execution failed (rules.yml: invalid"
                    " pattern); status set to ERROR")]
    assert result.fields["error"] == "rules.yml: invalid pattern"
    report = aggregate([result])
    assert [(g.bucket, g.reason) for g in report.gaps] == [("ERROR", "rules.yml: invalid pattern")]


def test_failed_execution_with_results_is_partial() -> None:
    log = _failed_run([{"ruleId": "x", "message": {"text": "found"}}])
    (result,) = results_from_sarif(json.dumps(log), "semgrep.sarif")
    assert (result.status, codes(result), len(result.findings)) == (
        Status.PARTIAL, ["SARP411"], 1)


def test_run_without_results_reports_no_scan() -> None:
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "rules": []}}}]}
    (result,) = results_from_sarif(json.dumps(log), "t.sarif")
    assert (result.status, codes(result)) == (Status.PARTIAL, ["SARP401"])
    (strict,) = results_from_sarif(json.dumps(log), "t.sarif", Policy(missing_summary="error"))
    assert strict.status is Status.ERROR


@pytest.mark.parametrize(("text", "status", "conformance", "delivery", "expected"), [
    ("", Status.ERROR, Conformance.UNPARSEABLE, Delivery.EMPTY, ["SARP001"]),
    ("  \n", Status.ERROR, Conformance.UNPARSEABLE, Delivery.EMPTY, ["SARP001"]),
    ("not json at all", Status.PARTIAL, Conformance.UNPARSEABLE, Delivery.COMPLETE,
     ["SARP101"]),
    ("[1, 2]", Status.PARTIAL, Conformance.UNPARSEABLE, Delivery.COMPLETE, ["SARP101"]),
    ('{"version": "2.1.0"}', Status.PARTIAL, Conformance.UNPARSEABLE, Delivery.COMPLETE,
     ["SARP101"]),
    ('{"version": "2.1.0", "runs": []}', Status.PARTIAL, Conformance.REPAIRED,
     Delivery.COMPLETE, ["SARP401"]),
    ('{"version": "2.1.0", "runs": [7]}', Status.PARTIAL, Conformance.UNPARSEABLE,
     Delivery.COMPLETE, ["SARP405"]),
])
def test_bad_logs(text: str, status: Status, conformance: Conformance, delivery: Delivery,
                  expected: list[str]) -> None:
    (result,) = results_from_sarif(text, "bad.sarif")
    assert (result.id, result.dialect, result.status, result.conformance, result.delivery,
            codes(result)) == ("bad.sarif", "sarif", status, conformance, delivery, expected)
    assert result.raw == text


def test_cut_off_log_keeps_its_findings() -> None:
    text = json.dumps(LINT_LOG, indent=2)
    # cut inside the second result's message: both findings are kept, the second as far
    # as it got
    cut = text[: text.index("(112 > 100)")]
    (result,) = results_from_sarif(cut, "cut.sarif")
    assert (result.status, result.delivery, result.conformance) == (
        Status.PARTIAL, Delivery.TRUNCATED, Conformance.REPAIRED)
    assert codes(result) == ["SARP002"]
    assert [(f.type, f.description) for f in result.findings] == [
        ("F401", "`os` imported but unused"), ("E501", "Line too long ")]
    # cut as a result object opens: the empty object the repair closes is no finding
    cut = text[: text.index('"ruleId": "E501"')] + "\n"
    (result,) = results_from_sarif(cut, "cut.sarif")
    assert codes(result) == ["SARP405", "SARP002"]
    assert [f.type for f in result.findings] == ["F401"]
    # a trailing comma is mended and said so
    result, _ = results_from_sarif(text[:-1].rstrip().removesuffix("]") + ",]}", "c.sarif")
    assert [d.message for d in result.diagnostics][:1] == ["JSON repaired: trailing commas"]


def test_schema_bending_is_repaired() -> None:
    log = {"runs": {"tool": {"driver": {}}, "results": [
        {"ruleId": "a", "level": "Error", "message": "bare string"},
        {"ruleId": "b", "level": "high", "message": {"text": "high"}},
        {"ruleId": "c", "level": "severe", "message": {"text": "?"}},
        {"ruleId": "d", "message": {"id": "nowhere"}},
        {"ruleId": "e"},
        {"ruleId": "f", "level": 3, "message": {"text": "numeric level"}},
        "not a result",
    ]}}
    (result,) = results_from_sarif(json.dumps(log), "odd.sarif")
    assert result.conformance is Conformance.REPAIRED and result.agent is None
    assert codes(result) == ["SARP401", "SARP405", "SARP401", "SARP201", "SARP405", "SARP202",
                             "SARP203", "SARP405", "SARP405", "SARP405", "SARP405"]
    assert [(f.severity.value, f.native_severity, f.description) for f in result.findings] == [
        ("critical", "Error", "bare string"), ("critical", "high", "high"),
        ("major", "severe", "?"), ("major", None, "nowhere"), ("major", None, None),
        ("major", None, "numeric level")]


def test_kinds_and_baseline() -> None:
    results = [
        {"ruleId": "a", "kind": "review", "message": {"text": "look at this"}},
        {"ruleId": "a", "kind": "notApplicable", "message": {"text": "n/a"}},
        {"ruleId": "a", "kind": "informational", "message": {"text": "fyi"}},
        {"ruleId": "a", "baselineState": "absent", "message": {"text": "fixed"}},
        {"ruleId": "a", "suppressions": [{"kind": "external", "status": "underReview"}],
         "message": {"text": "suppression not yet accepted"}},
    ]
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": results}]}
    (result,) = results_from_sarif(json.dumps(log), "k.sarif")
    # a review result with no level defaults to none: a minor finding
    assert [(f.severity.value, f.description) for f in result.findings] == [
        ("minor", "look at this"), ("major", "suppression not yet accepted")]
    assert result.fields["not_findings"] == {"absent (fixed since the baseline)": 1,
                                             "informational": 1, "not applicable": 1}
    assert result.conformance is Conformance.CONFORMANT


def test_big_and_odd_numbers_never_raise() -> None:
    big = "9" * 5000
    text = ('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": ['
            '{"ruleId": "a", "message": {"text": "x"}, "ruleIndex": ' + big + ', '
            '"locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.py", "index": '
            + big + '}, "region": {"startLine": ' + big + ', "endLine": NaN}}}], '
            '"properties": {"confidence": Infinity}}]}]}')
    (result,) = results_from_sarif(text, "n.sarif")
    (found,) = result.findings
    assert (found.location.path, found.location.line, found.confidence) == ("a.py", None, None)
    deep = "[" * 100_000
    assert results_from_sarif(deep, "deep.sarif")[0].conformance is Conformance.UNPARSEABLE


def test_is_sarif() -> None:
    assert is_sarif('\ufeff  {"$schema": "https://x/sarif-2.1.0.json", "runs": []}')
    assert is_sarif('{"version": "2.1.0", "runs": []}')
    assert not is_sarif('{"version": "1.0.0", "runs": []}')
    assert not is_sarif('{"status": "CLEAN", "findings": []}')
    assert not is_sarif("RESULT: CLEAN | Type: review")
    assert not is_sarif("[]")
    # big or broken logs are judged by their head
    assert is_sarif('{"version": "2.1.0", "runs": [{"tool": ' + " " * 2_000_000)
    assert not is_sarif('{"status": "FINDINGS", "note": "' + "x" * 2_000_000)


# -- never raises --------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)
SARIF_KEYS = ["version", "runs", "tool", "driver", "name", "rules", "results", "ruleId",
              "ruleIndex", "rule", "index", "toolComponent", "extensions", "id", "level",
              "kind", "message", "text", "markdown", "arguments", "locations",
              "physicalLocation", "artifactLocation", "uri", "uriBaseId", "region",
              "startLine", "endLine", "logicalLocations", "kind", "fullyQualifiedName",
              "properties", "confidence", "suppressions", "status", "baselineState",
              "invocations", "executionSuccessful", "toolExecutionNotifications",
              "originalUriBaseIds", "artifacts", "location", "defaultConfiguration",
              "shortDescription", "messageStrings", "fixes", "description", "sarp/location",
              "workingDirectory", "automationDetails"]
SARIF_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from(
        ["2.1.0", "error", "warning", "note", "none", "pass", "fail", "file:///a/b.py", "a.py",
         "%SRCROOT%", "reply", "{0} and {1}", "{{", "}", "accepted", "section", "function"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(SARIF_KEYS), inner, max_size=6),
    max_leaves=40)


def _check(results: list[sarp.Result], text: str, source: str) -> None:
    assert results
    for result in results:
        assert result.dialect == "sarif" and result.raw is text
        assert result.id is not None and result.id.startswith(source)
        assert "SARP413" not in codes(result), result.diagnostics
        for diag in result.diagnostics:
            assert diag.line is None or diag.line >= 1
        for found in result.findings:
            assert found.confidence is None or 0 <= found.confidence <= 100


@settings(max_examples=300, deadline=None)
@given(value=SARIF_LIKE)
def test_never_raises_on_sarif_shaped_json(value: Any) -> None:
    for text in (json.dumps(value), json.dumps({"version": "2.1.0", "runs": [value]}),
                 json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}},
                                                           "results": [value]}]})):
        _check(results_from_sarif(text, "h.sarif"), text, "h.sarif")
        is_sarif(text)


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES)
def test_never_raises_on_any_json(value: Any) -> None:
    text = json.dumps(value)
    _check(results_from_sarif(text, "j.sarif"), text, "j.sarif")
    is_sarif(text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_never_raises_on_any_text(text: str) -> None:
    _check(results_from_sarif(text, "t.sarif"), text, "t.sarif")
    is_sarif(text)


def test_rejects_non_str_arguments() -> None:
    with pytest.raises(TypeError):
        results_from_sarif(b"{}", "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        results_from_sarif("{}", None)  # type: ignore[arg-type]


# -- round trip ------------------------------------------------------------------------------


def test_round_trip_through_sarp_sarif() -> None:
    results = []
    for folder in ("shlex", "netrc"):
        for path in sorted((RUNS / folder).iterdir()):
            if path.suffix in (".md", ".json") and not path.name.endswith(
                    (".meaning.json", ".prompt.txt")) and not path.name.startswith(
                    ("clusters.", "README")):
                result = sarp.parse(path.read_text(encoding="utf-8"))
                result.id = f"{folder}/{path.name}"
                results.append(result)
    report = aggregate(results)
    (back,) = results_from_sarif(render(report), "report.sarif")
    assert (back.agent, back.status, back.conformance) == ("sarp", Status.FINDINGS,
                                                           Conformance.CONFORMANT)
    assert len(back.findings) == len(report.findings)
    for original, read in zip(report.findings, back.findings, strict=True):
        assert read.severity is original.severity
        assert read.type == rule_id(original.type)
        assert read.native_severity == {"critical": "error", "major": "warning",
                                        "minor": "note"}[original.severity.value]
        where = original.location
        if where is not None and where.path:
            assert read.location is not None
            assert (read.location.path, read.location.line) == (where.path, where.line)
            assert read.location.end_line == (where.end_line if where.end_line != where.line
                                              else None)
        else:  # the stand-in location of a finding with no file is not a file
            assert read.location is None or read.location.path is None
        assert read.confidence == original.confidence or (
            original.confidence is not None and math.isclose(read.confidence or 0,
                                                             original.confidence))
        if original.title:
            assert read.description is not None
            assert read.description.startswith(original.title.strip()[:40])
    # read back, the log aggregates like any other input: one result, nothing merged
    again = aggregate([back])
    assert again.stats.by_severity == report.stats.by_severity


def test_a_sarif_log_parses_as_sarif_everywhere(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # USER16 #11: `sarp parse x.sarif` read a SARIF log as a json reply with no status
    text = json.dumps(LINT_LOG, indent=2)
    whole = sarp.parse(text)
    assert (whole.dialect, whole.status, whole.agent) == ("sarif", Status.FINDINGS,
                                                          "ruff, CodeQL")
    runs = results_from_sarif(text, "x")
    assert [f.id for f in whole.findings] == [
        f"run{n}.{f.id}" for n, run in enumerate(runs, 1) for f in run.findings]
    from sarp.cli.main import main

    (tmp_path / "lint.sarif").write_text(text)
    assert main(["parse", str(tmp_path / "lint.sarif"), "--format", "jsonl"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"].rsplit("/", 1)[-1], r["dialect"], len(r["findings"])) for r in lines] == [
        ("lint.sarif#run1", "sarif", 2), ("lint.sarif#run2", "sarif", len(runs[1].findings))]


def test_a_message_template_cannot_amplify_its_arguments() -> None:
    # ADV16 #3: `{0}` 4,000 times with a 100 KB argument made a 400 MB message
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "bomb", "rules": [
        {"id": "R1", "messageStrings": {"m": {"text": "{0} " * 4000}}}]}},
        "results": [{"ruleId": "R1", "level": "error",
                     "message": {"id": "m", "arguments": ["A" * 100_000]}}]}]}
    (run,) = results_from_sarif(json.dumps(log), "bomb.sarif")
    description = run.findings[0].description or ""
    assert len(description) <= 2 * 100_000 + 4 * 4000 + 100
    assert description.endswith("… (message cut: its placeholders repeat too much)")


def test_a_hierarchical_rule_id_finds_its_rule_in_one_pass() -> None:
    # ADV16 #9: each `/` of a 400 KB id was a copy of the id (21 s); a few levels suffice
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "rules": [
        {"id": "CA5350", "shortDescription": {"text": "Weak crypto"}}]}},
        "results": [{"ruleId": "CA5350/md5", "message": {"text": "m"}},
                    {"ruleId": "a/" * 200_000, "message": {"text": "m"}}]}]}
    (run,) = results_from_sarif(json.dumps(log), "x.sarif")
    assert [f.title for f in run.findings] == ["Weak crypto", "a/" * 200_000]


def test_an_honest_message_that_repeats_an_argument_is_whole() -> None:
    # REVIEW16 #20: the budget has a floor; only amplification past a few KB is cut
    from sarp.dialects.sarif import _format

    path = "src/very/long/package/path/module_with_a_long_name/file_name_here.py"
    assert _format("{0} imports {0}; {0} is cyclic", [path]) == \
        f"{path} imports {path}; {path} is cyclic"


def test_a_deep_rule_id_finds_its_deep_rule() -> None:
    # REVIEW16 #24: the longest prefixes are tried too
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "rules": [
        {"id": "a/b/c/d/e/f/g/h/i", "shortDescription": {"text": "Deep rule"}}]}},
        "results": [{"ruleId": "a/b/c/d/e/f/g/h/i/j", "message": {"text": "m"}}]}]}
    (run,) = results_from_sarif(json.dumps(log), "x.sarif")
    assert run.findings[0].title == "Deep rule"
