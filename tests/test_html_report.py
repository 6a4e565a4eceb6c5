"""The HTML report: self-contained, every agent string escaped, and (in a real headless
Chromium) it renders, sorts, filters, and runs nothing an agent wrote."""
from __future__ import annotations

import base64
import hashlib
import re
import shutil
from collections.abc import Iterator
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import sarp
from sarp.aggregation import Report, aggregate
from sarp.model import Conformance, Finding, Location, Result, Severity, Status, build
from sarp.renderers import html

SHLEX = Path(__file__).parent / "review_runs" / "shlex"
CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"

HOSTILE = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=2">',
    '"><svg onload=window.__pwned=3>',
    "</td></tr></table><script>window.__pwned=4</script>",
    "javascript:window.__pwned=5",
    "</title></style><iframe srcdoc='<script>parent.__pwned=7</script>'>",
    "<!-- --><a href=https://example.invalid/x>click</a>",
]
HOSTILE_AGENT = "<img src=x onerror=window.__pwned=6>"
HOSTILE_ID = 'evil"<b>.md'


def hostile_finding(k: int, text: str, severity: Severity) -> Finding:
    return build(Finding, id=f"X{k}", severity=severity, title=text,
                 description=f"{text} in the description", suggestion=text,
                 location=build(Location, raw=text, path=f"{text}.py", line=k + 1))


def hostile_results() -> list[Result]:
    """A finished result whose every string is markup, and a PARTIAL one from another
    hostile agent that repeats its first finding at a lower severity: the merge then
    writes agent names and result ids into a severity-disagreement note, and the gap
    carries a hostile reason and work unit."""
    loud = build(Result, id=HOSTILE_ID, dialect="json", status=Status.FINDINGS,
                 conformance=Conformance.CONFORMANT, agent=HOSTILE_AGENT,
                 metadata={"scope": HOSTILE[1]},
                 findings=[hostile_finding(k, text, Severity.CRITICAL)
                           for k, text in enumerate(HOSTILE)])
    echo = build(Result, id="<i>echo</i>.md", dialect="json", status=Status.PARTIAL,
                 conformance=Conformance.CONFORMANT, agent='"><svg onload=window.__pwned=8>',
                 metadata={"reason": HOSTILE[0], "scope": HOSTILE[2]},
                 findings=[hostile_finding(0, HOSTILE[0], Severity.MINOR)])
    return [loud, echo]


def report() -> Report:
    results = []
    for path in [*sorted(SHLEX.glob("*.md")), SHLEX / "json-reviewer.json"]:
        if path.name == "README.md":
            continue
        result = sarp.parse(path.read_text(encoding="utf-8"))
        result.id = path.name
        results.append(result)
    return aggregate([*results, *hostile_results()])


class Outline(HTMLParser):
    """Every element and attribute of a page, and the text of its scripts and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._inside = tag

    def handle_endtag(self, tag: str) -> None:
        self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside == "script":
            self.scripts.append(data)
        elif self._inside == "style":
            self.styles.append(data)


def outline(page: str) -> Outline:
    parser = Outline()
    parser.feed(page)
    parser.close()
    return parser


def sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


# -- the page as text ----------------------------------------------------------------------


def test_the_hostile_results_reach_every_place_agent_text_is_shown() -> None:
    # guards the test below: notes, gaps and work units must really carry the markup
    made = report()
    noted = [note for f in made.findings for note in f.notes if HOSTILE_AGENT in note]
    assert noted and any(HOSTILE_ID in note for note in noted)
    assert any(gap.reason == HOSTILE[0] for gap in made.gaps)
    assert any(row.work_unit == HOSTILE[1] for row in made.results)


def test_agent_markup_appears_only_escaped() -> None:
    page = html.render(report())
    assert "<script>window.__pwned" not in page and "parent.__pwned=7</script>" not in page
    for text in [*HOSTILE, HOSTILE_AGENT, HOSTILE_ID]:
        if set("<>\"'") & set(text):
            assert text not in page
        assert escape(text, quote=True) in page  # shown, not dropped
    parsed = outline(page)
    assert len(parsed.scripts) == 1 and len(parsed.styles) == 1  # the page's own
    made = {tag for tag, _ in parsed.tags}
    assert not made & {"img", "iframe", "object", "embed", "link", "base", "form", "i"}
    assert [attrs for tag, attrs in parsed.tags if tag == "svg" and "onload" in attrs] == []
    handlers = [(tag, name) for tag, attrs in parsed.tags for name in attrs
                if name.startswith("on")]
    assert handlers == []


def test_page_is_self_contained_behind_a_strict_policy() -> None:
    page = html.render(report())
    assert page.lstrip().lower().startswith("<!doctype html>")
    parsed = outline(page)
    # nothing is fetched: no src at all, links only within the page, no CSS url()/@import
    assert [attrs for _, attrs in parsed.tags if "src" in attrs or "srcset" in attrs] == []
    hrefs = [attrs["href"] or "" for tag, attrs in parsed.tags if "href" in attrs]
    assert hrefs and all(href.startswith("#") for href in hrefs)
    assert not re.search(r"url\(|@import", parsed.styles[0])
    assert "http" not in parsed.scripts[0] and "http" not in parsed.styles[0]
    # the policy allows the page's own script and style by hash, and nothing else
    policy = next(attrs["content"] for tag, attrs in parsed.tags
                  if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy")
    assert policy is not None
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == sha256(parsed.scripts[0])
    assert directives["style-src"] == sha256(parsed.styles[0])
    assert "unsafe" not in policy


def test_a_report_without_findings_still_renders() -> None:
    clean = build(Result, id="clean.md", dialect="json", status=Status.CLEAN,
                  conformance=Conformance.CONFORMANT, agent="reviewer")
    page = html.render(aggregate([clean]))
    assert "No findings." in page and 'id="finding-table"' not in page
    assert "READY" in page


# -- the page in a browser ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip(f"needs Debian's chromium and chromium-driver ({CHROMIUM}, {DRIVER}); "
                    ".ci/run installs them")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # with a driver path too, selenium downloads nothing
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


ROWS = """
  return Array.from(document.querySelectorAll('#finding-table tbody tr'), r => ({
    id: r.dataset.id, hidden: r.hidden, text: r.textContent.toLowerCase(),
    drawn: r.getClientRects().length > 0}));
"""


def _order(driver: Any) -> list[str]:
    return [row["id"] for row in driver.execute_script(ROWS)]


def _click_header(driver: Any, name: str) -> None:
    from selenium.webdriver.common.by import By

    for header in driver.find_elements(By.CSS_SELECTOR, "#finding-table thead th"):
        if header.text.strip() == name:
            header.find_element(By.TAG_NAME, "button").click()
            return
    raise AssertionError(f"no column {name!r}")


@pytest.fixture(scope="module")
def opened(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Report]:
    made = report()
    page = tmp_path_factory.mktemp("html-report") / "report.html"
    page.write_text(html.render(made), encoding="utf-8")
    browser.get(page.as_uri())
    return browser, made


def test_in_chromium_it_renders_and_runs_nothing_an_agent_wrote(
        opened: tuple[Any, Report]) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    driver, made = opened
    assert driver.title.startswith("sarp report: FIX ISSUES FIRST")
    assert driver.find_element(By.ID, "decision").text == made.decision.value
    assert _order(driver) == [f.id for f in made.findings]
    assert driver.execute_script("return typeof window.__pwned") == "undefined"
    with pytest.raises(NoAlertPresentException):
        _ = driver.switch_to.alert
    text = driver.find_element(By.TAG_NAME, "body").text
    for shown in [HOSTILE[0], HOSTILE[1], HOSTILE[5], HOSTILE_AGENT, HOSTILE_ID]:
        assert shown in text
    injected = "img, iframe, object, embed, svg[onload], a[href^=http], a[href^=javascript]"
    assert driver.find_elements(By.CSS_SELECTOR, injected) == []
    assert len(driver.find_elements(By.TAG_NAME, "script")) == 1
    # the style sheet applied (its hash is right): the verdict box has a border
    border = driver.find_element(By.ID, "verdict").value_of_css_property("border-top-width")
    assert border == "2px"
    refused = [e["message"] for e in driver.get_log("browser")
               if "Content Security Policy" in e["message"]]
    assert refused == []  # nothing tried to run or load that the policy had to stop


def test_in_chromium_headers_sort_both_ways(opened: tuple[Any, Report]) -> None:
    driver, made = opened
    position = {f.id: k for k, f in enumerate(made.findings)}
    rank = {f.id: f.severity.rank for f in made.findings}
    occurrences = {f.id: f.occurrences for f in made.findings}

    def expected(key: dict[str, int], sign: int) -> list[str]:
        # ties keep the report's own order in both directions
        return sorted(position, key=lambda i: (sign * key[i], position[i]))

    assert len(set(occurrences.values())) > 1 and len(set(rank.values())) > 1
    # a number sorts as a number; the report's order is not sorted by it, so this moves rows
    _click_header(driver, "Occurrences")
    assert _order(driver) == expected(occurrences, 1) != [f.id for f in made.findings]
    _click_header(driver, "Occurrences")
    assert _order(driver) == expected(occurrences, -1)
    # severity sorts by rank, critical first, then minor first
    _click_header(driver, "Severity")
    assert _order(driver) == expected(rank, 1)
    _click_header(driver, "Severity")
    assert _order(driver) == expected(rank, -1)
    # G10 after G9: ids sort by their number
    _click_header(driver, "ID")
    assert _order(driver) == [f.id for f in made.findings]


def test_in_chromium_filters_hide_what_does_not_match(opened: tuple[Any, Report]) -> None:
    from selenium.webdriver.common.by import By

    driver, made = opened
    search = driver.find_element(By.ID, "finding-search")
    query = "__pwned=3"
    search.send_keys(query)
    rows = driver.execute_script(ROWS)
    shown = {row["id"] for row in rows if not row["hidden"]}
    assert shown == {f.id for f in made.findings if query in (f.title or "")}
    assert len(shown) == 1
    assert all(row["hidden"] == (query not in row["text"]) for row in rows)
    count = driver.find_element(By.ID, "finding-count").text
    assert count == f"1 of {len(made.findings)} findings shown"

    assert all(row["drawn"] == (not row["hidden"]) for row in rows)  # hidden means not drawn

    # any column matches, not only the finding's text: here the reporters' names
    search.clear()
    search.send_keys("security-auditor")
    rows = driver.execute_script(ROWS)
    assert 0 < sum(not row["hidden"] for row in rows) < len(rows)
    assert any("security-auditor" in f.reported_by and "security-auditor" not in
               f"{f.title} {f.description}".lower() for f in made.findings)
    assert all(row["hidden"] == ("security-auditor" not in row["text"]) for row in rows)

    search.clear()
    search.send_keys(" ")  # an input event with an empty query shows every row again
    assert not any(row["hidden"] for row in driver.execute_script(ROWS))
    driver.find_element(By.CSS_SELECTOR, "input[name=severity][value=minor]").click()
    minor = {f.id for f in made.findings if f.severity is Severity.MINOR}
    rows = driver.execute_script(ROWS)
    assert minor and all(row["hidden"] == (row["id"] in minor) for row in rows)
