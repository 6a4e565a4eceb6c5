"""Replies parse to what their agents meant, as written and in mechanical variants.

The corpus replies were written by LLM agents doing real reviews, tests and analyses in
each dialect; each `*.label.json` records what the agent meant. The variants are the
drift that orchestrators see on top: a preamble, the whole reply in a fence, trailing
chatter, CRLF line ends, a RESULT line quoted from another agent, and truncation.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from golden import DATA, label_path, read_reply, replies
from meaning import mismatches

import sarp

LABELLED = [p for p in replies() if label_path(p).exists()]
FOREIGN = ("Agent B's result, for reference:\n\n"
           "> RESULT: CLEAN | Type: digest | Doc: other.md | Sections: 2 | Entities: 0 "
           "| Cross-refs: 0\n\n")


def _fenced(text: str) -> str:
    return f"```markdown\n{text.rstrip()}\n```\n"


VARIANTS: dict[str, Callable[[str], str]] = {
    "as-written": lambda t: t,
    "preamble": lambda t: "Sure! Here is my report on the task.\n\n" + t,
    "fenced": _fenced,
    "chatter": lambda t: t.rstrip() + "\n\nLet me know if you want me to dig deeper into any"
                         " of these.\n",
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "foreign-result": lambda t: t.rstrip() + "\n\n" + FOREIGN,
}


def _label(reply: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(label_path(reply).read_text(encoding="utf-8"))
    return data


def test_labels_exist_for_the_corpus() -> None:
    assert len(LABELLED) >= 60


def test_replies_as_written_mean_what_their_agents_meant() -> None:
    """The acceptance bar: at least 95% of replies match their label exactly.

    Not every reply can: `text/shlex_prose_numbered.md` gives its severities in a later
    sentence ("I'd call #1 high and the rest low"), which no scanner should guess at.
    The golden tests pin every reply's exact output, so no regression hides in the 5%.
    """
    failures = []
    for reply in LABELLED:
        result = sarp.parse(read_reply(reply))
        label = _label(reply)
        problems = mismatches(result, label)
        if result.dialect != label["dialect"]:
            problems.append(f"dialect {result.dialect} != {label['dialect']}")
        if problems:
            failures.append(f"{reply.relative_to(DATA)}: {problems}")
    rate = 1 - len(failures) / len(LABELLED)
    assert rate >= 0.95, f"{rate:.1%} matched:\n" + "\n".join(failures)


def test_mechanical_variants_keep_their_meaning() -> None:
    """At least 95% of (reply, variant) pairs match the label, and none raises."""
    failures: list[str] = []
    total = 0
    for reply in LABELLED:
        label = _label(reply)
        text = read_reply(reply)
        for name, variant in VARIANTS.items():
            if label["dialect"] in ("cleo", "json") and name in ("fenced", "foreign-result"):
                continue  # a fenced JSON line or a quoted RESULT inside JSON are other tests
            if not text.strip() or (label.get("truncated") and name in (
                    "chatter", "foreign-result")):
                continue  # the variant changes the meaning: text after a cut, an empty reply
            total += 1
            problems = mismatches(sarp.parse(variant(text)), label)
            if problems:
                failures.append(f"{reply.relative_to(DATA)} [{name}]: {problems}")
    rate = 1 - len(failures) / total
    assert rate >= 0.95, f"{rate:.1%} matched; failures:\n" + "\n".join(failures)


def _cut(text: str, fraction: float = 0.6) -> str:
    """The reply cut off mid-word at `fraction` of its length, as a token limit does."""
    at = int(len(text) * fraction)
    while at < len(text) - 1 and not text[at].isalnum():
        at += 1
    return text[: at + 1]


def test_truncated_replies_are_recognised() -> None:
    """Cut at 40%, 60% and 80%: most cuts are recognised, and every cut reply is PARTIAL.

    A cut that lands right after a complete sentence in a dialect with no closing part
    leaves no evidence at all, so the bar is below 100%; see BENCHMARKS.md for the rate.
    """
    recognised: list[bool] = []
    missed = []
    for reply in LABELLED:
        label = _label(reply)
        text = read_reply(reply)
        if label.get("truncated") or len(text) < 400:
            continue
        for fraction in (0.4, 0.6, 0.8):
            result = sarp.parse(_cut(text, fraction))
            ok = result.delivery is sarp.Delivery.TRUNCATED
            recognised.append(ok)
            if not ok:
                missed.append(f"{reply.relative_to(DATA)}@{fraction}")
            if ok:
                assert result.status in (sarp.Status.PARTIAL, sarp.Status.ERROR)
    rate = sum(recognised) / len(recognised)
    assert rate >= 0.8, f"{rate:.1%} recognised; missed: {missed}"
