# The parse pipeline: text -> Document -> dialect -> Builder -> Result.
#
# Contract:
# - `parse` never raises on any `str` (SPEC §2): what is wrong with a reply becomes a
#   diagnostic. A `TypeError` for a non-str argument or an unknown dialect name is a
#   programmer error and is raised. Should a scanner ever fail on some input, the reply
#   is still returned, unparseable, with SARP009 and the raw text kept, so one bad
#   reply cannot take an orchestrator down.
# - Steps: empty replies stop at once (ERROR, delivery empty); a reply wrapped whole in a
#   fence is read without it; the dialect is the forced one or the best detected; the
#   dialect reads the Document into a Builder; generic evidence of truncation (a fence
#   never closed, a last table row without its closing pipe) and pointer replies ("Done.",
#   "See above.") are added here, once for every dialect; `Builder.finish` grades.
from __future__ import annotations

import re
from typing import Final

from sarp import diagnostics
from sarp.dialects import DIALECTS, Builder, Policy, detect
from sarp.dialects.rendering import WRITES_JSON, writable
from sarp.dialects.sarif import is_sarif, results_from_sarif
from sarp.model import Conformance, Delivery, Diagnostic, Result, Status, build
from sarp.text import jsontext
from sarp.text.decode import Note, note_decoding
from sarp.text.inline import list_item
from sarp.text.lines import PLAIN, Document

__all__ = ["lint", "parse", "render"]

_POINTER: Final = re.compile(
    r"^(?:(?:all |task |work )?(?:done|complete|completed|finished)|ok(?:ay)?|see (?:the )?"
    r"(?:report|results?|summary|output|file|details|analysis|findings)? ?(?:above|below|"
    r"attached)|see [\w./-]{1,120}|(?:the )?(?:report|results?|summary|output|findings) "
    r"(?:is|are|has been|have been) (?:written|saved|attached|posted)(?: to| in| at)? ?"
    r"[\w./`-]{0,120}|(?:i(?:'ve| have) )?(?:written|saved|attached) (?:the )?(?:report|"
    r"results?|summary|output|findings)(?: to| in| at)? ?[\w./`-]{0,120}|as above|"
    r"(?:everything|all) (?:is )?(?:done|complete)(?: as requested)?)[.!]?$",
    re.IGNORECASE,
)


def parse(text: str, *, dialect: str | None = None, policy: Policy | None = None) -> Result:
    """Parse one agent reply into a Result; never raises on reply content.

    `dialect` forces a dialect by name (see `DIALECTS`); `policy` says how to read replies
    that leave something out. Raises TypeError when `text` is not a str and KeyError for
    an unknown dialect name.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes the reply as str, not {type(text).__name__}")
    if dialect is not None and dialect not in DIALECTS:
        raise KeyError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    policy = policy or Policy()
    surrogate = jsontext.first_lone_surrogate(text)
    if surrogate >= 0:
        # a reply cut mid-emoji by `json.loads` of an API answer: no encoder writes it
        return note_decoding(parse(jsontext.scrub(text), dialect=dialect, policy=policy),
                             Note("lone UTF-16 surrogates, each replaced with U+FFFD",
                                  text.count("\n", 0, surrogate) + 1))
    try:
        if dialect is None and is_sarif(text):
            return _one_result(results_from_sarif(text, "", policy))
        return _parse(text, dialect, policy)
    except Exception as exc:  # the never-raise contract: see the header
        return _internal_error(text, dialect, policy, exc)


def _one_result(runs: list[Result]) -> Result:
    """A SARIF log as one Result: its run's, or with several runs (several tools), every
    run's findings in order, ids prefixed by the run (`run2.F1`), the worst status.
    (`results_from_sarif` and `sarp aggregate` keep one Result per run.)"""
    first = runs[0]
    first.id = None
    if len(runs) == 1:
        return first
    findings = [f.model_copy(update={"id": f"run{n}.{f.id}"})
                for n, run in enumerate(runs, 1) for f in run.findings]
    status = min((run.status for run in runs), key=_STATUS_ORDER.index)
    return first.model_copy(update={
        "findings": findings, "status": status, "agent": ", ".join(dict.fromkeys(
            run.agent for run in runs if run.agent)) or None,
        "conformance": max((run.conformance for run in runs), key=_GRADE_ORDER.index),
        "delivery": next((run.delivery for run in runs
                          if run.delivery is not Delivery.COMPLETE), Delivery.COMPLETE),
        "diagnostics": [d for run in runs for d in run.diagnostics]})


_GRADE_ORDER: Final = (Conformance.CONFORMANT, Conformance.REPAIRED, Conformance.SALVAGED,
                       Conformance.UNPARSEABLE)
# worst first: what a log of several runs says when its runs disagree
_STATUS_ORDER: Final = (Status.ERROR, Status.BLOCKED, Status.PARTIAL, Status.FINDINGS,
                        Status.CLEAN)


def _parse(text: str, forced: str | None, policy: Policy) -> Result:
    doc = Document(text)
    if not doc.src.strip():
        return _empty(text, forced)
    notes: list[Diagnostic] = []
    truncation: list[tuple[str, int]] = []
    whole = doc.whole_fence()
    if whole is not None:
        open_at, close_at = whole
        info = doc.lines[open_at].strip().lstrip("`~").strip().lower()
        if close_at < 0:
            truncation.append(("the code fence around the reply is never closed",
                               doc.last_nonblank()))
        if info not in ("json", "jsonc", "json5"):
            doc = doc.unwrap(open_at, close_at)
            notes.append(diagnostics.make("SARP004", open_at + 1))
    name = forced or detect(doc)
    chosen = DIALECTS[name]
    builder = Builder(doc, name, policy, chosen.vocab, chosen.severities,
                      case_sensitive=chosen.case_sensitive)
    builder.diagnostics.extend(notes)
    builder.truncation.extend(truncation)
    chosen.parse(builder)
    _generic_truncation(builder)
    if not builder.truncation and builder.closing_seen is not True and _abrupt_end(builder.doc):
        builder.truncated("the reply stops in the middle of a sentence",
                          builder.doc.last_nonblank())
    pointer = _pointer(builder.doc) if not builder.envelope and not builder.findings else None
    if pointer is not None:
        builder.pointer = True
        builder.diag("SARP003", builder.doc.first_nonblank(), text=pointer)
    result = builder.finish(text)
    if result.delivery is Delivery.POINTER and not builder.envelope:
        result.conformance = Conformance.UNPARSEABLE
    if forced is None and name != "text" and not result.findings and (
            not builder.envelope
            or (name == "adr013" and result.conformance is not Conformance.CONFORMANT)):
        # detected by its look (`Verdict:`, a `## Summary` at the top) but no finding read
        # and the dialect's frame missing or repaired: what the text fallback reads, if
        # anything, is what the reply says
        fallback = _parse(text, "text", policy)
        if fallback.findings:
            return fallback
    return result


def _generic_truncation(b: Builder) -> None:
    doc = b.doc
    if doc.unclosed_fence is not None and not any("fence" in e for e, _ in b.truncation):
        b.truncated(f"a code fence opened on line {doc.unclosed_fence + 1} is never closed",
                    doc.last_nonblank())
    last = doc.last_content()
    if last < 0 or doc.kinds[last] != PLAIN:
        return
    line = doc.lines[last].rstrip()
    if not line.lstrip().startswith("|") or line.endswith("|"):
        return
    # A row without its closing pipe at the very end, in a table whose rows had one.
    prev = last - 1
    while prev >= 0 and doc.kinds[prev] == PLAIN and doc.lines[prev].lstrip().startswith("|"):
        if doc.lines[prev].rstrip().endswith("|"):
            b.truncated("the last table row is unfinished", last)
            return
        prev -= 1


_ENDINGS: Final = frozenset(".!?)]}*|`>\"'…:;🙂😊👍✅")


def _abrupt_end(doc: Document) -> bool:
    """The last line stops in the middle of something.

    Evidence: markup left open on the last line (an odd number of backticks or `**`, an
    unclosed parenthesis or bracket); a prose paragraph of 16+ words with no sentence
    end; a last word that is the start of a longer word used earlier and never a word
    on its own; a last word cut to one or two letters. A list item that merely lacks a
    full stop is not evidence: agents end list items and sign-offs without one. Only
    consulted when the dialect has no closing part of its own (or did not see it): with
    one (ADR-013's Summary, Aphelion's
    NEXT, a closing brace), its absence is the evidence instead.
    """
    last = doc.last_content()
    if last < 0 or doc.kinds[last] != PLAIN:
        return False
    line = doc.lines[last].rstrip()
    if line.lstrip().startswith(("#", "|", "---")) or line[-1] in _ENDINGS:
        return False
    if line.count("`") % 2 or line.count("**") % 2:
        return True
    if line.count("(") > line.count(")") or line.count("[") > line.count("]"):
        return True
    tail = line.rsplit(None, 1)[-1]
    if _open_paragraph(doc, last) or _cut_word(doc.src, tail):
        return True
    return len(line.split()) >= 2 and tail.isalpha() and len(tail) <= 2 and \
        tail.lower() not in _SHORT_WORDS


_WORDS: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,60}")


def _cut_word(src: str, tail: str) -> bool:
    """The last word is the start of a word the reply uses elsewhere, and never a word
    of its own there (`ZeroDivisionE`, `permiss`): a word cut in half."""
    match = _WORDS.search(tail)
    if match is None or match.end() != len(tail) or len(match.group()) < 2:
        return False
    stem = match.group()
    words = set(_WORDS.findall(src[: len(src) - len(tail)]))
    if stem in words:
        return False
    return any(len(w) > len(stem) and w.startswith(stem) for w in words)


def _open_paragraph(doc: Document, last: int) -> bool:
    """The reply ends in a prose paragraph of 16+ words that has no sentence end.

    Paragraphs (unlike list items, headings and `Key: value` lines) end with a full stop
    in agent prose; one that stops without it was cut off.
    """
    if list_item(doc.lines[last]) is not None or doc.lines[last].startswith((" ", "\t")):
        return False
    words = 0
    i = last
    while i >= 0 and doc.kinds[i] == PLAIN and doc.lines[i].strip():
        line = doc.lines[i]
        if list_item(line) is not None or line.lstrip().startswith(("#", "|", ">", "**")):
            return False
        words += len(line.split())
        i -= 1
    first = doc.lines[i + 1].strip()
    label = first.split("`:", 1)[0] + "`" if first.startswith("`") and "`:" in first[:60] \
        else first.split(":", 1)[0] if ":" in first[:30] else None
    # `Key: value` lines hold no sentences; a paragraph led by a place in a code span and a
    # colon (`netrc.py:96`: dropping ...) is prose, a command's (`pytest -q`: 214 passed) not
    if words < 16 or (label is not None and label.count(" ") < 3 and not (
            label.startswith("`") and (_PLACE_SPAN.fullmatch(label) is not None
                                       or _CODE_SPAN.fullmatch(label) is None))):
        return False
    # a closing offer ("Let me know if you need more") is often left without a stop
    paragraph = " ".join(doc.lines[k].strip() for k in range(i + 1, last + 1))
    tail = _SENTENCE_END.split(paragraph)[-1].strip().lower()
    return not tail.startswith(_SIGN_OFFS)


_CODE_SPAN: Final = re.compile(r"`[^`]*`")
_PLACE_SPAN: Final = re.compile(r"`[\w./\\-]+\.\w+(?::\d[\d-]*)?`")
_SENTENCE_END: Final = re.compile(r"[.!?](?:\s|$)")
_SIGN_OFFS: Final = ("let me know", "happy to", "ping me", "feel free", "hope this",
                     "thanks", "thank you", "cheers", "want me to", "i can ", "shout if",
                     "glad to", "just say", "tell me if")


_SHORT_WORDS: Final = frozenset({"ok", "no", "up", "in", "on", "it", "is", "me", "us", "go",
                                 "do", "so", "to", "of", "at", "by", "be", "we", "as", "or",
                                 "id", "ui", "ux", "ai", "db", "os", "ci", "pr", "qa"})


# a short reply that says its result is in a file: `Report saved to reviews/auth.md`, `I
# saved the full review to `reviews/x.md` instead. See that file for the details.`
_IN_A_FILE: Final = re.compile(
    # `I saved the full review to reviews/x.md`, `Report saved to reviews/auth.md`
    r"\b(?:saved|wrote|written|put|stored|placed|attached|posted)\b[^.\n]{0,80}?"
    r"\b(?:to|in|at|into|under)\s+`?[\w./-]{1,200}\.\w{1,8}`?"
    # `The review is in reviews/auth.md`: the result itself is the subject
    r"|\b(?:review|report|results?|findings|analysis|write-?up)\s+(?:is|are|lives|sits)\s+"
    r"(?:in|at|under)\s+`?[\w./-]{1,200}\.\w{1,8}`?"
    r"|^see\s+`?[\w./-]{1,200}\.\w{1,8}`?", re.IGNORECASE)
_RESULT_NOUN: Final = re.compile(r"\b(?:review|report|results?|findings|analysis|summary|"
                                 r"details|output|notes|write-?up)\b", re.IGNORECASE)
_SENTENCE: Final = re.compile(r"(?<=[.!?])\s+")
# what a pointer reply says besides where its result is
_ASIDE: Final = re.compile(r"\b(?:see (?:that|the|this) file|for (?:the )?details|ran out of|"
                           r"instead|too long|no room|context|done|complete|finished)\b",
                           re.IGNORECASE)


def _pointer(doc: Document) -> str | None:
    """What a reply that only points elsewhere says where its result is, or None."""
    texts = [doc.lines[i].strip() for i in range(len(doc.lines)) if doc.lines[i].strip()]
    if not texts or len(texts) > 4 or sum(len(t) for t in texts) > 500:
        return None
    if len(texts) <= 2 and sum(len(t) for t in texts) <= 240 and all(
            _POINTER.match(t.strip("*_` ")) is not None for t in texts):
        return texts[0][:80]
    # every sentence points at the file, or says why the result is not here
    sentences = _SENTENCE.split(" ".join(texts))
    pointing = [found for sentence in sentences if (found := _IN_A_FILE.search(sentence))]
    if not pointing or _RESULT_NOUN.search(" ".join(texts)) is None or not all(
            _IN_A_FILE.search(sentence) or _ASIDE.search(sentence) for sentence in sentences):
        return None
    return pointing[0].group(0)[:120]


def _empty(text: str, forced: str | None) -> Result:
    return build(Result,
        id=None, dialect=forced or "text", status=Status.ERROR, native_status=None,
        conformance=Conformance.UNPARSEABLE, delivery=Delivery.EMPTY, result_type=None,
        agent=None, metrics={}, metadata={}, confidence=None, summary=None, findings=[],
        checklist=[], references=[], next_steps=[], blockers=[], next=None,
        blocked_reason=None, blocked_target=None, current_task=None, fields={},
        # 1:1 even for no text at all: a diagnostic's place is 1-based (SPEC §3), and it
        # is where an editor opens an empty file, so JSON and text output agree
        diagnostics=[diagnostics.make("SARP001", 1)], raw=text,
    )


def _internal_error(text: str, forced: str | None, policy: Policy, exc: Exception) -> Result:
    """A dialect failed on this text: salvage what the plain-text reader finds instead."""
    note = diagnostics.make("SARP009", 1, error=f"{type(exc).__name__}: {exc}")
    try:
        result = _parse(text, "text", policy)
    except Exception:  # even the salvage failed: keep the text and say so
        result = _empty(text, forced)
        result.delivery = Delivery.COMPLETE
        result.diagnostics = []
    result.diagnostics = [note, *result.diagnostics]
    return result


def render(result: Result, dialect: str | None = None) -> str:
    """The reply a conformant agent would have written for `result`, in `dialect`.

    Defaults to the result's own dialect. Raises KeyError for an unknown dialect name.
    """
    name = dialect or result.dialect
    if name not in DIALECTS:
        raise KeyError(f"unknown dialect {name!r}; known: {', '.join(DIALECTS)}")
    # agent text must not write structure into the reply (dialects/rendering.py)
    return DIALECTS[name].render(result if name in WRITES_JSON else writable(result))


def lint(text: str, *, dialect: str | None = None,
         policy: Policy | None = None) -> list[Diagnostic]:
    """The diagnostics `parse` gives for `text`, in line order."""
    return parse(text, dialect=dialect, policy=policy).diagnostics
