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
from __future__ import annotations

from typing import Final

from sarp import diagnostics
from sarp.dialects.clarity import METADATA_KEYS, PLACEHOLDERS
from sarp.model import Delivery, Diagnostic, DiagnosticSeverity, Result
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
        where = f"line {diag.line}" if diag.line is not None else "the reply"
        entry = f"- {where}: {diag.message}."
        if diag.hint:
            entry += f" {diag.hint}"
        exact = _exact_line(result, diag, fixed)
        if exact and exact not in shown:
            shown.add(exact)
            entry += "\n  Write instead:" + (exact if exact.startswith("\n") else f" {exact}")
        lines.append(entry)
    if len(found) > max_items:
        lines.append(f"- and {len(found) - max_items} more of the same kind.")
    return "\n".join(lines)


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
