# JSON Schemas (2020-12) for structured-output APIs.
#
# - `schema()`: the full `Result` model, as pydantic generates it.
# - `schema("json")`: the lean agent reply the `json` dialect reads: what a subagent
#   should return when asked for JSON. Every field has a description (structured-output
#   APIs show them to the model), objects are closed, and its `status` and `severity`
#   enums are the json dialect's own words, so a reply that validates parses
#   `conformant`.
from __future__ import annotations

from typing import Any, Final

from sarp.dialects.json_ import REQUIRED_FINDING_KEYS, REQUIRED_REPLY_KEYS, SEVERITIES
from sarp.model import Result
from sarp.vocab import STATUS

__all__ = ["lean_reply", "schema"]

DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"


def _finding() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "One defect, failed check or failed test you found.",
        "properties": {
            "id": {"type": "string", "description": "Your id for it: F1, F2, ..."},
            "severity": {"type": "string", "enum": list(SEVERITIES),
                         "description": "critical blocks release, major must be fixed"
                                        " before merge, minor is cosmetic."},
            "location": {"type": "string",
                         "description": "Where: `path/to/file.py:42`, `file.py:42-56`, or"
                                        " `doc.md § Section`."},
            "title": {"type": "string", "description": "A short title, under 80 characters."},
            "type": {"type": "string",
                     "description": "Its kind: bug, security, contradiction, docs, ..."},
            "description": {"type": "string", "description": "What is wrong and why."},
            "impact": {"type": "string", "description": "What breaks if it is not fixed."},
            "suggestion": {"type": "string", "description": "How to fix it."},
            "confidence": {"type": "number", "minimum": 0, "maximum": 100,
                           "description": "How sure you are, 0-100."},
        },
        "required": list(REQUIRED_FINDING_KEYS),
        "additionalProperties": False,
    }


def _reply() -> dict[str, Any]:
    return {
        "$schema": DRAFT,
        "title": "AgentReply",
        "description": "A subagent's result, as the sarp `json` dialect reads it.",
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": list(STATUS["json"].canonical),
                       "description": "CLEAN: done, nothing found. FINDINGS: done, findings"
                                      " listed. PARTIAL: not finished. BLOCKED: needs an"
                                      " answer first. ERROR: failed."},
            "summary": {"type": "string", "description": "Two or three sentences."},
            "agent": {"type": "string", "description": "Your role, e.g. security-auditor."},
            "confidence": {"type": "number", "minimum": 0, "maximum": 100,
                           "description": "Confidence in the whole result, 0-100."},
            "findings": {"type": "array", "items": _finding(),
                         "description": "Every finding; empty when status is CLEAN."},
            "next_steps": {"type": "array", "items": {"type": "string"},
                           "description": "What should happen next, in order."},
            "blockers": {"type": "array", "items": {"type": "string"},
                         "description": "What stops the work, and what would unblock it."},
        },
        "required": list(REQUIRED_REPLY_KEYS),
        "additionalProperties": False,
        # the status must agree with the findings, as the parser checks (SARP302)
        "allOf": [
            {"if": {"properties": {"status": {"const": "CLEAN"}}},
             "then": {"properties": {"findings": {"maxItems": 0}}}},
            {"if": {"properties": {"status": {"const": "FINDINGS"}}},
             "then": {"properties": {"findings": {"minItems": 1}}}},
        ],
    }


def lean_reply(result: Result) -> dict[str, Any]:
    """`result` as the lean reply `schema("json")` describes (what agents are shown)."""
    keys = _reply()["properties"]
    item_keys = _finding()["properties"]
    findings = []
    for finding in result.findings:
        item = {k: v for k, v in finding.model_dump(mode="json").items()
                if k in item_keys and v not in (None, "")}
        if finding.location is not None:
            item["location"] = finding.location.raw
        findings.append(item)
    data = {k: v for k, v in result.model_dump(mode="json").items()
            if k in keys and v not in (None, "", [], {})}
    data["status"] = result.status.value
    data.setdefault("summary", "")
    data["findings"] = findings
    return data


def schema(dialect: str | None = None) -> dict[str, Any]:
    """The JSON Schema of `Result` (no dialect) or of the lean reply (`"json"`).

    Raises ValueError for any other dialect: the markdown dialects have no schema.
    """
    if dialect is None:
        return {"$schema": DRAFT, **Result.model_json_schema()}
    if dialect == "json":
        return _reply()
    raise ValueError(f"no JSON Schema for dialect {dialect!r}: use None (the Result) or"
                     " 'json' (the agent reply)")
