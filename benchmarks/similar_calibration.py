"""Pairwise precision/recall of the dedupe policies on the labelled review runs.

    python benchmarks/similar_calibration.py            # every policy, every set
    python benchmarks/similar_calibration.py --sweep    # `similar` over thresholds
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from clustering import labelled_sets, score  # noqa: E402

from sarp.aggregate import AggregationPolicy  # noqa: E402


def main(argv: list[str]) -> int:
    sets = labelled_sets()
    if "--sweep" in argv:
        for threshold in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55):
            row = [f"{threshold:.2f}"]
            for folder in sets:
                p, r, _, _ = score(folder, AggregationPolicy(similar_threshold=threshold))
                row.append(f"{folder.name}: P {p:.2f} R {r:.2f}")
            print("  ".join(row))
        return 0
    for dedupe in ("similar", "exact", "proximity", "off"):
        for folder in sets:
            p, r, hits, predicted = score(folder, AggregationPolicy(dedupe=dedupe))
            print(f"{dedupe:10} {folder.name:8} precision {p:.2f} recall {r:.2f} "
                  f"({hits} of {predicted} merged pairs right)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
