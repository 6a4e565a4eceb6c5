"""Aggregation at scale: 10k, 100k and 1M findings (SPEC §12).

    python benchmarks/aggregate_bench.py                 # 10k, 100k, 1M
    python benchmarks/aggregate_bench.py --sizes 10000   # one size

Synthetic but shaped like real runs: ten findings per result, about ten results (agents
with real role names, so the seed-001 rules fire) reviewing each file, each reporting
most of that file's defects near the same lines (jitter of a few lines) in its own words
(the defect's identifiers and key words, plus filler that differs per agent). Every
size runs in fresh processes (so one measurement's memory never counts in another's):
  load       `Result.model_validate_json` over the Results as JSONL lines (the baseline:
             merely reading the same input)
  aggregate  `sarp.aggregate(results)` with the default policy (`similar`), and the
             peak RSS of that process (input included, shown apart)
  floor      two costs no implementation of the contract in Python avoids, on the same
             input: the `similar` token regex run once over each finding's text (the
             least reading of what findings say), and one `Source` record per input
             finding (the report's `sources`, as SPEC §5 asks), its time and memory
Bars: 1M findings from 100k results under 10 s and 2 GB; 10x the input at most 12x the
time.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import platform
import random
import resource
import subprocess
import sys
import time

AGENTS = ("code-reviewer", "silent-failure-hunter", "security-auditor", "test-analyzer",
          "comment-analyzer", "type-design-analyzer", "code-simplifier", "reviewer",
          "qa-engineer", "backward-compat")
VERBS = ("drops", "ignores", "leaks", "skips", "overwrites", "misreads", "loses", "repeats")
NOUNS = ("token", "state", "buffer", "counter", "path", "handle", "entry", "lock", "cache",
         "session", "offset", "quote", "comment", "header", "retry", "timeout")
FILLER = ("when the input is empty", "after an error", "on the second call", "under load",
          "if the caller passes None", "for non-ASCII input", "at end of file",
          "when the file is missing", "in the default configuration", "on Windows")
SEVERITIES = ("critical", "major", "minor")


def _defects(rng: random.Random, file_no: int) -> list[dict[str, object]]:
    out = []
    for k in range(15):
        ident = f"{rng.choice(NOUNS)}_{rng.choice(NOUNS)}_{file_no % 97}_{k}"
        func = f"{rng.choice(('read', 'write', 'parse', 'load', 'close'))}_{rng.choice(NOUNS)}"
        out.append({"line": rng.randint(1, 900), "ident": ident, "func": func,
                    "verb": rng.choice(VERBS), "noun": rng.choice(NOUNS),
                    "severity": rng.choice(SEVERITIES)})
    return out


def build_results(findings: int, seed: int = 7) -> list[object]:
    from sarp.model import Conformance, Finding, Location, Result, Severity, Status, build

    rng = random.Random(seed)
    n_results = findings // 10
    n_files = max(1, n_results // 10)
    defects = [_defects(rng, f) for f in range(n_files)]
    results: list[object] = []
    for r in range(n_results):
        file_no = r % n_files
        agent = AGENTS[(r // n_files) % len(AGENTS)]
        path = f"src/pkg{file_no % 50}/module_{file_no}.py"
        items = []
        for index, defect in enumerate(rng.sample(defects[file_no], 10)):
            line = max(1, int(defect["line"]) + rng.randint(-3, 3))  # type: ignore[call-overload]
            text = (f"`{defect['func']}()` {defect['verb']} the {defect['noun']} "
                    f"`{defect['ident']}` {rng.choice(FILLER)}")
            severity = Severity(defect["severity"] if rng.random() < 0.8
                                else rng.choice(SEVERITIES))
            items.append(build(
                Finding, id=f"F{index + 1}", severity=severity, native_severity=None,
                title=text[:60], description=text,
                location=build(Location, raw=f"{path}:{line}", path=path, line=line),
                confidence=float(rng.randint(50, 99))))
        results.append(build(Result, id=f"run/{agent}/{r:06d}.md", dialect="json",
                             status=Status.FINDINGS, conformance=Conformance.CONFORMANT,
                             agent=agent, findings=items))
    return results


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_load(findings: int) -> dict[str, float]:
    """The baseline: validate the same Results from JSONL (what reading them costs)."""
    from sarp.model import Result

    lines = [r.model_dump_json() for r in build_results(findings)]  # type: ignore[attr-defined]
    start = time.perf_counter()
    loaded = [Result.model_validate_json(line) for line in lines]
    took = time.perf_counter() - start
    return {"load_s": round(took, 3), "loaded": len(loaded)}


def run_aggregate(findings: int) -> dict[str, float]:
    from sarp.aggregation import aggregate

    results = build_results(findings)
    before = _peak_mb()
    start = time.perf_counter()
    report = aggregate(results)  # type: ignore[arg-type]
    took = time.perf_counter() - start
    return {"findings": findings, "results": len(results), "aggregate_s": round(took, 3),
            "merged": report.stats.findings, "input_mb": round(before, 1),
            "peak_mb": round(_peak_mb(), 1)}


def run_floor(findings: int) -> dict[str, float]:
    """What the contract costs before any pair is scored or any cluster is built."""
    from sarp.aggregation.report import Source
    from sarp.aggregation.similar import _TOKEN  # the default policy's reading of text
    from sarp.model import Result, build
    results: list[Result] = build_results(findings)  # type: ignore[assignment]
    gc.disable()  # as `aggregate` does: a million new objects would rescan the heap
    before = _peak_mb()
    start = time.perf_counter()
    sources = [build(Source, result=r.id, index=i, id=f.id, agent=r.agent or "",
                     severity=f.severity, native_severity=f.native_severity)
               for r in results for i, f in enumerate(r.findings)]
    sources_s = time.perf_counter() - start
    sources_mb = _peak_mb() - before  # measured before anything else is allocated
    texts = [" ".join(part for part in (f.title, f.description, f.impact, f.suggestion)
                      if part) for r in results for f in r.findings]
    findall = _TOKEN.findall
    start = time.perf_counter()
    for text in texts:
        findall(text)
    tokens_s = time.perf_counter() - start
    return {"tokens_s": round(tokens_s, 3), "sources_s": round(sources_s, 3),
            "sources_mb": round(sources_mb, 1), "records": len(sources)}


def _child(flag: str, size: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, flag, str(size)], check=True,
                         capture_output=True, text=True).stdout
    row: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--aggregate", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--load", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--floor", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.aggregate:
        print(json.dumps(run_aggregate(args.aggregate)))
        return 0
    if args.load:
        print(json.dumps(run_load(args.load)))
        return 0
    if args.floor:
        print(json.dumps(run_floor(args.floor)))
        return 0
    print(f"# {time.strftime('%Y-%m-%d')} · {platform.machine()} · Python "
          f"{platform.python_version()} · a fresh process per size and per measurement")
    rows = []
    for size in args.sizes:
        row = _child("--aggregate", size)
        row.update(_child("--load", size))
        row.update(_child("--floor", size))
        rows.append(row)
        print(f"{row['findings']:>9,} findings {row['results']:>7,} results  "
              f"load {row['load_s']:7.2f} s  aggregate {row['aggregate_s']:7.2f} s "
              f"({row['aggregate_s'] / row['load_s']:.2f}x load)  "
              f"merged {row['merged']:>8,}  peak {row['peak_mb']:7.0f} MB "
              f"(input {row['input_mb']:.0f} MB)")
        floor_s = row["tokens_s"] + row["sources_s"]
        print(f"{'':>9}  floor: token regex {row['tokens_s']:.2f} s + Source records "
              f"{row['sources_s']:.2f} s = {floor_s:.2f} s "
              f"({floor_s / row['aggregate_s']:.0%} of aggregate); input "
              f"{row['input_mb']:.0f} MB + Source records {row['sources_mb']:.0f} MB = "
              f"{row['input_mb'] + row['sources_mb']:.0f} MB")
    for small, large in itertools.pairwise(rows):
        growth = large["aggregate_s"] / small["aggregate_s"]
        print(f"{small['findings']:,} -> {large['findings']:,}: input x"
              f"{large['findings'] / small['findings']:g}, time x{growth:.1f} (bar: <= 12)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
