# The targeted re-ask: a short correction message naming only what was wrong.
#
# Contract:
# - `reask(result)` returns None when the reply needs no correction (conformant, or
#   repaired with nothing but notes that are not repairs), else a message that lists
#   every diagnostic that is a defect (warnings, errors and info-level repairs), each
#   with its line and hint, in line order, at most `max_items` of them.
# - Where the fix is a line sarp can compute from what the agent did report (the
#   summary line, a count, the NEXT line), the message gives that exact line: it is the
#   matching line of `render(result)`, so the correction is what the parser accepts.
# - Each line speaks to the agent: what it got wrong, without what sarp did about it (a
#   registry template says that after its first `; `: "status set to PARTIAL by the
#   missing_summary policy" is for the humans who read diagnostics), and a hint that
#   follows the reply's own dialect: where its envelope goes (ADR-013's `## Summary`
#   comes last, Clarity's RESULT line first) is said as `sarp.prompt` asks for it.
from __future__ import annotations

import re
from string import Formatter
from typing import Final

from sarp import diagnostics
from sarp.dialects.adr013 import SEVERITIES as ADR_SEVERITIES
from sarp.dialects.clarity import METADATA_KEYS, PLACEHOLDERS
from sarp.dialects.cleo import return_message
from sarp.dialects.sdd import STATUS_WORDS as SDD_STATUS_WORDS
from sarp.model import Delivery, Diagnostic, DiagnosticSeverity, Result, Status
from sarp.parsing import render
from sarp.vocab import STATUS

__all__ = ["defects", "reask"]

_FORMAT_NAMES: Final = {
    "clarity": "the Structured Agent Result Protocol (RESULT line, metadata block, tables)",
    "bowser": "the RESULT: PASS|FAIL | Steps: x/y format",
    "adr013": "the review template (### SEVERITY: title headings, ## Summary with counts and"
              " Verdict)",
    "aphelion": "the AGENT_RESULT block",
    "sdd": "the subagent result contract (## Agent Result, ### Status, ...)",
    "cleo": "the CLEO return message",
    "json": "the JSON reply object",
    "text": "the requested result format",
}
# Where each dialect's envelope goes, in the words of its `sarp.prompt` instruction (the
# hint to a reply that has none, SARP101).
_ENVELOPE_PLACE: Final = {
    "clarity": "Begin the reply with the RESULT line.",
    "bowser": "End the report with the line `RESULT: <PASS|FAIL> | Steps: <passed>/<total>`.",
    "adr013": "End the reply with `## Summary`: " + ", ".join(
        f"`- **{word}**: <count>`" for word in ADR_SEVERITIES) +
        " and `- **Verdict**: ISSUES FOUND` (or APPROVED when there are no findings).",
    "aphelion": "End the reply with the AGENT_RESULT block, not in a code fence: first"
                " `AGENT_RESULT: <your role>`, then `STATUS: <status>`, your keys, and last"
                " `NEXT: <next agent>`.",
    "sdd": "Begin the reply with `## <Agent Name> Result`, then `### Status` with one word"
           f" on the next line: {' | '.join(SDD_STATUS_WORDS)}.",
    "cleo": f"Return only the one-line message, such as `{return_message(Status.CLEAN)}`,"
            " and nothing else.",
    "json": "Answer with one JSON object and nothing else (no code fence, no prose).",
    "text": "Answer in the result format you were asked for.",
}
# How a reply that was cut off (SARP002) gets to its end in each dialect.
_FINISH: Final = {
    "clarity": "Keep the reply short enough to finish; the RESULT line comes first.",
    "bowser": "Keep the report short enough to reach its RESULT line.",
    "adr013": "Keep the reply short enough to reach its `## Summary`.",
    "aphelion": "Keep the reply short enough to reach the end of its AGENT_RESULT block.",
    "sdd": "Keep the reply short enough to reach its last section.",
    "cleo": "Return the one-line message only; the full output goes to its file.",
    "json": "Keep the reply short enough to close the JSON object.",
    "text": "Keep the reply short enough to finish.",
}
# Codes whose registry hint is Clarity's rule: the reply's own dialect gives it instead
# (Bowser's RESULT line may be the first or the last line of the report).
_DIALECT_HINTS: Final = {
    "SARP101": _ENVELOPE_PLACE,
    "SARP002": _FINISH,
    "SARP104": {"bowser": "Make the RESULT line the first or the last line of the report."},
    "SARP109": {"bowser": "Write the RESULT line as"
                          " `RESULT: <PASS|FAIL> | Steps: <passed>/<total>`."},
}
# Codes about the reply as a whole: a line number would point at nothing in particular.
_WHOLE_REPLY: Final = frozenset({"SARP001", "SARP003", "SARP101"})

# Diagnostic codes whose fix is the reply's summary line (clarity, bowser) or a line of
# the rendered reply that names the same key as the diagnostic.
_SUMMARY_CODES: Final = frozenset({"SARP101", "SARP102", "SARP103", "SARP104", "SARP105",
                                   "SARP106", "SARP108", "SARP109", "SARP110", "SARP111",
                                   "SARP113", "SARP301", "SARP302"})


def defects(result: Result) -> list[Diagnostic]:
    """The diagnostics that ask something of the agent: every warning and error, and the
    info diagnostics that record a repair."""
    return [d for d in result.diagnostics
            if d.severity is not DiagnosticSeverity.INFO or diagnostics.CODES[d.code].repair]


def reask(result: Result, *, max_items: int = 8) -> str | None:
    """A correction message for the agent that wrote `result`, or None if none is needed."""
    found = defects(result)
    if not found:
        return None
    dialect = result.dialect
    lines = [f"Your reply does not follow {_FORMAT_NAMES.get(dialect, dialect)}."
             " Fix these and send the whole reply again:"]
    if result.delivery is Delivery.TRUNCATED:
        lines[0] = ("Your reply was cut off before its end. Send it again, complete and"
                    " shorter if need be. Also fix:")
    fixed = _fixed_lines(result)
    shown: set[str] = set()
    for diag in found[:max_items]:
        where = "" if diag.code in _WHOLE_REPLY or diag.line is None else f"line {diag.line}: "
        entry = f"- {where}{_problem(result, diag)}."
        hint = _hint(result, diag)
        if hint:
            entry += f" {hint}"
        exact = _exact_line(result, diag, fixed)
        if exact and exact not in shown:
            shown.add(exact)
            entry += "\n  Write instead:" + (exact if exact.startswith("\n") else f" {exact}")
        lines.append(entry)
    if len(found) > max_items:
        lines.append(f"- and {len(found) - max_items} more of the same kind.")
    return "\n".join(lines)


def _problem_pattern(template: str) -> re.Pattern[str] | None:
    """A pattern that reads a message made from `template`: its `problem` group is what
    the template says was wrong, before the `; ` that says what sarp did about it. None
    when the template says nothing about what sarp did."""
    pattern, split = "(?P<problem>", False
    for literal, field, _spec, _conversion in Formatter().parse(template):
        if not split and "; " in literal:
            before, _, after = literal.partition("; ")
            pattern += re.escape(before) + ")" + re.escape("; " + after)
            split = True
        else:
            pattern += re.escape(literal)
        if field is not None:
            pattern += ".*?"  # a value may hold `; ` too: the template's text decides
    return re.compile(pattern, re.DOTALL) if split else None


_PROBLEMS: Final = {code: pattern for code, entry in diagnostics.CODES.items()
                    if (pattern := _problem_pattern(entry.template)) is not None}


def _problem(result: Result, diag: Diagnostic) -> str:
    """What the agent got wrong, in words for the agent."""
    pattern = _PROBLEMS.get(diag.code)
    found = pattern.fullmatch(diag.message) if pattern is not None else None
    problem = found["problem"] if found is not None else diag.message
    if diag.code == "SARP401":  # `adr013 reply has no ...`: the agent knows no dialect names
        problem = problem.replace(f"{result.dialect} reply ", "the reply ", 1)
    return problem


def _hint(result: Result, diag: Diagnostic) -> str | None:
    """How to write it, as the reply's own dialect has it."""
    return _DIALECT_HINTS.get(diag.code, {}).get(result.dialect, diag.hint)


def _fixed_lines(result: Result) -> list[str]:
    if result.dialect in ("text",):
        return []
    try:
        return [line for line in render(result).splitlines() if line.strip()]
    except (KeyError, ValueError):
        return []


def _exact_line(result: Result, diag: Diagnostic, fixed: list[str]) -> str | None:
    """The line (or block) to write instead, taken from the rendered reply."""
    if not fixed:
        return None
    if result.dialect in ("clarity", "bowser") and diag.code in _SUMMARY_CODES:
        return _summary_line(result, fixed[0])
    if diag.code == "SARP107":  # the whole metadata block, what is known filled in
        known = {k.lower(): v for k, v in result.metadata.items()}
        known.setdefault("protocol", "v1")
        return _block(["---", *(f"**{key}**: {known.get(key.lower(), f'<{key.lower()}>')}"
                                for key in METADATA_KEYS), "---"])
    if diag.code == "SARP401":  # a missing section: the section as it should read
        for n, line in enumerate(fixed):
            if line.startswith("#") and line.lstrip("# ") in diag.message:
                level = len(line) - len(line.lstrip("#"))
                end = next((k for k in range(n + 1, len(fixed)) if fixed[k].startswith("#")
                            and len(fixed[k]) - len(fixed[k].lstrip("#")) <= level),
                           len(fixed))
                return _block(fixed[n:end])
    if diag.code[4] in "34":  # a count or a required key: its line, named `KEY:`
        for line in fixed:
            if line.startswith("#"):
                continue  # a heading is not a `KEY: value` line
            key = line.split(":", 1)[0].strip("-* #").strip()
            if len(key) > 2 and ":" in line and (f"{key}:" in diag.message
                                                 or f"{key} line" in diag.message):
                return line.strip()
    return None


def _summary_line(result: Result, rendered: str) -> str:
    """The rendered summary line with only what the reply supports filled in: a status
    the parser had to guess, and metrics the reply never gave, become placeholders."""
    codes = {d.code for d in result.diagnostics}
    vocab = " | ".join(STATUS[result.dialect].canonical).replace(" | ", "|")
    parts = rendered.split(" | ")
    head = parts[0]
    if "SARP102" in codes or ("SARP101" in codes and not result.native_status):
        head = f"RESULT: <{vocab}>"
    elif "SARP302" in codes:  # the word contradicted the content: the content decides
        words = ("FINDINGS", "CLEAN") if result.dialect == "clarity" else ("FAIL", "PASS")
        head = f"RESULT: {words[0] if result.findings else words[1]}"
    derived = {"Findings", "Critical", "Major", "Minor", "Items", "Applied", "Partial",
               "Missing", "Type"}
    out = [head]
    for part in parts[1:]:
        key, _, _value = part.partition(": ")
        if key not in result.metrics and key not in derived:
            part = f"{key}: {PLACEHOLDERS.get(key, '<N>')}"
        out.append(part)
    return " | ".join(out)


def _block(lines: list[str]) -> str:
    return "\n" + "\n".join(f"    {line}" for line in lines)
