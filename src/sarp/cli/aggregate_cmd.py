# `sarp aggregate PATH...`: many replies, JSONL files and SARIF logs -> one report.
#
# The report goes to stdout (or -o FILE) in the chosen format; a summary table goes to
# the terminal (stderr when the report is on stdout, so pipes get the report only).
# Exit 1 when a finding is at or above --fail-on, 2 for a path that names nothing or a
# bad rules file.
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from sarp.aggregation import AggregationPolicy, Report, RulesError, aggregate, load_rules
from sarp.aggregation.inputs import InputError, distinct_ids, expand, load_file, load_text
from sarp.aggregation.policy import DEDUPE_POLICIES
from sarp.cli.common import OutputFailure, UsageFailure
from sarp.cli.output import echo, echo_text
from sarp.model import Result, Severity
from sarp.renderers import REPORT_FORMATS, render_report
from sarp.text.decode import decode, note_decoding

__all__ = ["command"]

_FAIL_ON = ("critical", "major", "minor", "never")
_PROGRESS_FROM = 50  # files; fewer load in a blink
_STATUS_FROM = 20_000  # findings; fewer aggregate in about a second


def _load(paths: tuple[str, ...], report_file: Path | None) -> list[Result]:
    """Every reply the paths name, except the file the report is about to be written to
    (a report written into the run's folder is not a reply of the next run), and any
    other report sarp wrote (each named on stderr)."""
    results: list[Result] = []
    skipped: list[str] = []
    if "-" in paths:  # a reply (or JSONL of Results) piped in
        stdin, note = decode(sys.stdin.buffer.read())
        results.extend(note_decoding(r, note) for r in load_text(stdin, "<stdin>", skipped))
    try:
        files = expand((p for p in paths if p != "-"), skipped)
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    if report_file is not None:
        files = [file for file in files if file.resolve() != report_file]
    if len(files) < _PROGRESS_FROM or not sys.stderr.isatty():
        for file in files:
            results.extend(load_file(file, skipped))
    else:
        columns = (TextColumn("reading replies"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
            for file in progress.track(files, description="read"):
                results.extend(load_file(file, skipped))
    for line in skipped:
        echo(f"sarp: {line}", err=True)  # file names are the run's, and so is their text
    return distinct_ids(results)


def _policy(dedupe: str | None, window: int | None, rules_file: str | None,
            confidence: str | None) -> AggregationPolicy:
    """The defaults, then the rules file's settings, then the options given."""
    settings: dict[str, Any] = {}
    if rules_file is not None:
        try:
            rules, settings = load_rules(rules_file)
        except RulesError as exc:
            raise UsageFailure("bad rules file " + "\n  ".join([exc.source, *exc.errors])) \
                from None
        settings["rules"] = rules
    for key, value in (("dedupe", dedupe), ("window", window), ("confidence", confidence)):
        if value is not None:
            settings[key] = value
    try:
        return AggregationPolicy(**settings)
    except ValueError as exc:
        raise UsageFailure(f"bad settings: {exc}") from None


def _summary(report: Report, console: Console) -> None:
    table = Table(title=f"{report.verdict.value} (decision: {report.decision.value})",
                  title_justify="left")
    for name in ("results", "findings", "critical", "major", "minor", "corroborated",
                 "gaps", "coverage"):
        table.add_column(name, justify="right")
    stats = report.stats
    table.add_row(str(stats.results), f"{stats.findings} of {stats.input_findings}",
                  *(str(stats.by_severity[s.value]) for s in Severity),
                  str(stats.corroborated), str(len(report.gaps)),
                  report.coverage.said().split(" (")[0])
    console.print(table)
    if report.coverage.unknown:  # kept out of the table, which must fit 80 columns
        console.print(f"coverage unknown for {report.coverage.unknown} result(s): overall "
                      f"{report.coverage.said().split(' (')[0]}")


def _failing(report: Report, fail_on: str) -> int:
    if fail_on == "never":
        return 0
    limit = Severity(fail_on).rank
    return sum(1 for f in report.findings if f.severity.rank <= limit)


@click.command("aggregate")
@click.argument("paths", nargs=-1, required=True)
@click.option("--dedupe", type=click.Choice(DEDUPE_POLICIES), default=None,
              help="How findings that report the same defect merge.  [default: similar]")
@click.option("--window", type=click.IntRange(min=0), default=None,
              help="Lines for `proximity` and the rules' same region.  [default: 10]")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), default=None,
              help="TOML: cross-validation rules added to or replacing the defaults, and "
                   "settings (thresholds, agent weights).")
@click.option("--confidence", type=click.Choice(["max", "mean-boost"]), default=None,
              help="How merged findings combine confidence.  [default: max]")
@click.option("--format", "fmt", type=click.Choice(list(REPORT_FORMATS)), default="markdown",
              show_default=True, help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True,
                                                allow_dash=True), default=None,
              help="Write the report here instead of stdout (- is stdout).")
@click.option("--fail-on", type=click.Choice(_FAIL_ON), default="never", show_default=True,
              help="Exit 1 when a finding is at least this severe, or no result is complete.")
def command(paths: tuple[str, ...], dedupe: str | None, window: int | None,
            rules_file: str | None, confidence: str | None, fmt: str, output: str | None,
            fail_on: str) -> int:
    """Aggregate replies (files, directories, globs, - for stdin; JSONL or JSON of
    Results; SARIF logs) into one report."""
    policy = _policy(dedupe, window, rules_file, confidence)
    results = _load(paths, Path(output).resolve() if output not in (None, "-") else None)
    findings = sum(len(result.findings) for result in results)
    if findings < _STATUS_FROM or not sys.stderr.isatty():
        report = aggregate(results, policy)
        text = render_report(report, fmt)
    else:
        with Console(stderr=True).status(f"aggregating {findings:,} findings from "
                                         f"{len(results):,} replies"):
            report = aggregate(results, policy)
            text = render_report(report, fmt)
    if output is not None and output != "-":
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageFailure(f"cannot write {output}: {exc.strerror or exc}") from None
        try:
            # a pipe or a log gets the whole table, not one cut to 80 columns
            _summary(report, Console(highlight=False,
                                     width=None if sys.stdout.isatty() else 100))
        except OutputFailure as exc:
            # the report is written: a terminal that cannot take the summary must not turn
            # the --fail-on answer below into an I/O error
            echo_text(f"sarp: warning: {exc} (the summary; the report is in {output})",
                      err=True)
    else:
        echo_text(text, nl=False, is_json=fmt in ("json", "sarif"))
        if sys.stderr.isatty():
            _summary(report, Console(stderr=True, highlight=False))
    if fail_on == "never":
        return 0
    failing = _failing(report, fail_on)
    if failing:
        click.echo(f"sarp: {failing} finding(s) at or above {fail_on}", err=True)
        return 1
    if not any(row.bucket in ("CLEAN", "FINDINGS") for row in report.results):
        # a gate must not pass because every subagent failed or none reported
        click.echo("sarp: no result was complete (see the gaps); nothing was reviewed",
                   err=True)
        return 1
    return 0
