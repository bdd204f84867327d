"""The pages in a real headless Chromium (Debian's ``chromium``, driven by Playwright; nothing
is downloaded): search a player, open the Karteikarte, see the chart and the rows, follow a
tournament link, sort a column. Screenshots of the Karteikarte and of the evaluation page
are saved to tests/artifacts/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.web_support import ARTIFACTS, TODAY, engine_for, served, synth_database

CHROMIUM = Path("/usr/bin/chromium")

if not CHROMIUM.exists() and os.environ.get("RATINGDB_CI"):
    # CI installs the browser (.ci/run): a missing one is a broken CI, not a skip
    raise RuntimeError("RATINGDB_CI is set but /usr/bin/chromium is missing")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def site(pg_server):
    """The app under uvicorn on a loopback port, in a thread of this process."""
    from ratingdb.web.app import create_app

    with synth_database(pg_server) as url:
        app = create_app(engine_for(url), today=lambda: TODAY)
        with served(app) as base:
            yield base


@pytest.fixture(scope="module")
def page(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        # a German browser: the pages' default language (docs/i18n.md)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="de-DE")
        yield context.new_page()
        browser.close()


def test_search_card_chart_tournament_and_sorting(site, page):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(site + "/")
    page.fill("input[name=q]", "Meyer")
    page.click("button[type=submit]")
    page.wait_for_selector("table#results")
    results = page.locator("table#results tbody tr")
    assert results.count() > 0
    # a Meyer with several evaluations: open each candidate's card until one has >= 2 (the
    # synthetic history ends today, so late-2026 tournaments are not there)
    links = page.locator("table#results tbody tr td:first-child > a")
    hrefs = [links.nth(k).get_attribute("href") for k in range(links.count())]
    assert all(h.startswith("/players/") for h in hrefs)
    for href in hrefs:
        page.goto(site + href)
        if page.locator("table#evaluations tr.evaluation").count() >= 2:
            break
    else:
        pytest.fail("no Meyer with two evaluations")
    assert page.locator("h1").inner_text().startswith("Karteikarte: Meyer")
    rating = page.locator("#current-rating").inner_text()
    assert rating.count("-") == 1 and rating.split("-")[0].isdigit()
    rows = page.locator("table#evaluations tr.evaluation")
    stored = [
        rows.nth(k).locator("td.new").inner_text()
        for k in range(rows.count())
        if rows.nth(k).locator("td.new").inner_text()[:1].isdigit()
    ]
    points = page.locator("svg.chart circle.pt")
    assert points.count() == len(stored)  # one point per stored evaluation
    assert page.locator("svg.chart").is_visible()
    last = points.nth(points.count() - 1).get_attribute("data-rating")
    assert stored[-1].startswith(f"{last}-")
    shot = ARTIFACTS / "karteikarte.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")

    # follow the first tournament link to its evaluation display
    first = rows.nth(0).locator("td:nth-child(3) > a")
    name = first.inner_text()
    first.click()
    page.wait_for_selector("table#evaluation")
    assert page.locator("h1").inner_text() == name
    # sort by R_o: ascending, then descending
    page.click("th a[data-column=r_o]")
    page.wait_for_url("**sort=r_o&dir=asc")
    ascending = _ratings(page, 5)
    assert ascending == sorted(ascending) and ascending
    page.click("th a[data-column=r_o]")
    page.wait_for_url("**sort=r_o&dir=desc")
    descending = _ratings(page, 5)
    assert descending == sorted(descending, reverse=True) == sorted(ascending, reverse=True)
    shot = ARTIFACTS / "evaluation.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")


def _ratings(page, column: int) -> list[int]:
    cells = page.locator(f"table#evaluation tbody tr td:nth-child({column})")
    values = [cells.nth(k).inner_text().strip() for k in range(cells.count())]
    return [int(v.split("-")[0]) for v in values if v]
