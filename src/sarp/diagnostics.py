# The one registry of diagnostic codes (SPEC §3 "Diagnostic").
#
# Contract:
# - Every diagnostic sarp emits is declared here once: stable code, default severity,
#   and a message template that says what was wrong and what was done about it.
# - Codes are grouped by range: 0xx delivery, 1xx envelope and summary line,
#   2xx findings and tables, 3xx consistency between parts, 4xx dialect-specific
#   required parts, 5xx manifest, 6xx stack, 7xx flow, 8xx conversion.
# - `repair=False` marks a pure note: it does not stop a reply from being `conformant`.
#   Every other diagnostic (any warning or error, and info that records a repair)
#   makes a reply at best `repaired` (see `sarp.grade`).
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sarp.model import Diagnostic, DiagnosticSeverity, build

__all__ = ["CODES", "Code", "make"]

ERROR: Final = DiagnosticSeverity.ERROR
WARNING: Final = DiagnosticSeverity.WARNING
INFO: Final = DiagnosticSeverity.INFO


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: DiagnosticSeverity
    template: str
    hint: str | None = None
    repair: bool = True


_TABLE: Final[tuple[Code, ...]] = (
    # 0xx delivery
    Code("SARP001", ERROR, "the reply is empty; status set to ERROR",
         "Answer with the result block even when there is nothing to report."),
    Code("SARP002", WARNING, "the reply looks cut off ({evidence}); status set to PARTIAL"
         " and {kept} finding(s) kept",
         "Keep the reply short enough to finish; put the summary line first."),
    Code("SARP003", WARNING, "the reply only points elsewhere ({text!r}); nothing to parse",
         "Put the result itself in the final message, not a pointer to it."),
    Code("SARP004", INFO, "the whole reply is wrapped in a code fence; read without it",
         "Do not wrap the reply in a code fence."),
    Code("SARP005", INFO, "the {what} is inside a code fence on line {open}; read from there",
         "Write the result block as plain text, not inside a code fence."),
    Code("SARP006", ERROR, "line {line} of {source} is not a Result ({error}); kept as an"
         " unparseable result", "Write one Result object (sarp parse --format jsonl) per line."),
    Code("SARP007", ERROR, "{source} could not be read ({error}); kept as an unparseable result"),
    Code("SARP008", WARNING, "the reply is not plain UTF-8 ({what})",
         "Write the reply as UTF-8 text."),
    Code("SARP009", ERROR, "sarp could not read this reply as its dialect ({error}); it was"
         " read as plain text instead. Please report this as a sarp bug"),
    # 1xx envelope and summary line
    Code("SARP101", WARNING, "no {what} found; status set to {status} by the missing_summary"
         " policy", "Begin the reply with the summary line."),
    Code("SARP102", WARNING, "unknown status {word!r}; status set to {status}",
         "Use one of: {allowed}."),
    Code("SARP103", INFO, "status {word!r} read as {status}", "Write the status as {expected}."),
    Code("SARP104", INFO, "summary line is not the first line; {count} line(s) before it"
         " read as part of the reply", "Make the RESULT line the first line of the reply."),
    Code("SARP105", INFO, "summary line is the last line instead of the first",
         "Make the RESULT line the first line of the reply."),
    Code("SARP106", WARNING, "{count} summary lines found; using the one on line {used}",
         "Write exactly one RESULT line."),
    Code("SARP107", WARNING, "no metadata block ({keys})",
         "After the summary line write a block between --- lines with {keys}."),
    Code("SARP108", INFO, "metric {written!r} read as {canonical!r}",
         "Write the metric as `{canonical}: <value>`."),
    Code("SARP109", WARNING, "summary line has no {name} for type {result_type}",
         "Line 1 must carry {expected}."),
    Code("SARP110", INFO, "markdown emphasis around the {what} ignored",
         "Write the {what} as plain text."),
    Code("SARP111", WARNING, "summary line gives no Type; result type unknown",
         "Write `Type: <type>` as the second field of the RESULT line."),
    Code("SARP112", INFO, "result type {result_type!r} is not one this dialect defines"),
    Code("SARP113", WARNING, "summary-line field {text!r} is not a `Key: value` metric; kept"
         " under metrics.notes", "Keep prose out of the RESULT line."),
    Code("SARP114", INFO, "metadata key {written!r} read as {canonical!r}"),
    Code("SARP116", INFO, "the metadata block does not follow the summary line directly;"
         " read from here", "Put the --- metadata block right after the RESULT line."),
    Code("SARP115", WARNING, "metadata block is not closed with ---; read up to line {end}"),
    # 2xx findings and tables
    Code("SARP201", INFO, "severity {written!r} normalised to {canonical!r}",
         "Write severities as {allowed}."),
    Code("SARP202", INFO, "severity {written!r} mapped to {canonical!r} by the {scale} scale",
         "Write severities as {allowed}."),
    Code("SARP203", WARNING, "unknown severity {written!r} on finding {id}; using {canonical!r}",
         "Write severities as {allowed}."),
    Code("SARP204", INFO, "finding {id} gives no severity; using the default {canonical!r}",
         "Give every finding a severity: {allowed}."),
    Code("SARP215", INFO, "{id} gives no severity (the dialect has no place for one); using"
         " {canonical!r}", repair=False),
    Code("SARP205", WARNING, "row {id} has {count} of {total} cells; {missing} left empty",
         "Give every table row one cell per column."),
    Code("SARP206", WARNING, "row {id} has {count} cells for {total} columns; the extra text is"
         " kept in the last column", "Escape pipes inside cells as \\|."),
    Code("SARP207", WARNING, "finding {id} has no location",
         "Give every finding a location such as `path/to/file.py:42`."),
    Code("SARP208", WARNING, "finding table lacks the column(s) {column}",
         "Use the columns {columns}."),
    Code("SARP209", INFO, "finding written as {form}; read as a finding",
         "Write findings as {expected}."),
    Code("SARP210", INFO, "finding {title!r} is marked resolved; kept under fields.resolved,"
         " not counted as a finding"),
    Code("SARP211", WARNING, "finding id {id} is used more than once; the later one is {new}",
         "Give every finding its own id."),
    Code("SARP212", INFO, "details section {id} has no table row; kept as its own finding",
         "List every finding in the table, then expand it below."),
    Code("SARP213", INFO, "checklist status {written!r} read as {canonical!r}",
         "Write checklist statuses as applied, partial, missing or not-applicable."),
    Code("SARP214", WARNING, "unknown checklist status {written!r} on item {item!r}; read as"
         " {canonical!r}", "Write checklist statuses as applied, partial, missing or"
         " not-applicable."),
    Code("SARP216", INFO, "{what} is written after the {part}; read all the same",
         "Write every finding before the {part}."),
    # 3xx consistency between parts
    Code("SARP301", WARNING, "{where} says {name}: {declared} but {found} {what} found",
         "Make the counts match the findings you list."),
    Code("SARP302", WARNING, "status {status} contradicts the content: {why}",
         "Use the status that matches what you report."),
    Code("SARP303", WARNING, "TOTAL {total} is not PASSED + FAILED + SKIPPED = {sum}",
         "Make TOTAL the sum of PASSED, FAILED and SKIPPED."),
    Code("SARP304", WARNING, "reviewer STATUS {status} does not match CRITICAL_COUNT {count}",
         "Use STATUS: rejected exactly when CRITICAL_COUNT is above 0."),
    Code("SARP305", WARNING, "DOC_REVIEW_RESULT {value} is paired with STATUS {status}; read as"
         " a failure", "Pair DOC_REVIEW_RESULT: fail with STATUS: failure."),
    # 4xx dialect-specific required parts
    Code("SARP401", WARNING, "{dialect} reply has no {part}", "{hint}"),
    Code("SARP402", WARNING, "STATUS blocked without {field}",
         "A blocked result needs BLOCKED_REASON and BLOCKED_TARGET."),
    Code("SARP403", WARNING, "SKIPPED verdict without a Reason",
         "Follow `**Verdict**: SKIPPED` with `- **Reason**: <why>`."),
    Code("SARP404", INFO, "JSON repaired: {what}", "Answer with one valid JSON object."),
    Code("SARP405", WARNING, "JSON field {path}: {problem}", "{hint}"),
    Code("SARP406", INFO, "return message differs from the accepted form: {what}",
         "Return exactly `{expected}`."),
    Code("SARP407", WARNING, "manifest entry has no {keys}",
         "A manifest entry needs id, file, title, date, status, topics, key_findings and"
         " actionable."),
    Code("SARP408", INFO, "key {written!r} read as {canonical!r}"),
    Code("SARP409", WARNING, "{key} value {value!r} is not understood; {action}"),
    Code("SARP410", WARNING, "the reply returns content besides the return message; kept as"
         " summary", "Return only the one-line return message."),
    Code("SARP411", WARNING, "run {run}: the tool reports that its execution failed{why};"
         " status set to {status}"),
    Code("SARP412", INFO, "run {run}: {what} not read as findings (SARIF says they are not"
         " problems)", repair=False),
    Code("SARP413", ERROR, "sarp could not read this SARIF log ({error}); it is kept as"
         " unparseable. Please report this as a sarp bug"),
    Code("SARP414", INFO, "finding key {key!r} is not a finding field; its value is kept in"
         " the description", "Use the finding fields: id, severity, title, location,"
         " description, impact, suggestion."),
    # 5xx manifest
    Code("SARP501", ERROR, "manifest line skipped: {what}; the entries before and after it"
         " are kept", "Write one JSON object per line; `sarp manifest repair` moves bad lines"
         " aside."),
    Code("SARP502", ERROR, "manifest entry has no {key!r}",
         "A manifest entry needs id, file, title, date, status, topics, key_findings and"
         " actionable."),
    Code("SARP503", ERROR, "manifest entry {key!r} {problem}"),
    Code("SARP504", INFO, "manifest key {written!r} read as {canonical!r}",
         "Write {canonical!r}."),
    Code("SARP505", ERROR, "manifest id {id!r} is already used", "Give every entry its own id."),
    Code("SARP506", ERROR, "manifest file {file!r} {problem}",
         "Name a file inside the output directory, relative to it."),
    Code("SARP507", ERROR, "no return message found",
         "End with one line such as `Research complete. See MANIFEST.jsonl for summary.`"),
    # 6xx stack
    Code("SARP601", INFO, "over budget: {protocol} section {section!r} {action}"),
    Code("SARP602", WARNING, "over budget after compression ({tokens} > {budget} tokens):"
         " fell back to the minimal strategy", "Raise the budget or load fewer protocols."),
    Code("SARP603", ERROR, "the prompt needs {tokens} tokens even with the minimal strategy;"
         " the budget is {budget}", "Raise the budget, shorten the skill or the task"
         " description, or load fewer protocols."),
    Code("SARP604", ERROR, "placeholder {placeholder} has no value",
         "Give it a value (task field or --set {name}=...)."),
    Code("SARP605", ERROR, "protocol {path}: {problem}"),
    Code("SARP606", ERROR, "no protocol named {name!r}", "Known protocols: {known}."),
    Code("SARP608", WARNING, "protocol {name} is {tokens} tokens, over its own budget of"
         " {budget}", "Shorten the protocol or raise `budget` in its front matter."),
    Code("SARP607", WARNING, "the task text contains {placeholder}; it is quoted as given",
         "Fill it in the task, or write it without braces."),
    # 8xx conversion: what a Result rendered in another dialect does not carry, measured
    # by reading the rendering back (sarp.convert). Errors change what the reply says
    # about the work (status, findings, severities); warnings lose detail.
    Code("SARP801", ERROR, "{dialect} cannot carry the status {status}: the converted reply"
         " reads back as {back}", "json and aphelion keep every status."),
    Code("SARP802", WARNING, "the converted reply is not conformant {dialect}: {problem}"),
    Code("SARP803", ERROR, "{dialect} cannot carry {count} of the {total} finding(s) ({ids}):"
         " they do not read back as findings{note}"),
    Code("SARP804", ERROR, "{dialect} does not keep the severity of {count} finding(s):"
         " {changes}"),
    Code("SARP805", WARNING, "{dialect} does not keep the {part} of {count} finding(s)"
         " ({ids})"),
    Code("SARP806", WARNING, "{dialect} does not carry the result's {parts} (not read back"
         " from the converted reply)"),
    Code("SARP807", WARNING, "the converted {dialect} reply reads back with {count} finding(s)"
         " the result does not have ({ids})"),
)

CODES: Final[dict[str, Code]] = {entry.code: entry for entry in _TABLE}


class _Args(dict[str, object]):
    """Format arguments that leave an unknown placeholder visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def make(code: str, line: int | None, column: int | None = 1, /, **args: object) -> Diagnostic:
    """Build the diagnostic `code` at 1-based `line` and `column`, formatting its template.

    Raises KeyError for a code that is not in the registry (a programmer error).
    """
    entry = CODES[code]
    fmt = _Args(args)
    return build(Diagnostic,
        code=entry.code,
        severity=entry.severity,
        line=line,
        column=column,
        message=entry.template.format_map(fmt),
        hint=entry.hint.format_map(fmt) if entry.hint else None,
    )
