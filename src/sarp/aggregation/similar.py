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
# clusters join when their results are disjoint, every cross pair scores at least
# PAIR_FLOOR (a pair never scored blocks), and the MEAN over the cross pairs reaches the
# threshold. So a cluster cannot chain through one finding that resembles two different
# ones: conservative when unsure.
#
# Candidates are never all pairs: findings are blocked by file name, and inside a block
# a pair is a candidate when its lines are near or it shares a rare token (posting
# lists longer than RARE are skipped). A finding whose counter-location names another
# file (docs against code) is in that file's block too, placed at its counter-location
# there; a pair met in two blocks keeps its better score. Findings with no file compare
# through a global rare-token index. Work is linear in the findings times the block
# density. Memory: a finding's Profile is tuples until its block is scored; its Weighed
# form (dicts and sets, under the batch weights) lives for that one block.
#
# Everything is a pure function of the canonical entry list (ties broken by canonical
# order), and the word weights come from the whole batch, so merging reports is
# associative. Weights and thresholds were calibrated on the labelled multi-agent
# reviews in tests/review_runs/ (benchmarks/similar_calibration.py).
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from itertools import chain
from operator import mul
from typing import TYPE_CHECKING, Final

from sarp.aggregation.entries import Entry, location_key
from sarp.model import Location

if TYPE_CHECKING:
    from sarp.aggregation.policy import AggregationPolicy

__all__ = ["Profile", "Tokenizer", "Weighed", "file_key", "score", "similar_clusters", "weights"]

CODE_FACTOR: Final = 2.0  # identifiers, code spans, quoted strings
RARE: Final = 24  # longest posting list (in one file) that still generates candidates
INDEXABLE: Final = 1000  # tokens more frequent in the whole batch are never indexed
RARE_LOOSE: Final = 64  # longest batch-wide posting list for findings that name no file
LOOSE_CANDIDATES: Final = 64  # findings a finding that names no file is compared with
NEAR_CANDIDATES: Final = 24  # line neighbours tried per finding
OVERLAP_BONUS: Final = 0.1  # line ranges overlap
NEAR_BONUS: Final = 0.08  # within the window
FAR_PENALTY: Final = 0.15  # more than FAR lines apart
FAR: Final = 60
MAX_RANGES: Final = 16  # line ranges read from one finding's text
MAX_SYMBOLS: Final = 16  # functions one finding names that the symbol check compares
TYPE_BONUS: Final = 0.04
SYMBOL_PENALTY: Final = 0.10
LEAD_FACTOR: Final = 1.5  # words of the title (or first sentence) weigh this much more
LEAD_PENALTY: Final = 0.1  # the two titles (or first sentences) share no word
PAIR_FLOOR: Final = 0.1  # every cross pair of two joining clusters scores at least this
MIN_SHARED: Final = 2  # plain words (not parts of names) two findings must share

# one pass over a finding's text: a code span, a quoted string (no letter or digit on
# either side), or a word with `(` after it when it is called. No capture groups, so
# findall gives the matched text itself, and that text is the cache key.
_TOKEN = re.compile(r"`[^`\n]{1,200}`"
                    r"|'(?<![A-Za-z0-9]')[^'\"\n]{1,60}'(?![A-Za-z0-9])"
                    r'|"(?<![A-Za-z0-9]")[^\'"\n]{1,60}"(?![A-Za-z0-9])'
                    r"|[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\(?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LINES = re.compile(r"\b(?:[Ll]ines?|L)\s*(\d{1,7})(?:\s*(?:-|–|to)\s*(\d{1,7}))?"
                    r"((?:\s*(?:,|and)\s*\d{1,7}(?:\s*(?:-|–)\s*\d{1,7})?)*)")
_FILE_LINE = re.compile(r"(?P<path>[\w./-]{1,200}\.[A-Za-z][A-Za-z0-9]{0,7}):(?P<line>\d{1,7})")
_MORE_LINES = re.compile(r"(\d{1,7})(?:\s*(?:-|–)\s*(\d{1,7}))?")
_BUILTINS: Final = frozenset("""list str int len repr print open dict set tuple bytes
isinstance type iter next range sorted min max any all bool float""".split())  # noqa: SIM905
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
""".split())  # noqa: SIM905


Tokens = tuple[tuple[str, float], ...]
Range = tuple[int, int]  # (first, last) lines
Ranges = tuple[Range, ...]  # line ranges in one file
Place = tuple[str, Ranges]  # a file and line ranges in it
Meaning = tuple[Tokens, str | None, str | None]  # see Tokenizer._meaning
_BOOSTED: Final = {factor: factor * LEAD_FACTOR for factor in (1.0, CODE_FACTOR)}


class Profile:
    """What one finding says, before the batch weighs it: kept for every finding of the
    batch at once, so it is tuples (a quarter of the memory of sets and dicts)."""

    __slots__ = ("factors", "lead", "lines", "need", "other", "symbols", "tokens", "words")

    def __init__(self, tokens: dict[str, float], lead: set[str], words: set[str],
                 symbols: set[str], lines: Ranges, other: Place | None = None) -> None:
        self.tokens = tuple(tokens)  # each token once
        self.factors = tuple(tokens.values())  # its kind factor (code 2, title words 1.5)
        self.lead = tuple(lead)  # tokens of the title or first sentence
        self.words = tuple(words)  # stems of the words written as words, not names
        self.symbols = tuple(symbols)  # functions and symbols the finding names
        self.lines = lines  # in the file of the finding's location
        # a counter-location in another file (docs against code: README.md:40 vs
        # lib/parse.js:103): the finding is about that file too, at these lines
        self.other = other
        # plain words another finding must share with this one (see score); a finding
        # of one or two words needs only what it has: "Race in `refresh()`"
        self.need = min(MIN_SHARED, max(1, len(words)))


class Weighed:
    """A profile as the score reads it, under the batch's word weights: made for the
    findings of one file block at a time, and dropped when the block is scored."""

    __slots__ = ("lead", "lines", "need", "norm", "symbols", "vector", "words")

    def __init__(self, profile: Profile, weight_of: Callable[[str], float],
                 lines: Ranges | None = None) -> None:
        tokens = profile.tokens
        vector = self.vector = dict(zip(tokens, map(mul, map(weight_of, tokens),
                                                    profile.factors), strict=True))
        values = vector.values()
        self.norm = math.sqrt(sum(map(mul, values, values)))
        self.lead = frozenset(profile.lead)
        self.words = frozenset(profile.words)
        self.symbols = frozenset(profile.symbols)
        self.lines = profile.lines if lines is None else lines  # in the file compared
        self.need = profile.need


def _stem(word: str) -> str:
    for suffix in _STEMS:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _is_identifier(word: str) -> bool:
    return "_" in word or "." in word or (word[1:] != word[1:].lower())


def _word_tokens(word: str, factor: float) -> Tokens:
    """An identifier is a code token, and its parts words; a word is its stem."""
    if _is_identifier(word):
        parts = word.lower().replace(".", "_").split("_")
        return (("`" + word.lower(), CODE_FACTOR),
                *((_stem(part), factor) for part in parts if len(part) >= 3 and part not in _STOP))
    lowered = word.lower()
    if len(lowered) >= 3 and lowered not in _STOP:
        return ((_stem(lowered), factor),)
    return ()


class Tokenizer:
    """Text -> tokens, remembering every word and span it has seen (one per batch: the
    same words recur in every finding, so most lookups hit)."""

    def __init__(self) -> None:
        self._words: dict[str, Tokens] = {}
        self._calls: dict[str, Tokens] = {}
        self._spans: dict[str, Tokens] = {}
        self._seen: dict[str, Meaning] = {}  # one regex match -> what it adds

    def _span(self, code: str) -> Tokens:
        found = self._spans.get(code)
        if found is None:
            stripped = code.strip()
            out: list[tuple[str, float]] = [("`" + stripped.lower(), CODE_FACTOR)] \
                if stripped else []
            for match in _WORD.finditer(stripped):
                for token, _ in _word_tokens(match.group(0), CODE_FACTOR):
                    if token != out[0][0]:  # `name`: the span is the identifier
                        out.append((token, CODE_FACTOR))
            found = self._spans[code] = tuple(out)
        return found

    def _quoted(self, text: str) -> Tokens:
        found = self._spans.get("'" + text)
        if found is None:
            out: list[tuple[str, float]] = [("'" + text.lower(), CODE_FACTOR)]
            for match in _WORD.finditer(text):
                out.extend(self._word(match.group(0), False))
            found = self._spans["'" + text] = tuple(out)
        return found

    def _word(self, word: str, call: bool) -> Tokens:
        cache = self._calls if call else self._words
        found = cache.get(word)
        if found is None:
            if call and not _is_identifier(word):
                found = (("`" + word.lower(), CODE_FACTOR),
                         *((t, f) for t, f in _word_tokens(word, 1.0) if not t.startswith("`")))
            else:
                found = _word_tokens(word, 1.0)
            cache[word] = found
        return found

    def _meaning(self, match: str) -> Meaning:
        """What one regex match adds to a profile, worked out once per batch: its
        (token, kind factor) pairs, the stem it adds as a plain word, the call it names."""
        stem = called = None
        if match[0] == "`":
            found = self._span(match[1:-1])
        elif match[0] in "'\"":
            found = self._quoted(match[1:-1])
        elif match[-1] == "(":
            called = match[:-1]
            found = self._word(called, True)
        else:
            found = self._word(match, False)
            if found and not _is_identifier(match):
                stem = found[0][0]
        meaning = self._seen[match] = (found, stem, called)
        return meaning

    def _read(self, matches: list[str], lead: set[str] | None, tokens: dict[str, float],
              plain: set[str], calls: list[str]) -> None:
        """Add what the matches say; in the lead, tokens weigh LEAD_FACTOR more and are
        noted in `lead`. A token keeps the highest factor it was written with."""
        seen = self._seen.get
        weight_of = tokens.get
        for match in matches:
            found, stem, called = seen(match) or self._meaning(match)
            if stem is not None:
                plain.add(stem)
            elif called is not None:
                calls.append(called)
            for token, factor in found:
                if lead is not None:
                    lead.add(token)
                    # one float object per boosted factor, not one per token: a million
                    # findings keep their factors until they are weighed
                    factor = _BOOSTED.get(factor) or factor * LEAD_FACTOR
                if weight_of(token, 0.0) < factor:
                    tokens[token] = factor

    def profile(self, entry: Entry) -> Profile:
        finding = entry.finding
        text = " ".join(part for part in (finding.title, finding.description,
                                          finding.impact, finding.suggestion) if part)
        tokens: dict[str, float] = {}
        calls: list[str] = []
        # the lead names what a finding is mainly about: a finding that bundles two
        # defects belongs with the one its title (or first sentence) states
        lead_end = len(finding.title) if finding.title else _first_sentence(text)
        lead_tokens: set[str] = set()
        plain: set[str] = set()  # stems of words written as words, not parts of names
        self._read(_TOKEN.findall(text, 0, lead_end), lead_tokens, tokens, plain, calls)
        self._read(_TOKEN.findall(text, lead_end), None, tokens, plain, calls)
        symbols = set()
        for call in calls[:MAX_SYMBOLS]:
            name = call.lower().rsplit(".", 1)[-1]
            if name and name not in _BUILTINS and (_is_identifier(call)
                                                   or "`" + name in tokens):
                symbols.add(name)
        loc = finding.location
        if loc is not None and loc.symbol:
            symbols.add(loc.symbol.lower().rsplit(".", 1)[-1].rstrip("()"))
        return Profile(tokens, lead_tokens, plain, symbols, _line_ranges(entry, text),
                       _other_place(entry))


def _first_sentence(text: str) -> int:
    cut = text.find(". ")
    return min(cut + 1 if cut >= 0 else len(text), 200)


def _line_ranges(entry: Entry, text: str) -> Ranges:
    finding = entry.finding
    ranges: list[Range] = []
    # "(lines 205-217, 230-238)" in the text: how unformatted replies place findings
    # (every match holds `L` or `ine`, and a substring test is far cheaper than a scan)
    for match in _LINES.finditer(text) if "L" in text or "ine" in text else ():
        for more in _MORE_LINES.finditer(match.group(0)):
            start = int(more.group(1))
            end = int(more.group(2)) if more.group(2) else start
            ranges.append((start, max(start, end)))
            if len(ranges) >= MAX_RANGES:  # "lines 1, 2, ..., 9000" must not cost pairs^2
                break
        if len(ranges) >= MAX_RANGES:
            break
    for loc in (finding.location, finding.counter_location):
        for path, span in _places(loc, entry.path):
            if len(ranges) >= 2 * MAX_RANGES:  # a cell listing thousands of places
                break
            if _same_file(path, entry.path):
                ranges.append(span)
    return tuple(ranges)


def _span(line: int, end_line: int | None) -> Range:
    return line, end_line if end_line is not None and end_line >= line else line


def _places(loc: Location | None, path: str | None) -> Iterator[tuple[str | None, Range]]:
    """The lines a location lists, each with its file: a place that names no file is in
    the file named before it (`Readme.md:16, :25`), the first one in `path`."""
    if loc is None:
        return
    for one in (loc, *loc.extra[:2 * MAX_RANGES]):
        path = one.path or path
        if one.line is not None:
            yield path, _span(one.line, one.end_line)


def _other_place(entry: Entry) -> Place | None:
    """The first file other than the location's that the finding names, with its lines
    there: the counter-location's (docs against code), else one the location lists
    beside its own (`Readme.md:16, index.js:16-19`)."""
    if entry.path is None:
        return None
    finding = entry.finding
    for loc in (finding.counter_location, finding.location):
        places = list(_places(loc, loc.path if loc is not None else None))
        other = next((path for path, _ in places
                      if path and not _same_file(path, entry.path)), None)
        if other is not None:
            return other, tuple(span for path, span in places[:MAX_RANGES]
                                if _same_file(path, other))
    # a title that names another file's line: `wrong type for keys (index.js:18;
    # Readme.md:16)`, where only the code is the location
    if finding.title and ":" in finding.title:
        for match in _FILE_LINE.finditer(finding.title, 0, 500):
            if not _same_file(match["path"], entry.path):
                line = int(match["line"])
                return match["path"], ((line, line),)
    return None


def file_key(path: str) -> str:
    """One key for the spellings of one file that `_same_file` accepts when unambiguous:
    lower-case, forward slashes, no leading `./` or `/`."""
    key = path.replace("\\", "/").lower()
    while key.startswith(("./", "/")):
        key = key[2:] if key.startswith("./") else key[1:]
    return key


def _base(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()


_SYSTEM_ROOTS: Final = ("usr/", "home/", "tmp/", "opt/")


def _same_file(a: str | None, b: str | None) -> bool:
    """Agents name one file in several ways (`Lib/x.py`, `/usr/lib/python3/x.py`)."""
    if a is None or b is None:
        return a is None and b is None
    if a == b:
        return True
    a, b = a.replace("\\", "/").strip("/").lower(), b.replace("\\", "/").strip("/").lower()
    if a == b or a.endswith("/" + b) or b.endswith("/" + a):
        return True
    return _base(a) == _base(b) and ("/" not in a or "/" not in b
                                     or a.startswith(_SYSTEM_ROOTS)
                                     or b.startswith(_SYSTEM_ROOTS))


def _gap(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> int | None:
    """Lines between the nearest ranges of two findings (0 when they overlap)."""
    best: int | None = None
    for a0, a1 in a:
        for b0, b1 in b:
            gap = max(0, max(a0, b0) - min(a1, b1))
            if best is None or gap < best:
                best = gap
    return best


def score(a: Weighed, b: Weighed, ea: Entry, eb: Entry, window: int) -> float:
    """How surely two findings report the same defect (profiles weighted by the batch)."""
    # a shared name (`load_config()`, `__repr__`) is a place, not a defect: two findings
    # must share at least two words they say in words
    if len(a.words & b.words) < (a.need if a.need < b.need else b.need):
        return 0.0
    va, vb = a.vector, b.vector
    if not (a.norm and b.norm):
        value = 0.0
    else:
        common = va.keys() & vb.keys()
        shared = sum(map(mul, map(va.__getitem__, common), map(vb.__getitem__, common)))
        small = a.norm if a.norm < b.norm else b.norm
        value = shared / ((a.norm * b.norm) ** (1 - ALPHA) * (small * small) ** ALPHA)
    if a.lines and b.lines:
        if len(a.lines) == 1 == len(b.lines):  # the usual case, without the loops
            (a0, a1), (b0, b1) = a.lines[0], b.lines[0]
            apart = (a0 if a0 > b0 else b0) - (a1 if a1 < b1 else b1)
            gap: int | None = apart if apart > 0 else 0
        else:
            gap = _gap(a.lines, b.lines)
        if gap == 0:
            value += OVERLAP_BONUS
        elif gap is not None and gap <= window:
            value += NEAR_BONUS
        elif gap is not None and gap > FAR:
            value -= FAR_PENALTY
    if a.lead and b.lead and a.lead.isdisjoint(b.lead):
        value -= LEAD_PENALTY  # their headlines say different things
    if ea.type is not None and ea.type == eb.type:
        value += TYPE_BONUS
    if a.symbols and b.symbols and a.symbols.isdisjoint(b.symbols) and not any(
            "`" + name in vb for name in a.symbols) and not any(
            "`" + name in va for name in b.symbols):
        value -= SYMBOL_PENALTY
    return value


def weights(profiles: list[Profile]) -> tuple[Counter[str], Callable[[str], float]]:
    """Each token's document frequency over the batch, and its weight: rarer is heavier."""
    df = Counter(chain.from_iterable(prof.tokens for prof in profiles))
    total = len(profiles)
    return df, {token: math.log(1.0 + total / count) for token, count in df.items()}.__getitem__


def _block(entry: Entry) -> str | None:
    if entry.path is not None:
        return _base(entry.path)
    if entry.section is not None:
        return "§" + entry.section
    return None


def _candidates(items: list[Entry], profiles: list[Profile], df: Counter[str],
                window: int) -> Iterator[set[tuple[int, int]]]:
    """Pairs worth scoring, one file block at a time (so they never all sit in memory):
    same block and near lines, or a shared rare token. Tokens common across the whole
    batch never index (they cannot make a pair similar alone).

    A block holds places, not findings: place `2 * i` is finding i at its location, and
    place `2 * i + 1` the same finding at its counter-location when that names another
    file (docs against code: README.md:40 against lib/parse.js:103). So a finding meets
    the findings of both files, each side at its own place, whatever their names."""
    indexable = frozenset(token for token, count in df.items() if count <= INDEXABLE)
    blocks: dict[str | None, list[int]] = defaultdict(list)
    for position, entry in enumerate(items):
        blocks[_block(entry)].append(2 * position)
        other = profiles[position].other
        if other is not None:
            blocks[_base(other[0])].append(2 * position + 1)
    loose = blocks.pop(None, [])
    for members in blocks.values():
        if len(members) >= 2:
            yield _pairs_in_block(members, items, profiles, indexable, window)
    if loose:
        # findings that name no file meet everything through the batch's rare tokens
        pairs: set[tuple[int, int]] = set()
        postings: dict[str, list[int]] = defaultdict(list)
        for i, prof in enumerate(profiles):
            for token in prof.tokens:
                if df[token] <= RARE_LOOSE:
                    postings[token].append(i)
        for place in loose:
            i = place >> 1
            ri = items[i].result_order
            met: set[int] = set()
            # its rarest tokens first, and a bounded number of findings met: with many
            # loose findings, every posting list near RARE_LOOSE made the work quadratic
            for token in sorted((t for t in profiles[i].tokens if t in postings),
                                key=lambda t: (df[t], t)):
                met.update(j for j in postings[token]
                           if j != i and ri != items[j].result_order)
                if len(met) >= LOOSE_CANDIDATES:
                    break
            pairs.update((2 * i, 2 * j) if i < j else (2 * j, 2 * i) for j in met)
        yield pairs


def _pairs_in_block(members: list[int], items: list[Entry], profiles: list[Profile],
                    indexable: frozenset[str], window: int) -> set[tuple[int, int]]:
    """A block's candidate pairs of places: a shared rare token, or lines near each
    other. Each pair is (p, q) with p < q, so its findings are in canonical order."""
    pairs: set[tuple[int, int]] = set()
    postings: dict[str, list[int]] = defaultdict(list)
    for p in members:
        for token in indexable.intersection(profiles[p >> 1].tokens):
            postings[token].append(p)
    for posting in postings.values():
        if 1 < len(posting) <= RARE:
            for x, p in enumerate(posting):
                rp = items[p >> 1].result_order
                pairs.update((p, q) if p < q else (q, p) for q in posting[x + 1:]
                             if rp != items[q >> 1].result_order)
    lined = sorted((min(lines)[0], p) for p in members
                   if (lines := _lines_at(profiles[p >> 1], p & 1)))
    for x, (line, p) in enumerate(lined):
        rp = items[p >> 1].result_order
        for other_line, q in lined[x + 1: x + 1 + NEAR_CANDIDATES]:
            if other_line - line > window:
                break
            if rp != items[q >> 1].result_order:
                pairs.add((p, q) if p < q else (q, p))
    return pairs


def _lines_at(profile: Profile, at_counter: int) -> Ranges:
    """The lines of a finding at one of its places (see `_candidates`)."""
    return profile.other[1] if at_counter and profile.other is not None else profile.lines


def _weighed_in(weighed: dict[int, Weighed], profiles: list[Profile], place: int,
                weight_of: Callable[[str], float]) -> Weighed:
    """A place's Weighed form in the block being scored (made once per block)."""
    found = weighed.get(place)
    if found is None:
        profile = profiles[place >> 1]
        found = weighed[place] = Weighed(profile, weight_of, _lines_at(profile, place & 1))
    return found


def _twins(items: list[Entry]) -> list[list[int]]:
    """Findings that say exactly the same thing about the same place, one per result:
    merged before any scoring, so a defect fifty agents copied is one finding however
    far the candidate limits reach."""
    groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for position, entry in enumerate(items):
        finding = entry.finding
        text = " ".join(" ".join(part for part in (finding.title, finding.description,
                                                   finding.impact, finding.suggestion)
                                 if part).lower().split())
        place = file_key(entry.path) if entry.path is not None else _block(entry)
        if text:
            groups[(place, entry.line, text)].append(position)
            continue
        # a finding that says nothing is the same as another only by what exact compares
        # (seed 000): its type and both its places, whole; with no location, or with
        # neither a type nor a counter-location, the same as nothing else
        where = location_key(finding.location)
        counter = location_key(finding.counter_location)
        if where is None or (entry.type is None and counter is None):
            groups[(position,)].append(position)  # the same place needs a place
        else:
            groups[(where, entry.type, counter)].append(position)
    nodes: list[list[int]] = []
    for positions in groups.values():
        if len(positions) == 1:  # most findings have no twin
            nodes.append(positions)
            continue
        seen: dict[int, int] = defaultdict(int)
        split: list[list[int]] = []
        for position in positions:
            kth = seen[items[position].result_order]
            seen[items[position].result_order] = kth + 1
            if kth == len(split):
                split.append([])
            split[kth].append(position)
        nodes.extend(split)
    nodes.sort(key=lambda node: node[0])
    return nodes


def _linkage(group_x: list[int], group_y: list[int], pair_score: Callable[[int, float], float],
             size: list[int], width: int) -> float | None:
    """The average linkage of two clusters of nodes (a node of n twins counts n times),
    or None when one cross pair scores under the floor or was never scored."""
    total = 0.0
    for p in group_x:
        for q in group_y:
            value = pair_score(p * width + q if p < q else q * width + p, 0.0)
            if value < PAIR_FLOOR:
                return None
            total += value * size[p] * size[q]
    return total / (sum(size[p] for p in group_x) * sum(size[q] for q in group_y))


def _scored_pairs(heads: list[Entry],
                  policy: AggregationPolicy) -> tuple[dict[int, float], list[tuple[float, int]]]:
    """Every candidate pair of nodes (their head entries) that scores at least the floor,
    keyed `i * len(heads) + j` for i < j (an int: a tuple key costs three objects a pair),
    and the pairs at or over the threshold as (-score, key), strongest first, ties in
    canonical order. The profiles live only while pairs are scored."""
    tokenizer = Tokenizer()
    profiles = [tokenizer.profile(entry) for entry in heads]
    del tokenizer  # its caches hold every word of the batch; scoring needs none of them
    df, weight_of = weights(profiles)
    threshold = policy.similar_threshold
    scored: dict[int, float] = {}
    window = policy.window
    width = len(heads)
    for block in _candidates(heads, profiles, df, window):
        weighed: dict[int, Weighed] = {}
        for p, q in block:
            i, j = p >> 1, q >> 1
            a, b = heads[i], heads[j]
            at_i, at_j = p & 1, q & 1
            if at_i and at_j and a.path is not None and b.path is not None \
                    and _same_file(a.path, b.path):
                continue  # two findings of one file: their own block compares them there
            # a finding at its counter-location is compared as if it were there
            other_a, other_b = profiles[i].other, profiles[j].other
            path_a = other_a[0] if at_i and other_a is not None else a.path
            path_b = other_b[0] if at_j and other_b is not None else b.path
            if path_a != path_b and path_a is not None and path_b is not None \
                    and not _same_file(path_a, path_b):
                continue
            value = score(_weighed_in(weighed, profiles, p, weight_of),
                          _weighed_in(weighed, profiles, q, weight_of), a, b, window)
            # a pair under the floor blocks its clusters' merge exactly as an unscored
            # pair does, so only pairs at or over it are kept; a pair met at two places
            # (both files of a docs-against-code finding) keeps its better score
            key = i * width + j
            if value >= PAIR_FLOOR and value > scored.get(key, 0.0):
                scored[key] = value
    strong = [(-value, key) for key, value in scored.items() if value >= threshold]
    strong.sort()
    return scored, strong


def similar_clusters(items: list[Entry], policy: AggregationPolicy) -> list[list[int]]:
    nodes = _twins(items)
    width = len(nodes)
    scored, strong = _scored_pairs([items[node[0]] for node in nodes], policy)
    threshold = policy.similar_threshold
    pair_score = scored.get
    size = [len(node) for node in nodes]
    owner = list(range(len(nodes)))
    members: dict[int, list[int]] = {}
    results: dict[int, set[int]] = {}

    def results_of(x: int) -> set[int]:
        return results.get(x) or {items[p].result_order for p in nodes[x]}

    for _, key in strong:
        i, j = divmod(key, width)
        x, y = owner[i], owner[j]
        if x == y:
            continue
        group_x = members.get(x) or [x]
        group_y = members.get(y) or [y]
        seen_x, seen_y = results_of(x), results_of(y)
        if seen_x & seen_y:
            continue
        mean = _linkage(group_x, group_y, pair_score, size, width)
        if mean is None or mean < threshold:
            continue
        keep, gone = (x, y) if x < y else (y, x)
        for p in group_x if gone == x else group_y:
            owner[p] = keep
        members[keep] = group_x + group_y
        results[keep] = seen_x | seen_y
        members.pop(gone, None)
        results.pop(gone, None)
    clusters = [sorted(items[p].order for n in group for p in nodes[n])
                for group in members.values()]
    clusters.extend(sorted(items[p].order for p in nodes[n]) for n in range(len(nodes))
                    if owner[n] == n and n not in members)
    return clusters
