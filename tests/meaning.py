"""Compare a parsed Result with what the agent meant (a `*.label.json` file).

Used by the corpus tests and by `benchmarks/`-style reports: a case matches when the
status, the truncation flag, the number of findings and, finding by finding in order,
the severity, the file name (basename) and the first line agree.
"""
from __future__ import annotations

import posixpath
from typing import Any

import sarp


def _basename(path: str | None) -> str | None:
    if not path:
        return None
    return posixpath.basename(path.strip("`").replace("\\", "/"))


def mismatches(result: sarp.Result, label: dict[str, Any]) -> list[str]:
    """What differs between `result` and `label`; empty when they agree."""
    problems: list[str] = []
    if result.status.value != label["status"]:
        problems.append(f"status {result.status.value} != {label['status']}")
    truncated = result.delivery is sarp.Delivery.TRUNCATED
    if truncated != bool(label.get("truncated")):
        problems.append(f"truncated {truncated} != {bool(label.get('truncated'))}")
    expected = label.get("findings", [])
    if len(result.findings) != len(expected):
        problems.append(f"{len(result.findings)} findings != {len(expected)}")
        return problems
    for n, (got, want) in enumerate(zip(result.findings, expected, strict=True)):
        if got.severity.value != want["severity"]:
            problems.append(f"finding {n + 1} severity {got.severity.value} != {want['severity']}")
        path = _basename(got.location.path) if got.location else None
        line = got.location.line if got.location else None
        if path != _basename(want.get("path")) or line != want.get("line"):
            problems.append(f"finding {n + 1} at {path}:{line} != "
                            f"{_basename(want.get('path'))}:{want.get('line')}")
    return problems
