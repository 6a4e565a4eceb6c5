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
#
# Agent text in a rendering (ADV16 #7). A Result's text comes from an untrusted reply
# (`"agent": "x\n\n### CRITICAL: INJECTED"` in JSON), and what a renderer writes must
# parse back to the same findings, never to more. So:
# - `sarp.render` hands every line-based renderer `writable(result)`: each field that a
#   renderer writes into a single-line slot (agent, next, ids, titles, locations, types,
#   keys, list items, metrics...) flattened onto one line, control characters made
#   visible in every field, and `AGENT_RESULT` (which makes any reply an Aphelion one,
#   wherever it stands) escaped. Only descriptions, the summary and a field's top-level
#   text keep their lines: the dialects have multi-line places for them.
# - Where a renderer starts a line with agent text (a line of such multi-line text, a
#   title after `# `, a list item's text), it writes it through `prose_line` or
#   `prose_lines`, which escape (Markdown's backslash) a start that some reader would
#   take as structure: a section heading, a fence, a finding head or a list item the
#   prose reader takes for a finding, a severity or urgency group, a RESULT, STATUS or
#   NEXT line, an id leading a line, a finding or test table. Lists, tables and code
#   that no reader takes anything from stay as written, so ordinary text round-trips
#   exactly. Each renderer decides which of its slots are such line starts.
# - JSON dialects (json, cleo's manifest entry) are exempt: JSON escapes line breaks and
#   control characters itself, so their text is written exact.
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from sarp.dialects.base import Builder, Policy
from sarp.dialects.common import ID, classify_table
from sarp.dialects.prose import finding_head_line, read_prose_findings, severity_group
from sarp.model import Delivery, Finding, Location, Reference, Result, Status
from sarp.text.controls import visible_controls
from sarp.text.lines import Document
from sarp.text.tables import find_tables
from sarp.text.write import inline
from sarp.vocab import BY_CONTENT, URGENCY, StatusValue, StatusVocab

__all__ = ["NOT_GIVEN", "WRITES_JSON", "prose_line", "prose_lines", "status_word",
           "stop_reason", "writable"]

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


# -- agent text in a rendering (see the top of this file) --------------------------------

# dialects whose renderers write JSON, which carries line breaks and control characters
# in its own escapes
WRITES_JSON: Final = frozenset({"json", "cleo"})

# Where a line's content starts: Markdown block markup that a reader takes as structure
# wherever it stands (in a list item too). A quote is judged by what it quotes; a
# heading of level 4 or deeper by what it says (`#### Implementation Notes` inside an
# SDD section is the section's own; `#### CRITICAL: x` is a finding head).
_MARKUP_START: Final = re.compile(
    r"#{1,3}(?:[ \t]|$)"  # a heading that ends the section it is in and opens another
    r"|`{3,}|~{3,}"  # a fence marker (fences a text holds whole are kept: `prose_lines`)
    r"|(?:[-*_=][ \t]*){3,}$"  # a rule, a setext underline, a metadata block's edge
    r"|\{"  # a JSON object (the JSON dialect's reply)
)
# Where a line starts: what the line-based dialects read at the start of a line, beyond
# the finding heads, severity groups and list items the prose reader recognises (asked
# in `_reads_as_structure`).
_LINE_START: Final = re.compile(
    r"(?:STATUS|NEXT)[ \t]?:"  # what makes a reply an Aphelion one without AGENT_RESULT
    r"|[ \t*_`#>-]*(?i:result)[ \t*_`]*[:=]"  # Clarity's summary line, as it finds one
    # an id leading a line, an item or a heading, maybe bold: an Aphelion expansion
    # (`- F9: text`), an SDD details head (`**SEC-9: title**`, `## F9: title`)
    rf"|(?:[-*+][ \t]|\d{{1,3}}[.)][ \t]|#{{1,6}}[ \t]+)?(?:\*\*)?{ID}"
    r"(?:[ \t]?\([^()]{0,80}\))?"
    r"(?:\*\*)?[ \t]?(?:[:.—–]|-[ \t])"
    r"|(?i:" + "|".join(sorted(URGENCY, key=len, reverse=True)) + r")\b[^:]{0,40}:"
)
# tables no reader takes findings from (the rest: findings, checklists, test, criteria
# and step tables, whose failed rows are findings)
_INERT_TABLES: Final = frozenset({"references", "other"})
# what a fenced block may not offer: a JSON reply, or a RESULT line that Clarity's
# reader takes out of a fence when the reply has none outside
_ACTIVE_FENCE: Final = re.compile(r"[ \t]*(?:\{|[*_`#>-]*(?i:result)[ \t*_`]*[:=])")


def prose_line(line: str, lead: str = "", *, loose: bool = False) -> str:
    """One line of agent prose that a renderer puts at the start of a line, or after the
    `lead` it writes there (a list item's `- `): unchanged, unless a reader would take
    it for structure; then its first character is escaped with a backslash (which
    Markdown shows as the character itself, and no reader takes for markup). `loose`:
    the reader is the text fallback's, which takes more for findings."""
    text = line.lstrip(" \t")
    if not text or text.startswith("\\"):  # nothing, or escaped already
        return line
    if _reads_as_structure(text, lead + text, loose):
        return f"{line[:len(line) - len(text)]}\\{text}"
    return line


def prose_lines(text: str, *, loose: bool = False) -> list[str]:
    """The lines of a multi-line text that a renderer writes as they are (an SDD
    section's body, a summary, an Aphelion block scalar), each through `prose_line`.
    Lists, tables and code stay as written, except where a reader takes findings or a
    reply from them: a finding or test table (a Severity column, failed rows) gets its
    delimiter row escaped, which leaves no table, and a fence that is never closed, or
    that holds JSON or a RESULT line, gets its markers escaped and its lines read as
    prose. A fenced block that stays one is kept whole: no reader looks inside."""
    lines = text.split("\n")
    doc = Document(text)
    inside: set[int] = set()
    for open_at, close_at, info in doc.fences:
        body = range(open_at + 1, close_at if close_at >= 0 else len(lines))
        first = next((lines[i] for i in body if lines[i].strip()), "")
        if close_at >= 0 and "json" not in info.lower() and not _ACTIVE_FENCE.match(first):
            inside.update([open_at, *body, close_at])
    out = [line if i in inside else prose_line(line, loose=loose)
           for i, line in enumerate(lines)]
    for table in find_tables(doc):
        if classify_table(table) not in _INERT_TABLES:
            delimiter = table.header_line + 1
            out[delimiter] = f"\\{lines[delimiter].lstrip()}"
    return out


def _reads_as_structure(text: str, written: str, loose: bool) -> bool:
    """Whether a line whose content is `text`, written as `written` (after its list
    marker, if any), is read as structure rather than as the text it holds."""
    if _MARKUP_START.match(text) or _LINE_START.match(written):
        return True
    if text.startswith(">"):  # a quote: what it quotes (`> ``` `, `> RESULT: FAIL`)
        quoted = text.lstrip("> \t")
        return bool(quoted) and _reads_as_structure(quoted, quoted, loose)
    return finding_head_line(written) is not None or \
        severity_group(written, urgency=True) is not None or \
        _read_as_finding(written, loose)


def _read_as_finding(line: str, loose: bool) -> bool:
    """Whether the prose reader the dialects share takes `line`, alone, for a finding
    (`- High: text`, `- [major] text`, `- DR-1 (major) a.py:3 - text`)."""
    builder = Builder(Document(line), "text", Policy(), None, {}, case_sensitive=False)
    return read_prose_findings(builder, 0, 1, loose=loose) > 0


def writable(result: Result) -> Result:
    """`result` as a line-based renderer may write it: single-line fields on one line,
    control characters visible everywhere (see the top of this file). The same object
    when nothing needs it."""
    findings = [_writable_finding(f) for f in result.findings]
    changes: dict[str, Any] = {}
    if any(new is not old for new, old in zip(findings, result.findings, strict=True)):
        changes["findings"] = findings
    for name in ("native_status", "result_type", "agent", "next", "blocked_reason",
                 "blocked_target", "current_task"):
        _change(changes, name, getattr(result, name), _one_line)
    _change(changes, "summary", result.summary, _lines)
    for name in ("metrics", "metadata", "next_steps", "blockers"):
        _change(changes, name, getattr(result, name), _one_line)
    _change(changes, "fields", result.fields, _field_values)
    checklist = [item.model_copy(update=update) if (update := _updates(
        item, ("item", "native_status", "notes"))) else item for item in result.checklist]
    if any(new is not old for new, old in zip(checklist, result.checklist, strict=True)):
        changes["checklist"] = checklist
    references = [_writable_reference(ref) for ref in result.references]
    if any(new is not old for new, old in zip(references, result.references, strict=True)):
        changes["references"] = references
    return result.model_copy(update=changes) if changes else result


def _writable_finding(f: Finding) -> Finding:
    update = _updates(f, ("id", "native_severity", "type", "title", "impact", "suggestion",
                          "agent"))
    _change(update, "description", f.description, _paragraphs)
    for name in ("location", "counter_location"):
        place = getattr(f, name)
        written = _writable_location(place)
        if written is not place:
            update[name] = written
    return f.model_copy(update=update) if update else f


def _writable_reference(ref: Reference) -> Reference:
    update = _updates(ref, ("item", "relevance"))
    place = _writable_location(ref.location)
    if place is not ref.location:
        update["location"] = place
    return ref.model_copy(update=update) if update else ref


def _writable_location(location: Location | None) -> Location | None:
    if location is None:
        return None
    update = _updates(location, ("raw", "path", "section", "symbol"))
    extra = [_writable_location(e) or e for e in location.extra]
    if any(new is not old for new, old in zip(extra, location.extra, strict=True)):
        update["extra"] = extra
    return location.model_copy(update=update) if update else location


def _updates(record: Any, names: tuple[str, ...]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for name in names:
        _change(changes, name, getattr(record, name), _one_line)
    return changes


def _change(changes: dict[str, Any], name: str, value: Any,
            write: Callable[[Any], Any]) -> None:
    written = write(value)
    if written != value:
        changes[name] = written


def _one_line(value: Any) -> Any:
    """Every string in `value` (a string, list or dict, keys too) on one line."""
    if isinstance(value, str):
        return _defused(inline(value)) if _NEEDS_CARE.search(value) else value
    if isinstance(value, list):
        return [_one_line(v) for v in value]
    if isinstance(value, dict):
        return {_one_line(k): _one_line(v) for k, v in value.items()}
    return value


def _lines(value: Any) -> Any:
    """A multi-line text with LF line ends (what the parser splits on: it reads a bare
    CR as a line end too) and its control characters visible."""
    if not isinstance(value, str) or not _NEEDS_CARE.search(value):
        return value
    return _defused(value.replace("\r\n", "\n").replace("\r", "\n"))


def _paragraphs(value: Any) -> Any:
    """A description as renderers split it (first paragraph, then the others): its lines
    as `_lines` writes them, one blank line between paragraphs, none at the edges. An
    empty paragraph would be written as a section with nothing in it, which reads back
    as a finding of its own."""
    text = _lines(value)
    if not isinstance(text, str) or "\n" not in text:
        return text
    return _BLANK_LINES.sub("\n\n", text).strip()


_BLANK_LINES: Final = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")  # two line ends or more


def _defused(text: str) -> str:
    """`text` with its control characters visible, and the word that makes any reply an
    Aphelion one (`AGENT_RESULT`, wherever it stands) escaped as Markdown shows it."""
    return visible_controls(text).replace("AGENT_RESULT", "AGENT\\_RESULT")


def _field_values(fields: dict[str, Any]) -> dict[str, Any]:
    """A field's top-level text keeps its lines (SDD sections, Aphelion block scalars);
    its name, and whatever is nested (table rows, list items), are written on one line."""
    return {_one_line(key): _lines(value) if isinstance(value, str) else _one_line(value)
            for key, value in fields.items()}


# a line break, a control character (tab excepted) or Aphelion's envelope word: what the
# writers above change
_NEEDS_CARE: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]|AGENT_RESULT")
