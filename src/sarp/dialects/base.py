# What every dialect shares: the Dialect protocol, the parse policy, and the Builder that
# turns a dialect's loose reading of a reply into a checked Result.
#
# Strategy (packaging's "raw form, then strict validation"):
# - A dialect's parser scans the Document and records what it read in the Builder as
#   loose data: `RawFinding`s holding strings exactly as written, the status word,
#   metrics, fields, and evidence of truncation. It never builds model objects itself.
# - `Builder.finish()` is the one place that validates: it reads every severity word of
#   the reply together (the scale is a property of the reply), parses locations, makes
#   ids unique, merges details sections into their findings, decides the canonical
#   status, delivery and conformance, and emits the diagnostics. So every dialect gets
#   the same rules, and none re-implements them.
# - Diagnostics are positioned by 0-based line index inside the scanners and reported
#   1-based.
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from sarp import diagnostics
from sarp.model import (
    ChecklistItem,
    Conformance,
    Delivery,
    Diagnostic,
    DiagnosticSeverity,
    Finding,
    Reference,
    Result,
    Severity,
    Status,
    build,
)
from sarp.text.lines import Document
from sarp.text.locations import parse_location, place_of
from sarp.vocab import BY_CONTENT, CONFIDENCE_WORDS, SeverityReader, StatusValue, StatusVocab

__all__ = ["Builder", "Dialect", "Matcher", "Policy", "RawFinding"]


@dataclass(frozen=True)
class Policy:
    """How to read replies that leave something out.

    missing_summary: status of a reply with no envelope at all: `partial` (Clarity's
        graceful-degradation rule, the default) or `error` (the fan-out templates' rule).
    agent: the reporting agent's name when the reply does not say (selects its severity
        scale, seed 001).
    """

    missing_summary: Literal["partial", "error"] = "partial"
    agent: str | None = None


class Dialect(Protocol):
    """A result dialect: detect it, parse it, render it, all from one declared spec."""

    @property
    def name(self) -> str: ...

    @property
    def vocab(self) -> StatusVocab | None:
        """Status words; None when the dialect has no status of its own."""
        ...

    @property
    def severities(self) -> Mapping[str, Severity]:
        """The dialect's own severity words, exact spelling -> canonical."""
        ...

    @property
    def case_sensitive(self) -> bool:
        """Whether `Major` for `major` is a repair."""
        ...

    def detect(self, doc: Document) -> int:
        """0 when the text shows nothing of this dialect; higher is stronger evidence."""
        ...

    def parse(self, builder: Builder) -> None:
        """Read `builder.doc` into `builder`; never raises on any text."""
        ...

    def render(self, result: Result) -> str:
        """The reply a conformant agent would have written for `result`."""
        ...


@dataclass
class RawFinding:
    """A finding as written, before any normalisation."""

    line: int  # 0-based line where it starts
    id: str | None = None
    severity: str | None = None  # word as written; None when the reply gives none
    default: Severity = Severity.MINOR  # used when severity is None
    type: str | None = None
    title: str | None = None
    location: str | None = None
    counter_location: str | None = None
    description: str | None = None
    impact: str | None = None
    suggestion: str | None = None
    confidence: float | None = None
    agent: str | None = None
    severity_line: int | None = None  # where the severity word is, when not `line`
    # False for failed tests, steps and checks: the dialect gives them no severity slot,
    # so the default is the rule, not a repair.
    severity_expected: bool = True
    # The severity word comes from the dialect's structure (an Aphelion CRITICAL_ITEMS
    # key), not from the agent's own scale: it does not take part in choosing the scale.
    structural: bool = False

    def fill(self, other: RawFinding) -> None:
        """Take from `other` (a details section of the same finding) what this lacks."""
        for name in ("severity", "type", "title", "location", "counter_location",
                     "impact", "suggestion", "confidence", "agent"):
            if getattr(self, name) in (None, "") and getattr(other, name) not in (None, ""):
                setattr(self, name, getattr(other, name))
        mine, theirs = self.description, other.description
        if theirs and (not mine or mine in theirs):
            self.description = theirs
        elif theirs and mine and theirs not in mine:  # both say something: keep both
            self.description = f"{mine}\n\n{theirs}"


_SEVERITY_ALLOWED: Final = "critical, major, minor"


class Builder:
    """Collects one reply's reading, then validates it into a Result (see header)."""

    def __init__(self, doc: Document, dialect: str, policy: Policy, vocab: StatusVocab | None,
                 severity_words: Mapping[str, Severity], *, case_sensitive: bool = True,
                 requires_location: bool = False) -> None:
        self.doc = doc
        self.dialect = dialect
        self.policy = policy
        self.vocab = vocab
        self.severity_words = severity_words
        self.case_sensitive = case_sensitive
        self.requires_location = requires_location
        self.diagnostics: list[Diagnostic] = []
        self.findings: list[RawFinding] = []
        self.scale_words: list[str] = []  # every severity word the agent wrote
        self.details: list[tuple[str, RawFinding]] = []  # (id, details) to merge
        self.envelope = False  # the dialect's envelope was found
        self.envelope_line = 0
        self.envelope_name = "envelope"
        self.status_word: str | None = None
        self.status_line = 0
        self.status_override: StatusValue | None = None
        self.truncation: list[tuple[str, int]] = []
        self.pointer = False
        self.result_type: str | None = None
        self.agent: str | None = policy.agent
        self.metrics: dict[str, Any] = {}
        self.metadata: dict[str, Any] = {}
        self.confidence: float | None = None
        self.summary: str | None = None
        self.checklist: list[ChecklistItem] = []
        self.references: list[Reference] = []
        self.next_steps: list[str] = []
        self.blockers: list[str] = []
        self.next: str | None = None
        self.blocked_reason: str | None = None
        self.blocked_target: str | None = None
        self.current_task: str | None = None
        self.fields: dict[str, Any] = {}
        self.counts: list[tuple[str, str, int, Callable[[list[Finding]], int], str, int]] = []
        self.recovered = False  # something structured was read even without an envelope
        # Whether the dialect's closing part (Summary, NEXT, ...) was seen; None when the
        # dialect has none, and then a count shortfall at the very end means truncation.
        self.closing_seen: bool | None = None

    # -- recording ---------------------------------------------------------------
    def diag(self, code: str, line: int | None, column: int = 1, /, **args: object) -> None:
        """Record diagnostic `code` at 0-based `line` (None: the reply as a whole)."""
        self.diagnostics.append(
            diagnostics.make(code, None if line is None else line + 1, column, **args)
        )

    def add(self, finding: RawFinding) -> RawFinding:
        self.findings.append(finding)
        self._note_scale_word(finding)
        return finding

    def _note_scale_word(self, finding: RawFinding) -> None:
        if finding.severity and not finding.structural:
            self.scale_words.append(finding.severity)

    def add_or_fill(self, finding: RawFinding, among: Matcher) -> RawFinding:
        """Add `finding` unless `among` holds one with its id or place; fill that instead."""
        target = among.find(finding)
        if target is None:
            return self.add(finding)
        self._note_scale_word(finding)  # its word still tells the reply's scale
        target.fill(finding)
        return target

    def attach(self, finding_id: str, details: RawFinding) -> None:
        """A details section for `finding_id`; merged into its finding at the end."""
        self.details.append((finding_id, details))

    def truncated(self, evidence: str, line: int) -> None:
        self.truncation.append((evidence, line))

    def expect_count(self, where: str, name: str, declared: int,
                     count: Callable[[list[Finding]], int], what: str, line: int) -> None:
        """Check at the end that `declared` matches `count(findings)`."""
        self.counts.append((where, name, declared, count, what, line))

    def set_status(self, word: str, line: int) -> None:
        self.status_word = word
        self.status_line = line

    def confidence_from(self, value: str) -> float | None:
        """0-100 from `92`, `92 - reason`, `0.92`, `high`, `85%`."""
        text = value.strip().strip("*`").lower()
        word = text.split(" - ")[0].split(" — ")[0].strip().rstrip("%").strip()
        if word in CONFIDENCE_WORDS:
            return CONFIDENCE_WORDS[word]
        head = word.split()[0] if word.split() else ""
        head = head.rstrip("%/,;:").split("/")[0]
        try:
            number = float(head)
        except ValueError:
            for name, score in CONFIDENCE_WORDS.items():
                if text.startswith(name):
                    return score
            return None
        if 0 < number <= 1 and "." in head:
            number *= 100
        return number if 0 <= number <= 100 else None

    # -- validation ----------------------------------------------------------------
    def finish(self, raw: str) -> Result:
        findings = self._build_findings()
        self._check_counts(findings)
        status = self._decide_status(findings)
        delivery = Delivery.COMPLETE
        if self.pointer:
            delivery = Delivery.POINTER
        if self.truncation and delivery is Delivery.COMPLETE:
            delivery = Delivery.TRUNCATED
            evidence, line = self.truncation[0]
            self.diag("SARP002", line, evidence=evidence, kept=len(findings))
            if status is not Status.ERROR:
                status = Status.PARTIAL
        conformance = self._grade(findings)
        return build(Result,
            id=None, dialect=self.dialect, status=status, native_status=self.status_word,
            conformance=conformance, delivery=delivery, result_type=self.result_type,
            agent=self.agent, metrics=self.metrics, metadata=self.metadata,
            confidence=self.confidence, summary=self.summary, findings=findings,
            checklist=self.checklist, references=self.references, next_steps=self.next_steps,
            blockers=self.blockers, next=self.next, blocked_reason=self.blocked_reason,
            blocked_target=self.blocked_target, current_task=self.current_task,
            fields=self.fields, diagnostics=sorted(self.diagnostics, key=_diag_key), raw=raw,
        )

    def _grade(self, findings: list[Finding]) -> Conformance:
        if not self.envelope:
            if findings or self.recovered:
                return Conformance.SALVAGED
            return Conformance.UNPARSEABLE
        for diag in self.diagnostics:
            if diag.severity is not DiagnosticSeverity.INFO or diagnostics.CODES[diag.code].repair:
                return Conformance.REPAIRED
        return Conformance.CONFORMANT

    def _decide_status(self, findings: list[Finding]) -> Status:
        has_content = bool(findings)
        value: StatusValue | None = self.status_override
        if value is None and self.status_word is not None and self.vocab is not None:
            value, kind = self.vocab.read(self.status_word)
            if value is None:
                fallback = Status.FINDINGS if has_content else self.missing_status()
                self.diag("SARP102", self.status_line, word=self.status_word, status=fallback,
                          allowed=self.vocab.allowed())
                return fallback
            if kind in ("alias", "warn"):
                shown = value if isinstance(value, Status) else (
                    Status.FINDINGS if has_content else Status.CLEAN)
                code = "SARP102" if kind == "warn" else "SARP103"
                self.diag(code, self.status_line, word=self.status_word, status=shown,
                          expected=" or ".join(self.vocab.canonical), allowed=self.vocab.allowed())
        if value is None:
            if self.envelope:
                return Status.FINDINGS if has_content else Status.CLEAN
            status = self.missing_status()
            self.diag("SARP101", None if not self.doc.lines else 0, what=self.envelope_name,
                      status=status)
            return status
        if value == BY_CONTENT:
            return Status.FINDINGS if has_content else Status.CLEAN
        assert isinstance(value, Status)
        if value is Status.CLEAN and has_content:
            self.diag("SARP302", self.status_line, status=self.status_word,
                      why=f"{len(findings)} finding(s) reported")
        elif value is Status.FINDINGS and not has_content and self.envelope:
            self.diag("SARP302", self.status_line, status=self.status_word,
                      why="no finding could be read")
        return value

    def missing_status(self) -> Status:
        return Status.ERROR if self.policy.missing_summary == "error" else Status.PARTIAL

    def _build_findings(self) -> list[Finding]:
        if self.details and not any(raw.id for raw in self.findings):
            # Rows without ids are F1, F2, ... in order: `### F1 — ...` expands the first.
            for n, raw in enumerate(self.findings, 1):
                raw.id = f"F{n}"
        matcher = Matcher(self.findings)
        for finding_id, details in self.details:
            details.id = details.id or finding_id
            target = matcher.find(details)
            if target is None:
                self.diag("SARP212", details.line, id=finding_id)
                self.findings.append(details)
                matcher.add(details)
            else:
                target.fill(details)

        reader = SeverityReader(self.severity_words, self.agent,
                                case_sensitive=self.case_sensitive)
        reader.prepare([*self.scale_words, *(d.severity for _, d in self.details
                                              if d.severity)])
        seen_words: set[str] = set()
        used_ids: set[str] = set()
        out: list[Finding] = []
        for n, raw in enumerate(self.findings, 1):
            finding_id = raw.id or f"F{n}"
            if finding_id in used_ids:
                new_id = f"{finding_id}-{n}"
                self.diag("SARP211", raw.line, id=finding_id, new=new_id)
                finding_id = new_id
            used_ids.add(finding_id)
            severity = self._severity(reader, raw, finding_id, seen_words)
            location = parse_location(raw.location) if raw.location else None
            if location is None and self.requires_location:
                self.diag("SARP207", raw.line, id=finding_id)
            out.append(build(Finding,
                id=finding_id, severity=severity, native_severity=raw.severity,
                type=raw.type or None, title=raw.title or None, location=location,
                counter_location=parse_location(raw.counter_location)
                if raw.counter_location else None,
                description=raw.description or None, impact=raw.impact or None,
                suggestion=raw.suggestion or None, confidence=raw.confidence,
                agent=raw.agent, line=raw.line + 1,
            ))
        return out

    def _severity(self, reader: SeverityReader, raw: RawFinding, finding_id: str,
                  seen: set[str]) -> Severity:
        line = raw.severity_line if raw.severity_line is not None else raw.line
        if not raw.severity:
            self.diag("SARP204" if raw.severity_expected else "SARP215", line, id=finding_id,
                      canonical=raw.default.value, allowed=_allowed(self.severity_words))
            return raw.default
        reading = reader.read(raw.severity)
        if reading is None:
            self.diag("SARP203", line, written=raw.severity, id=finding_id,
                      canonical=raw.default.value, allowed=_allowed(self.severity_words))
            return raw.default
        if reading.kind != "canonical" and raw.severity not in seen:
            seen.add(raw.severity)
            if reading.kind == "case":
                self.diag("SARP201", line, written=raw.severity, canonical=reading.severity.value,
                          allowed=_allowed(self.severity_words))
            else:
                self.diag("SARP202", line, written=raw.severity, canonical=reading.severity.value,
                          scale=reading.scale, allowed=_allowed(self.severity_words))
        return reading.severity

    def _check_counts(self, findings: list[Finding]) -> None:
        for where, name, declared, count, what, line in self.counts:
            found = count(findings)
            if found != declared:
                self.diag("SARP301", line, where=where, name=name, declared=declared,
                          found=found, what=what)
                if declared > found and not self.closing_seen and self._ends_in_findings():
                    self.truncated(f"{where} (line {line + 1}) declares {declared} {what} but"
                                   f" the reply ends after {found}", self.doc.last_nonblank())


    def _ends_in_findings(self) -> bool:
        """The reply's last line belongs to the last finding (nothing follows them)."""
        if not self.findings:
            return False
        last = self.doc.last_nonblank()
        return max(f.line for f in self.findings) >= last - 2 and not self._closed()

    def _closed(self) -> bool:
        """Whether the last line reads like an ending: sentence or row complete."""
        last = self.doc.last_nonblank()
        if last < 0:
            return True
        text = self.doc.lines[last].rstrip()
        return text.endswith((".", "!", "?", "|", ")", "`", "*", "---"))


class Matcher:
    """Finds the finding another reading of the same defect belongs to, in O(1) a look-up.

    Same id means same finding. Otherwise the same place does: path (a path and the
    same path under a longer prefix, `html/x.py` and `Lib/html/x.py`, agree) and line,
    unless both have ids and they differ.
    """

    def __init__(self, pool: list[RawFinding]) -> None:
        self._by_id: dict[str, RawFinding] = {}
        self._by_place: dict[tuple[str, int], list[tuple[str, RawFinding]]] = {}
        for raw in pool:
            self.add(raw)

    def add(self, raw: RawFinding) -> None:
        if raw.id:
            self._by_id.setdefault(_id_key(raw.id), raw)
        place = _place(raw.location)
        if place is not None:
            path, line = place
            self._by_place.setdefault((_basename(path), line), []).append((path, raw))

    def find(self, raw: RawFinding) -> RawFinding | None:
        if raw.id:
            hit = self._by_id.get(_id_key(raw.id))
            if hit is not None:
                return hit
        place = _place(raw.location)
        if place is None:
            return None
        path, line = place
        for other_path, other in self._by_place.get((_basename(path), line), ()):
            if other.id and raw.id and _id_key(other.id) != _id_key(raw.id):
                continue
            if _same_path(path, other_path):
                return other
        return None


_place = place_of


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _same_path(a: str | None, b: str | None) -> bool:
    """`Lib/html/__init__.py` and `html/__init__.py` name the same file."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return long.endswith("/" + short.lstrip("./"))


def _allowed(words: Mapping[str, Severity]) -> str:
    return ", ".join(words) if words else _SEVERITY_ALLOWED


def _id_key(finding_id: str) -> str:
    return finding_id.strip().strip("*`#[]").upper()


def _diag_key(diag: Diagnostic) -> tuple[int, str]:
    return (diag.line or 0, diag.code)
