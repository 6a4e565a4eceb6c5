# The canonical model: one shape for every dialect's reply (SPEC §3).
#
# Contract:
# - The field names below are the JSON names of `sarp parse --format json` and of
#   `Result.model_dump(mode="json")`. They are public: add fields, never rename.
# - Every parsed value keeps what was written beside the canonical value
#   (`native_status`, `native_severity`, `Location.raw`, `Result.raw`), so nothing is
#   lost and a renderer can reproduce the reply's own words.
# - Parsers build these models with `model_construct` after their own checks (the hot
#   path); users who build them by hand get pydantic validation.
from __future__ import annotations

import warnings
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.warnings import PydanticDeprecatedSince20

__all__ = [
    "ChecklistItem",
    "ChecklistStatus",
    "Conformance",
    "Delivery",
    "Diagnostic",
    "DiagnosticSeverity",
    "Finding",
    "Location",
    "Reference",
    "Result",
    "Severity",
    "Status",
    "build",
]


_M = TypeVar("_M", bound=BaseModel)


class Status(StrEnum):
    """Canonical outcome of one subagent's work."""

    CLEAN = "CLEAN"  # completed, reported nothing to fix
    FINDINGS = "FINDINGS"  # completed, reported at least one finding or failure
    PARTIAL = "PARTIAL"  # incomplete; what is there is kept
    BLOCKED = "BLOCKED"  # cannot continue until someone answers a question
    ERROR = "ERROR"  # failed entirely


class Severity(StrEnum):
    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"

    @property
    def rank(self) -> int:
        """0 for critical, 2 for minor: sort key, lower is worse."""
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.CRITICAL: 0, Severity.MAJOR: 1, Severity.MINOR: 2}


class Conformance(StrEnum):
    CONFORMANT = "conformant"  # strict rules held, nothing repaired
    REPAIRED = "repaired"  # envelope found; aliases or repairs applied (see diagnostics)
    SALVAGED = "salvaged"  # no valid envelope; content recovered heuristically
    UNPARSEABLE = "unparseable"  # nothing structured recovered


class Delivery(StrEnum):
    COMPLETE = "complete"
    TRUNCATED = "truncated"  # cut off; status becomes PARTIAL, findings are kept
    EMPTY = "empty"
    POINTER = "pointer"  # only refers elsewhere ("see above", a CLEO return message)


class DiagnosticSeverity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class ChecklistStatus(StrEnum):
    APPLIED = "applied"
    PARTIAL = "partial"
    MISSING = "missing"
    NOT_APPLICABLE = "not-applicable"


class _SharedFieldNames(set[str]):
    """The field names `build` was given, one set shared by every record built from the
    same names: a set per record cost more memory than most findings' text. A record
    swaps in its own copy before anything can change or hand out its fields set, copies
    and pickles get plain sets, and the shared set refuses every change made through
    its methods (a path that slipped past the swap fails loudly instead of marking
    fields set on other records). Changes made from C, such as `set.add(shared, name)`
    or calling pydantic-core's validator directly, are not caught."""

    @classmethod
    def of(cls, names: tuple[str, ...]) -> _SharedFieldNames:
        made = cls.__new__(cls)
        set.__init__(made, names)  # `__init__` itself refuses, as every change does
        return made

    def __reduce__(self) -> tuple[type[set[str]], tuple[list[str]]]:
        return set, (list(self),)


def _refuse(self: _SharedFieldNames, *args: object) -> None:
    raise TypeError("this fields set is shared by records built alike and cannot change; "
                    "assign through the record, or copy the set")


for _change in ("__init__", "add", "clear", "discard", "pop", "remove", "update",
                "difference_update", "intersection_update", "symmetric_difference_update",
                "__ior__", "__iand__", "__isub__", "__ixor__"):
    setattr(_SharedFieldNames, _change, _refuse)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    def _own_fields_set(self) -> set[str]:
        fields_set = self.__pydantic_fields_set__
        if type(fields_set) is _SharedFieldNames:
            fields_set = set(fields_set)
            object.__setattr__(self, "__pydantic_fields_set__", fields_set)
        return fields_set

    def __setattr__(self, name: str, value: Any) -> None:
        self._own_fields_set()  # pydantic records the assignment in the fields set
        super().__setattr__(name, value)

    @property
    def model_fields_set(self) -> set[str]:
        return self._own_fields_set()

    @property
    def __fields_set__(self) -> set[str]:  # pydantic's deprecated spelling, still served
        warnings.warn("The `__fields_set__` attribute is deprecated, use `model_fields_set` "
                      "instead.", PydanticDeprecatedSince20, stacklevel=2)
        return self._own_fields_set()

    def __getstate__(self) -> dict[Any, Any]:
        # pickle writes a shared object once: unpickled records would share a plain set
        state = super().__getstate__()
        state["__pydantic_fields_set__"] = set(self.__pydantic_fields_set__)
        return state


class Location(_Record):
    """Where a finding points. `raw` is exactly what the reply wrote."""

    raw: str
    path: str | None = None
    line: int | None = None
    end_line: int | None = None
    section: str | None = None
    symbol: str | None = None  # `file::test_name`, `(loginHandler)`
    extra: list[Location] = Field(default_factory=list)


class Finding(_Record):
    id: str
    severity: Severity
    native_severity: str | None = None
    type: str | None = None
    title: str | None = None
    location: Location | None = None
    counter_location: Location | None = None
    description: str | None = None
    impact: str | None = None
    suggestion: str | None = None
    confidence: float | None = None
    agent: str | None = None
    line: int | None = None  # line of the reply where the finding starts (1-based)


class ChecklistItem(_Record):
    item: str
    status: ChecklistStatus
    native_status: str | None = None
    notes: str | None = None


class Reference(_Record):
    item: str
    location: Location | None = None
    relevance: str | None = None


class Diagnostic(_Record):
    """One thing that was wrong with a reply, or repaired in it."""

    code: str
    severity: DiagnosticSeverity
    line: int | None = None
    column: int | None = None
    message: str
    hint: str | None = None

    def format(self, filename: str = "<reply>") -> str:
        """`file:line:col: CODE message`, the form every CLI output uses."""
        line = self.line if self.line is not None else 1
        column = self.column if self.column is not None else 1
        return f"{filename}:{line}:{column}: {self.code} {self.message}"


class Result(_Record):
    id: str | None = None
    dialect: str
    status: Status
    native_status: str | None = None
    conformance: Conformance
    delivery: Delivery = Delivery.COMPLETE
    result_type: str | None = None
    agent: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    confidence: float | None = None
    summary: str | None = None
    findings: list[Finding] = Field(default_factory=list)
    checklist: list[ChecklistItem] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)
    blockers: list[str] = Field(default_factory=list)
    next: str | None = None
    blocked_reason: str | None = None
    blocked_target: str | None = None
    current_task: str | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    raw: str = ""

    def content(self) -> dict[str, Any]:
        """The canonical content, without what depends on how it was written.

        Two results with equal `content()` say the same thing: round-trip tests
        compare `parse(render(r)).content() == r.content()`.
        """
        data = self.model_dump(
            mode="json",
            exclude={"raw", "diagnostics", "conformance", "native_status", "id"},
        )
        for finding in data["findings"]:
            finding.pop("native_severity", None)
            finding.pop("line", None)
            for key in ("location", "counter_location"):
                if finding[key] is not None:
                    _drop_raw(finding[key])
        for item in data["checklist"]:
            item.pop("native_status", None)
        for ref in data["references"]:
            if ref["location"] is not None:
                _drop_raw(ref["location"])
        return data


_set = object.__setattr__
# per model: its static defaults, its default factories, and whether records built from
# the same names may share one fields set (only our records know to copy it first)
_PLANS: dict[type[BaseModel],
             tuple[dict[str, Any], tuple[tuple[str, Any], ...], bool]] = {}
_FIELD_NAMES: dict[tuple[str, ...], _SharedFieldNames] = {}  # one per call shape in sarp
# sarp uses a few hundred shapes; the cap stops a caller that passes keys in ever new
# orders from growing the table without end (records past it get a set of their own)
_MAX_SHAPES = 4096


def build(cls: type[_M], **values: Any) -> _M:
    """A model instance from trusted values: what `model_construct` does, minus its
    per-field alias handling (our models have no aliases), so parsers and aggregation
    can afford one per finding. Fields not given take their defaults; list and dict
    defaults are new objects per instance.
    """
    plan = _PLANS.get(cls)
    if plan is None:
        fields = cls.__pydantic_fields__
        plan = _PLANS[cls] = (
            {name: field.default for name, field in fields.items()
             if field.default_factory is None},
            tuple((name, field.default_factory) for name, field in fields.items()
                  if field.default_factory is not None),
            issubclass(cls, _Record))
    static, factories, shares = plan
    data = static | values
    for name, factory in factories:
        if name not in values:
            data[name] = factory()
    obj = cls.__new__(cls)
    _set(obj, "__dict__", data)
    if shares:
        names = tuple(values)
        shared = _FIELD_NAMES.get(names)
        if shared is None:
            shared = _SharedFieldNames.of(names)
            if len(_FIELD_NAMES) < _MAX_SHAPES:
                _FIELD_NAMES[names] = shared
        _set(obj, "__pydantic_fields_set__", shared)
    else:
        _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _drop_raw(location: dict[str, Any]) -> None:
    location.pop("raw", None)
    for extra in location["extra"]:
        _drop_raw(extra)
