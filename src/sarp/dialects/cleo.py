# CLEO subagent output (seed 002, research notes §3.3-3.4): a one-line return message
# that points at MANIFEST.jsonl, and the manifest entry itself.
#
# - A return message (`Research complete. See MANIFEST.jsonl for summary.` and the other
#   accepted forms) parses as delivery=pointer and conformant: it is exactly what the
#   protocol asks for. Whitespace or case drift is repaired and reported; content
#   returned beside the message breaks the protocol's MUST NOT and is kept as summary.
# - A manifest line (one JSON object with the manifest keys) parses into a full Result:
#   status from `status`, the title as summary, key findings and every other key in
#   `fields`, field-name aliases normalised and reported. Key findings are research
#   results, not defects, so they are not `findings`.
from __future__ import annotations

import json
import re
from typing import Any, Final

from sarp.dialects.base import Builder
from sarp.dialects.json_ import decode_object, find_object, object_start
from sarp.dialects.rendering import NOT_GIVEN, status_word, stop_reason
from sarp.model import Delivery, Finding, Result, Severity, Status
from sarp.text.lines import Document
from sarp.text.write import headline, inline, location_text
from sarp.vocab import STATUS

__all__ = ["CLEO", "REQUIRED_KEYS", "RETURN_MESSAGE", "CleoDialect"]

RETURN_TYPES: Final = ("Research", "Implementation", "Validation", "Testing", "Specification",
                       "Consensus", "Decomposition", "Contribution", "Release", "Tests",
                       "Documentation", "Task", "Epic", "Analysis", "Review")
RETURN_MESSAGE: Final = re.compile(
    r"(?P<type>[A-Z][a-z]{2,20}(?: [a-z]{2,20})?) (?P<status>complete|partial|blocked)\. "
    r"(?:See MANIFEST\.jsonl for (?P<tail>summary|details|blocker details)|"
    r"Manifest appended to pipeline_manifest)\.$"
)
_LOOSE: Final = re.compile(
    r"(?P<type>[A-Za-z]{3,20}(?: [A-Za-z]{2,20})?)\s{1,3}(?P<status>complete|completed|partial|"
    r"blocked|done)\.?\s{1,3}(?:see\s{1,3}manifest\.jsonl|manifest appended)",
    re.IGNORECASE,
)
_TAILS: Final = {"complete": "summary", "partial": "details", "blocked": "blocker details"}
REQUIRED_KEYS: Final = ("id", "file", "title", "date", "status", "topics", "key_findings",
                        "actionable")
ALIASES: Final = {"taskId": "task_id", "task": "task_id", "agentType": "agent_type",
                  "type": "agent_type", "output": "file", "output_file": "file",
                  "outputFile": "file", "linkedTasks": "linked_tasks", "task_ids": "linked_tasks",
                  "needsFollowup": "needs_followup", "keyFindings": "key_findings"}


_MANIFEST_ONLY: Final = frozenset({"key_findings", "topics", "actionable", "needs_followup",
                                   "linked_tasks", "agent_type", "agentType", "file",
                                   "output_file"})


def _manifest_keys(text: str) -> bool:
    """Whether the object's own keys are a manifest entry's (not a JSON result's)."""
    first = text.split("\n", 1)[0] if text.split("\n", 1)[0].rstrip().endswith("}") else text
    value, _fixes, _truncated = decode_object(first)
    if not isinstance(value, dict):
        return '"key_findings"' in text[:2000]
    keys = set(value)
    return bool(keys & _MANIFEST_ONLY) and "findings" not in keys


# The status word a renderer writes. CLEO's set is closed (its return-message validators
# and manifest schema accept only these words), so the statuses it has none for take the
# nearest (dialects/rendering.py): a finding is research output, written among the key
# findings of a `complete` entry, and an agent that failed did not complete its task.
STATUS_FOR: Final = {Status.CLEAN: "complete", Status.FINDINGS: "complete",
                     Status.PARTIAL: "partial", Status.BLOCKED: "blocked",
                     Status.ERROR: "blocked"}
_KEY_FINDING_MAX: Final = 200  # characters, the manifest schema's limit
_TITLE_MAX: Final = 200


def return_message(status: Status, kind: str = "Research") -> str:
    word = STATUS_FOR[status]
    return f"{kind} {word}. See MANIFEST.jsonl for {_TAILS[word]}."


class CleoDialect:
    name = "cleo"
    severities: Final[dict[str, Severity]] = {}
    case_sensitive = True

    def __init__(self) -> None:
        self.vocab = STATUS["cleo"]

    def detect(self, doc: Document) -> int:
        src = doc.src
        if "MANIFEST.jsonl" in src or "pipeline_manifest" in src:
            if _LOOSE.search(src) is not None:
                return 85
            return 20
        start = object_start(src)
        if start >= 0 and ('"key_findings"' in src or '"topics"' in src):
            return 80 if _manifest_keys(src[start:]) else 0
        return 0

    def parse(self, b: Builder) -> None:
        start = object_start(b.doc.src)
        if start >= 0 and not _LOOSE.search(b.doc.src):
            if b.doc.src[:start].strip():
                b.diag("SARP404", 0, what="text before the manifest entry ignored")
            self._manifest(b, b.doc.src[start:].strip())
            return
        b.envelope_name = "return message"
        lines = [(i, line.strip()) for i, line in enumerate(b.doc.lines) if line.strip()]
        for i, text in lines:
            exact = RETURN_MESSAGE.fullmatch(text)
            loose = exact or _LOOSE.search(text)
            if loose is None:
                continue
            b.envelope = True
            b.closing_seen = True
            b.envelope_line = i
            word = loose["status"].lower()
            word = {"completed": "complete", "done": "complete"}.get(word, word)
            b.set_status(word, i)
            b.fields["return_type"] = loose["type"]
            others = [(j, t) for j, t in lines if j != i]
            if exact is None:
                b.diag("SARP406", i, what=f"{text!r} is not word for word an accepted form",
                       expected=return_message(self.vocab.canonical[word]  # type: ignore[arg-type]
                                               if isinstance(self.vocab.canonical[word], Status)
                                               else Status.CLEAN, loose["type"].capitalize()))
            elif b.doc.lines[i] != text or b.doc.src.strip() != b.doc.src.rstrip("\n") or (
                    b.doc.src.endswith((" ", "\t"))):
                b.diag("SARP406", i, what="whitespace around the message",
                       expected=text)
            if others:
                b.summary = "\n".join(t for _, t in others)
                b.diag("SARP410", others[0][0])
            else:
                b.pointer = True
            return

    def _manifest(self, b: Builder, src: str) -> None:
        b.envelope_name = "manifest entry"
        first_line = src.split("\n", 1)[0].strip()
        text = first_line if first_line.endswith("}") else src
        span = find_object(text)
        if span is None:
            return
        value, fixes, truncated = decode_object(text[span[0] : span[1]])
        if fixes:
            b.diag("SARP404", 0, what=", ".join(fixes))
        if truncated:
            b.truncated("the manifest entry is never closed", b.doc.last_nonblank())
        if not isinstance(value, dict):
            return
        b.envelope = True
        b.closing_seen = not truncated
        entry: dict[str, Any] = {}
        for key, item in value.items():
            canonical: str = ALIASES.get(str(key), str(key))
            if canonical != key:
                b.diag("SARP408", 0, written=key, canonical=canonical)
                if canonical in value or canonical in entry:
                    entry.setdefault(f"{key}", item)
                    continue
            entry[canonical] = item
        missing = [k for k in REQUIRED_KEYS if k not in entry]
        if missing:
            b.diag("SARP407", 0, keys=", ".join(missing))
        status = entry.get("status")
        if isinstance(status, str):
            b.set_status(status, 0)
        b.summary = str(entry["title"]) if entry.get("title") is not None else None
        agent_type = entry.get("agent_type")
        b.result_type = str(agent_type) if agent_type else None
        b.agent = str(entry.get("agent", agent_type or "")) or b.agent
        followup = entry.get("needs_followup")
        if isinstance(followup, list):
            b.next_steps.extend(str(x) for x in followup)
        blockers = entry.get("blockers")
        if isinstance(blockers, list):
            b.blockers.extend(str(x) for x in blockers)
        b.fields.update(entry)
        b.recovered = True

    def render(self, result: Result) -> str:
        """A Result read from a return message is that message again; any other Result
        is the manifest entry the agent appends, which is where CLEO keeps a result's
        content (its return message only points there: `return_message`)."""
        if result.delivery is Delivery.POINTER or "return_type" in result.fields:
            kind = str(result.fields.get("return_type") or "Research")
            kind = kind[:1].upper() + kind[1:]  # `research partial.` drifted: the form has Research
            return return_message(result.status, kind) + "\n"
        if result.dialect == "cleo" and result.fields:  # a manifest entry: as written
            entry = dict(result.fields)
        else:
            entry = self._entry(result)
        return json.dumps(entry, ensure_ascii=False, separators=(", ", ": ")) + "\n"

    def _entry(self, result: Result) -> dict[str, Any]:
        """The manifest entry for a Result from another dialect. Its findings become key
        findings (text: CLEO has no severity or location slot). `id` and `file` derive
        from the title and `fields["date"]`; without a date (render is pure: `sarp
        convert` gives today's) the three are left out and a re-parse says so."""
        title = _title(result)
        entry: dict[str, Any] = {}
        date = str(result.fields.get("date") or "")
        if date:
            slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:48].strip("-") or "result"
            entry["id"] = result.fields.get("id") or f"{slug}-{date}"
            entry["file"] = result.fields.get("file") or f"{date}_{slug}.md"
        entry["title"] = title
        if date:
            entry["date"] = date
        entry["status"] = status_word(result, self.vocab, STATUS_FOR)
        places = [f.location.path for f in result.findings if f.location and f.location.path]
        entry["topics"] = list(dict.fromkeys(places))[:10]
        entry["key_findings"] = [_key_finding(f) for f in result.findings]
        entry["actionable"] = bool(result.findings)
        followup = list(result.next_steps)
        reason = stop_reason(result)
        if result.status in (Status.BLOCKED, Status.ERROR):
            followup.append(f"BLOCKED: {reason or NOT_GIVEN}")  # the schema's blocker form
        elif result.status is Status.PARTIAL and reason:
            followup.append(reason)  # the base protocol: a partial entry says why
        if followup:
            entry["needs_followup"] = followup
        if result.blockers:
            entry["blockers"] = list(result.blockers)
        if result.agent:
            entry["agent"] = result.agent
        return entry


def _title(result: Result) -> str:
    if result.summary and len(result.summary.strip()) >= 5:
        return inline(headline(None, result.summary, ""))[:_TITLE_MAX]
    who = " ".join(w.capitalize() for w in (result.agent or "agent").split("-") if w)
    return f"{who} {result.result_type or 'result'}"


def _key_finding(f: Finding) -> str:
    """`[major] title (path:line)`: a finding as the one line CLEO has for it."""
    place = f" ({location_text(f.location)})" if f.location else ""
    text = f"[{f.severity.value}] {inline(headline(f.title, f.description, f.id))}{place}"
    return text if len(text) <= _KEY_FINDING_MAX else text[: _KEY_FINDING_MAX - 3] + "..."


CLEO: Final = CleoDialect()
