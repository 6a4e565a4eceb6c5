# What every dialect renderer shares: the word it writes for the canonical status, and
# the reason it gives when the work stopped short.
#
# The status rule (README "Converting between dialects"): a renderer never writes a word
# that reads back as a better outcome than the Result's.
# - It keeps the reply's own word when that word still means the Result's status (a
#   round trip keeps `conditional`, `approved`, `SKIPPED`);
# - else it writes the dialect's word for the status (`words`, declared beside each
#   renderer);
# - else, for a status the dialect has no word for (ADR-013 has no ERROR, SDD no
#   BLOCKED), the canonical name (`ERROR`). Every dialect's parser reads that name back as
#   the same status (a SARP103 note), so the reply is not conformant, but no reader takes
#   a failed agent for an approval. `sarp.convert` reports it.
# A dialect whose status is a closed set its own tooling validates (CLEO's manifest) or
# whose canonical name means something else there (ADR-013's BLOCKED verdict is a
# finding verdict) declares a nearest word for that status instead; `sarp.convert`
# reports the change.
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from sarp.model import Delivery, Result, Status
from sarp.vocab import BY_CONTENT, StatusValue, StatusVocab

__all__ = ["NOT_GIVEN", "status_word", "stop_reason"]

# what a renderer writes in a required reason slot the Result has nothing for: a true
# statement about the source, never an invented cause
NOT_GIVEN: Final = "not given"


def status_word(result: Result, vocab: StatusVocab, words: Mapping[Status, str]) -> str:
    """The status word to write for `result` in the dialect of `vocab` (rule above)."""
    native = result.native_status
    if native is not None and native in vocab.canonical and \
            _means(vocab.canonical[native], result):
        return native
    return words.get(result.status, result.status.value)


def _means(meaning: StatusValue, result: Result) -> bool:
    if meaning == BY_CONTENT:  # `APPROVED`, `SUCCESS`: the findings decide
        return result.status is (Status.FINDINGS if result.findings else Status.CLEAN)
    return meaning == result.status


def stop_reason(result: Result) -> str | None:
    """Why the work stopped short, wherever the source dialect said it (Aphelion's
    BLOCKED_REASON, Clarity's `Reason:` metric, an ADR-013 `**Reason**`, a JSON `error`,
    the first blocker, an SDD error message, a CLEO entry's needs_followup), else what
    the delivery shows; None when nothing says."""
    details = result.fields.get("error_details")
    followup = result.fields.get("needs_followup")
    candidates = (result.blocked_reason, result.metrics.get("Reason"),
                  result.fields.get("reason"), result.fields.get("error"),
                  *result.blockers[:1],
                  details.get("Message") if isinstance(details, dict) else None,
                  *(_followup_reason(item) for item in (
                      followup if isinstance(followup, list) else [])))
    for text in candidates:
        if isinstance(text, str) and text.strip():
            return " ".join(text.split())
    if result.delivery is Delivery.TRUNCATED:
        return "the reply was cut off"
    if result.delivery is Delivery.EMPTY:
        return "the reply was empty"
    return None


def _followup_reason(item: object) -> str | None:
    """A CLEO needs_followup item as a reason: `BLOCKED: why` -> why; a task id (`T4110`)
    names work to do, not why it stopped."""
    if not isinstance(item, str) or re.fullmatch(r"T\d+", item.strip()):
        return None
    return item.removeprefix("BLOCKED:").strip() or None
