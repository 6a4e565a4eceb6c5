"""Bad input is normal input: parse never raises, keeps the text, and stays linear.

The adversarial inputs are the ones SPEC §12 names. Each must finish; the alarm is a
generous guard against catastrophic backtracking, not a speed test (speed is measured
by benchmarks/parse_bench.py).
"""
from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sarp

DIALECT_NAMES = sorted(sarp.DIALECTS)

# Text built from the pieces scanners look for, so hypothesis reaches the parsers'
# deep paths instead of only their first rejection.
PIECES = st.sampled_from([
    "RESULT: ", "FINDINGS", "CLEAN", " | ", "Type: consistency", "Findings: 3", "\n", "\n\n",
    "|", "---", "```", "~~~", "> ", "# ", "### CRITICAL: ", "**", "`", "AGENT_RESULT: x",
    "STATUS: ", "NEXT: done", "  - ", "- ", "1. ", "### Status", "SUCCESS", "a.py:12",
    "§ ", "{", "}", "[", "]", '"', "'", ",", ":", "critical", "HIGH", "🔴", "\r\n", "\t",
    "## Summary", "- **Verdict**: ", "- **Location**: ", "F1", "|---|---|", "\\|", "::",
    "Research complete. See MANIFEST.jsonl for summary.", '{"status": "partial"}',
])
REPLIES = st.lists(PIECES | st.text(max_size=20), max_size=60).map("".join)


@pytest.fixture
def alarm() -> Iterator[None]:
    def fail(_signum: int, _frame: object) -> None:
        raise TimeoutError("parse took over 60 s: catastrophic backtracking?")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _check(result: sarp.Result, text: str) -> None:
    assert result.raw == text
    assert not [d for d in result.diagnostics if d.code == "SARP009"], result.diagnostics
    for diag in result.diagnostics:
        assert diag.line is None or diag.line >= 1


@settings(max_examples=400, deadline=None)
@given(text=REPLIES)
def test_parse_never_raises_on_protocol_like_text(text: str) -> None:
    _check(sarp.parse(text), text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=400))
def test_parse_never_raises_on_any_text(text: str) -> None:
    _check(sarp.parse(text), text)


@settings(max_examples=60, deadline=None)
@given(text=REPLIES, dialect=st.sampled_from(DIALECT_NAMES))
def test_forced_dialects_never_raise(text: str, dialect: str) -> None:
    result = sarp.parse(text, dialect=dialect)
    _check(result, text)
    assert result.dialect == dialect


@settings(max_examples=60, deadline=None)
@given(text=REPLIES, dialect=st.sampled_from(DIALECT_NAMES))
def test_every_parse_renders_in_every_dialect(text: str, dialect: str) -> None:
    rendered = sarp.render(sarp.parse(text), dialect)
    _check(sarp.parse(rendered), rendered)


ADVERSARIAL = {
    "5 MB single line": "RESULT: FINDINGS | " + "x" * 5_000_000,
    "100k pipes": "RESULT: FINDINGS | Type: consistency\n| ID | Severity |\n|---|---|\n"
                  + "|" * 100_000,
    "100k table rows": "| a | b |\n|---|---|\n" + "| F1 | major |\n" * 100_000,
    "50k fence markers": "```\n" * 50_000,
    "nested quotes": ">" * 200_000 + " RESULT: CLEAN",
    "deep json": "[" * 100_000 + "]" * 100_000,
    "deep json object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "unclosed json": '{"status": "FINDINGS", "findings": [' + '{"id": "F", ' * 20_000,
    "many headings": "### CRITICAL: x\n" * 50_000,
    "many RESULT lines": "RESULT: CLEAN | Type: digest\n" * 50_000,
    "emphasis run": "*" * 1_000_000,
    "backticks": "`" * 1_000_000,
    "aphelion keys": "AGENT_RESULT: x\n" + "KEY: value\n" * 50_000,
    "location soup": "- " + "a.py:1, " * 200_000,
    "long pipe cell": "| " + "a\\|" * 200_000 + " |\n|---|\n",
    # ADV16 #14: a place is looked for on a finding's line; long dotted runs were read
    # again from every start (a minute for these)
    "dotted heading": "### CRITICAL: " + "a." * 2_500_000,
    "dotted list item": "Notes\n\n- **HIGH**: " + "www.example.com" * 350_000,
    # ADV16 #5: finding heads have no length cap, so their titles are scanned to the end
    "long finding head": "### CRITICAL: " + "x" * 5_000_000,
    "numbered heading of parentheses": "Notes\n\n### 1. " + "(High, x " * 300_000,
    "numbered bold of code spans": "Notes\n\n**1. " + "`a**b` " * 300_000,
    # ADV16 #4: item lists after NEXT are read one by one
    "lists after NEXT": "AGENT_RESULT: x\nSTATUS: failure\nNEXT: done\n"
                        + "CRITICAL_ITEMS:\n  - C1: x\n" * 50_000,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
@pytest.mark.usefixtures("alarm")
def test_adversarial_input_finishes(name: str) -> None:
    text = ADVERSARIAL[name]
    _check(sarp.parse(text), text)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@pytest.mark.usefixtures("alarm")
def test_adversarial_input_finishes_in_every_dialect(dialect: str) -> None:
    for text in ADVERSARIAL.values():
        _check(sarp.parse(text[:200_000], dialect=dialect), text[:200_000])


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "\ufeff"])
def test_empty_replies(text: str) -> None:
    result = sarp.parse(text)
    assert (result.status, result.delivery, result.conformance) == (
        sarp.Status.ERROR, sarp.Delivery.EMPTY, sarp.Conformance.UNPARSEABLE)
    assert [d.code for d in result.diagnostics] == ["SARP001"]


@pytest.mark.parametrize("text", [
    "Done.", "See the report above.", "done", "All done!",
    "I've written the report to out/review.md.",
    # USER16 #7: a result said to be in a file, in a sentence or two of the agent's words
    "I ran out of room in this conversation, so I saved the full test-coverage review to "
    "`reviews/shlex-tests.md` instead. See that file for the details.",
    "Report saved to reviews/auth.md", "See reviews/auth.md for details.",
    "I wrote the full review to reviews/auth.md.", "The review is in reviews/auth.md.",
])
def test_pointer_replies(text: str) -> None:
    result = sarp.parse(text)
    assert (result.status, result.delivery) == (sarp.Status.PARTIAL, sarp.Delivery.POINTER)
    assert [d.code for d in result.diagnostics] == ["SARP003", "SARP101"]


@pytest.mark.parametrize("text", [
    # a file named as the place of a defect, or a clean verdict, is no pointer
    "The bug is in a.py: the loop never ends.", "Reviewed a.py: no issues found.",
    "The main problem is in src/db.py, where the pool is never closed.",
    # REVIEW16 #12: a reply that says where a bug is, or reports and then points
    "Review complete. The one real issue is in `auth.py`: session tokens never expire.",
    "All 42 tests pass. Test results are in junit.xml.",
])
def test_replies_that_name_a_file_are_not_pointers(text: str) -> None:
    assert sarp.parse(text).delivery is not sarp.Delivery.POINTER


def test_programmer_errors_raise() -> None:
    with pytest.raises(TypeError):
        sarp.parse(b"RESULT: CLEAN")  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        sarp.parse("x", dialect="nope")


def test_a_failing_dialect_falls_back_to_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a scanner ever fail on some reply, its findings are still salvaged."""
    def broken(_builder: object) -> None:
        raise RuntimeError("a bug in a dialect")

    monkeypatch.setattr(sarp.DIALECTS["clarity"], "parse", broken)
    result = sarp.parse("RESULT: FINDINGS | Type: consistency\n- high: a.py:3 is broken\n")
    assert result.diagnostics[0].code == "SARP009"
    assert "RuntimeError: a bug in a dialect" in result.diagnostics[0].message
    assert [(f.location.path, f.location.line) for f in result.findings if f.location] == [
        ("a.py", 3)]


@pytest.mark.parametrize(("data", "text", "note"), [
    # USER16 #13: a reply in another encoding is read, and what it took is said
    ("RESULT: CLEAN".encode("utf-8-sig"), "RESULT: CLEAN", None),
    ("RESULT: CLEAN é".encode("utf-16"), "RESULT: CLEAN é", ("UTF-16 with a byte order mark",
                                                             1)),
    ("RESULT: CLEAN".encode("utf-32"), "RESULT: CLEAN", ("UTF-32 with a byte order mark", 1)),
    (b"RESULT: CLEAN \xff", "RESULT: CLEAN \ufffd", ("bytes that are not UTF-8, the first at"
                                                     " byte 14", 1)),
    # REVIEW16 #23: the offset counts from the file's start, a BOM included
    (b"\xef\xbb\xbfa\nb \xff", "a\nb \ufffd", ("bytes that are not UTF-8, the first at byte"
                                                " 7", 2)),
])
def test_bytes_in_other_encodings_are_read_and_said(data: bytes, text: str,
                                                    note: tuple[str, int] | None) -> None:
    from sarp.text.decode import decode, note_decoding

    read, said = decode(data)
    assert read == text
    assert (said is None) == (note is None)
    result = note_decoding(sarp.parse(read), said)
    found = [(d.message, d.line) for d in result.diagnostics if d.code == "SARP008"]
    if note is None:
        assert found == []
    else:  # said at the line of the first bad byte
        ((message, line),) = found
        assert note[0] in message and line == note[1]


def test_a_lone_surrogate_in_the_text_is_replaced_and_said() -> None:
    # ADV16 #11: `json.loads` of an API answer cut mid-emoji gives a lone surrogate;
    # the Result could then be neither serialised nor aggregated
    import json

    reply = json.loads('"### CRITICAL: Unsafe eval \\ud83d\\n- **Location**: app/x.py:3\\n"')
    result = sarp.parse(reply)
    assert [f.title for f in result.findings] == ["Unsafe eval \ufffd"]
    assert result.diagnostics[0].code == "SARP008"
    result.id = "a.md"
    report = sarp.aggregate([result])
    for fmt in ("json", "markdown", "html", "sarif"):
        sarp.render_report(report, fmt).encode("utf-8")
    assert result.model_dump_json()
