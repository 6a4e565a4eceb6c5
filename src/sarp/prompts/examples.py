# The filled example behind every instruction: one Result per (dialect, role).
#
# A role is a Clarity result type, an Aphelion or ADR-013 agent, an SDD agent family, a
# CLEO return type. Examples are Results, not text: the instruction shows
# `render(example)`, so the example is exactly what the parser accepts, and the tests
# check that it parses back conformant with the declared status, type and counts.
from __future__ import annotations

from typing import Any, Final

from sarp.model import (
    ChecklistItem,
    ChecklistStatus,
    Conformance,
    Delivery,
    Finding,
    Reference,
    Result,
    Severity,
    Status,
    build,
)
from sarp.text.locations import parse_location

__all__ = ["ROLES", "example"]

C, M, m = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR


def _finding(fid: str, severity: Severity, where: str, description: str, **more: Any) -> Finding:
    return build(Finding, id=fid, severity=severity, location=parse_location(where),
                 description=description, **more)


def _result(dialect: str, status: Status, **fields: Any) -> Result:
    return build(Result, dialect=dialect, status=status, conformance=Conformance.CONFORMANT,
                 **fields)


_REVIEW = [
    _finding("F1", M, "src/app/auth.py:42", "Session token compared with `==`, not a"
             " constant-time compare", title="Timing-unsafe token comparison",
             suggestion="Use `hmac.compare_digest`", type="security"),
    _finding("F2", m, "src/app/auth.py:88", "`login()` docstring still names the removed"
             " `remember` flag", title="Stale docstring", suggestion="Drop the flag from the"
             " docstring", type="docs"),
]


def _clarity(role: str) -> Result:
    meta = {"protocol": "v1", "agent": f"{role} checker", "assigned": "compare docs/api.md"
            " with src/api.py", "scope": "docs/api.md, src/api.py", "coverage": 100,
            "confidence": "high"}
    common = {"agent": f"{role} checker", "metadata": meta, "result_type": role,
              "confidence": 85.0}
    if role == "consistency":
        findings = [
            _finding("F1", M, "docs/api.md § Errors", "Doc says 404 for a missing user; the"
                     " code returns 400", type="contradiction", title="Status code mismatch",
                     counter_location=parse_location("src/api.py:88"),
                     suggestion="Return 404", impact="Clients retry on 400"),
            _finding("F2", m, "docs/api.md:12", "Mentions the removed `--fast` flag",
                     type="stale-content", suggestion="Delete the sentence"),
        ]
        return _result("clarity", Status.FINDINGS, findings=findings,
                       metrics={"Pair": "docs/api.md/src/api.py"}, **common)
    if role == "verification":
        checklist = [
            build(ChecklistItem, item="Every endpoint is documented",
                  status=ChecklistStatus.APPLIED, notes="8 of 8"),
            build(ChecklistItem, item="Errors list their status codes",
                  status=ChecklistStatus.MISSING, notes="docs/api.md:40 gives none"),
        ]
        findings = [_finding("F1", M, "docs/api.md:40", "docs/api.md:40 gives none",
                             type="missing", title="Errors list their status codes")]
        return _result("clarity", Status.FINDINGS, checklist=checklist, findings=findings,
                       metrics={"Items": 2, "Applied": 1, "Partial": 0, "Missing": 1},
                       **common)
    if role == "digest":
        return _result("clarity", Status.CLEAN, metrics={
            "Doc": "docs/architecture.md", "Sections": 6, "Entities": 14, "Cross-refs": 3},
            **common)
    if role == "implementation":
        return _result("clarity", Status.CLEAN, metrics={
            "Task": "T-12", "Files": 2, "Criteria": "3/3", "Tests": "5/5"}, **common)
    return _result("clarity", Status.CLEAN, metrics={"Screen": "Settings", "Components": 7},
                   **common)


def _adr013(role: str) -> Result:
    return _result("adr013", Status.FINDINGS, agent=role, findings=_REVIEW,
                   metadata={"files_reviewed": ["src/app/auth.py"]})


def _aphelion(role: str) -> Result:
    findings: list[Finding] = []
    fields: dict[str, Any] = {}
    status, nxt = Status.CLEAN, "done"
    native = "success"
    metrics: dict[str, Any] = {}
    if role == "developer":
        fields = {"BRANCH": "feat/T-12-token-compare", "PR_URL": "skipped",
                  "LINT_CHECK": "pass", "FILES_CHANGED": ["src/app/auth.py: modified"]}
        nxt = "test-designer"
    elif role == "reviewer":
        findings = [_finding("W1", M, "src/app/auth.py:42", "token compared with `==`"),
                    _finding("S1", m, "src/app/auth.py:88", "stale docstring")]
        findings[0].native_severity, findings[1].native_severity = "WARNING", "SUGGESTION"
        status, native, nxt = Status.FINDINGS, "conditional", "developer"
    elif role == "tester":
        findings = [_finding("TC-3", M, "tests/test_auth.py::test_expired_token",
                             "AssertionError: 200 != 401", type="failed-test")]
        metrics = {"TOTAL": 12, "PASSED": 11, "FAILED": 1, "SKIPPED": 0}
        status, native, nxt = Status.FINDINGS, "failure", "test-designer"
    elif role == "security-auditor":
        findings = [_finding("SEC-1", C, "src/app/auth.py:42", "timing-unsafe token compare")]
        findings[0].native_severity = "CRITICAL"
        fields = {"ARTIFACT_PATHS": ["SECURITY_AUDIT: docs/SECURITY_AUDIT.md"],
                  "DEPENDENCY_VULNS": "none"}
        status, nxt = Status.FINDINGS, "developer"
    elif role == "doc-reviewer":
        findings = [_finding("DR-1", M, "docs/api.md:40", "error codes not listed")]
        findings[0].native_severity = "INCONSISTENCY"
        fields = {"DOC_REVIEW_RESULT": "fail"}
        status, native, nxt = Status.FINDINGS, "failure", "developer"
    return _result("aphelion", status, native_status=native, agent=role, findings=findings,
                   fields=fields, metrics=metrics, next=nxt)


def _sdd(role: str) -> Result:
    refs = [build(Reference, item="AuthService", location=parse_location("src/app/auth.py:8"),
                  relevance="Entry point")]
    common = {"agent": {"exploration": "code-explorer", "design": "code-architect",
                        "review": "security-auditor", "implementation": "backend-specialist",
                        "error": "qa-engineer"}[role],
              "references": refs, "metadata": {"confidence": "90 - traced end to end"},
              "confidence": 90.0}
    if role == "review":
        findings = [
            _finding("SEC-001", C, "src/app/auth.py:42", "Token compared with `==`",
                     title="Timing-unsafe compare", impact="Token recovery by timing",
                     suggestion="Use `hmac.compare_digest`", confidence=95.0),
            _finding("SEC-002", m, "src/app/auth.py:88", "Stale docstring", confidence=85.0),
        ]
        return _result("sdd", Status.FINDINGS, findings=findings,
                       summary="Reviewed the auth module: one critical issue, one minor.",
                       next_steps=["Fix SEC-001 before release"], **common)
    if role == "error":
        return _result("sdd", Status.ERROR, summary="Could not run the suite: pytest is not"
                       " installed.", fields={"error_details": {
                           "Type": "EnvironmentError", "Message": "No module named pytest",
                           "Occurred At": "step 2", "Recoverable": "true"}},
                       blockers=["Install pytest | Resolution: add it to the dev extras"],
                       **common)
    return _result("sdd", Status.CLEAN, summary={
        "exploration": "Traced login from the route to the session store.",
        "design": "Extend AuthService with OAuth; no new service needed.",
        "implementation": "Implemented constant-time token compare; 5 of 5 tests pass.",
    }[role], next_steps=["Review the change"], **common)


def _cleo(role: str) -> Result:
    return _result("cleo", Status.CLEAN, delivery=Delivery.POINTER,
                   native_status="complete", fields={"return_type": role.capitalize()})


def _json(role: str) -> Result:
    return _result("json", Status.FINDINGS, agent=role, findings=_REVIEW,
                   summary="Reviewed src/app/auth.py: one major issue, one minor.",
                   confidence=85.0)


def _bowser(role: str) -> Result:
    steps = [{"#": "1", "Step": "Open /settings", "Status": "PASS"},
             {"#": "2", "Step": "Save with an empty name", "Status": "FAIL"}]
    finding = build(Finding, id="F1", severity=M, type="failed-step",
                    title="Save with an empty name")
    return _result("bowser", Status.FINDINGS, metrics={"Steps": "1/2"},
                   fields={"steps": steps}, findings=[finding])


ROLES: Final[dict[str, tuple[str, ...]]] = {
    "clarity": ("consistency", "digest", "verification", "implementation", "design-plan"),
    "bowser": ("story",),
    "adr013": ("code-reviewer", "silent-failure-hunter", "test-analyzer",
               "backward-compatibility-checker", "type-design-analyzer", "comment-analyzer",
               "codex-review-agent", "tool-validator", "code-simplifier"),
    "aphelion": ("reviewer", "developer", "tester", "security-auditor", "doc-reviewer"),
    "sdd": ("review", "exploration", "design", "implementation", "error"),
    "cleo": ("research", "implementation", "specification", "consensus", "decomposition",
             "contribution", "release"),
    "json": ("reviewer",),
}
_BUILDERS: Final = {"clarity": _clarity, "bowser": _bowser, "adr013": _adr013,
                    "aphelion": _aphelion, "sdd": _sdd, "cleo": _cleo, "json": _json}


def example(dialect: str, role: str) -> Result:
    """The example Result for `role` in `dialect` (a fresh object each call)."""
    return _BUILDERS[dialect](role)
