"""What club players look up, in a real headless Chromium (Debian's ``chromium`` driven by
Playwright) at a phone's 390×844 and a desktop's 1280×900, on the synthetic federation:
search, Karteikarte, evaluation display, game results, a scoresheet, the tournament list, a
club's rating list, the federation directory, a top list and the calculator. On every one
the DWZ (and the change, where the page shows one) of the first rows lies inside the
viewport and the page never scrolls sideways; the further values are in the row's details
line. Refusals are German on German pages. Screenshots go to ``$RATINGDB_SCREENSHOTS``
(default tests/artifacts/screens)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.services.submissions import add_tournament
from tests.test_web_browser import CHROMIUM
from tests.web_support import ARTIFACTS, TODAY, document, engine_for, served, synth_database

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

SCREENS = Path(os.environ.get("RATINGDB_SCREENSHOTS") or ARTIFACTS / "screens")
SIZES = ((390, 844), (1280, 900))

#: the page's width against the viewport, and the boxes of the first rows' cells of a kind
MEASURE = """([table, selectors]) => {
  const vw = window.innerWidth;
  const rows = [...document.querySelectorAll(`table#${table} tbody tr`)].slice(0, 5);
  const cells = [];
  for (const row of rows) {
    for (const sel of selectors) {
      const cell = row.querySelector(sel);
      if (!cell) { cells.push({sel, missing: true}); continue; }
      const r = cell.getBoundingClientRect();
      cells.push({sel, left: r.left, right: r.right, width: r.width,
                  text: cell.innerText.trim(), shown: getComputedStyle(cell).display !== 'none'});
    }
  }
  const boxes = [...document.querySelectorAll('.scroll')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${(e.querySelector('table') || {}).id}: ${e.scrollWidth} > ${e.clientWidth}`);
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: vw,
          rows: rows.length, cells, boxes};
}"""


@pytest.fixture(scope="module")
def site(pg_server):
    """The synthetic federation under uvicorn, and the paths of the pages to look at."""
    from ratingdb.web.app import create_app

    with synth_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            player = conn.execute(
                text(
                    "SELECT s.player_id FROM rating_snapshots s JOIN memberships m ON "
                    "m.player_id = s.player_id AND m.valid_to IS NULL WHERE s.stored "
                    "GROUP BY s.player_id ORDER BY count(*) DESC, s.player_id LIMIT 1"
                )
            ).scalar_one()
            code = conn.execute(
                text(
                    "SELECT t.code FROM tournaments t JOIN rating_snapshots s ON "
                    "s.tournament_id = t.id GROUP BY t.code ORDER BY count(*) DESC, t.code "
                    "LIMIT 1"
                )
            ).scalar_one()
            participant = conn.execute(
                text(
                    "SELECT s.participant_id FROM rating_snapshots s JOIN tournaments t ON "
                    "t.id = s.tournament_id WHERE t.code = :c AND s.player_group = 'established' "
                    "AND s.games > 0 ORDER BY s.games DESC, s.participant_id LIMIT 1"
                ),
                {"c": code},
            ).scalar_one()
            holder = conn.execute(
                text(
                    "SELECT r.owner_id FROM residual_games r JOIN memberships m ON "
                    "m.player_id = r.owner_id AND m.valid_to IS NULL "
                    "ORDER BY r.owner_id LIMIT 1"
                )
            ).scalar_one()
            club, surname = conn.execute(
                text(
                    "SELECT o.vkz, min(p.surname) FROM memberships m JOIN organisations o ON "
                    "o.id = m.organisation_id JOIN players p ON p.id = m.player_id "
                    "WHERE m.valid_to IS NULL GROUP BY o.vkz ORDER BY count(*) DESC, o.vkz "
                    "LIMIT 1"
                )
            ).one()
        # a tournament submitted but not evaluated yet (the next run evaluates it)
        pending = document(url, code, id="PHONE-PENDING", name="Offenes Turnier (eingereicht)")
        with Session(engine_for(url)) as session:
            add_tournament(session, pending)
            session.commit()
        app = create_app(engine_for(url), today=lambda: TODAY)
        with served(app) as base:
            yield (
                base,
                {
                    "search": (f"/players?q={surname}", "results", ["td.name", "td.dwz"]),
                    "karteikarte": (
                        f"/players/{player}",
                        "evaluations",
                        ["td.name", "td.new", "td.change"],
                    ),
                    "evaluation": (
                        f"/tournaments/{code}",
                        "evaluation",
                        ["td.name", "td.dwz", "td:last-child"],
                    ),
                    "games": (
                        f"/tournaments/{code}/games",
                        "participants",
                        ["td.name", "td.dwz", "td.change"],
                    ),
                    "game-list": (f"/tournaments/{code}/games", "games", ["td.name", "td.result"]),
                    "scoresheet": (
                        f"/tournaments/{code}/players/{participant}",
                        "scoresheet",
                        ["td.name", "td.dwz", "td:nth-child(4)"],
                    ),
                    "tournaments": ("/tournaments", "tournaments", ["td.name", "td:last-child"]),
                    "residual-games": (f"/players/{holder}", "residual", ["td.name", "td.dwz"]),
                    "pending-games": (
                        "/tournaments/PHONE-PENDING/games",
                        "participants",
                        ["td.name", "td:nth-child(3)"],  # the points
                    ),
                    "club-list": (f"/lists?club={club}", "list", ["td.name", "td.dwz"]),
                    "directory": ("/lists", "directory", ["td.name", "td:last-child"]),
                    "region": (f"/lists?org={club[0]}", "list", ["td.name", "td.dwz"]),
                    "top-list": (
                        "/lists/top?organisation=000&limit=50",
                        "top",
                        ["td.name", "td.dwz"],
                    ),
                },
            )


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


@pytest.mark.parametrize(
    ("width", "height", "locale"),
    [*((w, h, "de-DE") for w, h in SIZES), *((w, h, "en-GB") for w, h in SIZES)],
)
def test_dwz_and_change_of_the_first_rows_are_on_the_screen(site, browser, width, height, locale):
    """German and English (whose column heads are longer words) alike."""
    base, pages = site
    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    try:
        for name, (path, table, selectors) in pages.items():
            page.goto(base + path)
            shot = f"phone-{name}-{width}{'' if locale == 'de-DE' else '-en'}.png"
            page.screenshot(path=str(SCREENS / shot), full_page=False)
            m = page.evaluate(MEASURE, [table, selectors])
            assert m["scrollWidth"] <= m["innerWidth"], (name, m["scrollWidth"])
            assert m["boxes"] == [], (name, m["boxes"])  # no table scrolls in its box either
            assert m["rows"] >= 1, name
            for cell in m["cells"]:
                assert not cell.get("missing"), (name, cell)
                assert cell["shown"] and cell["width"] > 0, (name, cell)
                assert cell["left"] >= 0 and cell["right"] <= width, (name, cell)
            numbers = [c for c in m["cells"] if c["sel"] != "td.name"]
            assert any(c["text"] for c in numbers), (name, numbers)
    finally:
        context.close()


def test_phone_rows_carry_their_details_line(site, browser):
    """At 390 px the columns left out are in the row's details line (club, Jahrgang, the
    tournament's date and score); at 1280 px the line is hidden and the columns show."""
    base, pages = site
    for width, shown in ((390, True), (1280, False)):
        context = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE")
        page = context.new_page()
        try:
            for name in (
                "search", "karteikarte", "evaluation", "games", "tournaments", "club-list",
                "top-list",
            ):  # fmt: skip
                path, table, _ = pages[name]
                page.goto(base + path)
                sub = page.locator(f"table#{table} tbody tr td.name .sub").first
                assert sub.is_visible() == shown, (name, width)
                wide = page.locator(f"table#{table} thead th.wide").first
                assert wide.is_visible() == (not shown), (name, width)
        finally:
            context.close()


def test_directory_leads_from_the_federation_to_a_club_list(site, browser):
    """/lists opens on the directory; a region, its district and a club follow by links,
    and the club on a Karteikarte links to the club's list."""
    base, pages = site
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(base + "/lists")
        page.locator("table#directory tbody tr td.name a").first.click()
        page.wait_for_url("**org=*")
        page.locator("table#directory tbody tr td.name a").first.click()  # a district
        page.wait_for_url("**org=*")
        page.locator("table#directory tbody tr.club td.name a").first.click()
        page.wait_for_url("**club=*")
        assert page.locator("nav#crumbs a").count() >= 3  # directory, federation, region...
        assert page.locator("table#list tbody tr").count() >= 1
        page.goto(base + pages["karteikarte"][0])
        page.locator("#club a").first.click()
        page.wait_for_url("**/lists?club=*")
        assert page.locator("table#list tbody tr").count() >= 1
    finally:
        context.close()


def test_calculator_shows_four_digit_ratings_whole(site, browser):
    """The opponents' rating fields hold "1800" without cutting it, on a phone too."""
    base, _ = site
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE")
        page = context.new_page()
        try:
            page.goto(base + "/rechner")
            field = page.locator("input[name$=_rating]").first
            field.fill("1888")
            fits = field.evaluate("e => e.scrollWidth <= e.clientWidth")
            assert fits, width
        finally:
            context.close()


def _inside(page, table, selectors, width):
    """The page does not scroll sideways and the cells of the first rows of ``table`` lie
    inside the viewport's width, each with its text."""
    m = page.evaluate(MEASURE, [table, selectors])
    assert m["scrollWidth"] <= m["innerWidth"], (table, m["scrollWidth"])
    assert m["boxes"] == [], (table, m["boxes"])
    assert m["rows"] >= 1, table
    for cell in m["cells"]:
        assert not cell.get("missing"), (table, cell)
        assert cell["shown"] and cell["width"] > 0, (table, cell)
        assert cell["left"] >= 0 and cell["right"] <= width, (table, cell)
    return m


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_calculator_answer_and_player_search_fit_the_screen(site, browser, width, height):
    """The calculator, as a club player uses it: typed-in DWZ and four opponents, then a
    search for a player. The new DWZ, each game's rating used and P(D), and each hit's DWZ
    are on the screen; nothing scrolls sideways; a hit shows its Jahrgang and club."""
    base, pages = site
    surname = pages["search"][0].split("q=")[1]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(base + "/rechner")
        page.fill("input[name=rating]", "1650")
        page.fill("input[name=index]", "12")
        for k, (rating, result) in enumerate(
            (("1800", "1"), ("1720", "0.5"), ("2105", "0"), ("1533", "1"))
        ):
            page.fill(f"input[name=o{k}_rating]", rating)
            page.select_option(f"select[name=o{k}_result]", result)
        page.locator("button[value=calc]").first.click()
        page.wait_for_selector("#calc-headline")
        page.screenshot(path=str(SCREENS / f"phone-calculator-{width}.png"), full_page=False)
        assert page.inner_text("#calc-headline").startswith("DWZ neu: ")
        box = page.locator("#calc-headline").bounding_box()
        assert box is not None and box["x"] + box["width"] <= width
        m = _inside(page, "calc-games", ["td:nth-child(2)", "td:nth-child(3)", "td:nth-child(6)"],
                    width)  # fmt: skip
        assert [c["text"] for c in m["cells"][1::3]] == ["1800", "1720", "2105", "1533"]
        page.fill("input[name=q]", surname)
        page.locator("button[value=search]").click()
        page.wait_for_selector("#calc-hits tbody tr")
        page.locator("#calc-hits").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENS / f"phone-calculator-hits-{width}.png"), full_page=False)
        m = _inside(page, "calc-hits", ["td.name", "td.dwz", "td.picks"], width)
        sub = page.locator("#calc-hits tbody td.name .sub").first
        assert sub.is_visible() == (width < 600)
        assert page.locator("#calc-hits thead th.wide").first.is_visible() == (width >= 600)
    finally:
        context.close()


def test_a_club_players_mistakes_are_answered_in_german(site, browser):
    """A German page's refusals are German, headline and reason, and fit a phone: a
    parameter that is no number, an unknown tournament and participant, a rating typed as
    letters in the calculator."""
    base, pages = site
    code = pages["evaluation"][0].rsplit("/", 1)[1]
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        for path, status, headline, reason in (
            ("/players/abc", 422, "ungültige Anfrage", "eine ganze Zahl erwartet"),
            (
                "/lists/top?organisation=000&sex=x",
                422,
                "ungültige Eingabe",
                "Geschlecht ist f (weiblich)",
            ),
            ("/tournaments/NOPE", 404, "kein Turnier 'NOPE'", None),
            (f"/tournaments/{code}/players/999999", 404, "kein Teilnehmer 999999", None),
        ):
            answer = page.goto(base + path)
            assert answer is not None and answer.status == status, path
            assert page.inner_text("p.error").startswith(headline), path
            if reason:
                assert reason in page.inner_text("main"), path
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        page.goto(base + "/rechner")
        page.fill("input[name=rating]", "abc")
        page.fill("input[name=o0_rating]", "1800")
        page.select_option("select[name=o0_result]", "1")
        page.locator("button[value=calc]").first.click()
        page.wait_for_selector("#calc-error")
        page.screenshot(path=str(SCREENS / "phone-calculator-error-390.png"), full_page=False)
        assert page.inner_text("#calc-error") == (
            "DWZ: eine Wertungszahl muss eine ganze Zahl sein, nicht 'abc'"
        )
    finally:
        context.close()


def test_game_results_of_a_tournament_not_evaluated_yet(site, browser):
    """Submitted, not evaluated: the game results say so and show names, points and games,
    no rating columns; on a phone the details line carries the start number."""
    base, pages = site
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(base + pages["pending-games"][0])
        assert "noch nicht ausgewertet" in page.inner_text("#not-evaluated")
        heads = page.locator("table#participants thead th").all_inner_texts()
        assert heads == ["Nr.", "Name", "Punkte", "Partien"]
        assert page.locator("table#participants td.dwz").count() == 0
        assert page.locator("table#games tbody tr").count() >= 1
        assert page.locator("table#participants tbody tr td.name .sub").first.is_visible()
    finally:
        context.close()
