# sarp: the Structured Agent Result Protocol toolkit.
#
# Turns what LLM subagents report back to an orchestrator into checked, typed data and
# back again: `parse` any of the dialects (clarity, bowser, adr013, aphelion, sdd, cleo,
# json, or plain text) into one `Result`, `lint` a reply for what is wrong with it,
# `render` a Result in any dialect (`convert` also says what that dialect cannot carry);
# and ask for results: `prompt` writes the instruction for a subagent, `schema` the JSON
# Schema, `reask` the correction for a bad reply.
# `aggregate` merges many Results into one `Report` (`render_report` writes it as
# Markdown, JSON, SARIF or HTML; `load_results` reads replies, JSONL and SARIF files).
# Parsing never raises on reply content; everything wrong with a reply is a coded,
# line-numbered `Diagnostic`.
from __future__ import annotations

from sarp.aggregation import AggregationPolicy, Report, aggregate, load_results
from sarp.conversion import Conversion, convert
from sarp.dialects import DIALECTS, Policy
from sarp.model import (
    ChecklistItem,
    ChecklistStatus,
    Conformance,
    Delivery,
    Diagnostic,
    DiagnosticSeverity,
    Finding,
    Location,
    Reference,
    Result,
    Severity,
    Status,
)
from sarp.parsing import lint, parse, render
from sarp.prompts import prompt, reask, schema
from sarp.renderers import render_report
from sarp.vocab import register_scale

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "AggregationPolicy",
    "ChecklistItem",
    "ChecklistStatus",
    "Conformance",
    "Conversion",
    "Delivery",
    "Diagnostic",
    "DiagnosticSeverity",
    "Finding",
    "Location",
    "Policy",
    "Reference",
    "Report",
    "Result",
    "Severity",
    "Status",
    "__version__",
    "aggregate",
    "convert",
    "lint",
    "load_results",
    "parse",
    "prompt",
    "reask",
    "register_scale",
    "render",
    "render_report",
    "schema",
]
