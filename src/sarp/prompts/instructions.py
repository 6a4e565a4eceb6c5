# Instructions to paste into a subagent's prompt, generated from the dialect specs.
#
# Contract:
# - `prompt(dialect, result_type=None, agent=None, style=...)` reads the same declared
#   spec the parser reads (clarity's TYPES and columns, ADR-013's severities and
#   bullets, Aphelion's per-agent keys, SDD's sections, CLEO's return message) and ends
#   with a filled example that is `render(example)`, so what we ask for is what we
#   accept (tests parse every example back: conformant, declared status and counts).
# - `compact` is short and example-led, with the exact first line spelled out and the
#   count rule said once; `full` adds the vocabularies and rubrics.
# - An unknown dialect or role raises ValueError naming the known ones.
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, Literal

from sarp.dialects.adr013 import FINDING_FIELDS
from sarp.dialects.adr013 import SEVERITIES as ADR_SEVERITIES
from sarp.dialects.aphelion import AGENTS, COUNTS, ITEM_LISTS
from sarp.dialects.clarity import (
    FINDING_COLUMNS,
    FINDING_TYPES,
    METADATA_KEYS,
    PLACEHOLDERS,
    TAIL_METRICS,
    TYPES,
)
from sarp.dialects.cleo import REQUIRED_KEYS, return_message
from sarp.dialects.sdd import ISSUE_COLUMNS, SECTIONS, STATUS_WORDS
from sarp.model import Status
from sarp.parsing import render
from sarp.prompts.examples import ROLES, example
from sarp.prompts.schema import lean_reply
from sarp.vocab import STATUS

__all__ = ["prompt", "resolve_role"]

Style = Literal["compact", "full"]
_PLACEHOLDER: Final = PLACEHOLDERS
_SDD_FAMILIES: Final = {"code-explorer": "exploration", "explore": "exploration",
                        "code-architect": "design", "system-architect": "design",
                        "qa-engineer": "review", "security-auditor": "review",
                        "frontend-specialist": "implementation",
                        "backend-specialist": "implementation"}
RUBRIC: Final = ("Severity: critical = blocks the pipeline or release, major = fix before"
                 " merge, minor = cosmetic or low impact.")


def resolve_role(dialect: str, result_type: str | None, agent: str | None) -> str:
    """The example role for a dialect: a result type, an agent, or the default one."""
    if dialect not in ROLES:
        raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(ROLES)}")
    roles = ROLES[dialect]
    wanted = result_type or agent
    if dialect == "sdd" and wanted in _SDD_FAMILIES:
        wanted = _SDD_FAMILIES[wanted]
    if wanted is None or dialect in ("json", "bowser"):
        return roles[0]
    if dialect == "adr013" and wanted not in roles:
        return wanted  # any reviewing agent may use the template
    if wanted not in roles:
        raise ValueError(f"{dialect} has no role {wanted!r}; known: {', '.join(roles)}")
    return wanted


def prompt(dialect: str, result_type: str | None = None, agent: str | None = None, *,
           style: Style = "compact") -> str:
    """The instruction block for a subagent prompt in `dialect`, ending with an example.

    Raises ValueError for an unknown dialect, role or style.
    """
    if style not in ("compact", "full"):
        raise ValueError(f"unknown style {style!r}; use compact or full")
    role = resolve_role(dialect, result_type, agent)
    ex = example(dialect, role if dialect != "adr013" or role in ROLES["adr013"]
                 else "code-reviewer")
    if dialect == "adr013":
        ex.agent = role
    body = _WRITERS[dialect](role, style == "full")
    # the json example is the lean reply the schema describes, not the full Result
    shown = json.dumps(lean_reply(ex), indent=2) if dialect == "json" else render(ex, dialect)
    return "\n".join([*body, "", "Example of a complete reply:", "", shown.rstrip(), ""])


def _status_words(dialect: str) -> str:
    vocab = STATUS[dialect]
    return "|".join(vocab.canonical)


def _clarity(role: str, full: bool) -> list[str]:
    metrics = " | ".join(f"{m}: {_PLACEHOLDER.get(m, '<N>')}" for m in TYPES[role])
    lines = [
        f"Format your reply in the Structured Agent Result Protocol, type {role}.",
        "Line 1 must be exactly (no bold, no code fence):",
        f"RESULT: <{_status_words('clarity')}> | Type: {role} | {metrics}",
    ]
    if role == "consistency":
        lines.append("Findings is the number of table rows, and Critical + Major + Minor ="
                     " Findings. Use CLEAN when the table is empty, FINDINGS otherwise.")
    elif role == "verification":
        lines.append("Items is the number of checklist rows; Applied + Partial + Missing"
                     " count their statuses. CLEAN if all are applied, FINDINGS if any is"
                     " partial or missing.")
    elif role == "implementation":
        lines.append("CLEAN if every criterion and test passes, FINDINGS if any fails.")
    else:
        lines.append("CLEAN when done, FINDINGS for problems in the material itself.")
    lines.append("PARTIAL or ERROR add " + " | ".join(
        f"{m}: {_PLACEHOLDER[m]}" for m in TAIL_METRICS) + " (and may drop the counts).")
    lines.append("Then a metadata block between --- lines: " + ", ".join(
        f"**{k}**" for k in METADATA_KEYS) + " (Protocol: v1; Confidence: high, medium or"
        " low).")
    if role in ("consistency",):
        lines.append("Then one table with the columns " + " | ".join(FINDING_COLUMNS) +
                     "; IDs F1, F2, ...; severity critical, major or minor; Location as"
                     " `path:line` or `doc.md § Section`; -- when there is no"
                     " counter-location.")
        lines.append("Below the table, expand each critical or major finding as"
                     " `### F1: <title> (<severity>)`.")
    elif role == "verification":
        lines.append("Then one table | Item | Status | Notes |; Status is applied, partial,"
                     " missing or not-applicable.")
    if full:
        lines.append("Finding types: " + ", ".join(FINDING_TYPES) + ".")
        lines.append(RUBRIC)
    return lines


def _bowser(role: str, full: bool) -> list[str]:
    lines = ["End your report with exactly this line (first or last line, not in a fence):",
             "RESULT: <PASS|FAIL> | Steps: <passed>/<total>",
             "Add a table | # | Step | Status | with Status PASS, FAIL or SKIPPED.",
             "FAIL when any step failed; steps after a failure are SKIPPED."]
    if full:
        lines.append("You may add | Assertions: <x>/<y> | Failed: \"<step>\" | Duration:"
                     " <s> after Steps.")
    return lines


def _adr013(role: str, full: bool) -> list[str]:
    title = " ".join(w.capitalize() for w in role.split("-")) + " Review"
    bullets = ", ".join(f"- **{label}**" for label, name in FINDING_FIELDS
                        if name in ("location", "description", "impact", "suggestion"))
    lines = [
        f"Format your review as Markdown starting with `# {title}`, then `## Files Reviewed`"
        " (a bullet per file) and `## Findings`.",
        "One heading per finding: `### <" + "|".join(ADR_SEVERITIES) + ">: <short title>`,"
        f" followed by the bullets {bullets} (Impact may be left out for SUGGESTION).",
        "Location is always `path/to/file.py:42` (ranges `:42-56`). Use only these three"
        " severities: no HIGH/LOW, scores or emoji.",
        "End with `## Summary`: `- **CRITICAL**: X`, `- **IMPORTANT**: Y`,"
        " `- **SUGGESTION**: Z` (the number of headings of each kind) and"
        " `- **Verdict**: ISSUES FOUND` (or APPROVED when there are no findings).",
    ]
    if full:
        lines.append("Nothing to review? `- **Verdict**: SKIPPED` followed by"
                     " `- **Reason**: <why>`.")
        lines.append(RUBRIC.replace("major", "IMPORTANT").replace("critical", "CRITICAL")
                     .replace("minor", "SUGGESTION"))
    return lines


def _aphelion(role: str, full: bool) -> list[str]:
    spec = AGENTS[role]
    lines = [
        f"End your reply with an AGENT_RESULT block, not in a code fence, one `KEY: value` a"
        f" line: first `AGENT_RESULT: {role}`, then `STATUS: <{'|'.join(spec.statuses)}>`,",
        f"then your keys, and last `NEXT: <{'|'.join(spec.next)}>`.",
    ]
    if spec.required:
        lines.append("Required keys: " + ", ".join(spec.required) + ".")
    lists = [k for k in spec.fields if k in ITEM_LISTS]
    counts = [k for k in spec.fields if k in COUNTS]
    if lists:
        lines.append("List each item on its own line under its key as `  - <ID>: <path:line>"
                     " - <what is wrong>`; lists: " + ", ".join(lists) + ".")
    if counts:
        lines.append("Each *_COUNT is the number of items you list under the matching key.")
    if role == "reviewer":
        lines.append("STATUS rejected exactly when CRITICAL_COUNT > 0; conditional when there"
                     " are only warnings.")
    if role == "tester":
        lines.append("TOTAL = PASSED + FAILED + SKIPPED; STATUS failure when FAILED > 0.")
    if role == "doc-reviewer":
        lines.append("DOC_REVIEW_RESULT: fail goes with STATUS: failure.")
    lines.append("When blocked: STATUS: blocked, BLOCKED_REASON and BLOCKED_TARGET, NEXT:"
                 " suspended.")
    if full:
        optional = [k for k in spec.fields if k not in ITEM_LISTS and k not in COUNTS]
        if optional:
            lines.append("Other keys you may write: " + ", ".join(optional) + ".")
    return lines


def _sdd(role: str, full: bool) -> list[str]:
    lines = [
        "Format your reply as `## <Agent Name> Result` followed by these `###` sections,"
        " in order: " + ", ".join(SECTIONS) + ".",
        f"`### Status` holds one word on the next line: {' | '.join(STATUS_WORDS)}.",
        "`### Confidence`: `<0-100> - <justification>`.",
    ]
    if role == "review":
        lines.append("Under `### Findings`, `#### Issues Detected` is a table | " +
                     " | ".join(ISSUE_COLUMNS) + " | with severity Critical, Important or"
                     " Minor; expand each issue below as `**<ID>: <title>**` with `**Risk**:`"
                     " and `**Fix**:` lines.")
    if role == "error":
        lines.append("On failure: `### Status` FAILED and an `### Error Details` table"
                     " | Aspect | Value | with Type, Message, Occurred At, Recoverable.")
    lines.append("Issues outside a table: `- <name>: <description> | Severity:"
                 " critical|important|minor` under `### Issues`.")
    if full:
        lines.append("Key References is a table | Item | Location | Relevance | with"
                     " `file:line` locations. Summaries stay under ~500 tokens.")
    return lines


def _cleo(role: str, full: bool) -> list[str]:
    kind = role.capitalize()
    lines = [
        "Write your full output to {{OUTPUT_DIR}}/{{DATE}}_<topic-slug>.md and append ONE"
        " line to MANIFEST.jsonl with the keys " + ", ".join(REQUIRED_KEYS) + ".",
        "Then return ONLY this message, nothing else:",
        return_message(Status.CLEAN, kind),
        f"(`{return_message(Status.PARTIAL, kind)}` when partial, with the reason in"
        f" needs_followup; `{return_message(Status.BLOCKED, kind)}` when blocked.)",
    ]
    if full:
        lines.append("Manifest status is complete, partial or blocked; key_findings holds 3"
                     " to 7 one-sentence findings; actionable is true or false.")
    return lines


def _json(role: str, full: bool) -> list[str]:
    lines = [
        "Reply with one JSON object and nothing else (no code fence, no prose):",
        '{"status": "CLEAN|FINDINGS|PARTIAL|BLOCKED|ERROR", "summary": "...",'
        ' "findings": [{"id": "F1", "severity": "critical|major|minor", "location":'
        ' "path/to/file.py:42", "description": "...", "suggestion": "..."}]}',
        "status is FINDINGS when findings is not empty, CLEAN when it is.",
    ]
    if full:
        lines.append("Optional keys: title, type, impact and confidence (0-100) per finding;"
                     " agent, confidence, next_steps and blockers at the top. The JSON Schema"
                     " is `sarp.schema(\"json\")`.")
        lines.append(RUBRIC)
    return lines


_WRITERS: Final[dict[str, Callable[[str, bool], list[str]]]] = {
    "clarity": _clarity, "bowser": _bowser, "adr013": _adr013, "aphelion": _aphelion,
    "sdd": _sdd, "cleo": _cleo, "json": _json,
}
