# `sarp.convert`: a Result written in another dialect, and what that writing loses.
#
# Contract:
# - `convert(result, to)` renders `result` in dialect `to`, reads the text back with
#   `parse` (dialect detection included, as any consumer would read it) and compares:
#   status, every finding (matched by id, else by place and title), each finding's
#   severity, id, title, location and other fields, and the result's own parts (summary,
#   reason, blockers, references, ...). What a dialect can carry is measured, not
#   declared, so the report cannot drift from what the renderers write.
# - Every difference is one SARP8xx diagnostic (findings aggregated per part, ids
#   listed): errors where the text says something else about the work (status, a finding
#   lost, a severity changed), warnings where detail is lost or the text is not
#   conformant in its dialect. Dialect-specific metrics, metadata and fields are not
#   compared: they belong to the source dialect.
# - The `text` dialect has no protocol to conform to, so its conformance is not reported.
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from sarp import diagnostics
from sarp.dialects.rendering import stop_reason
from sarp.model import (
    Conformance,
    Diagnostic,
    DiagnosticSeverity,
    Finding,
    Location,
    Result,
    Status,
)
from sarp.parsing import parse, render
from sarp.text.write import headline

__all__ = ["Conversion", "convert"]

_IDS_SHOWN: Final = 8  # ids listed in one diagnostic before "and N more"


@dataclass(frozen=True)
class Conversion:
    """`text`: the Result in the target dialect; `read_back`: what `parse` reads from it;
    `losses`: SARP8xx diagnostics, one per kind of thing the text does not carry."""

    text: str
    read_back: Result
    losses: list[Diagnostic]

    @property
    def keeps_meaning(self) -> bool:
        """Whether the text says the same about the work: status, findings, severities."""
        return not any(d.severity is DiagnosticSeverity.ERROR for d in self.losses)


def convert(result: Result, to: str) -> Conversion:
    """Render `result` in dialect `to` and report what the rendering does not carry.

    Raises KeyError for an unknown dialect name, as `render` does."""
    text = render(result, to)
    back = parse(text)
    losses: list[Diagnostic] = []
    if back.status is not result.status:
        losses.append(diagnostics.make("SARP801", None, dialect=to, status=result.status.value,
                                       back=back.status.value))
    if to != "text":
        losses.extend(_nonconformance(back, to))
    pairs, extra = _match(result.findings, back.findings)
    losses.extend(_finding_losses(result.findings, pairs, text, to))
    if extra:
        losses.append(diagnostics.make("SARP807", extra[0].line, dialect=to, count=len(extra),
                                       ids=_listed(f.id for f in extra)))
    parts = [name for name, read in _RESULT_PARTS if read(result) and not read(back)]
    if parts:
        losses.append(diagnostics.make("SARP806", None, dialect=to, parts=", ".join(parts)))
    return Conversion(text, back, losses)


def _nonconformance(back: Result, to: str) -> list[Diagnostic]:
    """The re-parse's own diagnostics that keep the text from being conformant `to`."""
    out: list[Diagnostic] = []
    if back.dialect != to:
        out.append(diagnostics.make("SARP802", None, dialect=to,
                                    problem=f"it is read as {back.dialect}"))
    if back.conformance is Conformance.CONFORMANT:
        return out
    seen: set[str] = set()
    for diag in back.diagnostics:
        if diagnostics.CODES[diag.code].repair and diag.message not in seen:
            seen.add(diag.message)
            out.append(diagnostics.make("SARP802", None, dialect=to,
                                        problem=f"{diag.message} ({diag.code})"))
    return out


def _match(originals: list[Finding], read: list[Finding]
           ) -> tuple[list[tuple[Finding, Finding | None]], list[Finding]]:
    """Each original finding with the finding it reads back as (None when lost), and the
    findings read back that match none. Tried in order: the same id, the same place and
    title, the same place, the same title (dialects that renumber, or group findings by
    severity, keep the rest)."""
    left = list(read)
    keys: list[Callable[[Finding], object]] = [
        lambda f: f.id, lambda f: (_place(f.location), _title(f)),
        lambda f: _place(f.location), _title]
    found: dict[int, Finding] = {}
    for key in keys:
        for n, original in enumerate(originals):
            want = key(original)
            if n in found or want in (None, "", (None, "")):
                continue
            twin = next((f for f in left if key(f) == want), None)
            if twin is not None:
                found[n] = twin
                left.remove(twin)
    return [(f, found.get(n)) for n, f in enumerate(originals)], left


def _finding_losses(originals: list[Finding], pairs: list[tuple[Finding, Finding | None]],
                    text: str, to: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    lost = [f for f, twin in pairs if twin is None]
    if lost:
        said = all(_title(f) and _title(f) in " ".join(text.split()) for f in lost)
        note = "; their text is kept in the converted reply" if said else ""
        out.append(diagnostics.make("SARP803", lost[0].line, dialect=to, count=len(lost),
                                    total=len(originals), ids=_listed(f.id for f in lost),
                                    note=note))
    kept = [(f, twin) for f, twin in pairs if twin is not None]
    changed = [(f, twin) for f, twin in kept if twin.severity is not f.severity]
    if changed:
        out.append(diagnostics.make(
            "SARP804", changed[0][0].line, dialect=to, count=len(changed),
            changes=_listed(f"{f.id} {f.severity.value} -> {twin.severity.value}"
                            for f, twin in changed)))
    for part, differs in _FINDING_PARTS:
        missing = [f for f, twin in kept if differs(f, twin)]
        if missing:
            out.append(diagnostics.make("SARP805", missing[0].line, dialect=to, part=part,
                                        count=len(missing), ids=_listed(f.id for f in missing)))
    return out


def _place(location: Location | None) -> tuple[object, ...] | None:
    if location is None:
        return None
    return (location.path, location.line, location.end_line, location.section,
            location.symbol)


def _title(f: Finding) -> str:
    """What a finding is called, as every renderer writes it (whitespace folded)."""
    return headline(f.title, f.description, "")


def _given(value: object) -> bool:
    return value not in (None, "", [], {})


def _dropped(name: str) -> Callable[[Finding, Finding], bool]:
    return lambda f, twin: _given(getattr(f, name)) and not _given(getattr(twin, name))


_FINDING_PARTS: Final[tuple[tuple[str, Callable[[Finding, Finding], bool]], ...]] = (
    ("id", lambda f, twin: f.id != twin.id),
    ("title", lambda f, twin: _given(f.title) and _title(f) != _title(twin)),
    ("location", lambda f, twin: f.location is not None and
     _place(f.location) != _place(twin.location)),
    ("counter-location", lambda f, twin: f.counter_location is not None and
     _place(f.counter_location) != _place(twin.counter_location)),
    ("type", lambda f, twin: _given(f.type) and f.type != twin.type),
    ("description", _dropped("description")),
    ("impact", _dropped("impact")),
    ("suggestion", _dropped("suggestion")),
    ("confidence", _dropped("confidence")),
    ("agent", _dropped("agent")),
)


def _reason(result: Result) -> str | None:
    unfinished = result.status not in (Status.CLEAN, Status.FINDINGS)
    return stop_reason(result) if unfinished else None


_RESULT_PARTS: Final[tuple[tuple[str, Callable[[Result], object]], ...]] = (
    ("agent", lambda r: r.agent),
    ("summary", lambda r: r.summary),
    ("reason", _reason),
    ("blockers", lambda r: r.blockers),
    ("next steps", lambda r: r.next_steps),
    ("references", lambda r: r.references),
    ("checklist", lambda r: r.checklist),
    ("confidence", lambda r: r.confidence),
    ("next agent", lambda r: r.next),
    ("blocked target", lambda r: r.blocked_target),
    ("current task", lambda r: r.current_task),
)


def _listed(items: Iterable[str]) -> str:
    shown = list(items)
    more = len(shown) - _IDS_SHOWN
    text = ", ".join(shown[:_IDS_SHOWN])
    return f"{text} and {more} more" if more > 0 else text
