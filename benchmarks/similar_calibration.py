"""Pairwise precision/recall of the dedupe policies on the labelled review runs.

    python benchmarks/similar_calibration.py            # every policy, every set
    python benchmarks/similar_calibration.py --sweep    # `similar` over thresholds
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from clustering import labelled_sets, score

from sarp.aggregation import AggregationPolicy


def main(argv: list[str]) -> int:
    sets = labelled_sets()
    if "--sweep" in argv:
        for threshold in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55):
            row = [f"{threshold:.2f}"]
            for folder in sets:
                p, r, *_ = score(folder, AggregationPolicy(similar_threshold=threshold))
                row.append(f"{folder.name}: P {p:.2f} R {r:.2f}")
            print("  ".join(row))
        return 0
    for dedupe in ("similar", "exact", "proximity", "off"):
        hits_all = predicted_all = agreed_all = 0
        for folder in sets:
            p, r, hits, predicted, agreed = score(folder, AggregationPolicy(dedupe=dedupe))
            hits_all, predicted_all = hits_all + hits, predicted_all + predicted
            agreed_all += agreed
            print(f"{dedupe:10} {folder.name:8} precision {p:.2f} recall {r:.2f} "
                  f"({hits} of {predicted} merged pairs right)")
        if predicted_all and agreed_all:
            print(f"{dedupe:10} {'all':8} precision {hits_all / predicted_all:.2f} "
                  f"recall {hits_all / agreed_all:.2f} (pairs pooled over the sets)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
