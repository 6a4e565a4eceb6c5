"""What `sarp aggregate` reads (files, directories, globs, JSONL, SARIF) and how it runs."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sarp.aggregation import Decision, Verdict, aggregate
from sarp.aggregation.inputs import InputError, expand, load_file, load_results, load_text
from sarp.cli.main import main
from sarp.model import Conformance

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "review-run"
GOLDEN = Path(__file__).parent / "data" / "aggregate" / "review-run.expected.json"


def test_directories_globs_and_files_expand_in_a_stable_order(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("x")
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_text("{}")
    (tmp_path / ".hidden.md").write_text("x")
    found = expand([str(tmp_path), str(tmp_path / "*.md"), str(tmp_path / "a.md")])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.md", "b.md", "sub/c.json"]
    with pytest.raises(InputError, match="no such file"):
        expand([str(tmp_path / "missing.md")])
    with pytest.raises(InputError, match="matches no file"):
        expand([str(tmp_path / "*.txt")])


@pytest.mark.parametrize(("pattern", "matched"), [
    ("*.md", ["a.md", "b.md"]),
    ("**/*.md", ["a.md", "b.md", "sub/deep/e.md", "sub/d.md"]),
    ("sub/**", ["sub/c.json", "sub/deep/e.md", "sub/d.md"]),
    ("sub/*", ["sub/c.json", "sub/d.md"]),
    ("?.md", ["a.md", "b.md"]),
    ("[a].md", ["a.md"]),
    ("[!a].md", ["b.md"]),
    ("sub/*/e.md", ["sub/deep/e.md"]),
    ("s**/*.md", ["sub/d.md"]),  # `**` inside a name is `*` (REVIEW16 #18)
])
def test_globs_match_as_the_shell_would(tmp_path: Path, pattern: str,
                                        matched: list[str]) -> None:
    for name in ("a.md", "b.md", "sub/c.json", "sub/d.md", "sub/deep/e.md", ".h.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found = expand([f"{tmp_path.as_posix()}/{pattern}"])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in found) == sorted(matched)


def test_symlinks_neither_loop_nor_lead_outside_the_run(tmp_path: Path) -> None:
    # ADV16 #8: two links to `.` made `run/**/*.md` run for minutes; #16: a link to a file
    # outside the run put that file's text in the report
    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "a.md").write_text("x")
    (run / "sub" / "b.md").write_text("x")
    (tmp_path / "secret.md").write_text("- [HIGH] SECRET at deploy.py:3")
    (run / "self").symlink_to(".")
    (run / "self2").symlink_to(".")
    (run / "notes.md").symlink_to(tmp_path / "secret.md")
    (run / "again.md").symlink_to(run / "a.md")  # inside the run: the same file, once
    for arg in (str(run), f"{run.as_posix()}/**/*.md"):
        skipped: list[str] = []
        found = expand([arg], skipped)
        assert sorted(p.relative_to(run).as_posix() for p in found) == ["a.md", "sub/b.md"]
        assert skipped == [f"{(run / 'notes.md').as_posix()}: a link to a file outside "
                           f"{run.as_posix()}; skipped"]


def test_jsonl_of_results_keeps_bad_lines_as_unparseable_results(tmp_path: Path) -> None:
    good = aggregate([]).model_dump_json()  # not a Result: a line that must be reported
    reply = load_results([str(EXAMPLE / "docs-consistency.md")])[0]
    path = tmp_path / "run.jsonl"
    path.write_text(reply.model_dump_json() + "\n\n" + "{not json\n" + good + "\n")
    results = load_file(path)
    assert [r.id for r in results] == [f"{path.as_posix()}:{n}" for n in (1, 3, 4)]
    assert results[0].findings == reply.findings
    for bad, line in ((results[1], 3), (results[2], 4)):
        assert bad.conformance is Conformance.UNPARSEABLE
        assert [(d.code, d.line) for d in bad.diagnostics] == [("SARP006", line)]


def test_sarps_own_outputs_load_whole(tmp_path: Path) -> None:
    # a JSONL line may hold U+2028 raw; a BOM must not cost line 1; `sarp parse --format
    # json` writes one Result or a list of them
    reply = (EXAMPLE / "code-reviewer.md").read_text().replace(" the filename ends",
                                                                " the filename\u2028ends", 1)
    parsed = load_text(reply, "code-reviewer.md")[0]
    line = parsed.model_dump_json()
    assert "\u2028" in line
    (tmp_path / "a.jsonl").write_text(line + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_bytes(b"\xef\xbb\xbf" + line.encode() + b"\n")
    (tmp_path / "c.json").write_text(json.dumps([json.loads(line), json.loads(line)]))
    (tmp_path / "d.json").write_text(line)
    loaded = {r.id.rsplit("/", 1)[-1]: r for r in load_results([str(tmp_path)])}
    assert sorted(loaded) == ["a.jsonl:1", "b.jsonl:1", "c.json#1", "c.json#2", "d.json"]
    for result in loaded.values():
        assert (result.dialect, len(result.findings)) == ("adr013", 9)
        assert result.findings == parsed.findings


def test_fifos_repeats_and_odd_names_do_not_hang_or_double(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")  # a FIFO would block a reader forever
    (tmp_path / "a.md").write_text("RESULT: CLEAN | Type: digest | Doc: x | Sections: 0")
    (tmp_path / "a.md:1").write_text("x")
    (tmp_path / "\udcffname.md").write_bytes(b"x")  # not UTF-8 on disk
    found = load_results([str(tmp_path), str(tmp_path / "." / "a.md")])
    names = sorted(r.id.rsplit("/", 1)[-1] for r in found)
    assert names == ["a.md", "a.md:1", "\ufffdname.md"]
    report = aggregate(found)
    json.loads(report.model_dump_json())  # every id can be written
    with pytest.raises(InputError, match="not a regular file"):
        expand([str(tmp_path / "pipe.md")])


def test_a_lone_surrogate_in_json_input_is_replaced(tmp_path: Path) -> None:
    log = ('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "lint"}}, "results": '
           '[{"ruleId": "r1", "level": "error", "message": {"text": "boom \\ud800"}}]}]}')
    (tmp_path / "scan.sarif").write_text(log)
    [result] = load_results([str(tmp_path / "scan.sarif")])
    assert result.findings[0].description == "boom \ufffd"
    json.loads(aggregate([result]).model_dump_json())


def test_an_unreadable_file_becomes_a_gap(tmp_path: Path) -> None:
    folder = tmp_path / "reply.md"
    folder.mkdir()  # reading a directory as a file fails like an unreadable file
    [result] = load_file(folder)
    assert result.conformance is Conformance.UNPARSEABLE
    assert result.diagnostics[0].code == "SARP007"


def example_report() -> dict[str, object]:
    """The report of examples/review-run as JSON, result ids relative to the repository."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        report = aggregate(load_results(["examples/review-run"]))
    finally:
        os.chdir(cwd)
    data: dict[str, object] = json.loads(report.model_dump_json())
    return data


def test_the_example_review_run_report_is_golden() -> None:
    # eight replies to one review of CPython's Lib/shlex.py in six formats: one PARTIAL
    # (a budget ran out) and one unparseable (a pointer to a file that is not there).
    # After an intended change: `python tests/test_aggregate_cli.py`, then read the diff.
    assert example_report() == json.loads(GOLDEN.read_text(encoding="utf-8"))
    report = aggregate(load_results([str(EXAMPLE)]))
    assert report.stats.by_status["PARTIAL"] == 2  # the budgeted one and the unformatted one
    assert report.stats.by_status["unparseable"] == 1
    assert report.decision is Decision.REVIEW
    assert report.verdict is Verdict.REVIEW_RECOMMENDED


def test_cli_writes_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["aggregate", str(EXAMPLE)]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("# Aggregated review: REVIEW RECOMMENDED\n")
    assert "## Coverage map" in markdown and "## Gaps" in markdown
    for fmt in ("json", "sarif", "html"):
        out = tmp_path / f"report.{fmt}"
        assert main(["aggregate", str(EXAMPLE), "--format", fmt, "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        summary = capsys.readouterr().out
        assert "REVIEW RECOMMENDED" in summary  # the terminal gets the summary table
        if fmt != "html":
            json.loads(text)
        else:
            assert text.lstrip().lower().startswith("<!doctype html>")


def test_a_report_written_into_the_run_is_not_read_back(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE, run)
    out = run / "report.json"
    for _ in range(2):  # the second run finds the first run's report among the replies
        assert main(["aggregate", str(run), "--format", "json", "-o", str(out)]) == 0
        report = json.loads(out.read_text(encoding="utf-8"))
        assert len(report["results"]) == len(list(EXAMPLE.iterdir()))
        assert all(not row["id"].endswith("report.json") for row in report["results"])


@pytest.mark.parametrize("fmt", ["markdown", "json", "sarif", "html"])
def test_a_report_in_any_format_is_skipped_and_said(
        tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    # USER16 #2: a report written into the run by an earlier `-o`, read as a reply,
    # counted its findings again (and its stats table as critical findings)
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE, run)
    assert main(["aggregate", str(EXAMPLE), "--format", fmt, "-o", str(run / "old")]) == 0
    capsys.readouterr()
    assert main(["aggregate", str(run), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    assert f"{(run / 'old').as_posix()}: a sarp {fmt} report, not an agent's reply; skipped" \
        in capsys.readouterr().err
    fresh = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [row["id"] for row in fresh["results"]] == sorted(
        (run / p.name).as_posix() for p in EXAMPLE.iterdir())


def test_stored_results_keep_the_agent_their_ids_named(tmp_path: Path) -> None:
    # USER16 #4: parse-then-aggregate credited every reply to the JSONL file's name, so
    # two agents agreeing counted as one
    reply = (EXAMPLE / "code-reviewer.md").read_text()
    lines = []
    for name in ("alice", "bob"):
        result = load_text(reply, f"run/{name}.md")[0]
        result.agent = None
        lines.append(result.model_dump_json())
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "run.json").write_text("[" + ",".join(lines) + "]")
    for name in ("run.jsonl", "run.json"):
        results = load_results([str(tmp_path / name)])
        assert [r.agent for r in results] == ["alice", "bob"]
        report = aggregate(results)
        assert report.stats.corroborated == len(report.findings) > 0


@pytest.mark.parametrize(("fail_on", "code"), [("never", 0), ("critical", 0), ("major", 1),
                                               ("minor", 1)])
def test_fail_on(fail_on: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["aggregate", str(EXAMPLE), "--fail-on", fail_on, "--format", "json"]) == code
    if code:
        assert "at or above" in capsys.readouterr().err


def test_dedupe_and_window_options(capsys: pytest.CaptureFixture[str]) -> None:
    counts = {}
    for dedupe in ("off", "exact", "proximity", "similar"):
        assert main(["aggregate", str(EXAMPLE), "--dedupe", dedupe, "--format", "json"]) == 0
        counts[dedupe] = json.loads(capsys.readouterr().out)["stats"]["findings"]
    assert counts["off"] == json.loads(GOLDEN.read_text())["stats"]["input_findings"]
    assert counts["off"] > counts["similar"] and counts["off"] > counts["proximity"]
    assert main(["aggregate", str(EXAMPLE), "--dedupe", "proximity", "--window", "0",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["findings"] > counts["proximity"]


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["aggregate", str(tmp_path / "nothing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nagents = ["a"]\naction = "shout"\n')
    assert main(["aggregate", str(EXAMPLE), "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    assert "rule[0].agents" in err and "rule[0].action" in err
    assert main(["aggregate", str(EXAMPLE), "--dedupe", "fuzzy"]) == 2


if __name__ == "__main__":
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(example_report(), indent=2, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(ROOT)}")


def test_markdown_keeps_agent_text_inside_its_cell() -> None:
    from markdown_it import MarkdownIt

    from sarp.model import Conformance, Finding, Location, Result, Severity, Status, build
    from sarp.renderers import markdown

    hostile = "x | y\n# Aggregated review: READY\n<img src=x onerror=alert(1)>"
    finding = build(Finding, id="F1", severity=Severity.MAJOR, native_severity=hostile,
                    title=hostile, description=hostile, type=hostile,
                    location=build(Location, raw="a.py:3", path="a|b.py", line=3))
    result = build(Result, id="r|1.md", dialect="json\n# Injected", status=Status.FINDINGS,
                   conformance=Conformance.CONFORMANT, agent=hostile, findings=[finding],
                   metadata={"scope": hostile})
    text = markdown.render(aggregate([result]))
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == ["Aggregated review: READY", "Stats", "Coverage map", "Findings",
                        "Details", "G1: x | y # Aggregated review: READY "
                        "&lt;img src=x onerror=alert(1)&gt; (major)", "Gaps"]
    assert "<img" not in text  # only &lt;img: no renderer turns it into an element
    rows = [line for line in text.splitlines() if line.startswith("| G1 ")]
    assert len(rows) == 1 and rows[0].count(" | ") == 6  # seven cells, pipes escaped


def test_fail_on_fails_when_nothing_was_reviewed(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("I saved my review to review.md.")
    assert main(["aggregate", str(tmp_path), "--fail-on", "critical"]) == 1
    assert "no result was complete" in capsys.readouterr().err
    assert main(["aggregate", str(tmp_path)]) == 0  # without a gate, a report is a report


def test_the_readme_python_example_prints_what_the_readme_says() -> None:
    # the "Aggregating results" example: run its code, compare with its `# ` output lines
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index('```python\nimport sarp\n\nresults = sarp.load_results')
    block = readme[start + len("```python\n"): readme.index("```", start + 10)]
    code = "\n".join(line for line in block.splitlines() if not line.startswith("# "))
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    cwd = os.getcwd()
    os.chdir(ROOT)
    printed: list[str] = []
    try:
        exec(compile(code, "README.md", "exec"),  # our own README's example, nothing else
             {"print": lambda *args: printed.append(" ".join(map(str, args)))})
    finally:
        os.chdir(cwd)
    assert printed == expected


def test_stdin_is_judged_by_content(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    log = ('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "lint"}}, "results": '
           '[{"ruleId": "r1", "level": "error", "message": {"text": "boom"}, "locations": '
           '[{"physicalLocation": {"artifactLocation": {"uri": "a.py"}, '
           '"region": {"startLine": 3}}}]}]}]}')
    two = load_results([str(EXAMPLE)])[:2]
    jsonl = "\n".join(r.model_dump_json() for r in two)
    for text, findings in ((log, 1), (jsonl, sum(len(r.findings) for r in two))):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        assert main(["aggregate", "-", "--format", "json", "--dedupe", "off"]) == 0
        assert json.loads(capsys.readouterr().out)["stats"]["input_findings"] == findings


def test_a_lone_surrogate_inside_a_reply_is_replaced() -> None:
    reply = '```json\n{"status": "FINDINGS", "findings": [{"severity": "major", ' \
            '"description": "boom \\ud800", "location": "a.py:3"}]}\n```\n'
    [result] = load_text(reply, "reply.md")
    assert "\ufffd" in (result.findings[0].description or "")
    json.loads(aggregate([result]).model_dump_json())


def test_plain_id_leads_keep_their_place_and_ordinary_words_are_not_ids() -> None:
    import sarp

    reply = ("### Warnings\n\nW1 – client.py:40: token is logged\n\n"
             "OAuth2: the flow itself is fine\n\nW2 – client.py:90: retry loops forever\n")
    found = sarp.parse(reply).findings
    assert [(f.id, f.location.raw if f.location else None, f.title) for f in found] == [
        ("W1", "client.py:40", "token is logged"), ("W2", "client.py:90", "retry loops forever")]


def test_markdown_leaves_code_spans_as_written_and_links_inert() -> None:
    from sarp.renderers.markdown import _html_safe

    assert _html_safe("see `x[0] < y` and [here](javascript:alert(1)) <b>") == \
        "see `x[0] < y` and \\[here\\](javascript:alert(1)) &lt;b&gt;"
    # an unpaired backtick cannot pair with one in the next agent string on the line
    assert _html_safe("a ` <img src=x>") == "a \\` &lt;img src=x&gt;"


def test_the_readme_report_excerpt_is_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("```text\n# Aggregated review:")
    shown = readme[start + len("```text\n"): readme.index("```", start + 8)].splitlines()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(["aggregate", "examples/review-run"]) == 0
    finally:
        os.chdir(cwd)
    printed = set(capsys.readouterr().out.splitlines())
    # every line shown whole (abridged ones carry "...") is a line the command prints
    assert [line for line in shown if line and "..." not in line and line not in printed] == []


@pytest.mark.parametrize("joined", ["\r", "\r\n", "\n\ufeff"])
def test_jsonl_lines_end_as_any_editor_ends_them(tmp_path: Path, joined: str) -> None:
    # ADV16 #18: lines parted by a lone CR, or a BOM at a line's start, lost whole Results
    line = load_text((EXAMPLE / "code-reviewer.md").read_text(), "a.md")[0].model_dump_json()
    (tmp_path / "run.jsonl").write_text(line + joined + line + "\n", newline="")
    results = load_file(tmp_path / "run.jsonl")
    assert [(r.conformance.value, len(r.findings)) for r in results] == [("conformant", 9)] * 2


def test_stored_results_without_ids_are_each_their_own_reporter(tmp_path: Path) -> None:
    # REVIEW16 #7: Results piped through `sarp parse -` (id `<stdin>`) or written by the
    # library (id null) all became one reporter named `<stdin>` or after the file
    reply = (EXAMPLE / "code-reviewer.md").read_text()
    lines = []
    for stored_id in ("<stdin>", None):
        result = load_text(reply, "x")[0]
        result.agent, result.id = None, stored_id
        lines.append(result.model_dump_json())
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    assert [r.agent for r in load_results([str(tmp_path / "run.jsonl")])] == ["run:1", "run:2"]


def test_an_agent_reply_titled_like_a_report_is_still_read(tmp_path: Path) -> None:
    # REVIEW16 #14: only the line sarp writes under its title marks a sarp report
    (tmp_path / "dave.md").write_text(
        "# Aggregated review: auth module\n\nI merged the three reviewers.\n\n## Findings\n"
        "- [CRITICAL] `auth.py:88` token expiry never checked; session hijack possible.\n")
    skipped: list[str] = []
    (result,) = load_results([str(tmp_path)], skipped)
    assert (skipped, len(result.findings)) == ([], 1)


def test_jsonl_with_lone_cr_line_ends_is_sniffed_from_stdin() -> None:
    # REVIEW16 #19: the content sniffing split on \n only
    line = load_text((EXAMPLE / "code-reviewer.md").read_text(), "a.md")[0].model_dump_json()
    assert [len(r.findings) for r in load_text(line + "\r" + line + "\r", "<stdin>")] == [9, 9]
