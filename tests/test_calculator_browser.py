"""The DWZ calculator page in headless Chromium (driven as in tests/test_web_browser.py) with
JavaScript switched off: the hand-computed case and WO Anhang 3.1's player A typed in at
1280 px, and at 390 px a player and an opponent picked by search, without the page growing
wider than the phone. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import pytest

from tests.test_web_browser import CHROMIUM
from tests.web_support import ARTIFACTS, TODAY, engine_for, example_database, served

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def site(pg_server):
    from ratingdb.web.app import create_app

    with example_database(pg_server) as url:
        app = create_app(engine_for(url), today=lambda: TODAY)
        with served(app) as base:
            yield base


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def _page(browser, width: int):  # type: ignore[no-untyped-def]
    context = browser.new_context(
        viewport={"width": width, "height": 900}, java_script_enabled=False, locale="de-DE"
    )
    return context.new_page()


def _type_in(page, rating: str, index: str, born: str, day: str, games) -> None:  # type: ignore[no-untyped-def]
    page.fill("input[name=rating]", rating)
    page.fill("input[name=index]", index)
    page.fill("input[name=born]", born)
    page.fill("input[name=date]", day)
    for k, (opponent, result) in enumerate(games):
        page.fill(f"input[name=o{k}_rating]", opponent)
        page.select_option(f"select[name=o{k}_result]", result)


def test_typed_in_cases_at_desktop_width(site, browser):
    page = _page(browser, 1280)
    page.goto(site + "/")
    page.click("header a[href='/rechner']")
    page.wait_for_selector("form#calc-form")
    # the hand-computed case of tests/test_calculator.py::test_hand_computed_case
    _type_in(page, "1500", "10", "1990", "2026-11-25", [("1600", "1"), ("1450", "0.5")])
    page.click("button.primary")
    page.wait_for_selector("#calc-headline")
    assert page.inner_text("#calc-headline") == "DWZ neu: 1519-11 (+19)"
    assert page.inner_text("#calc-expected") == "0,932"
    assert page.inner_text("#calc-k") == "34,0"
    lines = page.inner_text("#calc-lines")
    assert "W_e = Σ P(D) = 0,362 + 0,570 = 0,932" in lines
    assert "= 1519,312 ≈ 1519" in lines
    # WO Anhang 3.1, player A, typed in by hand (the form keeps the values: clear them)
    opponents = ["2100", "2000", "1950", "1800", "1700", "1961", "1476"]
    page.goto(site + "/rechner")
    _type_in(page, "2220", "31", "1986", "2026-12-12", [(r, "1") for r in opponents])
    page.click("button.primary")
    page.wait_for_selector("#calc-headline")
    assert page.inner_text("#calc-headline") == "DWZ neu: 2245-32 (+25)"
    assert page.inner_text("#calc-expected") == "5,990"
    assert page.inner_text("#calc-k") == "25,0"
    assert page.inner_text("#calc-rc") == "1855"
    assert page.inner_text("#calc-rechenmodul").startswith("dwz2026/2026.1")
    cells = page.locator("#calc-games tbody td:nth-child(6)")
    assert [cells.nth(k).inner_text() for k in range(cells.count())] == [
        "0,664", "0,782", "0,830", "0,931", "0,967", "0,820", "0,996"
    ]  # fmt: skip
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "calculator.png"), full_page=True)
    # a bad row: 422, the message names it, the form keeps the values
    page.select_option("select[name=o3_result]", "")
    page.click("button.primary")
    assert page.inner_text("#calc-error") == "Gegner 4, Ergebnis: fehlt: 1, ½ oder 0"
    assert page.input_value("input[name=o3_rating]") == "1800"


def test_search_pick_and_phone_width(site, browser):
    page = _page(browser, 390)
    page.goto(site + "/rechner")
    page.fill("input[name=q]", "Player, A")
    page.click("button[value=search]")
    page.locator("#calc-hits button", has_text="als Spieler").first.click()
    assert page.inner_text("#picked-player") == "Player, A"
    for name in ("Player, B", "Player, C"):
        page.fill("input[name=q]", name)
        page.click("button[value=search]")
        page.locator("#calc-hits button", has_text="als Gegner").first.click()
    rows = page.locator("#calc-rows tbody tr")
    assert rows.nth(0).inner_text().startswith("1\tPlayer, B")
    assert rows.nth(1).inner_text().startswith("2\tPlayer, C")
    page.fill("input[name=date]", "2026-12-11")
    page.select_option("select[name=o0_result]", "1")
    page.select_option("select[name=o1_result]", "1")
    page.fill("input[name=o2_rating]", "1950")
    page.select_option("select[name=o2_result]", "0.5")
    page.click("button.primary")
    page.wait_for_selector("#calc-headline")
    # A is 2220-31 before the example tournament; B 2100, C 2000 from the database
    games = page.locator("#calc-games tbody tr")
    assert games.nth(0).inner_text().split("\t")[1:3] == ["Player, B", "2100-55"]
    assert page.inner_text("#calc-headline").startswith("DWZ neu: ")
    assert "ganzen Turnier" in page.inner_text("#calc-result")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at 390 px"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "calculator-390.png"), full_page=True)
