"""Parse throughput against two baselines measured in the same process (SPEC §12).

    python benchmarks/parse_bench.py [--repeat N]

Replies: every reply in tests/data (real agent replies in all dialects). Baselines:
- markdown-it-py tokenising the same text (CommonMark + tables), the price of the
  cheapest real markdown reading; bar: sarp at least 20x its throughput;
- the floor: `splitlines()` and a table-cell `split("|")` of every line with a pipe,
  the least any line-oriented reader can do; bar: sarp within 10x of it.
Then linear time: each adversarial family at n and 4n (a ratio near 4 is linear).
Times are the best of N runs (the least disturbed by the machine).
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

from markdown_it import MarkdownIt

import sarp

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def load_replies() -> list[str]:
    paths = sorted(p for p in DATA.rglob("*") if p.suffix in (".md", ".jsonl")
                   and not p.name.endswith((".label.json", ".expected.json")))
    return [p.read_text(encoding="utf-8") for p in paths]


def best_of(repeat: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def split_floor(texts: list[str]) -> None:
    for text in texts:
        for line in text.splitlines():
            if "|" in line:
                line.split("|")


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "one long line": lambda n: "RESULT: FINDINGS | " + "x" * (n * 50),
    "pipes": lambda n: "RESULT: FINDINGS | Type: consistency\n| ID | Severity |\n|---|---|\n"
                       + "|" * (n * 10),
    "table rows": lambda n: "| a | b |\n|---|---|\n" + "| F1 | major |\n" * n,
    "fence markers": lambda n: "```\n" * n,
    "finding headings": lambda n: "### CRITICAL: x\n" * n,
    "dotted heading": lambda n: "### CRITICAL: " + "a." * (n * 25),
    "dotted list item": lambda n: "Notes\n\n- **HIGH**: " + "www.example.com" * (n * 3),
    "long finding head": lambda n: "### CRITICAL: " + "x" * (n * 50),
    "numbered bold": lambda n: "Notes\n\n**1. " + "`a**b` " * (n * 7),
    "RESULT lines": lambda n: "RESULT: CLEAN | Type: digest\n" * n,
    "json findings": lambda n: '{"status": "FINDINGS", "findings": ['
                               + '{"id": "F", "severity": "high"},' * n + "]}",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)

    texts = load_replies()
    size = sum(len(t.encode()) for t in texts)
    md = MarkdownIt("commonmark").enable("table")

    def run_sarp() -> None:
        for text in texts:
            sarp.parse(text)

    def run_markdown_it() -> None:
        for text in texts:
            md.parse(text)

    run_sarp()  # warm caches (regex compilation, imports) before timing
    t_sarp = best_of(args.repeat, run_sarp)
    t_md = best_of(args.repeat, run_markdown_it)
    t_floor = best_of(args.repeat, lambda: split_floor(texts))

    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{platform.processor() or platform.platform()}")
    print(f"{len(texts)} replies, {size / 1e6:.2f} MB, best of {args.repeat}")
    print(f"{'':24} {'time':>9} {'MB/s':>8}")
    for name, seconds in (("sarp.parse", t_sarp), ("markdown-it-py tokens", t_md),
                          ("splitlines + split", t_floor)):
        print(f"{name:24} {seconds * 1000:8.1f}ms {size / seconds / 1e6:8.1f}")
    print(f"sarp vs markdown-it-py: {t_md / t_sarp:.1f}x faster (bar: >= 20x)")
    print(f"sarp vs split floor:    {t_sarp / t_floor:.1f}x slower (bar: <= 10x)")

    print("\nlinear time (time at 4n / time at n; 4 is linear)")
    for name, make in ADVERSARIAL.items():
        small, large = make(5_000), make(20_000)
        t_small = best_of(3, lambda s=small: sarp.parse(s))
        t_large = best_of(3, lambda s=large: sarp.parse(s))
        print(f"  {name:18} {len(large) / 1e6:6.2f} MB {t_large * 1000:8.1f}ms"
              f"  ratio {t_large / t_small:4.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
