"""Labelled same-defect clusters of real multi-agent reviews (tests/review_runs/<set>/),
and pairwise precision/recall of a report's merged findings against them."""
from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import sarp
from sarp.aggregation import AggregationPolicy, Report, aggregate

RUNS = Path(__file__).parent / "review_runs"


def labelled_sets() -> list[Path]:
    return sorted(p for p in RUNS.iterdir() if list(p.glob("clusters.annotator-*.json")))


def load_set(folder: Path) -> tuple[list[sarp.Result], dict[tuple[str, int], str]]:
    """The set's replies parsed (each Result's id is the reply name) and the label of
    each labelled finding: (result id, index) -> "name:local id" as the annotators wrote."""
    results: list[sarp.Result] = []
    labels: dict[tuple[str, int], str] = {}
    for meaning in sorted(folder.glob("*.meaning.json")):
        name = meaning.name.removesuffix(".meaning.json")
        reply = next(p for p in folder.glob(f"{name}.*") if p != meaning
                     and not p.name.endswith((".prompt.txt", ".task.txt")))
        result = sarp.parse(reply.read_text(encoding="utf-8"))
        result.id = name
        results.append(result)
        meant = json.loads(meaning.read_text(encoding="utf-8"))["findings"]
        # the parser keeps findings in source order, as the authors listed them; extra
        # findings a format defines (sdd Issues bullets) come last and stay unlabelled
        for index, item in enumerate(meant[: len(result.findings)]):
            labels[(name, index)] = f"{name}:{item['id']}"
    return results, labels


def _pairs(clusters: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(pair) for members in clusters for pair in combinations(members, 2)}


def gold_pairs(folder: Path) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """(pairs every annotator put together, pairs only some did)."""
    per = [_pairs([c["members"] for c in json.loads(p.read_text())["clusters"]])
           for p in sorted(folder.glob("clusters.annotator-*.json"))]
    agreed = set.intersection(*per)
    return agreed, set.union(*per) - agreed


def predicted_pairs(report: Report, labels: dict[tuple[str, int], str]) -> set[frozenset[str]]:
    clusters = [[labels[(s.result, s.index)] for s in f.sources if (s.result, s.index) in labels]
                for f in report.findings]
    return _pairs(clusters)


def score(folder: Path,
          policy: AggregationPolicy | None = None) -> tuple[float, float, int, int, int]:
    """(precision, recall, true pairs found, predicted pairs, agreed pairs) against the
    pairs every annotator agrees on; pairs they disagree on count neither way."""
    results, labels = load_set(folder)
    agreed, disputed = gold_pairs(folder)
    predicted = predicted_pairs(aggregate(results, policy), labels) - disputed
    hits = len(predicted & agreed)
    precision = hits / len(predicted) if predicted else 1.0
    recall = hits / len(agreed) if agreed else 1.0
    return precision, recall, hits, len(predicted), len(agreed)
