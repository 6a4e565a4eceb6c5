"""Prose shapes met in real replies outside the corpus's dialect folders."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import sarp

SHLEX = Path(__file__).parent / "review_runs" / "shlex"
QS = Path(__file__).parent / "review_runs" / "qs"


def test_numbered_bold_leads_and_nested_items_in_a_plain_review() -> None:
    # `**1. Title (lines 230-238). Medium.**` paragraphs, then `## Nits` with a bullet
    # whose sub-list details it: the author meant 15 findings
    result = sarp.parse((SHLEX / "plain-review.md").read_text())
    meant = json.loads((SHLEX / "plain-review.meaning.json").read_text())["findings"]
    assert result.dialect == "text" and len(result.findings) == len(meant) == 15
    first = result.findings[0]
    assert (first.title, first.native_severity, first.severity.value) == (
        "Non-POSIX mode joins words across a comment (lines 230–238)", "Medium", "major")
    assert result.findings[2].native_severity is None  # no severity said: none invented
    assert result.findings[8].native_severity == "Low"
    last = result.findings[-1]
    assert last.native_severity == "Nit" and "line 243" in (last.description or "")


# The sdd format makes `### Issues` bullets findings; these authors listed only the
# table. Their Issues bullets restate no row (one in shlex merely shared a few words with
# SHX-006 and was once folded into it), so each is a finding of its own.
EXTRA = {("qs", "sdd-review"): 2, ("semver", "sdd-review"): 1, ("shlex", "sdd-review"): 2,
         ("ms", "sdd-review"): 1,  # ms: "upstream test suite not available", an Issue
         ("reprlib", "sdd-review"): 1}  # reprlib: a note on the review's scope, an Issue
RUNS = sorted(p for p in SHLEX.parent.iterdir() if list(p.glob("*.meaning.json")))


@pytest.mark.parametrize("folder", RUNS, ids=lambda p: p.name)
def test_every_review_run_reply_keeps_every_finding(folder: Path) -> None:
    # each reply as its author wrote it, against the findings the author says it holds
    for meaning in sorted(folder.glob("*.meaning.json")):
        name = meaning.name.removesuffix(".meaning.json")
        reply = next(p for p in folder.glob(f"{name}.*") if p != meaning
                     and not p.name.endswith(".prompt.txt"))
        meant = json.loads(meaning.read_text())["findings"]
        found = sarp.parse(reply.read_text()).findings
        assert len(found) == len(meant) + EXTRA.get((folder.name, name), 0), name


SDD_TABLE = """## Reviewer Result

### Status
SUCCESS

### Findings

#### Issues Detected
| ID | Issue | File:Line | Severity | Confidence |
|---|---|---|---|---|
| R-1 | Dispatch by type name picks the wrong handler | a.py:60 | Minor | 90 |

### Issues
"""


@pytest.mark.parametrize(("issue", "findings"), [
    # a restatement: a line naming the row's place, in other words
    ("- Type-name dispatch: `a.py:60` | Severity: minor", 1),
    # a paragraph that names the row's line in passing: another defect at that place
    ("- Shared state leak: the regex at a.py:60 is global and module-level, so when the"
     " loop throws half way through, its lastIndex stays where it stopped and the next"
     " call starts scanning in the middle of the string and misses groups; reset it"
     " before each loop. | Severity: minor", 2),
    # lines that say there is nothing more
    ("- None beyond R-1 in the table.", 1),
    ("- No other issues found.", 1),
    ("- None of the callers check the result: b.py:9 | Severity: minor", 2),
    # REVIEW12 #4: a long line at the row's place that says what the row says
    ("- Type-name dispatch: `repr1()` at a.py:60 picks the handler by the type's name, so a"
     " subclass whose name matches a builtin type's is dispatched to the wrong handler and"
     " printed as if it were the builtin, which hides what the object really holds."
     " | Severity: minor", 1),
    # #5: "nothing more" that goes on to report something
    ("- No other issues found, but the CLI wrapper at cli.py:40 swallows decode errors.", 2),
    ("- None beyond the table, except that `decode()` at b.py:200 never closes its file.", 2),
    ("- Nothing else, apart from the missing test for `header=True` in b.py:150.", 2),
    ("- No other issues, but the docs are stale.", 2),
    # #12: more ways to say there is nothing more
    ("- None — all are covered in the table above.", 1),
    ("- No other problems found.", 1),
    ("- No additional findings.", 1),
    ("- No further concerns.", 1),
    ("- None at this time.", 1),
    ("- None (see table).", 1),
    ("- Nothing blocking.", 1),
    # REVIEW13: sentences that start with None or Nothing report something
    ("- None, empty bytes and `b'='` all decode to `b''` without an error.", 2),
    ("- Nothing (not even a warning) is raised on a line over 76 characters.", 2),
    ("- None-handling: `encodestring(None)` raises `TypeError` deep in `binascii`.", 2),
    ("- None apart from the row above.", 1),
    ("- None beyond the table. | Severity: minor", 1),  # range-parser's sdd review
    # REVIEW14: all is well said after a dash, a comma or in parentheses; a defect after
    # "other than" or "apart from" is reported
    ("- None — the module is in good shape.", 1),
    ("- None, everything checks out.", 1),
    ("- None (the module looks correct).", 1),
    ("- None other than a missing docstring on decode().", 2),
    ("- Nothing else, aside from a stale comment at line 40.", 2),
    # REVIEW15: "nothing more" that goes on in words of its own
    ("- No other issues found in the rest of the module.", 1),
    ("- Nothing further to add.", 1),
    ("- Nothing else to report for this module.", 1),
    ("- No other issues found other than a missing docstring on decode().", 2),
    ("- No other issues other than those in the table.", 1),
    # REVIEW15 #5: what follows "other than" must point straight back at the table; a
    # defect after it is reported, whatever words it uses later on the line
    ("- None, apart from the MD5 comment, which is misleading.", 2),
    ("- No other issues, apart from `ishex` accepting fullwidth digits (not in the table).", 2),
    ("- None other than values above 255 being accepted by `unhex`.", 2),
    ("- None other than a failure to clean up the temp file in `main()`.", 2),
    ("- None other than `encodestring` mis-handling latin1 input.", 2),
    ("- None beyond the table, apart from a missing test for CRLF input.", 2),
    ("- None outside the table; however `decode` never closes its output file.", 2),
    ("- None — values above 255 are accepted.", 2),
    ("- None (the output is not correct for empty input).", 2),
    ("- None other than R-1 above.", 1),
    ("- None beyond R-1 to R-1 in the table.", 1),  # quopri's: `SDD-001 to SDD-010`
    # REVIEW16 #5: a short phrase that ends at the table, or ids in any case and joined
    # by `&`, `/`, `..`, points back at it
    ("- None beyond the seven findings in the table.", 1),
    ("- Nothing beyond the Issues Detected table.", 1),
    ("- None beyond what the table lists.", 1),
    ("- None beyond the above.", 1),
    ("- None except the two rows above.", 1),
    ("- None other than R-1 & R-1.", 1),
    ("- None beyond r-1..r-1 (both in the table).", 1),
    # REVIEW14 #16: a line at the row's place that says it adds to the row is another
    # defect; places listed in parentheses are no such word
    ("- Also: `repr1()` at a.py:60 accepts lowercase type names. | Severity: minor", 2),
    # REVIEW16 #9: "is also affected", "as well" restate; they add no defect
    ("- Type-name dispatch at a.py:60 picks the wrong handler; subclasses are affected as"
     " well | Severity: minor", 1),
    ("- Type-name dispatch: `a.py:60` (also 72, 90) | Severity: minor", 1),
    ("- Another case: dispatch by type name picks the wrong handler for subclasses."
     " | Severity: minor", 2),
    ("- None besides what's in the table.", 1),
    ("- Nothing further — see above.", 1),
    # another rank at the row's place: another defect there, not a restatement
    ("- Type-name dispatch: `repr1()` at a.py:60 picks the handler by the type's name, so a"
     " subclass whose name matches a builtin type's is dispatched to the wrong handler and"
     " printed as if it were the builtin, which hides what the object really holds."
     " | Severity: critical", 2),
])
def test_sdd_issues_lines_restate_add_or_say_none(issue: str, findings: int) -> None:
    result = sarp.parse(SDD_TABLE + issue + "\n")
    assert result.dialect == "sdd" and len(result.findings) == findings


def test_a_plain_review_quoting_an_object_literal_is_not_read_as_json() -> None:
    # minimist's plain review: `## 5. Medium/Low: title` headings, and code samples such
    # as `{ boolean: ['verbose'], ... }` on a line of their own, once read as a JSON reply
    # with no JSON in it (0 of 11 findings kept)
    minimist = SHLEX.parent / "minimist"
    result = sarp.parse((minimist / "plain-review.md").read_text())
    assert result.dialect == "text" and len(result.findings) == 11
    fifth = result.findings[4]
    assert (fifth.native_severity, fifth.severity.value) == ("Medium", "major")
    assert fifth.title == "grouped short flags that end in digits are misparsed (line 200)"


@pytest.mark.parametrize(("text", "dialect"), [
    ('Here it is:\n{"status": "CLEAN", "findings": []}\n', "json"),  # a preamble: still JSON
    ("Here it is:\n{'status': 'CLEAN'}\n", "json"),  # single quotes, repaired later
    ("{status: CLEAN}\n", "json"),  # a reply that opens with `{` is JSON, however loose
    ("We call it so:\n{ boolean: ['v'] }\n", "text"),  # an object literal in prose
    ("\n  {status: CLEAN}", "json"),  # opening with `{` after blank space
    # a reply in a fence, with a comment and a key other than `findings`
    ('```json\n{\n  // review of a.py\n  "issues": [{"severity": "major", "line": 3}]\n}\n```',
     "json"),
    ('Here you go:\n```\n{\n  // a.py\n  "issues": [{"severity": "major"}]\n}\n```', "json"),
    # a sample first, the reply after it
    ('I tried\n{ a: 1 }\nMy result:\n```json\n{"issues": [{"severity": "major"}]}\n```',
     "json"),
    ('A sample:\n```\n{ a: 1 }\n```\nMy result:\n```\n{"status": "CLEAN", "findings": []}\n```',
     "json"),
    # what a review quotes is no reply: JSON samples, an empty object, an HTTP body
    ('## 1. High: pollution (line 3)\n\n{"__proto__": {"polluted": true}}\n', "text"),
    ("## 1. High: pollution (line 3)\n\n{'a': 1}\n", "text"),
    ("## 1. High: pollution (line 3)\n\n{}\n", "text"),
    ('## 1. High: wrong code (line 3)\n\nIt returns\n{"status": 500}\n', "text"),
    # an API's answer, a package.json, a sample with headings after it (REVIEW10)
    ('## 1. High: wrong code (line 3)\n\n```json\n{"status": "error", "message": "x"}\n```\n',
     "text"),
    ('## 1. High: old lodash (package.json:3)\n\n```json\n{"dependencies": {"lodash": "4"}}\n```\n',
     "text"),
    ('## 1. High: local time (line 3)\n\n```\n{"findings": [], "status": "ok"}\n```\n\n'
     '## 2. Low: typo (line 9)\n\nA typo.\n', "text"),
    # the reply first, an example after it
    ('{"status": "FINDINGS", "findings": [{"severity": "major", "title": "x"}]}\n\n'
     'When clean I reply\n\n```json\n{"status": "CLEAN", "findings": []}\n```\n', "json"),
])
def test_which_objects_make_a_reply_json(text: str, dialect: str) -> None:
    result = sarp.parse(text)
    assert result.dialect == dialect
    if text.startswith("## 1."):
        assert len(result.findings) >= 1  # the review's findings are kept
    if text.startswith('{"status": "FINDINGS"'):
        assert len(result.findings) == 1  # the reply's, not the example's


def test_numbered_headings_with_the_severity_at_the_end() -> None:
    # `### 1. title (Medium)` fourteen times, the last `### 14. Nit: title`
    result = sarp.parse((QS / "plain-review.md").read_text())
    meant = json.loads((QS / "plain-review.meaning.json").read_text())["findings"]
    assert len(result.findings) == len(meant) == 14
    first, last = result.findings[0], result.findings[-1]
    assert (first.title, first.native_severity, first.severity.value) == (
        "`interpretNumericEntities` crashes on array or non-string values", "Medium", "major")
    assert "Lines 103–105" in (first.description or "")
    assert (last.native_severity, last.title) == (
        "Nit", "`strictDepth` does nothing when `depth` is 0 or `false`")


@pytest.mark.parametrize(("head", "found"), [
    # numbered: one finding, its title and severity from the heading
    ("### 2. The handle leaks (minor)", [("The handle leaks", "minor")]),
    ("### 2) The handle leaks (Low).", [("The handle leaks", "Low")]),
    # the severity in bold at the end, maybe qualified (cookie's plain review)
    ("## 1. The handle leaks. **Medium (security)**", [("The handle leaks", "Medium")]),
    ("## 3. The handle leaks **Low**", [("The handle leaks", "Low")]),
    # after a dash, and a note on the severity after it (quopri's plain review)
    ("### 2. The handle leaks — **Low**", [("The handle leaks", "Low")]),
    ("### 1. The handle leaks — **Medium** (serious if hit, but rare)",
     [("The handle leaks (serious if hit, but rare)", "Medium")]),
    ("## 3. Handle checks **Green**", [(None, None)] * 2),
    # no number: not a finding head (`Findings (minor)` is a title); its items are findings
    ("### Findings (minor)", [(None, None)] * 2),
    # over a list, it is a severity group: the items are the findings
    ("## 2. Security issues (High)", None),
    # a status or a note is not a rank
    ("### 3. Type check (Red)", [(None, None)] * 2),
    # not a severity word in the parentheses: no finding head (the items that name a
    # place are salvaged on their own, as anywhere in a reply without a protocol)
    ("### 2. The handle leaks (again)", [(None, None)] * 2),
])
def test_a_severity_in_parentheses_ends_a_numbered_finding_heading(
        head: str, found: list[tuple[str | None, str | None]] | None) -> None:
    body = "In the loop the file is never closed.\n\n" if found is not None else ""
    reply = f"# Review\n\n{head}\n\n{body}- a.py:3 - the handle leaks\n" \
            "- b.py:9 - the lock is never released\n"
    result = sarp.parse(reply)
    if found is None:  # a group: both items, at the group's severity
        assert [(f.description, f.native_severity) for f in result.findings] == [
            ("the handle leaks", "High"), ("the lock is never released", "High")]
    else:
        assert [(f.title, f.native_severity) for f in result.findings] == found


BLOCK = """AGENT_RESULT: reviewer
STATUS: conditional
WARNING_COUNT: 2
WARNING_ITEMS:
  - W1: a.py:10 - the cache is never cleared
  - W2: a.py:20 - retries ignore the timeout
NEXT: developer
"""


@pytest.mark.parametrize(("prose", "detail"), [
    ("- W1: `clear()` is never called, so stale keys stay.\n",
     "`clear()` is never called, so stale keys stay."),
    ("**W1 - stale cache (a.py:10).** Keys stay after reload.\nSeen with two loads.\n",
     "stale cache (a.py:10). Keys stay after reload.\nSeen with two loads."),
    ("- **W1 (line 10):** Keys stay after reload.\n", "Keys stay after reload."),
    ("W1 – `a.py:10`: keys stay after reload.\n", "`a.py:10`: keys stay after reload."),
])
def test_an_aphelion_item_takes_the_prose_that_expands_its_id(prose: str, detail: str) -> None:
    # the item line stays the summary (and the lead); what the prose says is added to it
    result = sarp.parse("Evidence, by ID:\n" + prose + "\n" + BLOCK)
    first, second = result.findings
    assert first.title is None
    assert first.description == "the cache is never cleared\n\n" + detail
    assert second.description == "retries ignore the timeout"  # nothing expands W2
    assert len(result.findings) == 2 and not any(d.code == "SARP212" for d in result.diagnostics)


def test_an_aphelion_expansion_stops_at_the_next_item_and_ignores_unknown_ids() -> None:
    prose = ("W2 and W1 came up in the same run.\n\n"  # names an id, expands nothing
              "- W1: keys stay.\n- W9: not an item of the block.\n- a note on W2\n\n")
    result = sarp.parse(prose + BLOCK)
    assert [f.description for f in result.findings] == [
        "the cache is never cleared\n\nkeys stay.", "retries ignore the timeout"]


FRAMELESS = """# Review notes: `mailcap.py`

## High: `test` fields get the wrong arguments (line 188)

`findmatch` substitutes the test command with the caller's filename.

## Low: a bare type is never matched (lines 113-116)

`lookup('text')` finds nothing although the file has it.
"""


@pytest.mark.parametrize(("text", "delivery", "status"), [
    # severity headings in a message with none of the review's frame: read as findings,
    # and a missing `## Summary` is no sign of a cut
    (FRAMELESS, "complete", "FINDINGS"),
    # ... though an abrupt end still is
    (FRAMELESS + "\nOne more thing: the `copiousoutput` flag is read from the wr", "truncated",
     "PARTIAL"),
    # in the review's frame, the Summary is the closing part: without it the reply was cut
    ("# Code Reviewer Review\n\n## Files Reviewed\n- mailcap.py\n\n## Findings\n\n"
     + FRAMELESS.split("\n", 2)[2], "truncated", "PARTIAL"),
])
def test_a_missing_summary_is_a_cut_only_in_the_review_frame(text: str, delivery: str,
                                                             status: str) -> None:
    result = sarp.parse(text)
    assert result.dialect == "adr013" and len(result.findings) == 2
    assert (result.delivery.value, result.status.value) == (delivery, status)
    assert any(d.code == "SARP401" for d in result.diagnostics)


@pytest.mark.parametrize(("tail", "delivery"), [
    # a paragraph led by a code span and a colon is prose: cut mid-sentence, it was cut
    ("`netrc.py:96-97`: dropping the length check means files that used to raise an\n"
     "error now parse without one. That is the intended behaviour, but the docs never",
     "truncated"),
    # `Key: value` lines hold no sentences, so no stop at their end means nothing
    ("Reviewed: netrc.py and shlex.py with the stock test suite and two fuzz runs\n"
     "Outcome: two findings above and nothing else worth raising in this module", "complete"),
    # ... nor does a command's result after its code span (REVIEW10 #16)
    ("`pytest -q tests/`: 214 passed, 0 failed and 3 skipped on Python 3.12 with the network "
     "tests disabled the same way CI runs them", "complete"),
])
def test_how_a_last_paragraph_led_by_a_colon_ends(tail: str, delivery: str) -> None:
    reply = "## Findings\n\n- **minor**: `netrc.py:12` the lexer keeps state.\n\n" + tail
    assert sarp.parse(reply).delivery.value == delivery


BODY = "The loop never closes the file, so each call leaks a descriptor.\n\n"


@pytest.mark.parametrize(("reply", "severities"), [
    # the severity on a line of the body
    ("### 1. File handle leaks in `load()`\n\n**Severity:** Medium\n\n" + BODY
     + "### 2. Lock is never released\n\n**Severity:** Low\n\n" + BODY, ("Medium", "Low")),
    # ... or in its field bullets
    ("### 1. File handle leaks in `load()`\n- **Severity**: High\n- **Location**: a.py:12\n\n"
     + BODY + "### 2. Lock is never released\n- **Severity**: Low\n- **Location**: a.py:40\n",
     ("High", "Low")),
    # at the end of the heading, after a dash
    ("### 1. File handle leaks in `load()` — High\n\n" + BODY
     + "### 2. Lock is never released — Low\n\n" + BODY, ("High", "Low")),
    # as the heading's emoji
    ("### 🔴 File handle leaks in `load()`\n\n" + BODY
     + "### 🟡 Lock is never released\n\n" + BODY, ("🔴", "🟡")),
    ("### 🔴 1. File handle leaks in `load()`\n\n" + BODY
     + "### 🟡 2. Lock is never released\n\n" + BODY, ("🔴", "🟡")),
    # from the severity section the heading is under
    ("## High\n\n### File handle leaks in `load()`\n\n" + BODY
     + "## Low\n\n### Lock is never released\n\n" + BODY, ("High", "Low")),
    # numbered among others and pointing at code: a finding, though unrated
    ("### 1. File handle leaks in `load()`\n\nAt a.py:12. " + BODY
     + "### 2. Lock is never released\n\nSee line 40.\n", (None, None)),
])
def test_plain_review_headings_that_hold_findings(reply: str,
                                                  severities: tuple[str | None, ...]) -> None:
    result = sarp.parse("# Review of a.py\n\n" + reply)
    assert result.dialect == "text"
    assert [(f.title, f.native_severity) for f in result.findings] == [
        ("File handle leaks in `load()`", severities[0]),
        ("Lock is never released", severities[1])]


@pytest.mark.parametrize("reply", [
    # report sections, numbered
    "## 1. Summary\n\nTwo notes at line 3.\n\n## 2. Recommendations\n\nSee line 9.\n",
    # sections that rate nothing and point at nothing
    "## 1. Correctness\n\nThe parser works.\n\n## 2. Style\n\nThe naming is fine.\n",
    # a lone numbered heading
    "## 1. The parser drops a token at line 4\n\nThat is all.\n",
])
def test_plain_review_headings_that_are_not_findings(reply: str) -> None:
    assert sarp.parse("# Review of a.py\n\n" + reply).findings == []


@pytest.mark.parametrize(("reply", "found"), [
    # labelled headings, the severity in the body
    ("#### Finding 1: File handle leaks\nSeverity: High\n\nx.\n\n"
     "#### Finding 2: Lock is never released\nSeverity: Low\n\ny.\n",
     [("File handle leaks", "High"), ("Lock is never released", "Low")]),
    # several fields on one line
    ("### Issue: File handle leaks\n**Severity:** High | **File:** a.py:12\n\nx.\n\n"
     "### Issue: Lock is never released\n**Severity:** Low | **File:** a.py:40\n\ny.\n",
     [("File handle leaks", "High"), ("Lock is never released", "Low")]),
    # a labelled bold lead, its severity after the bold
    ("**Issue 1: File handle leaks** (High)\nx.\n\n**Issue 2: Lock is never released** (Low)\n",
     [("File handle leaks", "High"), ("Lock is never released", "Low")]),
    # numbered bold titles that quote `**` in code, their rank in the parentheses that
    # end them, maybe a range (the worse counts) or with a note (glob's chat review)
    ("**1. `X/**` matches a missing X (medium)**\nx.\n\n"
     "**2. `**` follows symlink loops (medium-high if you glob untrusted trees)**\ny.\n\n"
     "**3. Deep trees raise `RecursionError` (low-medium)**\nz.\n",
     [("`X/**` matches a missing X", "medium"),
      ("`**` follows symlink loops (medium-high if you glob untrusted trees)", "high"),
      ("Deep trees raise `RecursionError`", "medium")]),
    # the rank in parentheses inside the title, places after it (path-to-regexp's chat);
    # a phrase that only starts with a rank word is no rank
    ("**1. ReDoS with 2+ params (high), lines 66-69 + 126.** x.\n\n"
     "**2. `*` is rewritten to `(.*)` (high, it bypasses validation), lines 90-98.** y.\n\n"
     "**3. Mask drops the (high bit set) flag (low)** z.\n",
     [("ReDoS with 2+ params, lines 66-69 + 126", "high"),
      ("`*` is rewritten to `(.*)` (high, it bypasses validation), lines 90-98", "high"),
      ("Mask drops the (high bit set) flag", "low")]),
    # urgency groups
    ("## Blocking\n\n- File handle leaks (a.py:12)\n\n## Non-blocking\n\n"
     "- Lock is never released (a.py:40)\n",
     [(None, "Blocking"), (None, "Non-blocking")]),
    # bold leads with a place and a rank at the end
    ("**File handle leaks** (a.py:12) — High\nx.\n\n**Lock is never released** (a.py:40) — Low\n",
     [("File handle leaks", "High"), ("Lock is never released", "Low")]),
    # numbered bold titles under a slashed group, one saying "fine" only later
    ("**Low / nits**\n\n7. **Exec bit only for `str` targets** (72). `Path` is handled fine "
     "elsewhere.\n8. **A FIFO hangs forever** (139-142).\n",
     [(None, "Low"), (None, "Low")]),
    # design notes as bullets led by bold titles that point at code
    ("## Smaller things\n\n- **`filter` doesn't prune directories (lines 139-142).** Only "
     "children.\n- **Only the owner's execute bit is added (line 73).** Group can't run it.\n",
     [(None, None), (None, None)]),
    # a numbered list of places, one of them called fine
    ("Two problems:\n\n1. File handle leaks (a.py:12).\n2. Lock is never released (line 40).\n"
     "3. The cache at a.py:50 is fine.\n", [(None, None), (None, None)]),
])
def test_more_plain_review_shapes(reply: str, found: list[tuple[str | None, str | None]]) -> None:
    result = sarp.parse("# Review of a.py\n\n" + reply)
    assert [(f.title, f.native_severity) for f in result.findings] == found


@pytest.mark.parametrize(("reply", "found"), [
    # a severity head with no title over a list is a group: its items are the findings
    ("## High/Critical:\n\n- a.py:3 — SQL injection\n- b.py:9 — path traversal\n\n"
     "## Medium/Low:\n\n- c.py:1 — naming is inconsistent\n",
     [("Critical", "SQL injection"), ("Critical", "path traversal"),
      ("Medium", "naming is inconsistent")]),
    ("**High/Critical:**\n\n- a.py:3 — SQL injection\n- b.py:9 — path traversal\n",
     [("Critical", "SQL injection"), ("Critical", "path traversal")]),
    ("### Medium — see below\n\n- a.py:3 — SQL injection\n- b.py:9 — path traversal\n",
     [("Medium", "SQL injection"), ("Medium", "path traversal")]),
    # ... also where the heads make the reply read as adr013
    ("## High:\n\n- a.py:3 — SQL injection\n- b.py:9 — path traversal\n",
     [("High", "SQL injection"), ("High", "path traversal")]),
    # a head whose list is its own fields is one finding
    ("### High:\n- **Location**: a.py:3\n- **Fix**: quote the value\n",
     [("High", None)]),
])
def test_a_severity_head_over_a_list_is_a_group(reply: str,
                                                 found: list[tuple[str, str | None]]) -> None:
    result = sarp.parse("# Review\n\n" + reply)
    assert [(f.native_severity, f.description) for f in result.findings] == found


@pytest.mark.parametrize(("prose", "detail"), [
    # the evidence under a lead: a list, nested steps, a code block
    ("**W1 - stale cache (a.py:10).**\n- Repro: `cache.load()` twice\n- Seen: key `a` remains\n",
     "stale cache (a.py:10).\n- Repro: `cache.load()` twice\n- Seen: key `a` remains"),
    ("- W1: keys stay after reload:\n  - step one\n  - step two\n- W2: the timeout is ignored\n",
     "keys stay after reload:\n- step one\n- step two"),
    ("**W1:** reproduced with\n\n```\n$ python -c 'x'\nKeyError: 'a'\n```\n\nOther prose.\n",
     "reproduced with\n```\n$ python -c 'x'\nKeyError: 'a'\n```"),
    ("**W1** - keys stay after reload.\n", "keys stay after reload."),
])
def test_an_aphelion_expansion_keeps_its_evidence(prose: str, detail: str) -> None:
    first = sarp.parse("Evidence:\n\n" + prose + "\n" + BLOCK).findings[0]
    assert first.description == "the cache is never cleared\n\n" + detail


@pytest.mark.parametrize("prose", [
    "W1 – W2 are both in the cache layer and share one root cause.\n",  # ids, not evidence
    "Resolved since the last round:\n- W1 (fixed): no longer reproduces\n",
    "- W1: fixed in the follow-up PR\n",
    # the block again, in a fence: not prose
    "```\nAGENT_RESULT: reviewer\nWARNING_ITEMS:\n"
    "  - W1: a.py:10 - the cache is never cleared\n```\n",
])
def test_an_aphelion_mention_that_is_no_evidence(prose: str) -> None:
    first = sarp.parse(prose + "\n" + BLOCK).findings[0]
    assert first.description == "the cache is never cleared"


def test_an_aphelion_failed_test_takes_its_expansion() -> None:
    reply = ("- F1: ran `pytest -k reload`; the second load still sees key `a`.\n\n"
             "AGENT_RESULT: tester\nSTATUS: failure\nTOTAL: 3\nPASSED: 2\nFAILED: 1\n"
             "FAILED_TESTS:\n  - F1: tests/test_cache.py::test_reload - stale keys remain\n"
             "NEXT: developer\n")
    [failed] = sarp.parse(reply).findings
    assert failed.description == ("stale keys remain\n\nran `pytest -k reload`; the second "
                                  "load still sees key `a`.")


@pytest.mark.parametrize(("head", "native"), [
    ("## 5. Medium/Low: flags are misparsed (line 200)", "Medium"),
    ("## 5. Low/High: flags are misparsed (line 200)", "High"),  # the worse of the two
])
def test_a_slashed_severity_reads_the_worse(head: str, native: str) -> None:
    [found] = sarp.parse("# Review\n\n" + head + "\n\nThe digits are taken.\n").findings
    assert (found.native_severity, found.title) == (native, "flags are misparsed (line 200)")


@pytest.mark.parametrize(("item", "severity"), [
    ("- the dispatch in repr1 (line 60) goes by the class name. also a bug", "bug"),
    ("- nit: `recursive_repr` never sets `__wrapped__` (lines 26-31)", "nit"),
    ("- Minor: the cache at a.py:50 is rebuilt on every call", "Minor"),
])
def test_a_casual_item_that_names_a_line_and_a_severity(item: str, severity: str) -> None:
    [found] = sarp.parse("Done with it. Couple of things:\n\n" + item + "\n").findings
    assert found.native_severity == severity


def test_a_casual_item_that_calls_itself_fine_is_not_a_finding() -> None:
    reply = "Checked:\n\n- the cache at line 50 is fine, no bug there\n"
    assert sarp.parse(reply).findings == []


APHELION_DRIFT = Path(__file__).parent / "aphelion_drift"


@pytest.mark.parametrize("reply", sorted(APHELION_DRIFT.glob("*.md")), ids=lambda p: p.stem)
def test_aphelion_expansions_from_a_second_reader(reply: Path) -> None:
    # REVIEW10's replies: expansions that start with MD5, SHA1, "Fixed-width" or "Done"
    # are evidence; a failed test keeps its item line as the lead even when the evidence
    # quotes it; a list after a blank line is not the expansion's; each round trips
    result = sarp.parse(reply.read_text(encoding="utf-8"))
    assert result.findings
    for found in result.findings:
        lead, _, more = (found.description or "").partition("\n\n")
        assert lead and more, found.id
        assert "0 failures" not in more and "consistent" not in more
    back = sarp.parse(sarp.render(result, "aphelion"))
    assert [f.description for f in back.findings] == [f.description for f in result.findings]


@pytest.mark.parametrize(("head", "native", "title"), [
    ("### F4 (Low–Medium, performance): `**` lists every file", "Medium",
     "`**` lists every file (performance)"),
    ("### F6 (Low, docs): the docstrings misstate the rule", "Low",
     "the docstrings misstate the rule (docs)"),
    ("### F2 (Medium-High): deep trees raise RecursionError", "High",
     "deep trees raise RecursionError"),
    ("### F3 (Medium): `iglob()` walks the tree eagerly", "Medium",
     "`iglob()` walks the tree eagerly"),
])
def test_an_id_heading_ranks_by_the_words_in_its_parentheses(head: str, native: str,
                                                               title: str) -> None:
    # glob's plain review: `(Low–Medium, performance)` and `(Low, docs)` headings were
    # read as part of the finding before them, two of six findings lost
    reply = ("# Review\n\n### F1 (High): symlink loops are followed\n\nIt never ends.\n\n"
             f"{head}\n\nMeasured on a tree of 10,000 files.\n")
    first, second = sarp.parse(reply).findings
    assert first.title == "symlink loops are followed"
    assert (second.id, second.native_severity, second.title) == (head[4:6], native, title)


def test_aphelion_prose_leads_written_id_dot_title_are_the_items_details() -> None:
    # ms's aphelion review: `**W1. title (index.js:48).**` leads under `## Warnings`, each
    # with a list of evidence; the lists were read as 22 findings of the Warnings group
    reply = ("## Warnings\n\n**W1. The cache is never cleared (a.py:10).**\nKeys stay:\n"
             "- after a reload\n- after `clear()`\n\n**W2. Retries ignore the timeout "
             "(a.py:20).**\nSeen with two loads.\n\n" + BLOCK)
    result = sarp.parse(reply)
    assert [(f.id, f.title) for f in result.findings] == [
        ("W1", "The cache is never cleared (a.py:10)"),
        ("W2", "Retries ignore the timeout (a.py:20)")]
    assert "after a reload" in (result.findings[0].description or "")


# REVIEW12: how a numbered title ranks itself, in bold or as a heading. (title, native
# severity) as read; a rating or a report's section is no finding at all (None).
RANKED_TITLES = [
    # a rank inside code is code
    ("**1. `Priority(high)` tasks starve (medium)**", ("`Priority(high)` tasks starve", "medium")),
    ("**1. `random.randint(low, high)` includes high (medium)**",
     ("`random.randint(low, high)` includes high", "medium")),
    # a range, however it is spaced, reads its worse word
    ("**1. Lock leak (Low – High)**", ("Lock leak", "High")),
    ("**1. Cache grows without bound (low - medium)**", ("Cache grows without bound", "medium")),
    ("**1. Race in refresh (Medium–High)**", ("Race in refresh", "High")),
    ("## 1. Lock leak (Low - Medium)", ("Lock leak", "Medium")),
    ("## 1. Lock leak (Low to Medium)", ("Lock leak", "Medium")),
    # the rank said with its label
    ("**1. SQL injection in search (High severity)**", ("SQL injection in search", "High")),
    ("**1. Weak hash (severity: medium)**", ("Weak hash", "medium")),
    ("## 1. Weak hash (Severity: High)", ("Weak hash", "High")),
    # a note stays in the title as written, code and all
    ("## 2. The handle leaks — **Low** (only when `open()` fails)",
     ("The handle leaks (only when `open()` fails)", "Low")),
    ("## 3. Cache grows (Low, see `evict()`)", ("Cache grows (Low, see `evict()`)", "Low")),
    ("## 4. Lock leak (Low/Medium, perf)", ("Lock leak (Low/Medium, perf)", "Medium")),
    # no dash or colon left at the end of the title
    ("## 1. Lock leak—**High**", ("Lock leak", "High")),
    ("## 2. Race in refresh: (Low)", ("Race in refresh", "Low")),
    ("## 3. Lock leak -- **High**", ("Lock leak", "High")),
    # an id before the title, the rank in parentheses at its end (content-type's plain
    # review lost three of seven findings into the ones before them)
    ("### F2. Whitespace around `;` only allows SP (Low–Medium)",
     ("Whitespace around `;` only allows SP", "Medium")),
    ("### F4. Duplicate parameters resolve last-wins (Medium, risky behaviour)",
     ("Duplicate parameters resolve last-wins (Medium, risky behaviour)", "Medium")),
    # REVIEW13: the note grammar of the bold form (a clause, `priority`)
    ("## 1. Symlink loops hang the walk (High if `recursive=True`)",
     ("Symlink loops hang the walk (High if `recursive=True`)", "High")),
    ("## 5. scandir runs twice (Low priority)", ("scandir runs twice", "Low")),
    # a rating or a section of the report, not a defect, unless its body points at code
    ("## 3. Overall risk (Low, safe to merge)", None),
    ("## 4. Confidence (High, I ran the test suite)", None),
    ("## 5. Recommendations (Medium: do before release)", None),
    ("## 4. Readability (High)", None),  # REVIEW14 #8: good news, whatever the body cites
    ("## 2. Tests (Medium)", ("Tests", "Medium")),
    ("## 3. Performance (Low)", ("Performance", "Low")),
]


@pytest.mark.parametrize(("head", "read"), RANKED_TITLES)
def test_how_a_numbered_title_ranks_itself(head: str, read: tuple[str, str] | None) -> None:
    body = "The cache at cache.py:30 is never trimmed." if read else "All 42 tests pass."
    reply = f"# Review\n\n{head}\n{body}\n"
    found = [(f.title, f.native_severity) for f in sarp.parse(reply).findings]
    assert found == ([read] if read is not None else [])


@pytest.mark.parametrize(("text", "end"), [
    ("**title** rest", 7),
    ("**`X/**` returns X/** (`glob.py:162`)", 19),  # the stars in the span are code
    ("**`a` and `b**`**", 15),
    ("**A lone ` hangs it (high)** see `f()`", 26),  # a backtick that opens no span
    ("**never closed", -1),
])
def test_where_a_bold_span_closes(text: str, end: int) -> None:
    from sarp.text.inline import bold_end

    assert bold_end(text) == end


@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW12 #15: SPEC §4's `**SUGGESTION 1: title** (file:26)` with `**` in code
    ("# Glob Review\n\n## Findings\n\n**IMPORTANT 1: `**` follows symlink loops** "
     "(`glob.py:40`)\n- **Description**: recursion never ends on a cycle.\n\n"
     "**SUGGESTION 1: `X/**` returns X/** (`glob.py:162`)\n- **Description**: the slash "
     "is dropped.\n",
     [("`**` follows symlink loops", "IMPORTANT"), ("`X/**` returns X/", "SUGGESTION")]),
    # #8: a numbered bold title with a `/` is no severity group (`**Low / nits**` is)
    ("# Review\n\n**1. `X/**` returns X/ (medium)**\n- `glob.py:162` strips the slash.\n"
     "- Repro: `glob(\"X/**\")` with no X.\n\n**2. Hidden files skipped (low)**\n"
     "Dotfiles are ignored at glob.py:90.\n",
     [("`X/**` returns X/", "medium"), ("Hidden files skipped", "low")]),
    # #16: a lone backtick in the title, code later on the line
    ("# Review\n\n**1. A lone ` in input hangs the tokenizer (high)** see `tokenize()` at "
     "lexer.py:40.\n\n**2. Slow on long lines (low)**\nlexer.py:90.\n",
     [("A lone ` in input hangs the tokenizer", "high"), ("Slow on long lines", "low")]),
    # a lone star is text too
    ("# Review\n\n**1. Wildcard * is not escaped (medium)**\nSee a.py:3.\n\n"
     "**2. Hidden files skipped (low)**\nb.py:4.\n",
     [("Wildcard * is not escaped", "medium"), ("Hidden files skipped", "low")]),
])
def test_bold_titles_that_quote_stars_or_backticks(reply: str,
                                                   read: list[tuple[str, str]]) -> None:
    assert [(f.title, f.native_severity) for f in sarp.parse(reply).findings] == read


def test_an_sdd_issue_that_opens_with_a_place_is_no_name_and_value() -> None:
    # `at b.py:90 compares`: the colon is the place's, not a `name: description` split
    issue = ("- Type-name dispatch at b.py:90 compares names, not types, so subclasses are "
             "misread | Severity: minor")
    extra = sarp.parse(SDD_TABLE + issue + "\n").findings[-1]
    assert (extra.title, extra.location.raw if extra.location else None) == (None, "b.py:90")
    assert extra.description == issue[2:issue.index(" |")]



@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW13 #3: the text after a numbered bold title on its line starts its description
    ("# Review\n\n**1. Foo matches files (medium)** — see glob.py:130.\n\n"
     "**2. Bar leaks handles (low)** See glob.py:140 for the open call.\nMore text.\n",
     [("Foo matches files", "glob.py:130", "see glob.py:130."),
      ("Bar leaks handles", "glob.py:140", "See glob.py:140 for the open call.\n\nMore text.")]),
])
def test_a_numbered_bold_title_goes_on_on_its_line(reply: str,
                                                   read: list[tuple[str, str, str]]) -> None:
    assert [(f.title, f.location.raw if f.location else None, f.description)
            for f in sarp.parse(reply).findings] == read


@pytest.mark.parametrize(("head", "read"), [
    # REVIEW13 #10: id headings whose parentheses hold a long note, code, or a clause
    ("### F3 (Low–Medium, performance and memory on very large directory trees): scandir "
     "twice", ("F3", "Medium")),
    ("### F7 (Low, see `_iglob(root, pattern)`): the root is joined twice", ("F7", "Low")),
    ("### F8 (High if `recursive=True`): symlink loops never end", ("F8", "High")),
    ("### F6 (docs, Low): the docstring is wrong", ("F6", "Low")),
    ("### F2 (High confidence, Medium severity): scandir runs twice", ("F2", "Medium")),
    # #15: a stop ends only a short id; `CVE-2023-1234.` is part of the title
    ("### HIGH: CVE-2023-1234. Path traversal in tar extraction", ("F2", "HIGH")),
    # #1: a severity group named with its urgency
    ("## High / Must fix\n\n- `glob.py:120`: symlink loops hang the walk.", (None, "High")),
])
def test_id_and_group_heads(head: str, read: tuple[str | None, str]) -> None:
    reply = f"# Review\n\n### F1 (Low): first\nglob.py:10.\n\n{head}\nglob.py:90 is wrong.\n"
    second = sarp.parse(reply).findings[1]
    assert (second.id if read[0] else None, second.native_severity) == read
    if "CVE" in head:
        assert second.title == "CVE-2023-1234. Path traversal in tar extraction"


@pytest.mark.parametrize(("reply", "read"), [
    # string.py's plain review: `### F1 — title (Medium) — lines 216–230`, read as an
    # ADR-013 reply with none of its 12 findings
    ("# Review\n\n**Verdict: changes requested.**\n\n## Formatter\n\n### F1 — Numbering "
     "check misses compound names (Medium) — lines 216–230\n\nIt reuses argument 0.\n\n"
     "### F5 — Unrestricted attribute access (Medium, security) — lines 303–307\n\n"
     "Any attribute chain is followed.\n",
     [("F1", "Medium", "Numbering check misses compound names (lines 216–230)"),
      ("F5", "Medium", "Unrestricted attribute access (Medium, security) (lines 303–307)")]),
    # its Aphelion review: `**W1 (lines 216-230): title.**` leads, 21 findings read of 10
    ("## Warnings\n\n**W1 (lines 10-12): the cache is never cleared.**\nKeys stay:\n"
     "- after a reload\n\n**W2 (line 20): retries ignore the timeout.**\nSeen twice.\n\n"
     + BLOCK,
     [("W1", "WARNING", "the cache is never cleared"),
      ("W2", "WARNING", "retries ignore the timeout")]),
])
def test_ids_with_a_title_and_a_rank_or_a_place(reply: str,
                                                read: list[tuple[str, str, str]]) -> None:
    assert [(f.id, f.native_severity, f.title) for f in sarp.parse(reply).findings] == read


@pytest.mark.parametrize(("item", "kept"), [
    # string.py's chat review: a numbered item that warns of a risk is a finding, though
    # it says "not a bug"
    ("9. **Risk, not a bug: don't run `Formatter` on untrusted strings (lines 296–309).**"
     " `get_field` follows any attribute chain.", True),
    ("9. **`quote()` handles bytes fine, not a bug (lines 296–309).**", False),
])
def test_a_numbered_item_that_warns_is_a_finding(item: str, kept: bool) -> None:
    reply = "Had a look. A few things:\n\n1. **Numbering breaks (line 223).** Wrong output.\n" \
            + item + "\n"
    assert len(sarp.parse(reply).findings) == (2 if kept else 1)



def test_an_aphelion_lead_places_itself_from_its_title_or_its_line() -> None:
    # REVIEW13 #9: no block item names these ids, so the lead's own place is the place
    reply = ("## Warnings\n\n**W1. Bad strings return `undefined` (index.js:48-58).**\n"
             "Any string it can't read.\n\n**W2. Rounding is wrong.** (index.js:113)\n"
             "The unit is picked before rounding.\n")
    found = [(f.id, f.location.raw if f.location else None) for f in sarp.parse(reply).findings]
    assert found == [("W1", "index.js:48-58"), ("W2", "index.js:113")]


def test_an_aphelion_lead_prefers_the_place_its_title_names() -> None:
    # REVIEW15 #7: the text after the bold names other places; the title's is the place,
    # and the separator after the bold is no part of the description
    reply = ("# Review of ms\n\n## Warnings\n\n**W1. `fmtShort` rounds negative values "
             "differently (index.js:48).** Unlike `fmtLong` at index.js:112, it uses "
             "`Math.round`.\n\n**W2: `parse` accepts `1e3ms` (index.js:60)** — compare with "
             "the README example at README.md:30.\n")
    found = [(f.id, f.location.raw if f.location else None, f.description)
             for f in sarp.parse(reply).findings]
    assert found == [
        ("W1", "index.js:48", "Unlike `fmtLong` at index.js:112, it uses `Math.round`."),
        ("W2", "index.js:60", "compare with the README example at README.md:30.")]



@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW14 #4: bold id leads after a finding head open findings of their own
    ("# Review of string.py\n\n## Warnings\n\n**W1 (High): `substitute` fails on `$$`.**\n"
     "string.py:120 reads past the end.\n\n**W2 (lines 216-230): recursion is unbounded.**\n"
     "A nested spec recurses.\n",
     [("W1", "High"), ("W2", None)]),
    # #5: `(Low priority)` is the rank Low; the reply's other ranks keep their scale
    ("# Review\n\n## 1. Symlink loops hang the walk (High)\nglob.py:120.\n\n"
     "## 3. scandir twice (Low priority)\nglob.py:140.\n", [("F1", "High"), ("F2", "Low")]),
    # #7 and #11: a word with digits is no id; a hyphenated id may end with a stop
    ("# Review\n\n## 2. OAuth2: tokens leak (High)\na.py:3 logs them.\n\n"
     "## 3. MD5 — weak hash (Medium)\na.py:9.\n", [("F1", "High"), ("F2", "Medium")]),
    ("# Security review\n\n## High\n\n**SEC-01. Hardcoded secret.** settings.py:12 ships "
     "it.\n\n**SEC-02. Debug enabled.** settings.py:20 sets it.\n",
     [("SEC-01", "High"), ("SEC-02", "High")]),
])
def test_review14_heads(reply: str, read: list[tuple[str, str | None]]) -> None:
    assert [(f.id, f.native_severity) for f in sarp.parse(reply).findings] == read
    if "scandir" in reply:
        assert sarp.parse(reply).findings[0].severity.value == "critical"



@pytest.mark.parametrize(("line", "read"), [
    # REVIEW14 #6: the text after a numbered bold title, parted at its separator only
    ("**1. Bar leaks handles** (High severity): the iterator at glob.py:140 is never closed.",
     ("Bar leaks handles", "High", "glob.py:140",
      "the iterator at glob.py:140 is never closed.")),
    ("**2. Bar two** (Medium, perf): the walk at glob.py:150 stats twice.",
     ("Bar two (Medium, perf)", "Medium", "glob.py:150", "the walk at glob.py:150 stats twice.")),
    ("**3. Flag ignored (low)** --follow-symlinks is ignored by glob.py:160.",
     ("Flag ignored", "low", "glob.py:160", "--follow-symlinks is ignored by glob.py:160.")),
    # the title's own place first
    ("**5. `glob1` mis-reads `[` (glob.py:120) (medium)** — unlike `iglob` at glob.py:300.",
     ("`glob1` mis-reads `[` (glob.py:120)", "medium", "glob.py:120",
      "unlike `iglob` at glob.py:300.")),
])
def test_a_numbered_bold_title_and_the_text_after_it(
        line: str, read: tuple[str, str, str, str]) -> None:
    [found] = sarp.parse("# Review of glob.py\n\n" + line + "\n").findings
    assert (found.title, found.native_severity, found.location.raw if found.location else None,
            found.description) == read


def test_an_id_lead_keeps_a_note_in_its_parentheses_in_the_title() -> None:
    # REVIEW14 #12: `(docs)` is no place; `(lines 120-135)` stays said
    reply = ("# Review of string.py\n\n## Suggestions\n\n**S1 (docs): `capwords` omits "
             "`sep`.**\nstring.py:37.\n\n## High\n\n### W1 (lines 120-135): Symlink loops "
             "hang the walk\nThe walk never terminates.\n")
    assert [(f.id, f.title, f.location.raw if f.location else None)
            for f in sarp.parse(reply).findings] == [
        ("S1", "`capwords` omits `sep` (docs)", "string.py:37"),
        ("W1", "Symlink loops hang the walk (lines 120-135)", None)]



@pytest.mark.parametrize(("head", "read"), [
    # REVIEW14 #10: the rank in the last parentheses that hold one, however it is said
    ("### F1 — Symlink loops hang the walk (High priority) — lines 120-130",
     ("Symlink loops hang the walk (High priority) (lines 120-130)", "High")),
    ("### F2 — Hidden files are listed (P1)", ("Hidden files are listed", "P1")),
    ("### F3 — `Formatter` (pure-Python) — numbering differs (High) — lines 216–230",
     ("`Formatter` (pure-Python) — numbering differs (lines 216–230)", "High")),
    ("### F5 — Attribute access is a risk (Medium, security) — lines 303–307 (and 264)",
     ("Attribute access is a risk (Medium, security) (lines 303–307 (and 264))", "Medium")),
])
def test_an_id_title_and_the_parentheses_that_rank_it(head: str,
                                                      read: tuple[str, str]) -> None:
    reply = f"# Plain review of glob.py\n\n### F0 — First thing (Low)\nglob.py:10.\n\n{head}\n"
    second = sarp.parse(reply).findings[1]
    assert (second.title, second.native_severity) == read


@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW13 #10 / REVIEW14 #10: headings led by a finding id, with no rank in the
    # heading, are findings when their body rates them or points at code
    ("# Review of glob.py\n\n### F1: Symlink loops hang the walk\n**Severity:** High\n"
     "**Location:** glob.py:120\n\nThe walk never ends.\n\n### F2: Hidden files leak\n"
     "**Severity:** Medium\n**Location:** glob.py:130\n\nDotfiles show up.\n",
     [("F1", "High"), ("F2", "Medium")]),
    ("# Plain review of glob.py\n\n### F1 (High): Symlink loops hang the walk\nglob.py:120.\n\n"
     "### F9: The root is joined twice\nglob.py:140 is wrong.\n\n### F11 (Low): last\n"
     "glob.py:200.\n",
     [("F1", "High"), ("F9", None), ("F11", "Low")]),
])
def test_headings_led_by_a_finding_id(reply: str, read: list[tuple[str, str | None]]) -> None:
    assert [(f.id, f.native_severity) for f in sarp.parse(reply).findings] == read



@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW15: a bold id lead outside a group opens a finding only when it names its
    # place; what was checked is no finding
    ("# Review\n\n## What I checked\n\n**T1: the tokenizer handles quotes.** Fine.\n\n"
     "**T2: comments.** Fine.\n", []),
    # textwrap's plain review ended with `### Checked and found OK` among its findings
    ("# Review\n\n### F1. Loop hangs (High)\nglob.py:10 loops.\n\n---\n\n"
     "### Checked and found OK\n\nThe split at line 40 is linear.\n", [("F1", "High")]),
    # a severity group named with a category; hyphenated ids that look like algorithms
    ("# Review\n\n## High / Security\n\n- a.py:3 the token is logged\n"
     "- b.py:9 the key is hard-coded\n", [("F1", "High"), ("F2", "High")]),
    ("# Security review\n\n## High\n\n**TLS-01. Old protocol allowed.** ssl.py:12 allows "
     "TLS 1.0.\n\n**DES-002. Weak cipher.** crypto.py:20 uses DES.\n",
     [("TLS-01", "High"), ("DES-002", "High")]),
])
def test_review15_heads(reply: str, read: list[tuple[str, str | None]]) -> None:
    assert [(f.id, f.native_severity) for f in sarp.parse(reply).findings] == read


@pytest.mark.parametrize(("head", "read"), [
    # a rank said with a doubt or a condition is the rank; a lone numbered heading ranked
    # so was once no finding at all
    ("**1. Walk leaks handles (high?)** — glob.py:140 never closes.",
     ("high", "critical", "Walk leaks handles")),
    ("**1. Walk leaks handles (probably high)** — glob.py:140 never closes.",
     ("high", "critical", "Walk leaks handles")),
    ("**1. Walk leaks handles (medium/high when under load)** — glob.py:140 never closes.",
     ("high", "critical", "Walk leaks handles (medium/high when under load)")),
    ("## 1. Walk leaks handles (High?)\nglob.py:140 never closes.",
     ("High", "critical", "Walk leaks handles")),
    ("### F1 (medium/high when under load): Walk leaks handles\nglob.py:140 never closes.",
     ("high", "critical", "Walk leaks handles (when under load)")),
    ("### 1. Walk leaks handles (Likely Medium)\nglob.py:140 never closes.",
     ("Medium", "major", "Walk leaks handles")),
])
def test_a_rank_said_with_a_doubt(head: str, read: tuple[str, str, str]) -> None:
    reply = f"# Review of glob.py\n\n{head}\n\n**2. Other (Low)** — glob.py:9 x.\n"
    first, second = sarp.parse(reply).findings
    assert (first.native_severity, first.severity.value, first.title) == read
    assert second.native_severity == "Low"


@pytest.mark.parametrize(("header", "rows"), [
    ("| Severity | Findings |", "| Critical | 0 |\n| High | — |\n| Low | **1** |"),
    ("| Severity | Count |", "| Critical | 0 |\n| High | — |\n| Low | **1** |"),
    ("| Level | Issues found |", "| Critical | 0 |\n| High | — |\n| Low | **1** |"),
    # REVIEW16 #3: words that say none, notes in parentheses and id lists are counts too
    ("| Severity | Count | IDs |", "| Critical | None | — |\n| Low | 1 (logging) | F1 |"),
    ("| Severity | Open | Fixed |", "| Critical | n/a | 0 |\n| Low | 1 | 0 |"),
])
def test_a_table_of_counts_is_no_list_of_findings(header: str, rows: str) -> None:
    # USER16 #2: `| Critical | 0 |` under a totals table was a critical finding named "0"
    reply = ("# Review of src/cache.py\n### 1. Unused import (Low)\n`src/cache.py:90` — "
             "`functools` is imported but never used.\n## Totals\n" + header + "\n|---|---|\n"
             + rows + "\n")
    found = sarp.parse(reply).findings
    assert [(f.severity.value, f.title) for f in found] == [("minor", "Unused import")]


@pytest.mark.parametrize("items", [
    # USER16 #6: a P-scale rank leading a list item, bracketed or bare, bold or not
    "1. **[P0]** refund.py:88 — refund amount never checked\n2. **[P2]** refund.py:120 — stale",
    "- **P0** `refund.py:88` refund amount never checked\n- **P2** `refund.py:120` stale",
    "- (P0): refund.py:88 refund amount never checked\n- P2: refund.py:120 stale",
])
def test_p_scale_ranks_leading_list_items(items: str) -> None:
    found = sarp.parse(f"## Review of payments\n{items}\n").findings
    assert [(f.native_severity, f.severity.value, f.location.raw if f.location else None)
            for f in found] == [("P0", "critical", "refund.py:88"),
                                ("P2", "minor", "refund.py:120")]


@pytest.mark.parametrize(("reply", "read"), [
    # REVIEW16 #4: a bare P-rank needs a separator (`P1:`), so a priority used as a noun
    # (`P0 regression is fixed`) is no finding; `P4` is on no scale
    ("### Verified\n- P0 regression from INC-2231 is fixed, see `test_refund.py:3`.\n", []),
    ("### Findings\n- P1: `pay.py:40` retries without an idempotency key.\n",
     [("P1", "pay.py:40")]),
    # #11: `(high under load)` after a heading's title is a measurement, not a rank
    ("### 1. Memory use (high under load)\nThe LRU in `cache.py:40` never evicts.\n\n"
     "### 2. Hit rate (low in staging)\nOnly 12% of lookups hit; see `cache.py:88`.\n",
     [(None, "cache.py:40"), (None, "cache.py:88")]),
])
def test_review16_ranks(reply: str, read: list[tuple[str | None, str]]) -> None:
    found = sarp.parse("## Review of payments\n\n" + reply).findings
    assert [(f.native_severity, f.location.raw if f.location else None) for f in found] == read


def test_a_place_the_title_only_refers_to_comes_after_the_leads_own() -> None:
    # REVIEW16 #21
    reply = ("## Review\n\n### Warnings\n\n**W1. Retry loop (see client.py:90) never backs"
             " off.** (client.py:113-120) The loop spins.\n\n**W2. Same bug as api.py:12, here"
             " in the worker.** (worker.py:44) The worker retries forever.\n")
    assert [f.location.raw for f in sarp.parse(reply).findings if f.location] == [
        "client.py:113-120", "worker.py:44"]
