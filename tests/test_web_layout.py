"""Phones, desktops and languages in a real headless Chromium (Debian's ``chromium`` driven by
Playwright, as tests/test_web_browser.py), on the worked example of WO Anhang 3.1 imported
from files: no page is wider than the screen at 390 px or 1280 px (a wide table scrolls in
its own box), the chart's labels stay readable on a phone, the Karteikarte shows the club
and the +/- column, German is the default and English comes by the browser's language or by
the switch.

Screenshots go to ``$RATINGDB_SCREENSHOTS`` (default tests/artifacts/screens).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.services.sign_in import set_password
from ratingdb.services.users import add_user, issue_token
from tests.test_web_browser import CHROMIUM
from tests.web_support import ARTIFACTS, TODAY, engine_for, example_database, served

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

EXAMPLE = "12345678"
PASSWORD = "correct horse battery"
SCREENS = Path(os.environ.get("RATINGDB_SCREENSHOTS") or ARTIFACTS / "screens")
WIDTHS = (390, 1280)

#: document width vs. the viewport, and every table wider than the viewport that is not
#: inside a box that scrolls (or that sticks out of the viewport with its box)
OVERFLOW = """() => {
  const vw = window.innerWidth;
  const bad = [];
  for (const t of document.querySelectorAll('table')) {
    const box = t.closest('.scroll');
    const r = (box || t).getBoundingClientRect();
    if (r.right > vw + 0.5 || r.left < -0.5) bad.push(t.id || t.className || 'table');
    if (box && getComputedStyle(box).overflowX !== 'auto') bad.push((t.id || 'table') + ': box');
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, bad: bad};
}"""


@pytest.fixture(scope="module")
def example_site(pg_server):
    """The app under uvicorn on a loopback port; the ids of player A and of A's
    participation in the example tournament."""
    from ratingdb.web.app import create_app

    with example_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            player, participant = conn.execute(
                text(
                    "SELECT pl.id, pa.id FROM players pl JOIN participants pa "
                    "ON pa.player_id = pl.id JOIN tournaments t ON t.id = pa.tournament_id "
                    "WHERE t.code = :c AND pl.given_name = 'A'"
                ),
                {"c": EXAMPLE},
            ).one()
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "root", "admin", full_name="Rating Admin")
            add_user(session, "anna", "officer", ["aaa", "bbb"], full_name="Anna Muster")
            for name in ("root", "anna"):
                set_password(session, name, PASSWORD)
            issue_token(session, "anna", label="laptop")
            add_user(session, "carl", "officer", ["aaa"])
        app = create_app(engine_for(url), today=lambda: TODAY)
        with served(app) as base:
            yield base, player, participant


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def _pages(player: int, participant: int) -> dict[str, str]:
    return {
        "home": "/",
        "karteikarte": f"/players/{player}",
        "evaluation": f"/tournaments/{EXAMPLE}",
        "scoresheet": f"/tournaments/{EXAMPLE}/players/{participant}",
        "games": f"/tournaments/{EXAMPLE}/games",
        "tournaments": "/tournaments",
        "search": "/players?q=Player",
        "list": "/lists?club=aaaaa",
        "calculator": f"/rechner?player={player}",
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_the_screen(example_site, browser, width):
    """At 390 px (a phone) and 1280 px every page fits: the document is never wider than
    the viewport, a wide table scrolls inside its own box."""
    site, player, participant = example_site
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        for name, path in _pages(player, participant).items():
            page.goto(site + path)
            measured = page.evaluate(OVERFLOW)
            page.screenshot(path=str(SCREENS / f"{name}-{width}.png"), full_page=True)
            assert measured["scrollWidth"] <= measured["innerWidth"], (name, measured)
            assert measured["bad"] == [], (name, measured)
    finally:
        context.close()


def test_the_overflow_check_catches_a_table_without_its_box(example_site, browser):
    """The measurement fails when the evaluation table is not wrapped: the test above can
    fail."""
    site, _, _ = example_site
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(site + f"/tournaments/{EXAMPLE}")
        # every column shown (as before the phone layout) and no scroll box: too wide
        page.add_style_tag(
            content=".scroll { overflow-x: visible !important; } "
            ".wide { display: table-cell !important; }"
        )
        measured = page.evaluate(OVERFLOW)
        assert measured["scrollWidth"] > measured["innerWidth"]
        assert "evaluation: box" in measured["bad"]
    finally:
        context.close()


def test_karteikarte_on_a_phone(example_site, browser):
    """At 390 px: the chart scales to the screen with labels of at least 9 px, the club is at
    the top, the +/- column holds A's change (2220 -> 2245: +25)."""
    site, player, _ = example_site
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(site + f"/players/{player}")
        chart = page.locator("svg.chart").bounding_box()
        assert chart is not None and chart["width"] <= 390
        labels = page.locator("svg.chart text.axis")
        assert labels.count() >= 2
        heights = [labels.nth(k).bounding_box()["height"] for k in range(labels.count())]
        assert min(heights) >= 9, heights
        assert page.locator("#club").inner_text().strip() not in ("", "-")
        header = page.locator("table#evaluations thead th").all_inner_texts()
        change = header.index("+/-")
        row = page.locator("table#evaluations tr.evaluation").first
        assert row.locator("td").nth(change).inner_text() == "+25"
        assert row.locator("td.new").inner_text() == "2245-32"
    finally:
        context.close()


def test_language_by_browser_and_by_switch(example_site, browser):
    """A German browser gets German, an English one English; the switch changes the
    language and the choice sticks (cookie) on the next page."""
    site, _, _ = example_site
    german = browser.new_context(locale="de-DE")
    page = german.new_page()
    page.goto(site + f"/tournaments/{EXAMPLE}")
    assert page.locator("html").get_attribute("lang") == "de"
    heads = page.locator("table#evaluation thead th").all_inner_texts()
    assert heads[:3] == ["#", "Spieler", "Altersstufe"] and "Leistung" in heads
    german.close()

    english = browser.new_context(locale="en-US")
    page = english.new_page()
    page.goto(site + f"/tournaments/{EXAMPLE}?sort=r_o&dir=desc")
    assert page.locator("html").get_attribute("lang") == "en"
    heads = page.locator("table#evaluation thead th").all_inner_texts()
    assert heads[1] == "Player" and "Leistung" not in " ".join(heads)
    page.click("nav.lang a[hreflang=de]")
    page.wait_for_url("**lang=de")
    assert "sort=r_o" in page.url  # the switch keeps the page's query
    assert page.locator("html").get_attribute("lang") == "de"
    page.goto(site + "/tournaments")  # no ?lang=: the cookie decides
    assert page.locator("h1").inner_text() == "Turniere"
    english.close()


def test_print_stylesheet(example_site, browser):
    """Printed (A4 landscape, about 1123 px wide at 96 dpi): no header, form or scroll box,
    the tables at full width and not cut off."""
    site, player, _ = example_site
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1123, "height": 794}, locale="de-DE")
    page = context.new_page()
    try:
        page.emulate_media(media="print")
        for name, path in (("karteikarte", f"/players/{player}"),
                           ("evaluation", f"/tournaments/{EXAMPLE}")):  # fmt: skip
            page.goto(site + path)
            assert page.evaluate("getComputedStyle(document.querySelector('header')).display")\
                == "none"  # fmt: skip
            measured = page.evaluate(OVERFLOW.replace("'auto'", "'visible'"))
            assert measured["scrollWidth"] <= measured["innerWidth"], (name, measured)
            assert measured["bad"] == [], (name, measured)
            page.screenshot(path=str(SCREENS / f"{name}-print.png"), full_page=True)
    finally:
        context.close()


def _sign_in(page, site: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(site + "/anmelden")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/anmelden'] button[type=submit]")
    page.wait_for_url("**/officer")


#: the signed-in pages and their screenshot names (``{last_run}``: the newest run's id)
OFFICER_PAGES = {
    "officer-overview": "/officer",
    "officer-runs": "/officer/runs",
    "officer-run": "/officer/runs/{last_run}",
    "admin-users": "/admin/users",
    "admin-user": "/admin/users/anna",
    "admin-audit": "/admin/audit",
}


@pytest.mark.parametrize("width", WIDTHS)
def test_officer_and_admin_pages_fit_the_screen(example_site, browser, width):
    """The overview, the runs and the admin pages at 390 and 1280 px, signed in as admin
    in a German browser: nothing wider than the screen, German by default."""
    site, _, _ = example_site
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        _sign_in(page, site, "root")
        assert page.locator("h1").inner_text() == "Übersicht"
        last_run = page.locator("table#runs tbody tr td a").first.inner_text()
        for name, path in OFFICER_PAGES.items():
            page.goto(site + path.format(last_run=last_run))
            assert page.locator("html").get_attribute("lang") == "de"
            measured = page.evaluate(OVERFLOW)
            page.screenshot(path=str(SCREENS / f"{name}-{width}.png"), full_page=True)
            assert measured["scrollWidth"] <= measured["innerWidth"], (name, measured)
            assert measured["bad"] == [], (name, measured)
        # a generated password, shown once, fits as well
        page.goto(site + "/admin/users/carl")
        page.click("form[action='/admin/users/carl/password'] button:has-text('Neues Passwort')")
        page.wait_for_selector("#generated")
        measured = page.evaluate(OVERFLOW)
        page.screenshot(path=str(SCREENS / f"admin-password-{width}.png"), full_page=True)
        assert measured["scrollWidth"] <= measured["innerWidth"], measured
    finally:
        context.close()


def test_officer_pages_in_english(example_site, browser):
    """An English browser gets the officer's pages in English; the switch back to German
    sticks; the sign-in form too."""
    site, _, _ = example_site
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    try:
        page.goto(site + "/anmelden")
        assert page.locator("h1").inner_text() == "Sign in"
        _sign_in(page, site, "anna")
        assert page.locator("h1").inner_text() == "Overview"
        assert "rating officer for VKZ aaa, bbb" in page.content()
        page.goto(site + "/officer/runs")
        assert page.locator("h1").inner_text() == "Recalculation runs"
        page.click("nav.lang a[hreflang=de]")
        page.wait_for_url("**lang=de")
        assert page.locator("h1").inner_text() == "Berechnungsläufe"
        page.goto(site + "/officer")
        assert page.locator("h1").inner_text() == "Übersicht"
        # an officer is refused the admin pages, in his language
        page.goto(site + "/admin/users")
        assert page.locator("h1").inner_text() == "Fehler 403"
    finally:
        context.close()
