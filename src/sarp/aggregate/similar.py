# The `similar` merge policy: two findings merge when what they SAY is the same defect.
#
# Score of a candidate pair (findings of different results about compatible files):
#   text      weighted cosine of their token sets; a token's weight is its inverse
#             document frequency over the batch (words every finding uses weigh least)
#             times a kind factor: identifiers, code spans and quoted strings weigh most
#   + place   the line ranges overlap, or lie within the window; - when far apart
#   + type    the same finding type
#   - symbols both name functions or symbols, and none of them in common
# Clustering is greedy average linkage: candidate pairs in descending score; two
# clusters join when their results are disjoint and the MEAN score over all their cross
# pairs (a pair never scored counts 0) reaches the threshold. So a cluster cannot chain
# through one finding that resembles two different ones: conservative when unsure.
#
# Candidates are never all pairs: findings are blocked by file name, and inside a block
# a pair is a candidate when its lines are near or it shares a rare token (posting
# lists longer than RARE are skipped). Findings with no file compare through a global
# rare-token index. Work is linear in the findings times the block density.
#
# Everything is a pure function of the canonical entry list (ties broken by canonical
# order), and the word weights come from the whole batch, so merging reports is
# associative. Weights and thresholds were calibrated on the labelled multi-agent
# reviews in tests/review_runs/ (benchmarks/similar_calibration.py).
from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from sarp.aggregate.entries import Entry

if TYPE_CHECKING:
    from sarp.aggregate.policy import AggregationPolicy

__all__ = ["Profile", "profile", "score", "similar_clusters"]

CODE_FACTOR: Final = 2.0  # identifiers, code spans, quoted strings
RARE: Final = 24  # longest posting list that still generates candidates
NEAR_CANDIDATES: Final = 24  # line neighbours tried per finding
OVERLAP_BONUS: Final = 0.12  # line ranges overlap
NEAR_BONUS: Final = 0.06  # within the window
FAR_PENALTY: Final = 0.10  # more than FAR lines apart
FAR: Final = 60
TYPE_BONUS: Final = 0.04
SYMBOL_PENALTY: Final = 0.15

_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_QUOTED = re.compile(r"(?<![A-Za-z0-9])(['\"])([^'\"\n]{1,60})\1(?![A-Za-z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(\()?")
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\(")
_LINES = re.compile(r"\b(?:[Ll]ines?|L)\s*(\d{1,7})(?:\s*(?:-|–|to)\s*(\d{1,7}))?"
                    r"((?:\s*(?:,|and)\s*\d{1,7}(?:\s*(?:-|–)\s*\d{1,7})?)*)")
_MORE_LINES = re.compile(r"(\d{1,7})(?:\s*(?:-|–)\s*(\d{1,7}))?")
_BUILTINS: Final = frozenset("""list str int len repr print open dict set tuple bytes
isinstance type iter next range sorted min max any all bool float""".split())
ALPHA: Final = 0.5  # 0: cosine; 1: overlap of the smaller profile
_STEMS: Final = ("ingly", "edly", "ing", "ed", "es", "s", "e", "ly")

_STOP: Final = frozenset("""
a about above after again against all also an and any are as at be because been before
being below between both but by can cannot could did do does doing done down during each
either else even every few for from further get gets had has have having here how however
if in into is it its itself just may might more most much must no nor not now of off on
once one only or other our out over own same see should so some such than that the their
them then there these they this those through to too under until up upon very was way we
were what when where whether which while who whom why will with within without would yet
you your instead line lines file code function method value values case cases call calls
called new use used uses using make makes made given gives thing things also e g i etc
""".split())


class Profile:
    """What the score needs from one finding, computed once per finding."""

    __slots__ = ("lines", "norm", "symbols", "tokens")

    def __init__(self, tokens: dict[str, float], symbols: frozenset[str],
                 lines: tuple[tuple[int, int], ...]) -> None:
        self.tokens = tokens  # token -> kind factor (before batch weights)
        self.symbols = symbols
        self.lines = lines
        self.norm = 0.0


def _stem(word: str) -> str:
    for suffix in _STEMS:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _is_identifier(word: str) -> bool:
    return "_" in word or "." in word or (word[1:] != word[1:].lower())


def _add_words(text: str, tokens: dict[str, float], factor: float) -> None:
    for match in _WORD.finditer(text):
        word = match.group(0).rstrip("(")
        if match.group(1) or _is_identifier(word):
            key = "`" + word.lower()
            tokens[key] = CODE_FACTOR
            for part in word.lower().replace(".", "_").split("_"):
                if len(part) >= 3 and part not in _STOP:
                    stem = _stem(part)
                    tokens.setdefault(stem, factor)
        else:
            lowered = word.lower()
            if len(lowered) >= 3 and lowered not in _STOP:
                stem = _stem(lowered)
                if tokens.get(stem, 0.0) < factor:
                    tokens[stem] = factor


def profile(entry: Entry) -> Profile:
    finding = entry.finding
    text = " ".join(part for part in (finding.title, finding.description, finding.impact,
                                      finding.suggestion) if part)
    tokens: dict[str, float] = {}
    symbols: set[str] = set()
    for span in _CODE_SPAN.finditer(text):
        code = span.group(1).strip()
        if code:
            tokens["`" + code.lower()] = CODE_FACTOR
            _add_words(code, tokens, CODE_FACTOR)
    for quoted in _QUOTED.finditer(text):
        tokens["'" + quoted.group(2).lower()] = CODE_FACTOR
    _add_words(text, tokens, 1.0)
    for call in _CALL.finditer(text):
        name = call.group(1).lower().rsplit(".", 1)[-1]
        if name and name not in _BUILTINS and (_is_identifier(call.group(1))
                                               or "`" + name in tokens):
            symbols.add(name)
    loc = finding.location
    if loc is not None and loc.symbol:
        symbols.add(loc.symbol.lower().rsplit(".", 1)[-1].rstrip("()"))
    return Profile(tokens, frozenset(symbols), _line_ranges(entry, text))


def _line_ranges(entry: Entry, text: str) -> tuple[tuple[int, int], ...]:
    finding = entry.finding
    ranges: list[tuple[int, int]] = []
    if entry.path is None or True:
        # "(lines 205-217, 230-238)" in the text: unformatted replies place findings so
        for match in _LINES.finditer(text):
            for more in _MORE_LINES.finditer(match.group(0)):
                start = int(more.group(1))
                end = int(more.group(2)) if more.group(2) else start
                ranges.append((start, max(start, end)))
    for loc in (finding.location, finding.counter_location):
        if loc is None:
            continue
        for one in (loc, *loc.extra):
            if one.line is not None and (one.path is None or loc is finding.location
                                         or _same_file(one.path, entry.path)):
                ranges.append((one.line, one.end_line if one.end_line is not None
                               and one.end_line >= one.line else one.line))
    return tuple(ranges)


def _base(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()


def _same_file(a: str | None, b: str | None) -> bool:
    """Agents name one file in several ways (`Lib/x.py`, `/usr/lib/python3/x.py`)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = a.replace("\\", "/").strip("/").lower(), b.replace("\\", "/").strip("/").lower()
    if a == b or a.endswith("/" + b) or b.endswith("/" + a):
        return True
    return _base(a) == _base(b) and (a.count("/") == 0 or b.count("/") == 0
                                     or a.startswith(("usr/", "home/", "tmp/", "opt/"))
                                     or b.startswith(("usr/", "home/", "tmp/", "opt/")))


def _gap(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> int | None:
    """Lines between the nearest ranges of two findings (0 when they overlap)."""
    best: int | None = None
    for a0, a1 in a:
        for b0, b1 in b:
            gap = max(0, max(a0, b0) - min(a1, b1))
            if best is None or gap < best:
                best = gap
    return best


def score(a: Profile, b: Profile, ea: Entry, eb: Entry, weights: dict[str, float],
          window: int) -> float:
    shared = 0.0
    small, large = (a, b) if len(a.tokens) <= len(b.tokens) else (b, a)
    for token, factor in small.tokens.items():
        other = large.tokens.get(token)
        if other is not None:
            shared += weights[token] ** 2 * min(factor, other) ** 2
    if not (a.norm and b.norm):
        value = 0.0
    else:
        small_norm = min(a.norm, b.norm)
        value = shared / ((a.norm * b.norm) ** (1 - ALPHA) * (small_norm * small_norm) ** ALPHA)
    gap = _gap(a.lines, b.lines)
    if gap is not None:
        if gap == 0:
            value += OVERLAP_BONUS
        elif gap <= window:
            value += NEAR_BONUS
        elif gap > FAR:
            value -= FAR_PENALTY
    if ea.type is not None and ea.type == eb.type:
        value += TYPE_BONUS
    if a.symbols and b.symbols and not (a.symbols & b.symbols) and not any(
            "`" + name in b.tokens for name in a.symbols) and not any(
            "`" + name in a.tokens for name in b.symbols):
        value -= SYMBOL_PENALTY
    return value


def _weights(profiles: list[Profile]) -> dict[str, float]:
    df: dict[str, int] = defaultdict(int)
    for prof in profiles:
        for token in prof.tokens:
            df[token] += 1
    total = len(profiles)
    weights = {token: math.log(1.0 + total / count) for token, count in df.items()}
    for prof in profiles:
        prof.norm = math.sqrt(sum((weights[t] * f) ** 2 for t, f in prof.tokens.items()))
    return weights


def _block(entry: Entry) -> str | None:
    if entry.path is not None:
        return _base(entry.path)
    if entry.section is not None:
        return "§" + entry.section
    return None


def _candidates(items: list[Entry], profiles: list[Profile], window: int) -> set[tuple[int, int]]:
    pairs: set[tuple[int, int]] = set()
    blocks: dict[str | None, list[int]] = defaultdict(list)
    for position, entry in enumerate(items):
        blocks[_block(entry)].append(position)
    loose = blocks.pop(None, [])

    def add_pairs(group: Iterable[int]) -> None:
        members = list(group)
        for x in range(len(members)):
            i = members[x]
            for y in range(x + 1, len(members)):
                j = members[y]
                if items[i].result_order != items[j].result_order:
                    pairs.add((i, j) if i < j else (j, i))

    for members in blocks.values():
        postings: dict[str, list[int]] = defaultdict(list)
        for i in members:
            for token in profiles[i].tokens:
                postings[token].append(i)
        for posting in postings.values():
            if 1 < len(posting) <= RARE:
                add_pairs(posting)
        lined = sorted((first, i) for i in members
                       if profiles[i].lines for first in (min(profiles[i].lines)[0],))
        for x, (line, i) in enumerate(lined):
            for y in range(x + 1, min(len(lined), x + 1 + NEAR_CANDIDATES)):
                other_line, j = lined[y]
                if other_line - line > window:
                    break
                if items[i].result_order != items[j].result_order:
                    pairs.add((i, j) if i < j else (j, i))
    if loose:
        postings = defaultdict(list)
        for i in range(len(items)):
            for token in profiles[i].tokens:
                postings[token].append(i)
        loose_set = set(loose)
        for posting in postings.values():
            if 1 < len(posting) <= RARE and any(i in loose_set for i in posting):
                for i in posting:
                    if i not in loose_set:
                        continue
                    for j in posting:
                        if j != i and items[i].result_order != items[j].result_order:
                            pairs.add((i, j) if i < j else (j, i))
    return pairs


def similar_clusters(items: list[Entry], policy: AggregationPolicy) -> list[list[int]]:
    profiles = [profile(entry) for entry in items]
    weights = _weights(profiles)
    threshold = policy.similar_threshold
    scored: dict[tuple[int, int], float] = {}
    heap: list[tuple[float, int, int]] = []
    for i, j in _candidates(items, profiles, policy.window):
        a, b = items[i], items[j]
        if a.path is not None and b.path is not None and not _same_file(a.path, b.path):
            continue
        value = score(profiles[i], profiles[j], a, b, weights, policy.window)
        if value > 0:
            scored[(i, j)] = value
            if value >= threshold:
                heap.append((-value, i, j))
    heapq.heapify(heap)
    owner = list(range(len(items)))
    members: dict[int, list[int]] = {i: [i] for i in range(len(items))}
    results: dict[int, set[int]] = {i: {items[i].result_order} for i in range(len(items))}
    while heap:
        _, i, j = heapq.heappop(heap)
        x, y = owner[i], owner[j]
        if x == y or results[x] & results[y]:
            continue
        total = 0.0
        for p in members[x]:
            for q in members[y]:
                total += scored.get((p, q) if p < q else (q, p), 0.0)
        if total / (len(members[x]) * len(members[y])) < threshold:
            continue
        keep, gone = (x, y) if x < y else (y, x)
        for p in members[gone]:
            owner[p] = keep
        members[keep].extend(members.pop(gone))
        results[keep] |= results.pop(gone)
    return [sorted(items[p].order for p in group) for group in members.values()]
