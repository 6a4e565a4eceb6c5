"""Replies a third reader wrote around JSON (REVIEW11): a JSON reply under a title, with
scope notes or a summary after it, is still the reply; a review that quotes an API's
`{"status": "ERROR", ...}` is not one."""
from __future__ import annotations

from pathlib import Path

import pytest

import sarp

HERE = Path(__file__).parent / "json_drift"

READ = [
    ("j01", "json", 1),  # `## Review:` title, lead-in, fenced reply
    ("j02", "json", 2),  # the fenced reply first, then notes on scope in bullets
    ("j03", "json", 1),  # a fence, then `### Notes`
    ("j04", "json", 1),  # `# Review result`, then a one-line reply
    ("j05", "json", 1),  # a lead-in, a one-line reply, a closing paragraph
    ("j06", "json", 0),  # CLEAN with a `**Summary**` after it: still CLEAN, not PARTIAL
    ("j07", "text", 0),  # a review quoting `{"status": "ERROR", "code": ...}`
]


def test_every_file_has_a_row() -> None:
    assert sorted(p.stem for p in HERE.glob("*.md")) == sorted(name for name, _, _ in READ)


@pytest.mark.parametrize(("name", "dialect", "findings"), READ)
def test_a_json_reply_among_prose(name: str, dialect: str, findings: int) -> None:
    result = sarp.parse((HERE / f"{name}.md").read_text(encoding="utf-8"))
    assert (result.dialect, len(result.findings)) == (dialect, findings)
    if name == "j06":
        assert result.status is sarp.Status.CLEAN


# A finding's keys as agents spell them; `read` is what the finding holds after parsing
# and `codes` the diagnostics the keys gave. Text under a key that is not a finding field
# is kept in the description: a finding never loses what its agent wrote.
KEYS = [
    ({"severity": "major", "defect": "loses data"}, {"description": "loses data"}, ["SARP408"]),
    ({"Severity": "major", "filePath": "a.py", "lineNumber": 7, "suggestedFix": "close it"},
     {"severity": "major", "location": "a.py:7", "suggestion": "close it"},
     ["SARP408", "SARP408", "SARP408"]),
    ({"file": "a.py", "lines": [29, 30, 31, 65], "issue": "x"},
     {"location": "a.py:29-31, 65", "description": "x"}, ["SARP408"]),
    ({"file": "a.py", "lines": [12, 40], "line": 40, "issue": "x"},
     {"location": "a.py:40, 12"}, ["SARP408"]),
    # REVIEW12: a line is never lost, whatever names the file or holds the lines
    ({"fileName": "db.py", "lineNumber": 9}, {"location": "db.py:9"}, ["SARP408"]),
    ({"location": "db.py", "line": 9}, {"location": "db.py:9"}, []),
    ({"location": {"filePath": "db.py", "lineNumber": 9}}, {"location": "db.py:9"}, []),
    ({"line": 9}, {"location": "line 9"}, []),
    ({"file": "a.py", "lines": "L42-L48"}, {"location": "a.py:42-48"}, []),
    ({"file": "a.py", "lines": {"start": 4, "end": 9}}, {"location": "a.py:4-9"}, []),
    ({"file": "a.py", "line": 3, "column": 5, "endColumn": 9}, {"location": "a.py:3"}, []),
    ({"location": "db.py:12", "line": 9, "issue": "x"},
     {"location": "db.py:12", "description": "x\n\nplace: line 9"}, ["SARP408"]),
    ({"locations": [{"file": "a.py", "line": 3}, {"uri": "b.py", "startLine": 4}]},
     {"location": "a.py:3; b.py:4"}, ["SARP408"]),
    # a second key for a field that holds one value: the first wins, the other is kept
    ({"severity": "critical", "priority": "P3", "title": "SQL injection"},
     {"severity": "critical", "description": "priority: P3"}, ["SARP405", "SARP408"]),
    ({"title": "SQL injection", "summary": "user input reaches the query"},
     {"title": "SQL injection", "description": "summary: user input reaches the query"},
     ["SARP405", "SARP408"]),
    ({"description": "first", "details": "second"}, {"description": "first\n\nsecond"},
     ["SARP408"]),
    ({"description": "Same.", "message": "Same."}, {"description": "Same."}, ["SARP408"]),
    # a shorter text inside the first is still said (its framing is the key's)
    ({"description": "Concatenates the parts.", "details": "Concatenates"},
     {"description": "Concatenates the parts.\n\nConcatenates"}, ["SARP408"]),
    # the same value in another case is the same value
    ({"severity": "High", "priority": "high"}, {"severity": "critical"}, ["SARP202", "SARP408"]),
    # REVIEW13: a place keeps what it says beside its file; no key's text is lost
    ({"location": "db.py (search function)", "line": 9, "issue": "x"},
     {"location": "db.py:9 (search function)", "description": "x"}, ["SARP408"]),
    ({"location": "src/db.py (UserRepo.search)", "line": 42},
     {"location": "src/db.py:42 (UserRepo.search)"}, []),
    # REVIEW15 #8: the lines go with the path whatever the location says beside it; a
    # `line` that gives no line is kept in words, never as a section
    ({"location": "README.md § Usage", "line": 40, "issue": "x"},
     {"location": "README.md:40 (§ Usage)", "description": "x"}, ["SARP408"]),
    ({"location": "src/db.py (search)", "line": "N/A"},
     {"location": "src/db.py (search)", "description": "place: line N/A"}, []),
    ({"location": "src/db.py (search)", "line": []}, {"location": "src/db.py (search)"}, []),
    ({"location": "src/db.py (search)", "lines": "42-57; 88-90"},
     {"location": "src/db.py:42-57 (search), 88-90"}, []),
    ({"location": "src/db.py, UserRepo.search()", "line": 42},
     {"location": "src/db.py:42 (UserRepo.search())"}, []),
    ({"location": "`src/db.py` (search)", "line": 42}, {"location": "src/db.py:42 (search)"}, []),
    ({"location": "src/db.py#search", "line": 42}, {"location": "src/db.py:42 (§ search)"}, []),
    ({"location": "src/db.py (search)", "file": "src/db.py", "line": 42},
     {"location": "src/db.py:42 (search)"}, []),
    ({"location": "src/db.py (search)", "file": "src/api.py", "line": 42},
     {"location": "src/db.py (search)", "description": "place: src/api.py:42"}, []),
    ({"file": "src/db.py", "line": "N/A"}, {"location": "src/db.py (N/A)"}, []),
    ({"file": "db.py", "line": "42:17"}, {"location": "db.py:42"}, []),
    # REVIEW14 #9: a line said roughly, in parentheses or as a float; ranges joined by words
    ({"file": "db.py", "line": "~42"}, {"location": "db.py:42"}, []),
    ({"file": "db.py", "line": "(42)"}, {"location": "db.py:42"}, []),
    ({"file": "db.py", "line": "42.0"}, {"location": "db.py:42"}, []),
    ({"file": "db.py", "line": 42.0}, {"location": "db.py:42"}, []),
    ({"file": "db.py", "lines": "12 and 40"}, {"location": "db.py:12, 40"}, []),
    ({"file": "db.py", "lines": "120-135 (Python 3.12+)"}, {"location": "db.py:120-135"}, []),
    ({"locations": [{"physicalLocation": {"artifactLocation": {"uri": "db.py"},
                                          "region": {"startLine": 9, "endLine": 12}}}]},
     {"location": "db.py:9-12"}, ["SARP408"]),
    ({"location": {"function": "search"}, "issue": "x"},
     {"description": 'x\n\nlocation: {"function": "search"}'}, ["SARP408"]),
    ({"path": "/api/v1/search", "file": "db.py", "line": 9, "issue": "x"},
     {"location": "/api/v1/search:9", "description": "x\n\nfile: db.py"},
     ["SARP405", "SARP408"]),
    ({"description": "d", "cwe": "CWE-400", "repro": ["step 1", "step 2"]},
     {"description": "d\n\ncwe: CWE-400\n\nrepro: - step 1\n- step 2"},
     ["SARP414", "SARP414"]),
    ({"description": "d", "tags": [], "note": None}, {"description": "d"}, []),
]


@pytest.mark.parametrize(("item", "read", "codes"), KEYS)
def test_finding_keys_as_agents_spell_them(item: dict[str, object], read: dict[str, str],
                                           codes: list[str]) -> None:
    import json

    from sarp.dialects.json_ import FINDING_KEYS, key_name

    if all(FINDING_KEYS.get(key_name(key)) != "severity" for key in item):
        item = {"severity": "minor", **item}
    reply = json.dumps({"status": "FINDINGS", "findings": [{"id": "F1", **item}]})
    result = sarp.parse(reply, dialect="json")
    (found,) = result.findings
    got = {key: str(getattr(found, key)) if key != "location" else found.location.raw
           for key in read if getattr(found, key) is not None}
    assert got == read
    # (what the JSON Schema requires and these items leave out is tested apart)
    assert [d.code for d in result.diagnostics if not _schema_gap(d)] == codes


def _schema_gap(diag: sarp.Diagnostic) -> bool:
    return "is missing from" in diag.message or diag.message == "json reply has no summary"


def test_a_deeply_nested_value_under_an_unknown_key_keeps_every_finding() -> None:
    # REVIEW12 #17: 400 nested lists under `extra` made the text of the value recurse
    # past the limit, and the whole reply fell back to text with no findings
    deep = "[" * 400 + "]" * 400
    reply = ('{"status": "FINDINGS", "findings": [{"severity": "major", "title": "SQL '
             f'injection", "extra": {deep}}}, {{"severity": "critical", "title": "second"}}]}}')
    result = sarp.parse(reply)
    assert result.dialect == "json"
    assert [f.title for f in result.findings] == ["SQL injection", "second"]
    assert (result.findings[0].description or "").startswith("extra: - - - ")



def test_a_deeply_nested_location_keeps_every_finding() -> None:
    # REVIEW13 #17: the same failure as REVIEW12 #17, through the location reader
    deep = "[" * 500 + '"a.py:1"' + "]" * 500
    reply = ('{"status": "FINDINGS", "findings": [{"severity": "major", "title": "SQL '
             f'injection", "location": {deep}}}, {{"severity": "critical", "title": "second"}}]}}')
    result = sarp.parse(reply)
    assert result.dialect == "json"
    assert [f.title for f in result.findings] == ["SQL injection", "second"]



def test_a_long_location_cell_with_no_file_keeps_every_place() -> None:
    # REVIEW14 #13: each later place once looked back over every earlier one for a file
    # (quadratic; parse_bench measures the time)
    from sarp.text.locations import parse_location

    cell = "x, " + ", ".join(str(i % 1000) for i in range(20_000))
    loc = parse_location(cell)
    assert loc is not None and len(loc.extra) == 20_000


@pytest.mark.parametrize(("reply", "status", "codes"), [
    # USER16 #1: an object that is no result is never a conformant CLEAN review
    ("{}", "PARTIAL", ["SARP401"]),
    ('{"not": "a result"}', "PARTIAL", ["SARP401"]),
    ('{"error": "rate limit exceeded", "retry_after": 30}', "ERROR", ["SARP405"]),
    ('{"errorMessage": "tool failed"}', "ERROR", ["SARP405"]),
    # findings with no status: their count decides, and the missing status is said
    ('{"findings": []}', "CLEAN", ["SARP401"]),
    ('{"findings": [{"severity": "major", "title": "x"}]}', "FINDINGS", ["SARP401"]),
    ('{"status": "CLEAN", "summary": "Read a.py.", "findings": []}', "CLEAN", []),
])
def test_an_object_without_a_status(reply: str, status: str, codes: list[str]) -> None:
    result = sarp.parse(reply)
    assert result.dialect == "json" and result.status.value == status
    assert [d.code for d in result.diagnostics if not _schema_gap(d)] == codes
    assert result.conformance.value == ("conformant" if not codes else "repaired")
    if status == "ERROR":
        assert result.summary in ("rate limit exceeded", "tool failed")


@pytest.mark.parametrize(("findings", "count", "codes"), [
    # USER16 #15: words that say there is nothing are no finding
    ('"None found"', 0, ["SARP405", "SARP405"]),
    ('"n/a"', 0, ["SARP405", "SARP405"]),
    ('[""]', 0, ["SARP405"]),
    ('["No issues found."]', 0, ["SARP405"]),
    # REVIEW16 #17
    ('["No vulnerabilities found", "None identified.", "—"]', 0, ["SARP405"] * 3),
    ('"No security issues found in the changed files."', 0, ["SARP405", "SARP405"]),
    ('["a.py:3 leaks the handle"]', 1, ["SARP204"]),
])
def test_findings_that_say_there_are_none(findings: str, count: int, codes: list[str]) -> None:
    result = sarp.parse(f'{{"status": "CLEAN", "findings": {findings}}}')
    assert len(result.findings) == count
    assert [d.code for d in result.diagnostics
            if d.code != "SARP302" and not _schema_gap(d)] == codes


@pytest.mark.parametrize(("reply", "gaps"), [
    # USER16 #16: what the JSON Schema requires and a reply leaves out is said, once per
    # key, so `lint --strict` and the schema agree
    ('{"status": "CLEAN", "summary": "Read a.py.", "findings": []}', []),
    ('{"status": "CLEAN", "findings": []}', ["json reply has no summary"]),
    ('{"status": "FINDINGS", "summary": "s", "findings": [{"severity": "major", "title": "a",'
     ' "location": "a.py:1"}, {"id": "F2", "severity": "minor", "description": "b",'
     ' "location": "a.py:2"}]}',
     ["JSON field findings[0].id: is missing from 1 of 2 finding(s)",
      "JSON field findings[0].description: is missing from 1 of 2 finding(s)"]),
    ('{"status": "FINDINGS", "summary": "s", "findings": [{"description": "a", "location":'
     ' "a.py:1"}, {"description": "b", "location": "a.py:2"}]}',
     ["JSON field findings.id: is missing from 2 of 2 finding(s) ([0], [1])",
      "JSON field findings.severity: is missing from 2 of 2 finding(s) ([0], [1])"]),
])
def test_what_the_schema_requires_is_checked(reply: str, gaps: list[str]) -> None:
    result = sarp.parse(reply)
    assert [d.message for d in result.diagnostics if _schema_gap(d)] == gaps
    assert (result.conformance.value == "conformant") == (not result.diagnostics)


@pytest.mark.parametrize("raw", ["\n", "\t", "\r\n", "\x0c", "\x1b", "\x00"])
def test_raw_control_characters_inside_strings_keep_every_finding(raw: str) -> None:
    # ADV16 #2: one raw newline in a description lost the whole reply ("no JSON object")
    reply = ('{"status": "FINDINGS", "summary": "s", "findings": [{"id": "F1", "severity": '
             f'"critical", "location": "app/db.py:42", "description": "one{raw}two"}}]}}')
    result = sarp.parse(reply)
    assert (result.status.value, len(result.findings)) == ("FINDINGS", 1)
    assert result.findings[0].description == f"one{raw}two".replace("\r\n", "\n")
    assert [d.message for d in result.diagnostics] == [
        "JSON repaired: control characters in strings"]


@pytest.mark.parametrize("depth", [65, 300, 1200, 20_000])
def test_a_value_nested_too_deep_is_cut_and_the_findings_kept(depth: int) -> None:
    # ADV16 #6: past ~990 levels the decoder's recursion lost every finding; from 255 the
    # Result could not be serialised
    deep = "[" * depth + "1" + "]" * depth
    reply = ('{"status": "FINDINGS", "summary": "s", "metrics": {"x": ' + deep + '}, '
             '"findings": [{"id": "F1", "severity": "critical", "location": "a.py:1", '
             '"description": "d"}]}')
    result = sarp.parse(reply)
    assert (result.status.value, len(result.findings)) == ("FINDINGS", 1)
    assert [d.message for d in result.diagnostics] == [
        "JSON repaired: values nested deeper than 64 levels cut"]
    assert len(result.model_dump_json()) > 0


_SQLI = {"title": "SQL injection", "severity": "critical", "location": "app/db.py:42"}


@pytest.mark.parametrize(("shape", "said"), [
    # ADV16 #1: findings under a key no alias names, grouped by severity or in nested
    # lists were kept only in `fields` (or downgraded), and the reply read as CLEAN
    ({"status": "FINDINGS", "vulnerabilities": [_SQLI]}, "key 'vulnerabilities' read as"),
    ({"verdict": "APPROVED", "bugs": [_SQLI]}, "key 'bugs' read as 'findings'"),
    ({"summary": "s", "critical": [{"location": "app/db.py:42", "title": "SQL injection"}]},
     "key 'critical' read as 'findings'"),
    ({"status": "FINDINGS", "findings": [[_SQLI]]}, "holds lists; read as one list"),
    ({"status": "FINDINGS", "findings": {"critical": [
        {"title": "SQL injection", "location": "app/db.py:42"}]}}, "grouped by severity"),
])
def test_findings_anywhere_a_reply_puts_them(shape: dict[str, object], said: str) -> None:
    import json

    result = sarp.parse(json.dumps(shape))
    assert [(f.severity.value, f.title, f.location.raw if f.location else None)
            for f in result.findings] == [("critical", "SQL injection", "app/db.py:42")]
    assert any(said in d.message for d in result.diagnostics)


def test_finding_shaped_objects_under_other_keys_are_kept_and_said() -> None:
    # REVIEW16 #1: passed checks are shaped like findings; only a key that names problems
    # makes them findings, and any other such list keeps the reply from being conformant
    result = sarp.parse('{"status": "CLEAN", "summary": "All checks pass.", "checks": '
                        '[{"title": "SQL injection", "severity": "high", "result": "pass"}]}')
    assert (result.status.value, result.findings) == ("CLEAN", [])
    assert result.conformance.value == "repaired"
    assert [d.message for d in result.diagnostics] == [
        "JSON field checks: holds objects shaped like findings; kept in fields, not read as"
        " findings"]


@pytest.mark.parametrize("error", ['"errors": 0', '"failure": false', '"error": "none"'])
def test_an_error_key_that_says_no_error_is_no_error(error: str) -> None:
    # REVIEW16 #2
    result = sarp.parse('{"summary": "Reviewed.", ' + error + ', "findings": [{"id": "F1", '
                        '"severity": "major", "location": "a.py:3", "description": "d"}]}')
    assert result.status.value == "FINDINGS"


def test_a_list_of_other_objects_is_no_findings() -> None:
    result = sarp.parse('{"status": "CLEAN", "summary": "s", "findings": [], '
                        '"checked": [{"name": "a.py", "ok": true}]}')
    assert (result.status.value, result.findings) == ("CLEAN", [])
    assert result.fields == {"checked": [{"name": "a.py", "ok": True}]}


@pytest.mark.parametrize(("extra", "where", "said"), [
    # ADV16 #17: values sarp cannot use were dropped without a word, and a line number
    # too big for a line was pasted into the path
    ({"confidence": "abc"}, None, "confidence: abc is no confidence"),
    ({"confidence": 500}, None, "confidence: 500 is no confidence"),
    ({"findings": [{"id": "F1", "severity": "major", "description": "d", "file": "app/db.py",
                    "line": 12345678901}]}, ("app/db.py", None),
     "findings[0].line: 12345678901 is no line number"),
])
def test_values_that_say_nothing_usable_are_said(extra: dict[str, object],
                                                 where: tuple[str, None] | None,
                                                 said: str) -> None:
    import json

    result = sarp.parse(json.dumps({"status": "CLEAN", "summary": "s", "findings": [],
                                    **extra}))
    assert any(said in d.message for d in result.diagnostics)
    if where is not None:
        loc = result.findings[0].location
        assert loc is not None and (loc.path, loc.line) == where
