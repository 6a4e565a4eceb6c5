# Findings written as prose rather than as the dialect's own structure.
#
# Agents write findings in a handful of shapes outside tables:
#   ### CRITICAL: title            ### WARNING W1: title         #### 🔴 High: title
#   **SUGGESTION 1: title** (`file:26`)    **WARNING — title** (`a.py:78-85`)
#   **SEC-1 (CRITICAL) — title**           ### ~~IMPORTANT~~ → RESOLVED: title
#   - [WARNING] a.py:3 — text      ### 3. title (Medium)
#   and severity groups: a line that is only a severity word ("CRITICAL", "### High",
#   "**Warnings (2)**") followed by list items, each item one finding.
# `finding_head_line` reads one line; `read_prose_findings` scans a range and records
# RawFindings (with their bodies) in the Builder. ADR-013, Aphelion's prose before the
# block and the text fallback all use them, so each shape is recognised in one place.
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from sarp.dialects import common
from sarp.dialects.base import Builder, Matcher, RawFinding
from sarp.text.inline import bold_end, heading, key_value, list_item, strip_emphasis
from sarp.text.lines import PLAIN
from sarp.vocab import URGENCY, normalise_word, worse

__all__ = ["SEVERITY_WORDS", "HeadLine", "finding_head_line", "heads_a_group",
           "keep_findings_after", "read_findings_after", "read_prose_findings",
           "severity_group"]

SEVERITY_WORDS: Final = frozenset({
    "critical", "important", "suggestion", "high", "medium", "low", "major", "minor",
    "blocker", "warning", "info", "nit", "note", "error", "red", "yellow", "green",
    "orange", "moderate", "severe", "trivial", "p0", "p1", "p2", "p3", "improvement",
    "removal", "critical issue", "suggestions", "improvements", "removals", "advisory",
    "inconsistency", "warnings", "criticals", "notes", "nits", "blockers", "critical issues",
    "high severity", "medium severity", "low severity", "major issues", "minor issues",
})
# `**Blocking:** text`, `**nitpick:** text`: an urgency word (vocab.URGENCY; read in the
# text fallback only, where no dialect gives the words another sense) heading one finding
_URGENT_HEAD: Final = re.compile(
    r"\**(?P<sev>" + "|".join(map(re.escape, sorted(URGENCY, key=len, reverse=True)))
    + r")(?: \([^()]{1,30}\))?\**\s*:\**\s*(?P<title>[^*\s].*)$", re.IGNORECASE)
# what a severity head says when there is nothing under it: `**Blocking:** none.`
_NOTHING: Final = re.compile(
    r"(?:none|nothing|n/?a|none found|nothing blocking|[-—–]|\d{1,6}(?: (?:issues?|findings?))?)"
    r"[.!]?(?:\s*(?:[—–-]\s.*|\(.*\)))?", re.IGNORECASE)
# `## 5. Medium/Low: title` reads the worse of the two severities
_HEAD: Final = re.compile(
    r"(?:\d{1,6}[.)] )?(?P<pre>[^\w~\[]{0,6})\[?(?P<sev>~~[A-Za-z ]{2,20}~~|[A-Za-z]"
    r"[A-Za-z0-9]{1,14}(?: [A-Za-z]{2,10})?)(?:/(?P<alt>[A-Za-z]{2,14}))?\]?(?: \([^()]{1,40}\))?"
    r"(?: (?P<id>[A-Z]{1,8}-?\d{1,4})| ?#?(?P<num>\d{1,6}))?"
    r"(?P<resolved> ?(?:→|->) ?RESOLVED)? ?(?:[:—–]|-(?= )) ?(?P<title>.*)$"
)
_ID_SEV_HEAD: Final = re.compile(
    rf"(?P<id>{common.ID})(?: ?[:—–-])? ?[(\[]"
    r"(?P<sev>(?:[^()\[\]`]|`[^`\n]{1,80}`){2,160})[)\]] ?(?:[:—–-] ?)?(?P<title>.*)$"
)
# Parentheses that rank a finding: a rank, maybe a second one (a range: the worse word
# counts), maybe a note. The note may quote code with parentheses: `(Low, see `f()`)`.
_RANGE_SEP: Final = r"(?:\s?[-–/]\s?| to )"  # `Low-Medium`, `Low – High`, `low to medium`
_NOTE_TEXT: Final = r"(?:[^()`\n]|`[^`\n]{1,80}`)"
_RANK_LABEL: Final = r"(?:[Ss]everity|[Pp]riority):? "  # `(Severity: High)`
# a rank said with a doubt is still the rank: `(probably High)`, `(high?)`
_HEDGE: Final = r"(?:(?:[Pp]robably|[Ll]ikely|[Pp]ossibly|[Mm]aybe|[Aa]rguably) )?"
_ASKED: Final = r"\??"
# words that open a note on when the rank holds: `(High if …)`, `(medium/high when hot)`
# (not `under`, `in`, `on`, `with`: `### Memory use (high under load)` is a measurement)
_CONDITION: Final = r"(?:if|when|unless|but|because|since|though|as|for|only)"
# what the parentheses of `F4 (Low–Medium, performance): title` hold
_RANK_NOTE: Final = re.compile(
    rf"(?:{_RANK_LABEL})?{_HEDGE}(?P<sev>[A-Za-z]{{2,14}}(?: [A-Za-z]{{2,10}})?){_ASKED}"
    rf"(?:{_RANGE_SEP}(?P<alt>[A-Za-z]{{2,14}}){_ASKED})?(?:(?:[,;:]| (?={_CONDITION} ))"
    rf" ?(?P<note>.{{1,150}}))?$")
# `F1 — High: title`, `F4 — High (when x is used): title`: an id, then the severity
# word (maybe qualified) and a colon or dash
_ID_DASH_SEV_HEAD: Final = re.compile(
    rf"(?P<id>{common.ID}) ?[—–-] ?(?P<sev>[A-Za-z]{{2,14}})(?: \([^()]{{1,80}}\))?(?::| [—–-]) ?"
    r"(?P<title>.+)$")
_ID_THEN_TITLE: Final = re.compile(rf"(?P<id>{common.ID}) ?[—–:-] ?")
_PAREN_NOTE: Final = re.compile(rf" \(({_NOTE_TEXT}{{1,160}})\)")
_PLACE_AFTER: Final = re.compile(r" ?[—–-] ?(.{1,200})")
_BRACKET_HEAD: Final = re.compile(
    r"(?:#?\d{1,6}[.):]?\s)?[\[(](?P<sev>[A-Za-z]{2,14}(?: [A-Za-z]{2,10})?)[\])]\s?[:—–-]?\s?"
    r"(?P<title>.+)$")
# `### 3. A value containing ]= changes the key (Medium)`: a numbered heading with its
# severity in parentheses at the end; read in the text fallback only (a dialect's own
# sections may number a plan the same way), and only with a word that ranks a defect
# (`(Green)`, `(Info)`, `(Note)` annotate ordinary headings)
# (also `## 1. title. **Medium (security)**`: the severity in bold, maybe qualified)
# (and `## 1. title — **Medium** (serious if hit, but rare)`: a dash before it, a note after;
# `## 6. title (Low, performance)`, `## 2. title (Medium-High)`: a note, a range)
_TRAILING_SEV_HEAD: Final = re.compile(
    r"#{2,6} #?\d{1,6}[.):] (?P<title>.{3,}?) ?(?:[—–-]{1,2} ?)?"
    rf"(?:\((?P<paren>(?:{_RANK_LABEL})?{_HEDGE}(?P<sev>[A-Za-z]{{2,14}}(?: [A-Za-z]{{2,10}})?)"
    rf"{_ASKED}(?:{_RANGE_SEP}(?P<alt>[A-Za-z]{{2,14}}){_ASKED})?"
    rf"(?P<said>(?:[,;:]| (?:{_CONDITION}|[—–-])) {_NOTE_TEXT}{{1,120}})?)\)"
    r"|\*\*(?P<bold>[A-Za-z]{2,14})(?: \([^()*]{1,40}\))?\*\*"
    rf"(?: \((?P<note>{_NOTE_TEXT}{{1,200}})\))?)\.?$")
_RANKS: Final = frozenset({
    "critical", "high", "medium", "low", "major", "minor", "important", "nit", "suggestion",
    "trivial", "severe", "moderate", "blocker", "high severity", "medium severity",
    "low severity"})
# `[HIGH] text`, `(minor): text`, `WARNING: text`, `[P0] text`, `P1 text`: a severity
# leading a list item
_BULLET: Final = re.compile(r"[\[(](?P<sev>[A-Za-z]{2,14}|[Pp][0-3])[\])]\s?[:—–-]?\s?"
                            r"|(?P<sev2>[A-Z]{4,14}|(?i:critical|high|medium|low|major|minor|"
                            r"warning|suggestion|info|nit))\s?[:—–]\s?"
                            r"|(?P<sev3>P[0-3])\s?[:—–]\s?")
_REFERRED_PLACE: Final = re.compile(r"\b(?:see|cf\.?|same (?:\w+ )?as|as in|like)\s+`?"
                                    r"[\w./-]{1,200}:\d", re.IGNORECASE)
_BOLD_P_RANK: Final = re.compile(r"\*\*(P[0-3])\*\*\s")
_LOOSE_SEVERITY: Final = re.compile(
    r"(?<![\w-])(critical|blocker|high|major|important|medium|warning|minor|low|nit|"
    r"suggestion|cosmetic|bug|worth fixing|🔴|🟠|🟡|🟢)(?![\w-])", re.IGNORECASE)
_AGENT_SUFFIX: Final = re.compile(
    r"^(?P<title>.+?) (?:—|--|–) (?P<agent>[a-z][a-z0-9-]{2,60})$")
_EMOJI: Final = frozenset("🔴🟠🟡🟢🔵🟣🟤⚪⚫⚠❌🚨💡ℹ❗")
_SEVERITY_EMOJI: Final = frozenset("🔴🟠🟡🟢⚪🔵🟣")
_NOT_GROUPS: Final = frozenset({"note", "notes", "blocker", "blockers", "error", "info"})
_LEADING_ID: Final = re.compile(
    rf"(?P<id>{common.ID})(?: \((?P<where>[^()]{{1,120}})\)(?=[:—–]| -))?"  # `W1 (lines 2-9):`
    r"(?:(?P<sep>\s?[:—–]\s?|\s-\s|\.\s)|\s(?=`)|$)(?P<rest>.*)$")


def _leading_id(text: str) -> re.Match[str] | None:
    """`W1: title`, `SEC-4 — title`, `W1. title`; not `CVE-2023-1234. title` (a stop
    ends only an id in the usual shape)."""
    match = _LEADING_ID.match(text)
    if match is not None and match["sep"] == ". " and (
            not _PLAIN_LEAD_ID.fullmatch(match["id"]) or _NAMED_IDS.match(match["id"])):
        return None
    return match


def _names_a_finding(lead: re.Match[str]) -> bool:
    """A title's leading id is the finding's (`F1. title`, `W1 (lines 2-9): title`), not a
    word with digits (`OAuth2: tokens leak`, `MD5 — weak hash`)."""
    found = lead["id"]
    return common.is_id_like(found) and found.isupper() and _NAMED_IDS.match(found) is None


def _with_where(lead: re.Match[str]) -> str:
    """The title after a leading id, with what the id's parentheses said: `W1 (lines
    120-135): title` -> `title (lines 120-135)`."""
    rest = lead["rest"].strip()
    return f"{rest} ({lead['where']})" if lead["where"] and rest else rest


# identifiers of the world, not of a finding: `PEP8. title`, `RFC7231. title`
# (and of algorithms and protocols: `MD5 — weak hash`, `HTTP2: ...`)
_NAMED_IDS: Final = re.compile(r"(?:CVE|CWE|PEP|RFC|ISO|GHSA)[-_]?\d|(?:BS|UTF|MD|SHA|CRC|TLS|"
                               r"SSL|HTTP|IPV|AES|DES|RSA|ES|PY)\d", re.IGNORECASE)
# the words a plain review labels its findings with: `Finding 1:`, `**Issue 2:**`
_LABELS: Final = "finding|issue|bug|problem|defect|concern"
# `**3. Tokens come out of order (lines 113-117). Medium.**`: a numbered bold paragraph
# the text of a bold span: code spans may hold stars (`**1. `X/**` matches X/ (low)**`);
# a backtick that opens no span is text (`**1. A lone ` hangs it (high)** see `f()`),
# and so is a lone star (`**1. Wildcard * is not escaped (medium)**`)
_BOLD_TEXT: Final = r"(?:[^*`\n]|`[^`\n]{1,200}`|`(?![^`\n]*`)|`(?=[^`\n]*\*\*)|\*(?![*\n]))"
# lead, its severity (if any) said after the title; read in the text fallback only
# (also labelled, `**Issue 2: title** (High)`, its severity then maybe after the bold)
_NUMBERED_LEAD: Final = rf"\*\*(?:(?:{_LABELS}) #?)?(?P<num>\d{{1,6}})[.):] "
_NUMBERED_BOLD_LEAD: Final = re.compile(_NUMBERED_LEAD, re.IGNORECASE)
# the same line once `_bold_text_end` has found where its bold closes (the end of the
# text it is matched in): a title of any length, the regex taking no stack per character
_NUMBERED_BOLD: Final = re.compile(rf"{_NUMBERED_LEAD}(?P<inner>.{{3,}})\*\*", re.IGNORECASE)
_BOLD_TEXT_STOP: Final = re.compile(r"\*\*|[`\n]")


def _numbered_bold(line: str) -> re.Match[str] | None:
    """`**3. title (medium)** text`: the numbered bold lead and the title it closes."""
    lead = _NUMBERED_BOLD_LEAD.match(line)
    if lead is None:
        return None
    close = _bold_text_end(line, lead.end())
    return _NUMBERED_BOLD.match(line, 0, close + 2) if close >= 0 else None


def _bold_text_end(text: str, at: int) -> int:
    """Where `_BOLD_TEXT{3,}\\*\\*` from `at` closes: the index of its `**`, or -1.

    The same as the regex (which kept a stack entry per character, 170 bytes each, so it
    was capped at 400): a code span (a backtick, 1-200 characters, a backtick) is one
    piece, stars in it are code; a backtick with no other after it is text, and so is one
    with `**` before the next; a lone star is text. Where no `**` closes the text, the
    regex backtracks to the last code span that holds `**` and closes there."""
    stop = text.find("\n", at)
    end = len(text) if stop < 0 else stop
    pieces = 0
    fallback = -1  # the `**` in the last code span that holds one, reached with 3 pieces
    i = at
    while i < end:
        found = _BOLD_TEXT_STOP.search(text, i, end)
        special = end if found is None else found.start()
        pieces += special - i  # plain characters and lone stars, one piece each
        i = special
        if i >= end:
            break
        if text[i] == "*":  # `**`: the bold closes, if it holds 3 pieces
            if pieces >= 3:
                return i
            break
        shut = text.find("`", i + 1, end)
        if shut < 0:  # a backtick no other follows: text
            pieces += 1
            i += 1
        elif 1 <= shut - i - 1 <= 200:  # a code span
            stars = text.find("**", i + 1, shut)
            if stars >= 0 and pieces + stars - i >= 3:
                fallback = stars  # the regex's way back: the backtick as text
            pieces += 1
            i = shut + 1
        elif text.find("**", i + 1, shut) >= 0:  # a backtick closed only by the bold
            pieces += 1
            i += 1
        else:
            break
    return fallback


_GROUP_TAIL: Final = re.compile(r"\s?(?:\(\d{1,4}\)|\d{1,4}|:|—.{0,60})\s?$|\s-.{0,60}$")
# the words a reviewer ranks a finding with, as a label after a title or in a list item
_RANK_WORDS: Final = "critical|blocker|high|major|important|medium|minor|low|nit"
# a rank among other words in an id's parentheses: `(docs, Low)`, `(Medium severity)`
_NAMED_RANK: Final = re.compile(rf"\b({_RANK_WORDS}) (?:severity|priority)\b", re.IGNORECASE)
_ANY_RANK: Final = re.compile(rf"(?:^|, |; )({_RANK_WORDS})$", re.IGNORECASE)
_AFTER_BOLD: Final = re.compile(
    rf"\s?(?:[—–-]\s?|\(|\[)?\**({_RANK_WORDS})"
    r"\**(?![\w-])", re.IGNORECASE)  # `(High)`, `— Low —`, `(High severity)`; not `high-level`
# Headings a plain review files its findings under, read in the text fallback only:
# `### 🔴 title`, `### 1. title — High`, `### title` under `## High`, and a run of
# numbered headings (`### 1. title`) whose severity, if any, the body says
_TAIL_RANK: Final = re.compile(
    r"(?P<title>.{3,}?)(?:(?: [—–-] ?)\**(?P<sev>[A-Za-z]{3,10})\**"
    rf"| [\[(]\**(?P<paren>(?:{_RANK_LABEL})?{_HEDGE}(?P<sev2>[A-Za-z]{{3,10}}){_ASKED}"
    rf"(?:{_RANGE_SEP}(?P<alt>[A-Za-z]{{2,14}}){_ASKED})?"
    rf"(?P<said>(?:[,;:]| {_CONDITION}) {_NOTE_TEXT}{{1,120}})?)\**[\])]"
    r"| \*\*(?P<sev3>[A-Za-z]{3,10})\*\*)\.?$")
# what a scorecard rates, not a defect: `### Readability — High`, `## Confidence (High)`
_RATED: Final = re.compile(r"(?:overall |test )?(?:confidence|risk|readability|"
                           r"maintainability|coverage|complexity|quality|priority|effort|"
                           r"performance|security posture|overall)", re.IGNORECASE)
# ratings whose rank is good news, never a defect's
_GOOD_NEWS: Final = re.compile(r"(?:overall |test |my )?(?:confidence|readability|maintainability|"
                               r"quality|code quality|overall|overall assessment)", re.IGNORECASE)
_NUMBER: Final = re.compile(
    rf"#?\d{{1,6}}[.):] |(?:{_LABELS})(?: #?\d{{1,6}})?(?:[.:)]| [—–-]) ?", re.IGNORECASE)
# numbered sections of a report, not findings: `## 1. Summary`, `## 4. Things I checked`
_SECTIONS: Final = re.compile(
    r"(?:summary|overview|overall(?: assessment)?|findings|issues|verdict|recommendations?|"
    r"conclusions?|scope|method(?:ology)?|context|background|next steps?|notes?|appendix|"
    r"references|introduction|approach|strengths|limitations|open questions?|questions|"
    r"nits|minor nits|tl;?dr|root cause|proposed fix|fix|the fix|test plan|testing|tests|"
    r"changes|reproduction|steps to reproduce|repro|what i (?:checked|did|ran|tested)|"
    r"things (?:i checked|that are fine)(?: and are fine)?|checked|verified)"
    r"(?:\s*(?:\([^`]*\)|:(?:\s+[\w'-]+){0,3}))?\W*"
    r"|(?:verdict|recommendation|overall(?: assessment)?|conclusion)\s*:.*", re.IGNORECASE)
# a change summary's headings say what was done, not what is wrong
_CHANGELOG: Final = re.compile(r"(?:fixed|added|changed|removed|updated|refactored|renamed|"
                               r"moved|bumped|implemented)\b", re.IGNORECASE)


def _item_rank(text: str, plain: str) -> tuple[str, str] | None:
    """(rank word, the rest) of a list item a rank leads: `[HIGH] text`, `WARNING: text`,
    `P1: text`, or `**P0** text` (a P-rank alone in bold; bare, it needs a `:`)."""
    bullet = _BULLET.match(plain)
    if bullet is not None:
        return bullet["sev"] or bullet["sev2"] or bullet["sev3"], plain[bullet.end():]
    bold = _BOLD_P_RANK.match(text.lstrip())
    if bold is not None:
        return bold.group(1), strip_emphasis(text.lstrip()[bold.end():])
    return None


def _bare_rank(word: str) -> str:
    """`Low priority`, `High severity` -> the rank word: the reply's scale is read from the
    words it ranks with, and a second word would change it."""
    head, _, tail = word.partition(" ")
    return head if tail.lower() in ("severity", "priority") else word


def _worse_of(word: str, alt: str | None) -> str:
    """`Low/High`, `low-medium`: the worse of the two words, so none is under-reported."""
    return alt if alt and worse(alt, word) else word


def _severity_head(text: str) -> tuple[str, str, bool, str | None] | None:
    """(severity word, title, resolved, id) for `CRITICAL: title` and its variants."""
    match = _HEAD.match(text.strip())
    if match is None:
        return None
    word = _worse_of(match["sev"], match["alt"])
    resolved = bool(match["resolved"]) or word.startswith("~~")
    key = normalise_word(word.strip("~"))
    if key not in SEVERITY_WORDS:
        return None
    pre = match["pre"].strip()
    if pre and not all(ch in _EMOJI or ch in "\ufe0f *_" for ch in pre):
        return None
    severity = word.strip("~")
    if pre:
        severity = f"{pre.replace(' ', '')} {severity}"
    return severity, match["title"].strip().strip("*").strip(), resolved, match["id"]


def _id_severity_head(text: str) -> tuple[str, str, bool, str | None] | None:
    """`SEC-1 (CRITICAL) — title`, `F1 — [High] title`, `F1 — High: title`
    -> (severity, title, False, id)."""
    match = _ID_SEV_HEAD.match(text.strip()) or _ID_DASH_SEV_HEAD.match(text.strip())
    if match is None:
        return None
    title = match["title"].strip().strip("*").strip()
    word, note = _rank_in(match["sev"])
    if word is None:
        return None
    if note:  # what qualifies the rank stays said
        title = f"{title} ({note})"
    return word, title, False, match["id"]


@dataclass(frozen=True, slots=True)
class HeadLine:
    """A line that opens a finding: `### CRITICAL: title` or `**WARNING — title** (loc)`."""

    severity: str
    title: str
    resolved: bool
    form: str  # "heading" (level 3), "a level-N heading", "a bold line", "bullet"
    tail: str  # text after a bold head, often the location
    id: str | None = None

    def finding(self, line: int) -> RawFinding:
        raw = RawFinding(line=line, severity=self.severity, title=self.title or None,
                         id=self.id)
        lead = _leading_id(self.title) if self.title and not self.id else None
        if lead is not None and _names_a_finding(lead):
            raw.id, raw.title = lead["id"], _with_where(lead) or None
        suffix = _AGENT_SUFFIX.match(self.title) if self.title else None
        if suffix is not None:
            raw.title, raw.agent = suffix["title"], suffix["agent"]
        if self.tail:
            raw.location = common.location_in(self.tail)
        if raw.location is None and self.title:
            raw.location = common.location_in(self.title)
        return raw


def _bracket_head(text: str) -> tuple[str, str, bool, str | None] | None:
    """`1. [IMPORTANT] title`, `[HIGH] title`, `(minor) title`."""
    match = _BRACKET_HEAD.match(text.strip())
    if match is None or normalise_word(match["sev"]) not in SEVERITY_WORDS:
        return None
    return match["sev"], match["title"].strip().strip("*").strip(), False, None


def _trailing_head(line: str) -> tuple[HeadLine, str | None] | None:
    """`### 1. title (Medium)` -> its head, and whether its title names a rating of the
    work ("never" a finding: `## 4. Confidence (High)`) or a rated dimension or a report
    section ("unless-code": `## 2. Tests (Medium)`), or None."""
    match = _TRAILING_SEV_HEAD.match(line)
    if match is None:
        return None
    word = _bare_rank(_worse_of(match["sev"], match["alt"]) if match["sev"] else match["bold"])
    if normalise_word(word) not in _RANKS:
        return None
    title = match["title"].strip().strip("*").strip().rstrip(" —–:").removesuffix(" -")
    # a rating of the work (`Confidence (High)`) is never a defect; a rated dimension or a
    # section (`Tests (Medium)`, `Performance (Low)`) is one when its body points at code
    rated = "never" if _GOOD_NEWS.fullmatch(title) else "unless-code" if (
        _RATED.fullmatch(title) is not None or _is_section(title)) else None
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]  # `## 2. title. **Low**`: the stop ends the title sentence
    if match["note"] or match["said"]:  # what qualifies the severity stays said
        title = f"{title} ({match['note'] or match['paren']})"
    return HeadLine(word, title, False, "a numbered heading", ""), rated


def _id_title_rank_head(text: str) -> tuple[str, str, bool, str | None] | None:
    """`F1 — title (Medium) — lines 216–230`: an id, the title, its rank in parentheses,
    maybe a place after it (kept in the title: a line-only place is no location)."""
    text = text.strip()
    head = _ID_THEN_TITLE.match(text)
    if head is None:
        return None
    # the rank is in the last parentheses that hold one (`(pure-Python)` earlier in the
    # title and `(and 264)` in the place after it hold none); they end the title or come
    # before a short place, so a long head is searched at its end only
    start = head.end() + 3 if len(text) <= 1000 else max(head.end() + 3, len(text) - 400)
    for paren in reversed(list(_PAREN_NOTE.finditer(text, start))):
        word, note = _rank_in(paren.group(1))
        after = text[paren.end():]
        place = _PLACE_AFTER.fullmatch(after) if after else None
        if word is None or (after and place is None):
            continue
        title = text[head.end():paren.start()].strip().strip("*").strip()
        if note:  # the parentheses as written: `(Medium, security)`
            title = f"{title} ({paren.group(1)})"
        if place is not None:
            title = f"{title} ({place.group(1).strip()})"
        return word, title, False, head["id"]
    return None


def _rank_in(paren: str) -> tuple[str | None, str | None]:
    """The rank a finding's parentheses say, and what else they say: `High`, `P1`,
    `Low–Medium` (the worse), `Medium, security` (note `security`), `High priority`,
    `docs, Low` (note: all of it); (None, None) when they name no rank."""
    text = paren.strip()
    if normalise_word(text) in SEVERITY_WORDS:
        return text, None
    ranked = _RANK_NOTE.match(text)
    if ranked is not None and normalise_word(ranked["sev"]) in SEVERITY_WORDS and (
            not ranked["alt"] or normalise_word(ranked["alt"]) in SEVERITY_WORDS):
        note = ranked["note"].strip() if ranked["note"] else None
        return _bare_rank(_worse_of(ranked["sev"], ranked["alt"])), note
    named = _NAMED_RANK.search(text) or _ANY_RANK.search(text)
    return (named.group(1), text) if named is not None else (None, None)


def _parse_head(text: str) -> tuple[str, str, bool, str | None] | None:
    return _severity_head(text) or _id_severity_head(text) or _bracket_head(text) \
        or _id_title_rank_head(text)


def finding_head_line(line: str) -> HeadLine | None:
    """Read `line` as the head of a finding, or None."""
    text = line.strip()
    if text and text[0] in _EMOJI:
        # `🔴 **HIGH — SEC-1** (loc)` or `⚪ info — SEC-4 (loc)`: the emoji leads
        emoji = text[0]
        text = text.lstrip("".join(_EMOJI) + "\ufe0f ")
        if text.startswith("**"):
            inner = finding_head_line(text)
            if inner is not None:
                return inner
            parsed = None
        else:
            parsed = None if text.startswith("#") else _parse_head(f"{emoji} {text}")
        if parsed is not None:
            return HeadLine(parsed[0], parsed[1], parsed[2], "an emoji line", "", parsed[3])
        if emoji in _SEVERITY_EMOJI and not text.startswith("#"):
            # `🔴 **glob.py:162 — title.** text`: the emoji is the severity
            plain = strip_emphasis(text)
            if common.location_in(plain):
                return HeadLine(emoji, plain, False, "an emoji line", "")
            return None
    if text.startswith("#"):
        head = heading(text)
        if head is None or head[0] < 2:
            return None
        parsed = _parse_head(head[1])
        if parsed is None:
            return None
        form = "heading" if head[0] == 3 else f"a level-{head[0]} heading"
        return HeadLine(parsed[0], parsed[1], parsed[2], form, "", parsed[3])
    if text.startswith("["):  # `[WARNING] W-001 a.py:3 - text`: a tagged paragraph
        tagged = _bracket_head(text)
        if tagged is None:
            return None
        return HeadLine(tagged[0], tagged[1], False, "a tagged line", "")
    if text.startswith("**"):
        inner_end = bold_end(text)
        if inner_end <= 2:
            return None
        parsed = _parse_head(text[2:inner_end])
        if parsed is None:
            return None
        tail = strip_emphasis(text[inner_end + 2 :]).strip()
        title = parsed[1]
        if not title:
            title = tail.strip(" :—-")
            tail = ""
        return HeadLine(parsed[0], title, parsed[2], "a bold line", tail, parsed[3])
    return None


def severity_group(line: str, *, urgency: bool = False) -> str | None:
    """The severity word of a group head (`CRITICAL`, `### High`, `**Warnings (2)**`);
    with `urgency`, also `## Must fix` and the like (the text fallback)."""
    text = line.strip()
    if len(text) > 72 or not text:
        return None
    head = heading(text)
    if head is not None:
        text = head[1]
    text = strip_emphasis(text).strip()
    if not text or len(text) > 60:
        return None
    text = _GROUP_TAIL.sub("", text).strip(" *:")
    if "/" in text:  # `**Low / nits**`: the worse of the severities it names
        # (not a title quoting code: `**1. `X/**` returns X/ (medium)**`)
        # (each part a severity or an urgency: not `Major/minor version parsing`)
        parts = [w.strip() for w in text.split("/")]
        words = [w for w in parts if normalise_word(w) in SEVERITY_WORDS] if "`" not in text \
            and normalise_word(parts[0]) in SEVERITY_WORDS and all(
                normalise_word(w) in SEVERITY_WORDS or normalise_word(w) in URGENCY
                or len(w.split()) <= 2 for w in parts) else []  # `## High / Security`
        if words:
            text = words[0]
            for word in words[1:]:
                text = word if worse(word, text) else text
    key = normalise_word(text)
    if urgency:
        for suffix in ("", " issues", " findings", " items", " suggestions", " improvements",
                       " changes"):
            if key.endswith(suffix) and key[:len(key) - len(suffix)] in URGENCY:
                return text[:len(text) - len(suffix)] if suffix else text
    if key in SEVERITY_WORDS and key not in _NOT_GROUPS:
        # a group names its members in the plural (`Nits`, `Warnings`); each is one
        if key.endswith("s") and key[:-1] in SEVERITY_WORDS and not key.endswith("ss"):
            return text.rstrip()[:-1]
        return text
    for suffix in (" findings", " issues", " severity", " priority"):
        if key.endswith(suffix) and key[: -len(suffix)] in SEVERITY_WORDS:
            return text[: -len(suffix)]
    return None


def read_prose_findings(b: Builder, start: int, end: int, *, loose: bool = False) -> int:
    """Record prose findings in [start, end); returns how many were read.

    `loose`: also take list items outside any severity group when they name a
    `path:line` place (the text fallback's salvage rule).
    """
    doc = b.doc
    group: str | None = None
    group_level = 0  # the level of the heading that set `group` (0: not a heading)
    runs = _numbered_runs(doc.lines, doc.kinds, doc.headings(), start, end) if loose else {}
    quiet = False  # under `## What I checked`, `## Plan`: numbered lines there are no findings
    hushed_intro = False  # the last prose line introduces a list that checks or plans
    count = 0
    i = start
    while i < end:
        if doc.kinds[i] != PLAIN:
            i += 1
            continue
        line = doc.lines[i]
        stripped = line.strip()
        head = finding_head_line(stripped)
        if head is None and loose:
            head = _urgent_head(stripped)
        if head is None and loose:
            trailing = _trailing_head(stripped)
            head = trailing[0] if trailing is not None else None
            rated = trailing[1] if trailing is not None else None
            if rated == "never" or (rated is not None and _body_says(
                    doc.lines, i, _heading_end(doc.lines, doc.kinds, i, end,
                                               len(stripped) - len(stripped.lstrip("#")))
            ) != "place"):
                head = None  # `## 4. Confidence (High, I ran the tests)`: a rating
            if head is not None and _items_follow(doc.lines, doc.kinds, i + 1, end):
                # `## 2. Security issues (High)` over a list: a severity group, whose items
                # are the findings
                group, head = head.severity, None
                i += 1
                continue
        if head is not None and heads_a_group(head, doc.lines, doc.kinds, i, end):
            group, level = head.severity, heading(stripped)
            group_level = level[0] if level is not None else 0
            i += 1
            continue
        if head is not None and loose and _NOTHING.fullmatch(head.title.strip(" *_")):
            i += 1  # `**High:** none.`: nothing to report under that severity
            continue
        if head is not None:
            if head.resolved:
                b.fields.setdefault("resolved", []).append(
                    {"severity": head.severity, "title": head.title, "line": i + 1})
                b.diag("SARP210", i, title=head.title)
                i += 1
                continue
            i = _add_block(b, head.finding(i), end, loose=loose)
            count += 1
            group = None
            continue
        word = severity_group(stripped, urgency=loose) \
            if not stripped.startswith(("-", "*", "+")) or stripped.startswith("**") else None
        if word is not None:
            group = word
            level = heading(stripped)
            group_level = level[0] if level is not None else 0
            i += 1
            continue
        if stripped.startswith("#"):
            level = heading(stripped)
            found = _heading_finding(doc.lines, doc.kinds, i, end, level, runs,
                                     group if group_level else None, group_level) \
                if loose and level is not None else None
            depth = level[0] if level is not None else 0
            if isinstance(found, RawFinding):
                i = _add_block(b, found, end, _heading_end(doc.lines, doc.kinds, i, end, depth),
                               loose=loose)
                count += 1
                continue
            if found is not None and level is not None:  # a category over a list
                if found != group:
                    group_level = level[0]
                group = found
            else:
                group, group_level = None, 0
            quiet = level is not None and (_QUIET.fullmatch(level[1][:80]) is not None
                                           or _PRAISE.match(level[1][:200]) is not None)
            hushed_intro = False
            i += 1
            continue
        # an id lead opens a finding under a severity group, and in bold anywhere in a
        # plain review (a finding head before it ends at it: `**W2 (lines 216-230): x.**`;
        # around an Aphelion block such a lead expands its item instead)
        lead = _id_lead(stripped) if group is not None or (
            loose and not quiet and stripped.startswith("**")) else None
        if lead is not None and group is None and lead[2] is None:
            lead = None  # outside a group, a bold id lead names its place (`**W2 (a.py:9):`)
        if lead is not None:
            # `**SEC-4 — a.py:3: title.**` or `W1 – a.py:3: text` under `### WARNING`: a
            # finding whose body (bullets included) runs to the next such lead
            raw = RawFinding(line=i, severity=group)
            raw.id, raw.title, raw.location = lead
            # `**W2. title.** (index.js:113) text`: the bold line goes on into the body;
            # the place the title names comes first (REVIEW15 #7)
            tail = stripped[bold_end(stripped) + 2:] if stripped.startswith("**") else ""
            sep = _TAIL_SEP.match(tail)  # always matches: every part of it is optional
            tail = tail[sep.end() if sep is not None else 0:].strip()
            # (a place the title only refers to, `(see client.py:90)`, comes after)
            first, second = (tail, raw.title) if _REFERRED_PLACE.search(raw.title or "") \
                else (raw.title, tail)
            raw.location = raw.location or common.location_in(first) \
                or common.location_in(second)
            i = _add_block(b, raw, end, loose=loose, lead=tail)
            count += 1
            continue
        numbered = _numbered_bold(stripped) if loose else None
        if numbered is not None:
            raw, tail = _numbered_finding(numbered, i)
            i = _add_block(b, raw, end, loose=loose, lead=tail)
            count += 1
            group = None
            continue
        led = (_bold_led_finding(stripped, i) or _labelled_bold(stripped, i)) if loose else None
        if led is not None:  # `**title** (a.py:12) — High`
            i = _add_block(b, led, end, loose=loose)
            count += 1
            continue
        item = list_item(line)
        if item is None and group is not None and _bold_id(stripped):
            item = stripped  # `**CR-001** a.py:3 — text` under a severity heading
        if item is None:
            if loose and group is not None and not group_level and (
                    stripped.startswith("**") or _NOTHING.fullmatch(stripped.strip(" *_"))
                    or _quiet_intro(stripped)):
                # `**Other observations:**`, `Nothing.` or `Things I verified:` ends the
                # bold `**Must fix:**` group
                group = None
            hushed_intro = _quiet_intro(stripped)
            i += 1
            continue
        text, after = _fold(doc.lines, doc.kinds, i, end, item)
        at, i = i, after  # the item starts at `at`; scanning goes on after its last line
        plain = strip_emphasis(text)
        id_first = _id_severity_head(plain)
        if id_first is not None:  # `- DR-001 (INCONSISTENCY) a.py:3 — text`
            _add_item(b, at, id_first[0], f"{id_first[3]}: {id_first[1]}")
            count += 1
            continue
        ranked = _item_rank(text, plain)
        if ranked is not None:
            sev, rest = ranked
            if normalise_word(sev) in SEVERITY_WORDS and not (
                    loose and _NOTHING.fullmatch(rest.strip(" *_"))):
                _add_item(b, at, sev, rest)
                count += 1
                continue
        if group is not None:
            _add_item(b, at, group, text)
            count += 1
        elif loose:
            # Unambiguous enough: an item about a place (it starts with one), or that names
            # a place and a severity word. Also, outside lists that check or plan, one
            # that names a place or a line and does not say it is fine, when it says a
            # severity as a label (`(Medium)`, `also a bug`) or is numbered (a review's
            # numbered list of places is its findings: `1. title (a.py:12). text`).
            place = common.location_in(text)
            said = (_LOOSE_SEVERITY.search(text[:120]) or _LABELLED.search(text)) \
                if place else None
            label = None
            hushed = quiet or hushed_intro
            if place and (said is not None or plain.lstrip("`*_ ").startswith(place)):
                pass  # (the oldest rule: never hushed)
            elif not hushed and (place or _LINE_MENTION.search(text)
                                 or (_ORDERED.match(line) and plain != text.lstrip())) \
                    and not _says_benign(_lead_of(text)):
                # (`7. **Copy path: exec bit for str only** (72)`: a numbered bold title)
                label = _LABELLED.search(text)
                if label is None and _ORDERED.match(line) is None and not _bold_titled(text):
                    continue
            else:
                continue
            spoken = said or label
            word = (spoken.group(1) or spoken.group(2)) if spoken else None
            _add_item(b, at, word, text)
            count += 1
    return count


def _bold_titled(text: str) -> bool:
    """`**`filter` doesn't prune directories (lines 139-142).** text`: an item led by a
    bold title (not a `**Key:** value` field)."""
    end = bold_end(text) if text.startswith("**") else -1
    return end > 2 and not text[2:end].rstrip().endswith(":") and key_value(text) is None


_QUIET_WORDS: Final = re.compile(r"\b(?:i (?:verified|checked)|steps|reproduce|plan)\b",
                                 re.IGNORECASE)


def _quiet_intro(line: str) -> bool:
    """`Steps to reproduce:`, `Things I verified:`: a short line ending in a colon that
    introduces a list that checks or plans."""
    tail = line[-200:].rsplit(". ", 1)[-1]  # the sentence that ends the paragraph
    if len(tail) > 80 or not tail.rstrip("*_ ").endswith(":"):
        return False
    return _QUIET.fullmatch(strip_emphasis(tail).rstrip(" :*_")) is not None \
        or _QUIET_WORDS.search(tail) is not None


# conventional comments: `**issue (blocking):** text`, `**nitpick:** text`
_CONVENTIONAL: Final = re.compile(
    r"\**(?P<label>issue|suggestion|todo|nitpick|chore)(?: \((?P<dec>[^()]{1,30})\))?\**\s*:"
    r"\**\s*(?P<title>[^*\s].{0,500})$", re.IGNORECASE)


def _urgent_head(line: str) -> HeadLine | None:
    """`**Blocking:** text`, `**issue (blocking):** text`: one finding, rated by urgency."""
    urgent = _URGENT_HEAD.match(line)
    if urgent is not None:
        return HeadLine(urgent["sev"], urgent["title"].strip(), False, "a bold line", "")
    comment = _CONVENTIONAL.match(line)
    if comment is None:
        return None
    words = (comment["dec"] or "").lower().replace(" ", "-")
    severity = "non-blocking" if "non-blocking" in words else "blocking" if "blocking" in words \
        else comment["label"]
    return HeadLine(severity, comment["title"].strip(), False, "a bold line", "")


def _lead_of(text: str) -> str:
    """An item's lead: its bold title, else its first sentence (whether it says all is
    fine is judged there: "handles `Path` fine" later in a finding is no verdict)."""
    if text.startswith("**"):
        end = bold_end(text)
        if end > 2:
            return text[2:end]
    cut = text.find(". ")
    return text[:cut] if cut > 0 else text


def heads_a_group(head: HeadLine, lines: list[str], kinds: list[int], i: int,
                  end: int) -> bool:
    """Whether a severity head only introduces the list under it (`## High/Critical:`,
    `### Medium — see below`): a severity group, whose items are the findings."""
    return _GROUP_TITLE.fullmatch(head.title.strip(" :.—–-*")) is not None and head.id is None \
        and _items_follow(lines, kinds, i + 1, end) and not _fields_follow(lines, i + 1, end)


def _numbered_runs(lines: list[str], kinds: list[int], heads: list[int], start: int,
                   end: int) -> dict[int, int]:
    """How many numbered headings that are not report sections each level holds."""
    runs: dict[int, int] = {}
    for i in heads:
        level = heading(lines[i].strip()) if start <= i < end else None
        if level is not None and _counted(level[1]) and not _is_section(level[1]):
            runs[level[0]] = runs.get(level[0], 0) + 1
    return runs


def _counted(text: str) -> bool:
    """A heading that numbers its finding: `### 3. title`, `#### Finding 2: title`, or
    one led by a finding id (`### F1: title`, `### W2. title`)."""
    if _NUMBER.match(text):
        return True
    lead = _leading_id(strip_emphasis(text).strip())
    return lead is not None and bool(lead["sep"]) and bool(lead["rest"].strip()) \
        and _names_a_finding(lead)


def _is_section(text: str) -> bool:
    """`## 1. Summary`, `## Things I checked and are fine`: a report's section by its
    whole title (`Context manager swallows errors` is a finding)."""
    title = strip_emphasis(_NUMBER.sub("", text, count=1)).strip(" *_#:.")
    return _SECTIONS.fullmatch(title) is not None


def _heading_finding(lines: list[str], kinds: list[int], i: int, end: int,
                     level: tuple[int, str], runs: dict[int, int], group: str | None,
                     group_level: int) -> RawFinding | str | None:
    """A heading no dialect rule read, in a plain review: a finding (see `_TAIL_RANK`), or
    the severity word of a category over a list (its items are the findings), or None."""
    depth, text = level
    if depth < 2 or _is_section(text) or _PRAISE.match(text[:200]) is not None:
        return None
    number = _NUMBER.match(text)
    numbered = number is not None or _counted(text)  # `### 3. title`, `### F1: title`
    title = strip_emphasis(text[number.end():] if number else text).strip()
    severity: str | None = None
    if title[:1] in _SEVERITY_EMOJI:  # `### 🔴 title`
        severity, title = title[0], title[1:].lstrip("\ufe0f :—–-")
        numbered = numbered or _NUMBER.match(title) is not None
        title = _NUMBER.sub("", title, count=1) if _NUMBER.match(title) else title  # `🔴 1. x`
        if _is_section(title) or _PRAISE.match(title[:200]) is not None:
            return None  # `## 🟢 Verdict: approve`, `## 🟢 Strengths`
    elif (tail := _TAIL_RANK.fullmatch(title)) is not None and normalise_word(
            word := tail["sev"] or _worse_of(tail["sev2"] or "", tail["alt"]) or tail["sev3"]
    ) in _RANKS and _RATED.fullmatch(tail["title"].strip(" *_")) is None:
        severity, title = word, tail["title"].rstrip(" .:—–-")  # `### 1. title — High`
        if tail["said"]:  # `### F4. title (Medium, risky behaviour)`: the note stays said
            title = f"{title} ({tail['paren']})"
    elif group is not None and depth > group_level:  # `### title` under `## High`
        severity = group
    if _items_follow(lines, kinds, i + 1, end) and not _fields_follow(lines, i + 1, end) \
            and (_items_lead_with_places(lines, kinds, i + 1, end) or len(title.split()) <= 3):
        return severity  # a category over a list (`## 🟡 Worth considering`)
    if _findings_below(lines, kinds, i, end, depth, runs):
        return None  # a section whose own headings are the findings
    if severity is None:
        # numbered among others and pointing at code, or rated in its body; not a change
        # summary's `### 1. Fixed the off-by-one`, nor a section that finds nothing
        says = _body_says(lines, i, _heading_end(lines, kinds, i, end, depth))
        if not numbered or says is None or _CHANGELOG.match(title) is not None \
                or (says != "severity" and runs.get(depth, 0) < 2):
            return None
    if not title:
        return None
    raw = RawFinding(line=i, severity=severity, title=title)
    lead = _leading_id(title)
    if lead is not None and lead["sep"] and lead["rest"].strip() and _names_a_finding(lead):
        raw.id, raw.title = lead["id"], _with_where(lead)  # `### F1. title (Medium)`
    raw.location = common.location_in(title)
    return raw


# the title of a severity head that only introduces a list: ``, `see below`, `(3)`
_GROUP_TITLE: Final = re.compile(r"|(?:see )?below|\(?\d{1,4}\)?(?: (?:issues?|findings?|items?))?",
                                 re.IGNORECASE)
_ORDERED: Final = re.compile(r"[ \t]*\d{1,3}[.)][ \t]")
# sections of a plain review that list what is right, not what is wrong
_PRAISE: Final = re.compile(r"\W*(?:\d{1,3}[.)] )?(?:strengths?|positives?|what works|"
                            r"what i like|(?:what |things that )?(?:looks?|looked) good|"
                            r"(?:what|things that) (?:is|are|looks?|seems?) fine|good parts|"
                            r"praise|kudos|well done|no issues|"
                            r"checked and (?:found )?(?:fine|ok|okay|correct|sound))\b",
                            re.IGNORECASE)
# "Risk, not a bug: ..." warns all the same
_RISKY: Final = re.compile(
    r"(?<![\w-])(?:risk|risky|unsafe|dangerous|danger|trap|footgun)(?![\w-])", re.IGNORECASE)


_NO_RISK: Final = re.compile(r"(?<![\w-])(?:no|not|without|low|little)(?: [\w-]{1,30}){0,2} "
                            r"(?:risk|danger)", re.IGNORECASE)


def _says_benign(lead: str) -> bool:
    """An item's lead says all is well (`handles `Path` fine`), and warns of nothing
    ("Risk, not a bug: ..." warns; "no injection risk" does not)."""
    return _BENIGN.search(lead) is not None and (
        _RISKY.search(lead) is None or _NO_RISK.search(lead) is not None)


# a section body or an item that says all is well
_ALL_WELL: Final = re.compile(r"(?<![\w-])(?:(?:this|it|that) (?:is|was|looks) (?:correct|fine|"
                              r"right|ok)|no (?:issues?|problems?|bugs?) (?:found|here|there)|"
                              r"works (?:as intended|correctly|fine))(?![\w-])", re.IGNORECASE)
_BENIGN: Final = re.compile(r"(?<![\w-])(?<!not )(?<!n't )(?:fine|looks good|ok|okay|correct|"
                            r"as intended|not an? (?:issue|bug|problem)|no (?:issue|bug|problem)s?)"
                            r"(?![\w-])", re.IGNORECASE)
# lists that check, plan or reproduce (their numbered items and lines are no findings), by
# the whole heading or the short line ending in `:` that introduces them
_QUIET: Final = re.compile(
    r"\W*(?:what i (?:checked|verified|ran|tested|did|looked at)|things i (?:checked|verified)|"
    r"checked|verified|(?:test )?plan|(?:suggested )?(?:fix )?plan|steps(?: to reproduce)?|"
    r"to reproduce|repro(?:duction)?|tl;?dr|summary|to ?do|next steps?)\W*", re.IGNORECASE)
# a severity an item says as a label (`(High)`, `— Low`, `Minor:`), or that it is a bug
_LABELLED: Final = re.compile(rf"(?:^|(?<=[.!?;,] )|[(\[]|[—–-] |\*\*)({_RANK_WORDS}|cosmetic|"
                              r"trivial)"
                              r"(?:[)\]:.,;]|\*\*|$| (?:priority|severity|impact|risk)\b)"
                              r"|(?<![\w-])(?<!no )(?<!not a )(bug)(?![\w-])",
                              re.IGNORECASE | re.MULTILINE)
_LINE_MENTION: Final = re.compile(r"\b(?:[Ll]ines?|L)\s?\d{1,6}\b")


def read_findings_after(b: Builder, start: int, part: str) -> None:
    """Findings written after the reply's closing `part` (`### CRITICAL: title` after a
    JSON object) are the reply's all the same (ADV16 #4); see `keep_findings_after`."""
    count, said = len(b.findings), len(b.diagnostics)
    read_prose_findings(b, start, len(b.doc.lines))
    keep_findings_after(b, count, said, part)


# what a head after a closing part gives when it is a count: `### CRITICAL: 0`, `2 (fixed)`
_COUNT_ONLY: Final = re.compile(r"\d{1,6}(?:\s*(?:\(.*\)|[—–-].*))?")


def keep_findings_after(b: Builder, count: int, diags: int, part: str) -> None:
    """Of the findings read from `count` on (and the diagnostics from `diags` on), written
    after the reply's closing `part`, keep (and say, SARP216) those that are findings:
    under a heading or naming a place (`**Note:** I did not run the tests` is a remark,
    `- none` under `**High:**` says nothing), not a count (`### CRITICAL: 0`), and not
    restating a finding read before (its id, its place or its title: a recap). What was
    said of a line that is no finding goes with it."""
    known, late = b.findings[:count], b.findings[count:]
    del b.findings[count:]
    matcher = Matcher(known)
    titles = {raw.title.lower() for raw in known if raw.title}
    dropped: set[int] = set()
    for raw in late:
        what = raw.title or raw.description or raw.location or ""
        if (raw.location or b.doc.lines[raw.line].lstrip().startswith("#")) and \
                _COUNT_ONLY.fullmatch(what) is None and what.lower() not in titles and \
                matcher.find(raw) is None:
            b.diag("SARP216", raw.line, what=f"finding {what!r}", part=part)
            b.findings.append(raw)
        else:
            dropped.add(raw.line + 1)  # diagnostics count lines from 1
    b.diagnostics[diags:] = [d for d in b.diagnostics[diags:] if d.line not in dropped]


def _body_says(lines: list[str], i: int, end: int) -> str | None:
    """What a heading's section [i, end) says: "severity" (a `Severity:`
    field), "place" (it names a line or a `path:line`), or None (nothing, or only that
    all is well: `This is correct.`, `No issues found.`)."""
    place = False
    for k in range(i, end):
        line = lines[k]
        pair = key_value(list_item(line) or line.strip())
        if pair is not None and pair[0].lower() == "severity":
            return "severity"
        if k > i and _ALL_WELL.search(line) is not None:
            return None
        place = place or bool(_LINE_MENTION.search(line) or common.location_in(line))
    return "place" if place else None


def _findings_below(lines: list[str], kinds: list[int], i: int, end: int, depth: int,
                    runs: dict[int, int]) -> bool:
    """Whether a deeper heading that is itself a finding head (numbered among others, or
    rated) comes before the next heading of this level or higher."""
    for k in range(i + 1, end):
        if kinds[k] != PLAIN or lines[k][:1] != "#":
            continue
        below = heading(lines[k].strip())
        if below is None:
            continue
        if below[0] <= depth:
            return False
        title = strip_emphasis(below[1]).strip()
        if (_NUMBER.match(title) and runs.get(below[0], 0) >= 2) or title[:1] in _SEVERITY_EMOJI \
                or finding_head_line(lines[k].strip()) is not None:
            return True
    return False


def _heading_end(lines: list[str], kinds: list[int], i: int, end: int, depth: int) -> int:
    """A heading finding's body runs to the next heading of its level or higher: its own
    `#### Details` and `#### Fix` are part of it."""
    for k in range(i + 1, end):
        if kinds[k] == PLAIN and lines[k][:1] == "#":
            below = heading(lines[k].strip())
            if below is not None and below[0] <= depth:
                return k
    return end


def _items_lead_with_places(lines: list[str], kinds: list[int], start: int, end: int) -> bool:
    """Whether most of the (two or more) items of the list under a heading are findings
    themselves: they lead with a place or a severity (`- `a.py:42` — text`), not with
    what one finding says."""
    items = leading = 0
    for k in range(start, min(end, start + 200)):
        if kinds[k] != PLAIN or not lines[k].strip():
            if items:
                break
            continue
        if lines[k][:1] == "#":
            break
        item = list_item(lines[k])
        if item is None or lines[k][:1] in (" ", "\t"):
            continue
        items += 1
        plain = strip_emphasis(item).lstrip("`*_ ")
        place = common.location_in(item)
        if (place and plain.startswith(place)) or _BULLET.match(strip_emphasis(item)):
            leading += 1
    return items >= 2 and 2 * leading > items


def _fields_follow(lines: list[str], start: int, end: int) -> bool:
    """Whether the list under a heading opens with a finding's field (`- **Severity**: x`)."""
    for k in range(start, end):
        if lines[k].strip():
            item = list_item(lines[k])
            pair = key_value(item) if item is not None else None
            return pair is not None and pair[0].lower() in common.DETAIL_KEYS
    return False


def _items_follow(lines: list[str], kinds: list[int], start: int, end: int) -> bool:
    """Whether the first text after a heading is a list item."""
    for i in range(start, end):
        if lines[i].strip():
            return kinds[i] == PLAIN and list_item(lines[i]) is not None
    return False


def _add_block(b: Builder, raw: RawFinding, end: int, stop: int | None = None, *,
               loose: bool = False, lead: str = "") -> int:
    """Record `raw` with the body under its head line (to `stop`, else the next head),
    after `lead`, the text its head line goes on with; returns where the next block
    starts."""
    stop = _next_head(b, raw.line, end, loose) if stop is None else stop
    common.read_body(b, raw, raw.line + 1, stop)
    if lead:
        raw.description = f"{lead}\n\n{raw.description}" if raw.description else lead
    raw.location = raw.location or common.location_in(raw.description)
    b.add(raw)
    return stop


# what follows a bold title (closed where `_bold_text_end` says): a place, then the rank
_BOLD_LEAD_TAIL: Final = re.compile(
    r"\*\*(?P<rest>.{0,200}?)(?: [—–-] ?|\s[(\[])\**(?P<sev>[A-Za-z]{3,10})\**[)\]]?\.?$")


_LABEL_BOLD: Final = re.compile(
    rf"\*\*(?:{_LABELS}) #?\d{{1,6}}[.:)]?\*\*:? (?P<title>.{{3,}}?)"
    r"(?: ?\((?P<sev>[A-Za-z]{3,10})\))?\.?$", re.IGNORECASE)


def _labelled_bold(line: str, at: int) -> RawFinding | None:
    """`**Issue 1:** title (High)`: the label bold, the title after it."""
    match = _LABEL_BOLD.match(line)
    if match is None:
        return None
    word = match["sev"] if match["sev"] and normalise_word(match["sev"]) in _RANKS else None
    title = match["title"] if word or not match["sev"] else f"{match['title']} ({match['sev']})"
    raw = RawFinding(line=at, severity=word, title=title.strip())
    raw.location = common.location_in(title)
    return raw


def _bold_led_finding(line: str, at: int) -> RawFinding | None:
    """`**title** (a.py:12) — High`: a bold title, a place, and a rank at the end."""
    close = _bold_text_end(line, 2) if line.startswith("**") else -1
    match = _BOLD_LEAD_TAIL.match(line, close) if close >= 0 else None
    if match is None or normalise_word(match["sev"]) not in _RANKS:
        return None
    title = line[2:close]
    place = common.location_in(match["rest"]) or common.location_in(title)
    if place is None and _LINE_MENTION.search(line) is None:
        return None
    raw = RawFinding(line=at, severity=match["sev"], title=title.strip().rstrip("."))
    raw.location = place
    return raw


def _numbered_finding(match: re.Match[str], line: int) -> tuple[RawFinding, str]:
    """The finding a numbered bold title opens, and the text after the bold on its line
    (`**1. title (medium)** — see glob.py:130.`: the start of its description)."""
    raw, after = _numbered_head(match, line)
    rest = match.string[after:]
    sep = _TAIL_SEP.match(rest)  # always matches: every part of it is optional
    tail = rest[sep.end() if sep is not None else 0:].strip()
    raw.location = common.location_in(raw.title) or (common.location_in(tail) if tail else None)
    return raw, tail


# what parts a bold title from the text after it: `) — `, `: `, `. ` (not `--flag`)
_TAIL_SEP: Final = re.compile(r"\s*[)\]]?\s*(?:[:—–.]|-(?=\s))?\s*")


def _numbered_head(match: re.Match[str], line: int) -> tuple[RawFinding, int]:
    inner = match["inner"].strip()
    # a rank inside code is code (`Priority(high)`, `randint(low, high)`): the search
    # reads the title with code spans blanked, so its positions are the title's
    noted = _NOTED_RANK.search(_CODE_SPAN.sub(_blank, inner))
    if noted is not None:  # `title (medium)`, `title (low-medium)`, `title (high if ...)`
        word = _worse_of(noted["sev"], noted["alt"])
        # the parentheses go with the rank; a note in them stays in the title
        title = inner if noted["note"] else inner[:noted.start()] + inner[noted.end():]
        return RawFinding(line=line, severity=word, title=title.strip().rstrip(".")), \
            match.end()
    # the severity follows the title: after its closing parenthesis, or its first
    # sentence; a word inside the title ("the high bit") is not a severity
    cut = inner.rfind(")")
    cut = cut if cut >= 0 else inner.find(". ")
    said = _LOOSE_SEVERITY.search(inner[cut + 1:]) if cut >= 0 else None
    title = inner[:cut + 1].strip() if said is not None else inner
    after = match.end()
    if said is None:  # `**Issue 2: title** (High)`: right after the bold
        said = _AFTER_BOLD.match(match.string, match.end())
        after = said.end() if said is not None else after
        rank_at = said.start(1) if said is not None else -1
        opened = rank_at >= 0 and "(" in match.string[match.end():rank_at]
        close = match.string.find(")", after, after + 120) if opened else -1
        if close >= 0:  # `** (High severity): text`, `** (Medium, perf): text`
            note = match.string[after:close].strip(" ,;:")
            if note and note.lower() not in ("severity", "priority"):
                title = f"{title} ({match.string[rank_at:close]})"
            after = close + 1
    raw = RawFinding(line=line, severity=said.group(1) if said else None)
    raw.title = title.rstrip(".")
    return raw, after


# a rank in parentheses in a bold title, maybe two (the worse counts) and a note:
# `(medium)`, `(low-medium)`, `(high, it bypasses validation)`, `(high if ...)`; not a
# phrase that starts with a rank word, `(high bit set)`
_NOTED_RANK: Final = re.compile(
    rf" ?\((?:{_RANK_LABEL})?{_HEDGE}(?P<sev>{_RANK_WORDS})(?: severity| priority)?{_ASKED}"
    rf"(?:{_RANGE_SEP}(?P<alt>{_RANK_WORDS}){_ASKED})?"
    rf"(?P<note>[,;:] {_NOTE_TEXT}{{1,120}}| (?:{_CONDITION}|[—–-]) {_NOTE_TEXT}{{1,120}})?\)",
    re.IGNORECASE)
_CODE_SPAN: Final = re.compile(r"`[^`\n]{1,200}`")


def _blank(span: re.Match[str]) -> str:
    return "`" + "_" * (len(span.group(0)) - 2) + "`"


# a plain (not bold) paragraph lead needs an id in the usual shape: W1, SEC-3, CR_12
_PLAIN_LEAD_ID: Final = re.compile(r"[A-Z]{1,5}[-_]?\d{1,4}")


def _id_lead(line: str) -> tuple[str, str, str | None] | None:
    """(id, title, place) of a paragraph led by an id: `**SEC-4 — title**`,
    `W1 – a.py:3: text` (the place that leads the title is the finding's location)."""
    if line.startswith("**"):
        close = bold_end(line)
        if close <= 2:
            return None
        lead = line[2:close].strip()
    elif line[:1].isalpha() and list_item(line) is None:
        lead = line
    else:
        return None
    match = _leading_id(lead)
    if match is not None and lead is line and (
            not match["sep"] or _PLAIN_LEAD_ID.fullmatch(match["id"]) is None):
        return None  # a plain paragraph needs `W1:` or `W1 –`, not "F1 is" or "OAuth2:"
    if match is None or not match["rest"].strip() or not common.is_id_like(match["id"]):
        return None
    title, place = _after_places(match["rest"].strip())
    where = match["where"]
    title = title.rstrip(".")
    if where and place is None and (common.location_in(where) or _LINE_MENTION.search(where)):
        place = where  # `**W1 (lines 216-230): title.**`
    elif where:  # `**S1 (docs): title**`: a note, said with the title
        title = f"{title} ({where})"
    return match["id"], title, place


def _after_places(text: str) -> tuple[str, str | None]:
    """`a.py:3`, `a.py:9`: title` -> (`title`, `a.py:3`): places lead, the title follows."""
    rest, first = text, None
    while True:
        place = common.location_in(rest)
        bare = rest.lstrip("` ")
        if not place or not bare.startswith(place):
            return (rest, first) if rest else (text, first)
        first = first or place
        rest = bare[len(place):].lstrip("`").lstrip(",:—–- ")


def _bold_id(line: str) -> bool:
    """The line opens with a bold finding id: `**CR-001**` or `**CR-001:**`."""
    if not line.startswith("**"):
        return False
    close = bold_end(line)
    return close > 2 and common.is_id_like(line[2:close].rstrip(":").strip())


def _fold(lines: list[str], kinds: list[int], i: int, end: int, first: str) -> tuple[str, int]:
    """A list item with its indented continuation lines; returns (text, next index)."""
    parts = [first.strip()]
    indent = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    # continuation lines and nested items (`- Dead code:` then `  - line 127: ...`) are
    # all part of the item: a sub-list details one finding, it does not add findings
    while j < end and kinds[j] == PLAIN and lines[j].startswith(("  ", "\t")) and \
            lines[j].strip() and (list_item(lines[j]) is None or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent):
        parts.append(lines[j].strip())
        j += 1
    return " ".join(parts), j


def _add_item(b: Builder, line: int, severity: str | None, text: str) -> None:
    raw = RawFinding(line=line, severity=severity)
    body = strip_emphasis(text)
    ident = common.item_id(body)
    if ident is not None and common.is_id_like(ident[0]):
        raw.id, body = ident
    raw.location = common.location_in(body)
    if raw.location and body.lstrip("` ").startswith(raw.location):
        # `a.py:3` — text: the place is the location, the rest is the description
        rest = body.lstrip("` ")[len(raw.location) :].lstrip("` ")
        body = rest.lstrip(":—–- ") or body
    raw.description = body
    b.add(raw)


_FIELD_LABELS: Final = frozenset({"suggestion", "fix", "impact", "recommendation",
                                   "suggested fix", "note"})


def _field_label(line: str) -> bool:
    """`**Suggestion:** text`, `**Fix**: text`: a labelled part of the finding above."""
    if not line.startswith("**"):
        return False
    close = bold_end(line)
    if close <= 2:
        return False
    label = line[2:close].strip()
    if label.endswith(":"):
        label = label[:-1]
    elif not line[close + 2:].lstrip().startswith(":"):
        return False
    return label.strip().lower() in _FIELD_LABELS


def _next_head(b: Builder, start: int, end: int, loose: bool = False) -> int:
    doc = b.doc
    for i in range(start + 1, end):
        if doc.kinds[i] != PLAIN:
            continue
        line = doc.lines[i].strip()
        if _field_label(line):
            continue  # `**Suggestion:** do x` inside a finding is its fix, not a new finding
        if line.startswith("#") or finding_head_line(line) is not None or \
                _id_lead(line) is not None or (
                severity_group(line) is not None and not line.startswith(("- ", "* "))):
            return i
        if "AGENT_RESULT" in line or _numbered_bold(line) or (
                loose and line.startswith("**") and (_bold_led_finding(line, i) is not None
                                                     or _LABEL_BOLD.match(line) is not None
                                                     or _urgent_head(line) is not None)):
            return i
    return end
