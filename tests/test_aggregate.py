"""sarp.aggregate: merge policies, cross-validation, confidence, the run's judgement."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clustering import labelled_sets, score
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sarp.aggregation import (
    AggregationPolicy,
    Decision,
    Report,
    Rule,
    RulesError,
    Verdict,
    aggregate,
    similar,
)
from sarp.aggregation.policy import rules_from_data
from sarp.model import (
    Conformance,
    Delivery,
    Finding,
    Location,
    Result,
    Severity,
    Status,
    build,
)
from sarp.text.locations import parse_location

NO_RULES = AggregationPolicy(rules=())


def finding(line: int | None = None, *, path: str | None = "a.py", title: str = "",
            severity: str = "major", kind: str | None = None, section: str | None = None,
            description: str | None = None, confidence: float | None = None,
            fid: str = "F1", native: str | None = None) -> Finding:
    location = None
    if path is not None or section is not None:
        raw = f"{path}:{line}" if line is not None else f"{path} § {section}"
        location = build(Location, raw=raw, path=path, line=line, end_line=None,
                         section=section)
    return build(Finding, id=fid, severity=Severity(severity), native_severity=native,
                 type=kind, title=title or None, location=location,
                 description=description, confidence=confidence)


def result(rid: str, *findings: Finding, agent: str | None = None,
           status: Status = Status.FINDINGS, **extra: Any) -> Result:
    numbered = [f.model_copy(update={"id": f"F{k}"}) if f.id == "F1" else f
                for k, f in enumerate(findings, 1)]
    values: dict[str, Any] = {"id": rid, "dialect": "json", "status": status,
                              "conformance": Conformance.CONFORMANT, "agent": agent or rid,
                              "findings": numbered}
    values.update(extra)
    return build(Result, **values)


def groups(report: Report) -> list[list[tuple[str, int]]]:
    """The merged findings as sorted lists of (result, index)."""
    return sorted(sorted((s.result, s.index) for s in f.sources) for f in report.findings)


# -- proximity and exact ----------------------------------------------------------------

@pytest.mark.parametrize(("second", "merged"), [(100, True), (110, True), (111, False),
                                                  (90, True), (89, False)])
def test_proximity_window_is_measured_from_the_cluster_start(second: int, merged: bool) -> None:
    results = [result("a", finding(100)), result("b", finding(second))]
    report = aggregate(results, AggregationPolicy(dedupe="proximity", rules=()))
    assert (report.stats.findings == 1) is merged


def test_proximity_clusters_do_not_chain() -> None:
    # 108 is within 10 of 100, 116 within 10 of 108 but not of 100: two clusters
    results = [result("a", finding(100)), result("b", finding(108)), result("c", finding(116))]
    report = aggregate(results, AggregationPolicy(dedupe="proximity", rules=()))
    assert groups(report) == [[("a", 0), ("b", 0)], [("c", 0)]]


def test_proximity_window_option() -> None:
    results = [result("a", finding(100)), result("b", finding(103))]
    narrow = AggregationPolicy(dedupe="proximity", window=2, rules=())
    assert aggregate(results, narrow).stats.findings == 2


@pytest.mark.parametrize(("one", "two", "merged"), [
    (finding(path="spec.md", section="Errors"), finding(path="spec.md", section="errors"), True),
    (finding(path="spec.md", section="Errors"), finding(path="spec.md", section="Auth"), False),
    (finding(path="spec.md", section="Errors"), finding(3, path="spec.md"), False),
    (finding(path=None, section="Errors"), finding(path=None, section="Errors"), True),
    (finding(path=None), finding(path=None), False),  # no place: nothing to be near
])
def test_proximity_section_only_locations(one: Finding, two: Finding, merged: bool) -> None:
    report = aggregate([result("a", one), result("b", two)],
                       AggregationPolicy(dedupe="proximity", rules=()))
    assert (report.stats.findings == 1) is merged


@pytest.mark.parametrize(("one", "two", "exact", "proximity"), [
    (finding(10, kind="bug"), finding(10, kind="bug"), 1, 1),
    (finding(10, kind="bug"), finding(10, kind="Bug"), 1, 1),
    (finding(10, kind="bug"), finding(12, kind="bug"), 2, 1),
    (finding(10, kind="bug"), finding(10, kind="style"), 2, 2),  # types must agree
    (finding(10, kind="bug"), finding(10), 2, 1),  # no type fits any for proximity
    (finding(10, path="a.py"), finding(10, path="b.py"), 2, 2),
])
def test_exact_versus_proximity(one: Finding, two: Finding, exact: int, proximity: int) -> None:
    results = [result("a", one), result("b", two)]
    assert aggregate(results, AggregationPolicy(dedupe="exact", rules=())).stats.findings \
        == exact
    assert aggregate(results, AggregationPolicy(dedupe="proximity", rules=())) \
        .stats.findings == proximity


@pytest.mark.parametrize("dedupe", ["exact", "proximity", "similar"])
def test_one_result_never_merges_with_itself(dedupe: str) -> None:
    # an agent that reports two things at one line reported two things
    same = finding(10, title="`parse()` drops the `token_end` marker", kind="bug")
    report = aggregate([result("a", same, same)],
                       AggregationPolicy(dedupe=dedupe, rules=()))  # type: ignore[arg-type]
    assert report.stats.findings == 2


def test_off_keeps_every_finding() -> None:
    results = [result("a", finding(10)), result("b", finding(10))]
    assert aggregate(results, AggregationPolicy(dedupe="off", rules=())).stats.findings == 2


# -- similar -------------------------------------------------------------------------------

def test_similar_merges_one_defect_said_in_different_words() -> None:
    one = finding(84, title="Comments after a blank line are parsed as tokens",
                  description="The `lexer.lineno` comparison at `saved_lineno` misses a "
                              "comment that follows an empty line, so its words are read.")
    two = finding(126, description="A `#` comment after a blank line is not skipped: "
                                   "`saved_lineno` differs from `lexer.lineno`, so the "
                                   "comment's words become tokens.")
    assert aggregate([result("a", one), result("b", two)]).stats.findings == 1


def docs_finding(counter: str | None, path: str = "README.md") -> Finding:
    """A docs-against-code finding: placed in the README, its counter-location the code."""
    made = finding(220, path=path, title="Numeric entities above U+FFFF decode wrong",
                   description="`String.fromCharCode` truncates astral code points, so "
                               "`&#128512;` becomes U+F600 instead of the emoji.")
    if counter is None:
        return made
    path, line = counter.split(":")
    return made.model_copy(update={"counter_location": build(
        Location, raw=counter, path=path, line=int(line), end_line=None)})


@pytest.mark.parametrize(("counter", "merged"), [
    ("lib/parse.js:33", True),  # the code it names is where the other agent points
    ("lib/stringify.js:33", False),  # it is about another file than the code finding
    (None, False),  # no counter-location: the README and the code are different files
])
@pytest.mark.parametrize("path", ["README.md", "test/parse.js"])  # the latter: same name
def test_similar_meets_a_docs_finding_at_its_counter_location(counter: str | None,
                                                             merged: bool, path: str) -> None:
    code = finding(33, path="lib/parse.js", title="Astral numeric entities are truncated",
                   description="`String.fromCharCode` cuts code points above U+FFFF to 16 "
                               "bits, so `&#128512;` comes out as U+F600.")
    report = aggregate([result("docs", docs_finding(counter, path)), result("code", code)],
                       NO_RULES)
    assert report.stats.findings == (1 if merged else 2)


@pytest.mark.parametrize(("one", "two"), [
    # crossed: each names the other's file as its counter-location
    (("test/parse.js:220", "lib/parse.js:33"), ("lib/parse.js:33", "test/parse.js:220")),
    # two findings in different files that both point at the same code
    (("README.md:220", "lib/parse.js:33"), ("test/parse.js:12", "lib/parse.js:33")),
    (("README.md:220", "lib/parse.js:33"), ("docs/api.md:12", "lib/parse.js:33")),
])
def test_similar_meets_two_findings_each_at_its_own_place(
        one: tuple[str, str], two: tuple[str, str]) -> None:
    def placed(where: tuple[str, str], title: str, description: str) -> Finding:
        (path, line), (other, other_line) = (w.split(":") for w in where)
        return finding(int(line), path=path, title=title, description=description
                       ).model_copy(update={"counter_location": build(
                           Location, raw=where[1], path=other, line=int(other_line),
                           end_line=None)})

    first = placed(one, "Numeric entities above U+FFFF decode wrong",
                   "`String.fromCharCode` truncates astral code points, so `&#128512;` "
                   "becomes U+F600 instead of the emoji.")
    second = placed(two, "Astral numeric entities are truncated",
                    "`String.fromCharCode` cuts code points above U+FFFF to 16 bits, so "
                    "`&#128512;` comes out as U+F600.")
    report = aggregate([result("r1", first), result("r2", second)], NO_RULES)
    assert report.stats.findings == 1


@pytest.mark.parametrize(("cell", "merged"), [
    # the location lists the README beside the code: the finding is about both files
    ("lib/index.js:16-19; README.md:16, 25", True),
    ("lib/index.js:16-19, README.md:25", True),
    ("lib/index.js:16-19", False),  # about the code alone: another file than the README
    ("lib/index.js:16-19; docs/api.md:16", False),  # about another document
])
def test_similar_meets_a_finding_in_every_file_its_location_lists(cell: str,
                                                                   merged: bool) -> None:
    # path-to-regexp: five reviewers placed "keys are documented as strings" in the
    # README, the JSDoc, or both; each pair is one defect
    both = finding(16, path="lib/index.js", title="`keys` documented as strings",
                   description="The README and the JSDoc say keys is an array of strings; "
                               "the code pushes `{name, optional, offset}` objects.")
    both = both.model_copy(update={"location": parse_location(cell)})
    docs = finding(16, path="README.md", title="README gives the wrong shape of `keys`",
                   description="It shows `keys = ['bar']`, but each key is an object "
                               "`{name, optional, offset}`, not a string.")
    report = aggregate([result("r1", both), result("r2", docs)], NO_RULES)
    assert report.stats.findings == (1 if merged else 2)


@pytest.mark.parametrize(("title", "merged"), [
    ("The docs give the wrong type for `keys` (index.js:16-19; README.md:16)", True),
    ("The docs give the wrong type for `keys` (index.js:16-19)", False),
])
def test_similar_meets_a_finding_in_the_file_its_title_names(title: str,
                                                             merged: bool) -> None:
    # path-to-regexp's aphelion item sat at index.js:18; only its title named the README
    code = finding(18, path="lib/index.js", title=title,
                   description="The JSDoc and README say keys are strings; the code pushes "
                               "`{name, optional, offset}` objects.")
    docs = finding(16, path="README.md", title="README gives the wrong shape of `keys`",
                   description="It shows `keys = ['bar']`, but each key is an object "
                               "`{name, optional, offset}`, not a string.")
    report = aggregate([result("r1", code), result("r2", docs)], NO_RULES)
    assert report.stats.findings == (1 if merged else 2)


def test_two_docs_findings_far_apart_are_not_joined_by_their_counter_locations() -> None:
    # both name nearby code; in the README they are 270 lines apart, two different edits
    def docs(line: int, title: str, description: str, counter: int) -> Finding:
        return finding(line, path="README.md", title=title, description=description,
                       kind="docs").model_copy(update={"counter_location": build(
                           Location, raw=f"lib/parse.js:{counter}", path="lib/parse.js",
                           line=counter, end_line=None)})

    one = docs(40, "README: `depth: 0` is documented as disabling nesting",
               "With depth 0 the parser is said to keep keys flat, yet `parseKeys` still "
               "splits the first bracket.", 170)
    two = docs(310, "README: the `allowDots` example output is wrong",
               "The documented result for dotted keys inside brackets differs from what "
               "`parseKeys` returns.", 166)
    assert aggregate([result("r1", one), result("r2", two)], NO_RULES).stats.findings == 2


def test_similar_keeps_different_defects_at_the_same_line_apart() -> None:
    one = finding(60, title="`__repr__` prints every password in plain text")
    two = finding(60, title="`__repr__` output cannot be parsed back: values are not quoted")
    three = finding(60, title="Default entry written as `machine default`")
    report = aggregate([result("a", one), result("b", two), result("c", three)])
    assert report.stats.findings == 3


@given(st.text(alphabet="Lline s0123456789-–,andto()", max_size=40))
def test_a_line_number_in_prose_always_holds_the_cheap_marker(text: str) -> None:
    # `similar` runs the line-number scan only on text holding `L` or `ine`
    if similar._LINES.search(text) is not None:
        assert "L" in text or "ine" in text


# Sets under the per-set floor, each with what it scores and why (BENCHMARKS.md). In
# content-type, one review's HTAB finding also speaks of tabs as whitespace, and average
# linkage files it with the whitespace findings first, which keeps the HTAB cluster apart.
BELOW_THE_SET_FLOOR = {"content-type": (0.9, 0.65)}


def test_similar_meets_the_bar_on_the_labelled_review_runs() -> None:
    # twenty-six sets of six independent real reviews (CPython shlex, netrc, gettext,
    # mailcap, robotparser, http/cookies, zipapp, quopri, glob, fnmatch, string, getopt,
    # reprlib and textwrap; npm ini, semver, qs, minimist, cookie, path-to-regexp, bytes, ms,
    # content-type, range-parser, fresh and vary), each labelled by two annotators; pairs
    # pooled over the sets. The weights were tuned on four of them; the other twenty-two
    # were scored held out when collected (BENCHMARKS.md: semver 0.90 / 0.89 ... textwrap
    # 0.93 / 0.87).
    hits = predicted = agreed = 0
    for folder in labelled_sets():
        precision, recall, h, p, a = score(folder)
        floor = BELOW_THE_SET_FLOOR.get(folder.name, (0.8, 0.75))
        assert precision >= floor[0] and recall >= floor[1], (folder.name, precision, recall)
        hits, predicted, agreed = hits + h, predicted + p, agreed + a
    assert hits / predicted >= 0.9
    assert hits / agreed >= 0.8


# -- merged findings -------------------------------------------------------------------------

def test_merged_finding_keeps_worst_severity_most_detail_and_every_reporter() -> None:
    short = finding(10, title="`load()` leaks the handle", severity="minor", native="LOW",
                    kind="bug")
    long = finding(10, title="`load()` leaks the handle",
                   description="The file opened by `load()` is never closed when parsing "
                               "fails, so the handle leaks.", severity="major",
                   native="IMPORTANT", kind="bug")
    report = aggregate([result("r1", short, agent="tester"),
                        result("r2", long, agent="code-reviewer")],
                       AggregationPolicy(dedupe="exact", rules=()))
    [merged] = report.findings
    assert merged.severity is Severity.MAJOR
    assert merged.description == long.description
    assert merged.reported_by == ["code-reviewer", "tester"]
    assert merged.occurrences == 2 and merged.corroborated
    assert [(s.result, s.index, s.id, s.agent) for s in merged.sources] == [
        ("r1", 0, "F1", "tester"), ("r2", 0, "F1", "code-reviewer")]
    assert merged.notes == ["severity disagreement: tester (r1): minor (LOW); "
                            "code-reviewer (r2): major (IMPORTANT); kept major"]


def test_nothing_is_dropped_from_partial_or_salvaged_results() -> None:
    partial = result("p", finding(1, title="one"), finding(2, title="two"),
                     status=Status.PARTIAL, metrics={"Coverage": "40%"})
    salvaged = result("s", finding(3, title="three"), status=Status.PARTIAL,
                      conformance=Conformance.SALVAGED)
    report = aggregate([partial, salvaged], AggregationPolicy(dedupe="off"))
    assert report.stats.input_findings == 3 == sum(f.occurrences for f in report.findings)
    assert {(s.result, s.index) for f in report.findings for s in f.sources} == {
        ("p", 0), ("p", 1), ("s", 0)}


def test_global_ids_follow_severity_then_type_then_location() -> None:
    report = aggregate([result("a", finding(30, severity="minor", title="m"),
                               finding(20, severity="critical", title="c", kind="x"),
                               finding(10, severity="major", title="j2", kind="y"),
                               finding(5, severity="major", title="j1", kind="y"))],
                       NO_RULES)
    assert [(f.id, f.title) for f in report.findings] == [
        ("G1", "c"), ("G2", "j1"), ("G3", "j2"), ("G4", "m")]


# -- cross-validation -------------------------------------------------------------------------

DEFAULT_CASES = [
    ("code-reviewer", "silent-failure-hunter", "minor", "critical", None),
    ("code-reviewer", "comment-analyzer", "minor", "minor", "corroborate"),
    ("test-analyzer", "code-reviewer", "major", "critical", None),
    ("type-design-analyzer", "backward-compat", "minor", "critical", None),
    ("type-design-analyzer", "silent-failure-hunter", "minor", "major", None),
    ("silent-failure-hunter", "backward-compat", "major", "critical", None),
    ("codex-review-agent", "security-auditor", "minor", "minor", "corroborate"),
    ("code-simplifier", "code-reviewer", "minor", "minor", "corroborate"),
    ("code-simplifier", "silent-failure-hunter", "minor", "minor", "note"),
]


@pytest.mark.parametrize(("first", "second", "was", "becomes", "kind"), DEFAULT_CASES)
def test_every_default_rule_fires_in_the_same_region(first: str, second: str, was: str,
                                                     becomes: str, kind: str | None) -> None:
    results = [result("a", finding(40, title="alpha beta", severity=was), agent=first),
               result("b", finding(48, title="gamma delta", severity=was), agent=second)]
    report = aggregate(results, AggregationPolicy(dedupe="off"))
    assert [f.severity.value for f in report.findings] == [becomes, becomes]
    for merged in report.findings:
        fired = [note for note in merged.notes if " + " in note]
        assert len(fired) == 1, merged.notes
        if becomes != was:
            assert merged.escalations[0].to_severity.value == becomes
            assert fired[0].startswith(merged.escalations[0].rule)
        else:
            assert not merged.escalations
        if kind == "corroborate":
            assert merged.corroborated


@pytest.mark.parametrize(("first", "second", "was", "becomes", "kind"), DEFAULT_CASES)
def test_no_default_rule_fires_eleven_lines_away_or_in_another_file(
        first: str, second: str, was: str, becomes: str, kind: str | None) -> None:
    for other in (finding(51, title="gamma delta", severity=was),
                  finding(48, path="b.py", title="gamma delta", severity=was)):
        results = [result("a", finding(40, title="alpha beta", severity=was), agent=first),
                   result("b", other, agent=second)]
        report = aggregate(results, AggregationPolicy(dedupe="off"))
        assert all(not f.notes and not f.escalations for f in report.findings)
        assert [f.severity.value for f in report.findings] == [was, was]


def test_rules_judge_merged_severities_and_do_not_cascade() -> None:
    # escalate (one level) and escalate-critical on one finding: critical, both recorded
    results = [result("a", finding(10, severity="minor", title="x"), agent="type-design-analyzer"),
               result("b", finding(12, severity="minor", title="y"), agent="silent-failure-hunter"),
               result("c", finding(14, severity="minor", title="z"), agent="code-reviewer")]
    report = aggregate(results, AggregationPolicy(dedupe="off"))
    hunter = next(f for f in report.findings if f.reported_by == ["silent-failure-hunter"])
    assert hunter.severity is Severity.CRITICAL
    assert sorted((e.rule, e.from_severity.value, e.to_severity.value)
                  for e in hunter.escalations) == [
        ("code-reviewer + silent-failure-hunter", "minor", "critical"),
        ("type-design-analyzer + silent-failure-hunter", "minor", "major")]


def test_a_merged_finding_with_both_agents_fires_its_rule() -> None:
    same = "`close()` swallows the OSError raised by `flush()`"
    results = [result("a", finding(10, title=same, kind="bug"), agent="code-reviewer"),
               result("b", finding(10, title=same, kind="bug"), agent="silent-failure-hunter")]
    [merged] = aggregate(results, AggregationPolicy(dedupe="exact")).findings
    assert merged.severity is Severity.CRITICAL
    assert merged.escalations[0].rule == "code-reviewer + silent-failure-hunter"


def test_any_rule_needs_another_agent() -> None:
    alone = aggregate([result("a", finding(10, title="x"), agent="codex-review-agent")])
    assert not alone.findings[0].notes


def test_rules_from_toml(tmp_path: Any) -> None:
    path = tmp_path / "rules.toml"
    path.write_text('defaults = false\nwindow = 3\nreview_above = 9\n[agent_weights]\nqa = 2\n'
                    '[[rule]]\nname = "sec + qa"\n'
                    'agents = ["Security Auditor", "qa_engineer"]\naction = "escalate"\n'
                    'note = "security finding without a test"\n')
    from sarp.aggregation import load_rules

    rules, settings = load_rules(path)
    assert settings == {"window": 3, "review_above": 9, "agent_weights": {"qa": 2.0}}
    assert rules == (Rule("sec + qa", ("Security Auditor", "qa_engineer"), "escalate",
                          "security finding without a test"),)
    results = [result("a", finding(10, severity="minor", title="x"), agent="security-auditor"),
               result("b", finding(12, severity="minor", title="y"), agent="qa-engineer")]
    report = aggregate(results, AggregationPolicy(dedupe="off", rules=rules, window=3))
    assert [f.severity.value for f in report.findings] == ["major", "major"]
    assert report.findings[0].notes == ["sec + qa: security finding without a test"]


def test_rules_file_errors_are_all_reported_with_their_path() -> None:
    with pytest.raises(RulesError) as caught:
        rules_from_data({"defaults": "yes", "colour": 1,
                         "rule": [{"agents": ["a"], "action": "shout"}, "x",
                                  {"agents": ["a", "b"], "action": "note", "note": 3}]})
    assert caught.value.errors == [
        "unknown key(s) colour; known: defaults, rule, agent_weights, window, fix_first_at, "
        "review_above, similar_threshold, confidence, dedupe",
        "defaults: must be true or false",
        'rule[0].agents: must be two agent names, e.g. ["code-reviewer", '
        '"silent-failure-hunter"] (the second may be "any")',
        "rule[0].action: must be one of escalate-critical, escalate, corroborate, note",
        "rule[1]: must be a table",
        "rule[2].note: must be a string",
    ]


# -- confidence ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("mode", "weights", "expected"), [
    ("max", {}, 95.0),
    ("mean-boost", {}, 96.5),  # seed 004's example: (95 + 78) / 2 + 10
    ("mean-boost", {"security-auditor": 3.0}, 100.0),  # weighted mean 90.75 + 10, capped
    ("mean-boost", {"security-auditor": 1.0, "qa-engineer": 3.0}, 92.25),
])
def test_confidence_combination(mode: str, weights: dict[str, float], expected: float) -> None:
    text = "`token` compared with `==` in `check_auth()`"
    results = [result("a", finding(42, title=text, kind="sec", confidence=95),
                      agent="security-auditor"),
               result("b", finding(42, title=text, kind="sec", confidence=78),
                      agent="qa-engineer")]
    policy = AggregationPolicy(dedupe="exact", confidence=mode,  # type: ignore[arg-type]
                               agent_weights=weights, rules=())
    assert aggregate(results, policy).findings[0].confidence == expected


def test_confidence_falls_back_to_the_result_and_may_be_unknown() -> None:
    report = aggregate([result("a", finding(1, title="x"), confidence=85.0),
                        result("b", finding(50, title="y"))], NO_RULES)
    assert sorted(f.confidence or 0 for f in report.findings) == [0, 85.0]


# -- the run -------------------------------------------------------------------------------------

def test_stats_coverage_gaps_decision_and_verdict() -> None:
    results = [
        result("clean", status=Status.CLEAN),
        result("found", finding(1, severity="critical", title="x")),
        result("half", finding(90, title="y"), status=Status.PARTIAL,
               metrics={"Coverage": "51%", "Reason": "budget ran out"}),
        build(Result, id="noise", dialect="text", status=Status.PARTIAL,
              conformance=Conformance.UNPARSEABLE, delivery=Delivery.COMPLETE),
    ]
    report = aggregate(results)
    assert report.stats.by_status == {"CLEAN": 1, "FINDINGS": 1, "PARTIAL": 1, "BLOCKED": 0,
                                      "ERROR": 0, "unparseable": 1}
    assert (report.coverage.percent, report.coverage.complete, report.coverage.partial,
            report.coverage.none) == (62.8, 2, 2, 0)
    assert [(g.result, g.bucket, g.reason) for g in report.gaps] == [
        ("half", "PARTIAL", "budget ran out"),
        ("noise", "unparseable", "unparseable (complete): no protocol recognised")]
    assert report.decision is Decision.REVIEW
    assert report.verdict is Verdict.FIX_ISSUES_FIRST


@pytest.mark.parametrize(("statuses", "decision"), [
    ([Status.CLEAN, Status.FINDINGS], Decision.CONTINUE),
    ([Status.CLEAN, Status.PARTIAL], Decision.REVIEW),
    ([Status.ERROR, Status.PARTIAL], Decision.RETRY),
    ([Status.ERROR, Status.BLOCKED], Decision.BLOCKED),
])
def test_decision(statuses: list[Status], decision: Decision) -> None:
    results = [result(f"r{k}", status=s, blocked_reason="which db?" if s is Status.BLOCKED
                      else None) for k, s in enumerate(statuses)]
    assert aggregate(results).decision is decision


@pytest.mark.parametrize(("severities", "policy", "verdict"), [
    (["major"] * 5, AggregationPolicy(), Verdict.READY),
    (["major"] * 6, AggregationPolicy(), Verdict.REVIEW_RECOMMENDED),
    (["critical"], AggregationPolicy(), Verdict.FIX_ISSUES_FIRST),
    (["critical"], AggregationPolicy(fix_first_at=2), Verdict.READY),
    (["major"] * 3, AggregationPolicy(review_above=2), Verdict.REVIEW_RECOMMENDED),
])
def test_verdict_thresholds(severities: list[str], policy: AggregationPolicy,
                            verdict: Verdict) -> None:
    findings = [finding(100 * k, severity=s, title=f"defect {k}") for k, s in
                enumerate(severities)]
    assert aggregate([result("a", *findings)], policy).verdict is verdict


def test_results_need_distinct_ids_and_missing_ones_are_named_by_content() -> None:
    with pytest.raises(ValueError, match="two results have the id"):
        aggregate([result("a"), result("a")])
    x = build(Result, dialect="text", status=Status.FINDINGS, conformance=Conformance.SALVAGED,
              findings=[finding(3, title="x")])
    y = build(Result, dialect="text", status=Status.FINDINGS, conformance=Conformance.SALVAGED,
              findings=[finding(9, title="y")])
    one, other = aggregate([x, y]), aggregate([y, x])
    assert one.model_dump() == other.model_dump()  # the same whatever the order
    assert all(row.id.startswith("result-") for row in one.results)
    assert aggregate([x]).merge(aggregate([y])).model_dump() == one.model_dump()
    twice = aggregate([x, x.model_copy()])
    assert len({row.id for row in twice.results}) == 2


# -- merging reports ------------------------------------------------------------------------------

WORDS = ["token", "parse", "`lexer.lineno`", "comment", "quote", "`safe()`", "leak", "close"]


@st.composite
def result_sets(draw: st.DrawFn) -> list[Result]:
    count = draw(st.integers(1, 6))
    out = []
    for k in range(count):
        items = []
        for _ in range(draw(st.integers(0, 4))):
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
            items.append(finding(draw(st.integers(1, 40)), title=" ".join(words),
                                 severity=draw(st.sampled_from(["critical", "major", "minor"])),
                                 path=draw(st.sampled_from(["a.py", "b.py", None])),
                                 confidence=draw(st.none() | st.integers(40, 99))))
        agent = draw(st.sampled_from(["code-reviewer", "silent-failure-hunter",
                                      "test-analyzer", "qa"]))
        out.append(result(f"r{k}", *items, agent=agent,
                          status=draw(st.sampled_from(list(Status)))))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result_sets(), st.data(), st.sampled_from(["similar", "exact", "proximity", "off"]))
def test_any_grouping_gives_the_same_report(results: list[Result], data: st.DataObject,
                                            dedupe: str) -> None:
    policy = AggregationPolicy(dedupe=dedupe)  # type: ignore[arg-type]
    whole = aggregate(results, policy).model_dump(mode="json")
    order = data.draw(st.permutations(results))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(order)), max_size=3)))
    parts = [order[a:b] for a, b in zip([0, *cuts], [*cuts, len(order)], strict=True)]
    reports = [aggregate(part, policy) for part in parts]
    left = reports[0]
    for report in reports[1:]:
        left = left.merge(report)
    right = reports[-1]
    for report in reversed(reports[:-1]):
        right = report.merge(right)
    assert left.model_dump(mode="json") == whole == right.model_dump(mode="json")


def test_merge_refuses_overlap_and_other_policies() -> None:
    a = aggregate([result("a", finding(1))])
    with pytest.raises(ValueError, match="both reports contain"):
        a.merge(aggregate([result("a", finding(2))]))
    with pytest.raises(ValueError, match="different policies"):
        a.merge(aggregate([result("b")], NO_RULES))
    from_json = Report.model_validate_json(a.model_dump_json())
    with pytest.raises(ValueError, match="read back from JSON"):
        from_json.merge(aggregate([result("b")]))


# -- edges a demanding user meets -----------------------------------------------------------

def test_a_run_where_nothing_finished_is_not_ready() -> None:
    empty = aggregate([])
    assert (empty.verdict, empty.decision) == (Verdict.REVIEW_RECOMMENDED, Decision.RETRY)
    failed = aggregate([result("a", status=Status.ERROR), result("b", status=Status.ERROR)])
    assert (failed.verdict, failed.decision) == (Verdict.REVIEW_RECOMMENDED, Decision.RETRY)


# (results' status, conformance and delivery, the verdict) with review_above far out of
# reach: whether anything was read to the end decides, not a threshold
NOTHING_READ_TO_THE_END = [
    ([], Verdict.REVIEW_RECOMMENDED),
    ([(Status.PARTIAL, Conformance.REPAIRED, Delivery.COMPLETE)], Verdict.REVIEW_RECOMMENDED),
    ([(Status.PARTIAL, Conformance.REPAIRED, Delivery.TRUNCATED)], Verdict.REVIEW_RECOMMENDED),
    ([(Status.PARTIAL, Conformance.UNPARSEABLE, Delivery.COMPLETE)],
     Verdict.REVIEW_RECOMMENDED),
    ([(Status.CLEAN, Conformance.UNPARSEABLE, Delivery.POINTER)], Verdict.REVIEW_RECOMMENDED),
    ([(Status.BLOCKED, Conformance.CONFORMANT, Delivery.COMPLETE)],
     Verdict.REVIEW_RECOMMENDED),
    ([(Status.ERROR, Conformance.UNPARSEABLE, Delivery.EMPTY)], Verdict.REVIEW_RECOMMENDED),
    ([(Status.ERROR, Conformance.UNPARSEABLE, Delivery.EMPTY),
      (Status.CLEAN, Conformance.CONFORMANT, Delivery.COMPLETE)], Verdict.READY),
    ([(Status.FINDINGS, Conformance.REPAIRED, Delivery.COMPLETE)], Verdict.READY),
]


@pytest.mark.parametrize(("results", "verdict"), NOTHING_READ_TO_THE_END)
def test_nothing_read_to_the_end_is_review_recommended_whatever_the_thresholds(
        results: list[tuple[Status, Conformance, Delivery]], verdict: Verdict) -> None:
    run = [result(f"r{k}", finding(10, severity="minor"), status=status,
                  conformance=conformance, delivery=delivery)
           for k, (status, conformance, delivery) in enumerate(results)]
    assert aggregate(run, AggregationPolicy(review_above=100)).verdict is verdict


def test_a_critical_outranks_nothing_read_to_the_end() -> None:
    run = [result("a", finding(10, severity="critical"), status=Status.PARTIAL)]
    assert aggregate(run).verdict is Verdict.FIX_ISSUES_FIRST


def test_the_readme_states_the_verdict_rule_the_code_applies() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("The verdict is `FIX ISSUES FIRST`")
    rule = " ".join(readme[start:readme.index("\n\n", start)].split())
    assert rule == (
        "The verdict is `FIX ISSUES FIRST` with `fix_first_at` (1) or more critical findings;"
        " else `REVIEW RECOMMENDED` with more than `review_above` (5) major findings, or,"
        " whatever the findings, when nothing was read to the end: no result is CLEAN or"
        " FINDINGS (none came back, or each one is PARTIAL, cut off, unparseable, BLOCKED or"
        " ERROR); else `READY`. The two thresholds are settings; the rule about nothing read"
        " to the end is not.")
    defaults = AggregationPolicy()
    assert (defaults.fix_first_at, defaults.review_above) == (1, 5)

@pytest.mark.parametrize(("stated", "percent"), [
    ("51%", 51.0), ("3/4 files", 75.0), ("2 of 6 sections", 33.3), (250, 100.0), (-40, 0.0),
    ("51% (180 of 350 lines)", 51.0), ("lines 1-180", None), ("0/0", None),
])
def test_stated_coverage(stated: object, percent: float | None) -> None:
    report = aggregate([result("a", status=Status.PARTIAL, metrics={"Coverage": stated})])
    assert report.results[0].coverage == percent


def test_two_spellings_of_one_agent_do_not_corroborate() -> None:
    # seed 004 counts agreeing agents: one agent's retry is not a second opinion
    text = "`close()` leaks the handle when `flush()` fails"
    same = finding(5, title=text, kind="bug", confidence=60)
    results = [result("a", same, agent="Code Reviewer"), result("b", same, agent="code-reviewer")]
    [merged] = aggregate(results, AggregationPolicy(dedupe="exact", confidence="mean-boost",
                                                    rules=())).findings
    assert merged.reported_by == ["Code Reviewer"] and not merged.corroborated
    assert merged.confidence == 60.0 and merged.occurrences == 2


def test_confidence_ignores_what_is_not_a_percent() -> None:
    text = "`close()` leaks the handle when `flush()` fails"
    results = [result("a", finding(5, title=text, kind="bug", confidence=float("nan"))),
               result("b", finding(5, title=text, kind="bug", confidence=250.0))]
    [merged] = aggregate(results, AggregationPolicy(dedupe="exact", rules=())).findings
    assert merged.confidence == 100.0


def test_the_merged_text_is_the_most_detailed_description() -> None:
    long_title = finding(5, title="`close()` " + "very " * 60 + "long title", kind="bug")
    described = finding(5, title="`close()` leaks", kind="bug",
                        description="The handle opened by `open()` is never closed.",
                        )
    [merged] = aggregate([result("a", long_title), result("b", described)],
                         AggregationPolicy(dedupe="exact", rules=())).findings
    assert merged.description == "The handle opened by `open()` is never closed."
    assert merged.title == "`close()` leaks"


def test_user_rules_fire_beside_defaults_and_any_comes_second() -> None:
    rules, _ = rules_from_data({"rule": [{"agents": ["code-reviewer", "silent-failure-hunter"],
                                          "action": "note", "note": "ours"}]})
    results = [result("a", finding(10, severity="minor", title="x"), agent="code-reviewer"),
               result("b", finding(12, severity="minor", title="y"), agent="silent-failure-hunter")]
    report = aggregate(results, AggregationPolicy(dedupe="off", rules=rules))
    assert [len(f.notes) for f in report.findings] == [2, 2]  # the default's and ours
    with pytest.raises(RulesError, match='"any" may only be the second agent'):
        rules_from_data({"rule": [{"agents": ["any", "qa"], "action": "note"}]})


@pytest.mark.parametrize("settings", [{"fix_first_at": 0}, {"review_above": -1},
                                      {"agent_weights": {"qa": -1.0}},
                                      {"similar_threshold": 0.0}])
def test_policy_refuses_settings_that_make_no_sense(settings: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        AggregationPolicy(**settings)


def test_an_empty_reply_is_a_failure_to_retry_not_a_partial() -> None:
    import sarp

    empty = sarp.parse("")
    empty.id = "empty.md"
    report = aggregate([empty, result("ok", finding(1, title="x"))])
    assert report.results[0].bucket == "ERROR"
    assert report.decision is Decision.RETRY


def test_identical_findings_in_two_files_of_one_name_stay_apart() -> None:
    text = "`load()` never closes the file it opens"
    report = aggregate([result("a", finding(3, path="pkg_a/__init__.py", title=text)),
                        result("b", finding(3, path="pkg_b/__init__.py", title=text))])
    assert report.stats.findings == 2


@pytest.mark.parametrize("path", [None, "a.py"])
def test_findings_that_say_nothing_are_never_twins(path: str | None) -> None:
    # nothing to judge sameness by, so the conservative answer: keep both
    report = aggregate([result("a", finding(3, path=path)), result("b", finding(3, path=path))])
    assert report.stats.findings == 2


@pytest.mark.parametrize(("kinds", "merged"), [
    (("contradiction", "contradiction", "contradiction"), 1),  # what exact compares: equal
    (("contradiction", "contradiction", "omission"), 2),
])
def test_findings_that_say_nothing_but_a_type_and_two_places_are_twins(
        kinds: tuple[str, ...], merged: int) -> None:
    # REVIEW12 #18: clarity rows with empty Description and Suggestion cells; seed 000's
    # exact policy holds identical type, location and counter-location for one finding
    def bare(kind: str) -> Finding:
        return finding(40, path="api.md", kind=kind).model_copy(update={
            "counter_location": build(Location, raw="lib/api.py:12", path="lib/api.py",
                                      line=12, end_line=None)})

    report = aggregate([result(f"r{k}", bare(kind)) for k, kind in enumerate(kinds)],
                       NO_RULES)
    assert report.stats.findings == merged


def test_findings_that_say_nothing_need_the_whole_same_place_to_be_twins() -> None:
    # REVIEW13 #18: exact compares whole places, and never merges findings with none
    def bare(line: int | None, end: int | None, path: str | None = "api.md") -> Finding:
        made = finding(line, path=path, kind="security")
        if made.location is not None and end is not None:
            made = made.model_copy(update={"location": made.location.model_copy(
                update={"end_line": end})})
        return made

    def count(*made: Finding) -> int:
        return aggregate([result(f"r{k}", f) for k, f in enumerate(made)], NO_RULES) \
            .stats.findings

    assert count(bare(40, None), bare(40, None)) == 1
    assert count(bare(40, None), bare(40, 90)) == 2
    assert count(bare(None, None, None), bare(None, None, None)) == 2


def test_short_findings_about_one_defect_still_merge() -> None:
    report = aggregate([result("a", finding(40, title="Race in `refresh()`")),
                        result("b", finding(40, title="`refresh()` race"))])
    assert report.stats.findings == 1


def test_identical_anonymous_results_merge_as_partial_reports() -> None:
    clean = build(Result, dialect="text", status=Status.CLEAN,
                  conformance=Conformance.CONFORMANT)
    whole = aggregate([clean, clean.model_copy()])
    merged = aggregate([clean]).merge(aggregate([clean.model_copy()]))
    assert merged.model_dump() == whole.model_dump() and len(whole.results) == 2


def test_a_rule_needs_two_different_agents() -> None:
    with pytest.raises(RulesError, match="two different agents"):
        rules_from_data({"rule": [{"agents": ["qa", "QA"], "action": "note"}]})


@pytest.mark.parametrize(("statuses", "percent", "unknown", "said"), [
    # USER16 #10, REVIEW16 #13: a PARTIAL result that states no coverage is unknown: the
    # overall coverage is a range, its lower bound in `percent`
    ([("CLEAN", None), ("PARTIAL", "50%"), ("PARTIAL", None)], 50.0, 1, "50-83.3% (1 unknown)"),
    ([("PARTIAL", None)], 0.0, 1, "0-100% (1 unknown)"),
    ([("FINDINGS", None), ("ERROR", None)], 50.0, 0, "50%"),
    ([], 0.0, 0, "0%"),
])
def test_overall_coverage_with_unknown_coverage_is_a_range(
        statuses: list[tuple[str, str | None]], percent: float | None, unknown: int,
        said: str) -> None:
    results = [result(f"r{n}", status=Status(status),
                      metrics={"coverage": stated} if stated else {})
               for n, (status, stated) in enumerate(statuses)]
    coverage = aggregate(results).coverage
    assert (coverage.percent, coverage.unknown, coverage.said()) == (percent, unknown, said)


def test_findings_that_name_no_file_meet_a_bounded_number_of_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # ADV16 #15: each file-less finding met every other through posting lists of up to 64,
    # so 4x the findings cost 25x the time; now each meets at most LOOSE_CANDIDATES
    import random

    from sarp.aggregation import similar

    scored = 0
    real = similar.score

    def counting(*args: Any) -> float:
        nonlocal scored
        scored += 1
        return real(*args)

    monkeypatch.setattr(similar, "score", counting)
    words = [f"w{i}" for i in range(400)]
    rng = random.Random(3)
    results = [result(f"r{a}", *(finding(path=None, title=" ".join(rng.sample(words, 4)),
                                         description=" ".join(rng.sample(words, 10)))
                                 for _ in range(100)), agent=f"agent{a}")
               for a in range(8)]
    aggregate(results)
    assert 0 < scored <= 64 * 800
