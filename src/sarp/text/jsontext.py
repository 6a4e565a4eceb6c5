# JSON from agents and tools, decoded into text every encoder can write.
#
# JSON may escape a lone UTF-16 surrogate (`"\ud800"`); `json.loads` turns it into a str
# that pydantic, `str.encode` and every renderer refuse. `loads` decodes as json.loads
# does and, only when the text holds such an escape, replaces each lone surrogate with
# U+FFFD (the escape text itself is never touched, so `"\\ud800"`, a backslash and
# letters, stays as written).
from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["first_lone_surrogate", "has_surrogate_escape", "loads", "scrub"]

_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate_escape(text: str) -> bool:
    return _ESCAPE.search(text) is not None


def first_lone_surrogate(text: str) -> int:
    """Where `text` itself first holds a surrogate (decoded, not escaped), or -1."""
    found = _SURROGATE.search(text)
    return found.start() if found is not None else -1


def loads(text: str, **options: Any) -> Any:
    """json.loads, with lone surrogates in the result replaced (raises as json.loads)."""
    value = json.loads(text, **options)
    return scrub(value) if has_surrogate_escape(text) else value


def scrub(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    return value
