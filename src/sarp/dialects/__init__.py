# The dialect registry: one entry per dialect, in the fixed order that breaks ties.
#
# `DIALECTS` is a literal dict (no registration by import side effects), so mypy checks
# that every entry conforms to the `Dialect` protocol and the CLI builds its `--dialect`
# choices from it. `detect(doc)` asks every dialect for its score and returns the name
# of the best; the order below decides ties (more specific envelopes first, `text` last).
from __future__ import annotations

from typing import Final

from sarp.dialects.adr013 import ADR013
from sarp.dialects.aphelion import APHELION
from sarp.dialects.base import Builder, Dialect, Policy, RawFinding
from sarp.dialects.clarity import BOWSER, CLARITY
from sarp.dialects.cleo import CLEO
from sarp.dialects.json_ import JSON
from sarp.dialects.sdd import SDD
from sarp.dialects.text import TEXT
from sarp.text.lines import Document

__all__ = ["DIALECTS", "Builder", "Dialect", "Policy", "RawFinding", "detect"]

DIALECTS: Final[dict[str, Dialect]] = {
    "cleo": CLEO,
    "aphelion": APHELION,
    "bowser": BOWSER,
    "clarity": CLARITY,
    "adr013": ADR013,
    "sdd": SDD,
    "json": JSON,
    "text": TEXT,
}


def detect(doc: Document) -> str:
    """The name of the dialect that best explains `doc` (`text` when none does)."""
    best, best_score = "text", 0
    for name, dialect in DIALECTS.items():
        score = dialect.detect(doc)
        if score > best_score:
            best, best_score = name, score
    return best
