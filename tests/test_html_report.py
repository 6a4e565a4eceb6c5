"""The HTML report: self-contained, every agent string escaped, and (in a real headless
Chromium) it renders, sorts, filters, and runs nothing an agent wrote."""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

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
]


def hostile_result() -> Result:
    findings = [
        build(Finding, id=f"X{k}", severity=Severity.CRITICAL, title=text,
              description=f"{text} in the description", suggestion=text,
              location=build(Location, raw=text, path=f"{text}.py", line=k + 1))
        for k, text in enumerate(HOSTILE)]
    return build(Result, id='evil"<b>.md', dialect="json", status=Status.FINDINGS,
                 conformance=Conformance.CONFORMANT,
                 agent="<img src=x onerror=window.__pwned=6>", findings=findings)


def report() -> Report:
    results = []
    for path in [*sorted(SHLEX.glob("*.md")), SHLEX / "json-reviewer.json"]:
        if path.name == "README.md":
            continue
        result = sarp.parse(path.read_text(encoding="utf-8"))
        result.id = path.name
        results.append(result)
    return aggregate([*results, hostile_result()])


def test_page_is_self_contained_and_escapes_agent_text() -> None:
    page = html.render(report())
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert "Content-Security-Policy" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    for text in HOSTILE:
        if set("<>\"") & set(text):
            assert text not in page  # only ever in escaped form
    assert 'href="javascript:' not in page  # plain text stays text, never a link
    assert "<script>window.__pwned" not in page
    assert "onerror=\"window" not in page and "<svg onload" not in page
    assert page.count("<script") == 1  # the page's own script, nothing else


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip("Debian chromium and chromium-driver are not installed (.ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _rows(driver: object) -> list[dict[str, str]]:
    script = """
      return Array.from(document.querySelectorAll('#finding-table tbody tr'), r => ({
        id: r.dataset.id, severity: r.dataset.severity, hidden: r.hidden,
        occurrences: r.cells[6].textContent.trim()}));
    """
    rows: list[dict[str, str]] = driver.execute_script(script)  # type: ignore[attr-defined]
    return rows


def _click_header(driver: object, name: str) -> None:
    from selenium.webdriver.common.by import By

    for header in driver.find_elements(By.CSS_SELECTOR, "#finding-table thead th"):  # type: ignore[attr-defined]
        if header.text.strip() == name:
            header.find_element(By.TAG_NAME, "button").click()
            return
    raise AssertionError(f"no column {name!r}")


def test_in_chromium_the_page_renders_sorts_filters_and_runs_no_agent_text(
        browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    made = report()
    page = tmp_path / "report.html"
    page.write_text(html.render(made), encoding="utf-8")
    driver = browser
    driver.get(page.as_uri())  # type: ignore[attr-defined]

    # it renders: the verdict, and one row per finding in the report's order
    assert driver.find_element(By.ID, "verdict").text  # type: ignore[attr-defined]
    rows = _rows(driver)
    assert [r["id"] for r in rows] == [f.id for f in made.findings]
    # nothing an agent wrote ran, and it shows as text
    assert driver.execute_script("return typeof window.__pwned") == "undefined"  # type: ignore[attr-defined]
    body = driver.find_element(By.TAG_NAME, "body").text  # type: ignore[attr-defined]
    assert "<script>window.__pwned=1</script>" in body
    assert '<img src=x onerror="window.__pwned=2">' in body
    assert driver.find_elements(By.CSS_SELECTOR, "#finding-table img, #finding-table svg") == []  # type: ignore[attr-defined]

    rank = {"critical": 0, "major": 1, "minor": 2}
    position = {f.id: k for k, f in enumerate(made.findings)}
    # severity: worst first, then (ties) the report's order; a second click reverses
    _click_header(driver, "Severity")
    order = [r["id"] for r in _rows(driver)]
    assert order == sorted(position, key=lambda i: (rank[made.findings[position[i]].severity],
                                                    position[i]))
    _click_header(driver, "Severity")
    order = [r["id"] for r in _rows(driver)]
    assert [rank[r["severity"]] for r in _rows(driver)] == sorted(
        (rank[r["severity"]] for r in _rows(driver)), reverse=True)
    assert order[0] != made.findings[0].id or len(made.findings) == 1
    # a numeric column sorts as numbers, ascending then descending
    _click_header(driver, "Occurrences")
    counts = [int(r["occurrences"]) for r in _rows(driver)]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    _click_header(driver, "Occurrences")
    assert [int(r["occurrences"]) for r in _rows(driver)] == sorted(counts, reverse=True)

    # the text filter hides what does not match, the severity boxes hide a severity
    search = driver.find_element(By.ID, "finding-search")  # type: ignore[attr-defined]
    search.send_keys("sourcehook")
    shown = [r for r in _rows(driver) if not r["hidden"]]
    assert 0 < len(shown) < len(made.findings)
    expected = {f.id for f in made.findings if "sourcehook" in " ".join(
        filter(None, [f.title, f.description, f.type, ", ".join(f.reported_by)])).lower()}
    assert {r["id"] for r in shown} >= expected
    search.clear()
    search.send_keys(" ")  # an input event with an empty query shows every row again
    driver.find_element(By.CSS_SELECTOR, "input[name=severity][value=minor]").click()  # type: ignore[attr-defined]
    visible = [r for r in _rows(driver) if not r["hidden"]]
    assert visible and all(r["severity"] != "minor" for r in visible)
    assert driver.execute_script("return typeof window.__pwned") == "undefined"  # type: ignore[attr-defined]
