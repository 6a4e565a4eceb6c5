"""The golden corpus: replies under tests/data/<dialect>/ with their expected parse.

Each reply `NAME.md` (or `NAME.jsonl`) has beside it:
- `NAME.label.json`: what the agent meant (status, findings with severity and place,
  truncation), written by whoever wrote the reply; `tests/test_meaning.py` checks it.
- `NAME.expected.json`: the exact `Result.model_dump(mode="json")` without `raw`, with
  every diagnostic; `tests/test_golden.py` checks it.

Run `python tests/golden.py` after an intended change of behaviour to rewrite the
expected files, then review the diff: that diff is the behaviour change.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import sarp

DATA = Path(__file__).parent / "data"
SUFFIXES = (".md", ".jsonl", ".txt", ".json")


def replies() -> list[Path]:
    """Every reply file in the corpus, sorted."""
    return sorted(
        p for p in DATA.rglob("*")
        if p.suffix in SUFFIXES and not p.name.endswith((".label.json", ".expected.json"))
    )


def expected_path(reply: Path) -> Path:
    return reply.with_name(reply.stem + ".expected.json")


def label_path(reply: Path) -> Path:
    return reply.with_name(reply.stem + ".label.json")


def read_reply(reply: Path) -> str:
    return reply.read_bytes().decode("utf-8")


def dump(reply: Path) -> dict[str, Any]:
    result = sarp.parse(read_reply(reply))
    data: dict[str, Any] = result.model_dump(mode="json", exclude={"raw"})
    return data


def main() -> int:
    for reply in replies():
        path = expected_path(reply)
        data = dump(reply)
        # rewritten only when what it says changed, not the order of its keys
        if not path.exists() or json.loads(path.read_text(encoding="utf-8")) != data:
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(DATA.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
