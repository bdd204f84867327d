"""The officer's submission path in a real headless Chromium (Debian's ``chromium`` driven by
Playwright, as tests/test_web_browser.py), as an officer walks it: sign in, upload
a TRF with one ambiguous player, decide who he is, read the what-if, submit, run the nightly
job, see the tournament evaluated; the same with a real SwissChess SWT file (read from the
corpus, never copied); a correction and a deletion; every page fits a 390 px phone.

Screenshots go to ``$RATINGDB_SCREENSHOTS`` (default tests/artifacts/screens) as
``officer-*-{width}.png``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.submit_support import CODE, PASSWORD, SWT_CORPUS, World, submit_world
from tests.test_web_browser import CHROMIUM
from tests.test_web_layout import OVERFLOW
from tests.web_support import ARTIFACTS, TODAY, engine_for, served

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

SCREENS = Path(os.environ.get("RATINGDB_SCREENSHOTS") or ARTIFACTS / "screens")
SWT = SWT_CORPUS / "OliverNeff__ews-2019.swt"


@pytest.fixture(scope="module")
def site(pg_server: Any) -> Iterator[tuple[str, World]]:
    from ratingdb.web.app import create_app

    with submit_world(pg_server) as world:
        app = create_app(engine_for(world.url), today=lambda: TODAY)
        with served(app) as base:
            yield base, world


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def _page(browser: Any, width: int = 1280) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE")
    return context.new_page()


def _shot(page: Any, name: str, width: int = 1280) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"officer-{name}-{width}.png"), full_page=True)


def _sign_in(page: Any, base: str, name: str = "anna") -> None:
    page.goto(base + "/officer")
    assert "/anmelden" in page.url
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/anmelden'] button[type=submit]")
    page.wait_for_url(base + "/officer")


def _upload(page: Any, name: str, content: bytes, **fields: str) -> None:
    page.set_input_files(
        "input[name=file]",
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": content}],
    )
    for field, value in fields.items():
        page.fill(f"input[name={field}]", value)
    page.click("form.stack button[type=submit]")
    page.wait_for_url("**/officer/drafts/**")


def _state(page: Any, code: str) -> str:
    row = page.locator("tr", has=page.locator(f"a[href='/tournaments/{code}']"))
    return str(row.locator("td[class*=state-]").get_attribute("class"))


def test_trf_with_an_ambiguous_player_from_upload_to_evaluation(site, browser):
    base, world = site
    page = _page(browser)
    try:
        _sign_in(page, base)
        _shot(page, "overview")
        page.click("a#upload")
        _shot(page, "upload")
        _upload(page, "web.trf", world.trf)
        # who is who: one participant is open, with both namesakes to choose from
        open_rows = page.locator("table#who-is-who tr.open")
        assert open_rows.count() == 1
        row = page.locator(f"fieldset.decide[data-key='{world.ambiguous_rank}']")
        assert row.locator(f"input[value='p{world.namesake}']").count() == 1
        assert page.locator("#submit").count() == 0
        assert (
            page.locator("table#who-is-who tr.matched").count()
            == len(page.locator("table#who-is-who tbody tr").all()) - 1
        )
        _shot(page, "who-is-who")
        row.locator(f"input[value='p{world.right_player}']").check()
        page.click("button[name=save]")
        page.wait_for_selector("table#what-if")
        # the what-if: the decided player is among the moved ones, old -> new
        moved = page.locator("table#what-if tr.moved")
        assert moved.count() >= 2
        players = [moved.nth(k).get_attribute("data-player") for k in range(moved.count())]
        assert str(world.right_player) in players
        shown = {
            moved.nth(k).get_attribute("data-player"): moved.nth(k).locator("td.new").inner_text()
            for k in range(moved.count())
        }
        _shot(page, "what-if")
        page.click("#submit")
        page.wait_for_url("**/officer/done/**")  # evaluated at once, no nightly run
        assert page.locator("#evaluated").count() == 1
        assert page.locator("table#evaluation tbody tr").count() >= 2
        _shot(page, "evaluated")
        page.goto(base + "/officer")
        assert "state-evaluated" in _state(page, CODE)
        page.click(f"a[href='/tournaments/{CODE}']")
        page.wait_for_url(f"{base}/tournaments/{CODE}")
        page.wait_for_selector("table#evaluation")
        # the Karteikarte of the decided player now ends with the value the what-if showed
        page.goto(f"{base}/players/{world.right_player}")
        assert shown[str(world.right_player)] in page.locator("table#evaluations").inner_text()
    finally:
        page.context.close()


def test_swt_file_from_upload_to_evaluation(site, browser):
    base, world = site
    page = _page(browser)
    try:
        _sign_in(page, base)
        page.goto(base + "/officer/upload")
        # the file has no tournament dates: the form gives them
        _upload(page, SWT.name, SWT.read_bytes(), code="EWS-2019", vkz=world.vkz,
                start="2026-09-01", end="2026-09-29")  # fmt: skip
        assert "swt" in page.locator("dl.meta").inner_text()
        rows = page.locator("table#who-is-who tbody tr")
        assert rows.count() == 36
        assert page.locator("#submit").count() == 0
        page.click("button[name=all]")  # nobody of the club's file is in the database
        page.wait_for_selector("#what-if-summary")
        assert page.locator("table#who-is-who tr.open").count() == 0
        _shot(page, "swt-draft")
        page.click("#submit")
        page.wait_for_url("**/officer/done/**")
        page.goto(base + "/officer")
        assert "state-evaluated" in _state(page, "EWS-2019")
        page.click("a[href='/tournaments/EWS-2019']")
        page.wait_for_selector("table#evaluation")
        assert page.locator("table#evaluation tbody tr").count() == 36
    finally:
        page.context.close()


def test_correction_and_deletion(site, browser):
    base, world = site
    page = _page(browser)
    try:
        _sign_in(page, base)
        if page.locator(f"a[href='/tournaments/{CODE}']").count() == 0:
            pytest.skip("needs the submission of the first test")
        page.click(f"a[href='/officer/upload?correct={CODE}']")
        from tests.test_web_submit import _flip_first_game

        fixed = "\n".join(_flip_first_game(world.trf.decode().splitlines())).encode()
        _upload(page, "fixed.trf", fixed)
        assert CODE in page.locator("h1").inner_text()
        page.locator(f"fieldset.decide[data-key='{world.ambiguous_rank}'] "
                     f"input[value='p{world.right_player}']").check()  # fmt: skip
        page.click("button[name=save]")
        page.wait_for_selector("table#what-if")
        _shot(page, "correction")
        page.click("#submit")
        page.wait_for_url("**/officer/done/**")
        assert page.locator("#evaluated").count() == 1
        page.goto(base + "/officer")
        assert "state-evaluated" in _state(page, CODE)
        # the stored results edited: unchanged is no change, one flipped result is one
        page.goto(f"{base}/officer/upload?correct={CODE}")
        page.click("#edit-stored")
        page.wait_for_url("**/officer/drafts/**")
        assert page.locator("#unchanged").count() == 1
        _shot(page, "edit-unchanged")
        select = page.locator("table#results select").first
        old = select.input_value()
        select.select_option({"1-0": "0-1", "0-1": "1-0"}.get(old, "1-0"))
        page.click("#save-results")
        page.wait_for_selector("#changes-in-words")
        assert page.locator("#changes-in-words li").count() == 1
        _shot(page, "edit-one-result")
        page.click("form[action$='/discard'] button")
        page.wait_for_url(base + "/officer")
        page.click(f"a[href='/officer/tournaments/{CODE}/delete']")
        page.wait_for_selector("#changes")
        assert page.locator("table#what-if tr.moved").count() >= 1
        page.fill("textarea[name=reason]", "entered twice by mistake")
        _shot(page, "delete")
        page.click("#delete")
        page.wait_for_url("**/officer/done/**")
        _shot(page, "deleted")
        page.goto(base + "/officer")
        assert page.locator(f"a[href='/tournaments/{CODE}']").count() == 0
    finally:
        page.context.close()


@pytest.mark.parametrize("width", (390, 1280))
def test_the_officer_pages_fit_the_screen(site, browser, width):
    """Upload form, a file with problems, the draft with its what-if, the deletion: never
    wider than the screen (tables scroll in their box)."""
    base, world = site
    page = _page(browser, width)
    try:
        _sign_in(page, base)
        measured = {}
        page.goto(base + "/officer/upload")
        measured["upload"] = page.evaluate(OVERFLOW)
        _shot(page, "upload", width)
        bad = (Path(__file__).parent / "data" / "trf" / "three-errors.trf").read_bytes()
        page.set_input_files("input[name=file]", files=[
            {"name": "three-errors.trf", "mimeType": "text/plain", "buffer": bad}])  # fmt: skip
        page.fill("input[name=code]", "X-1")
        page.click("form.stack button[type=submit]")
        page.wait_for_selector("#problems")
        assert page.locator("table#problem-list tr.problem").count() == 3
        measured["problems"] = page.evaluate(OVERFLOW)
        _shot(page, "problems", width)
        page.goto(base + "/officer/upload")
        _upload(page, "web.trf", world.trf)
        measured["who-is-who"] = page.evaluate(OVERFLOW)
        _shot(page, "who-is-who", width)
        decide = page.locator(f"fieldset.decide[data-key='{world.ambiguous_rank}']")
        decide.locator("input[value='non']").check()
        page.click("button[name=save]")
        page.wait_for_selector("#what-if-summary")
        measured["what-if"] = page.evaluate(OVERFLOW)
        _shot(page, "what-if", width)
        page.click("form[action$='/discard'] button")
        page.wait_for_url(base + "/officer")
        measured["overview"] = page.evaluate(OVERFLOW)
        _shot(page, "overview", width)
        link = page.locator("a[href$='/delete']").first
        link.click()
        page.wait_for_selector("#changes")
        measured["delete"] = page.evaluate(OVERFLOW)
        _shot(page, "delete", width)
        for name, m in measured.items():
            assert m["scrollWidth"] <= m["innerWidth"], (name, m)
            assert m["bad"] == [], (name, m)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", (390, 1280))
def test_a_file_above_a_size_bound_is_refused_and_only_administrators_see_the_override(
    site, browser, width
):
    """The upload page refuses a 100,000-player document with its bounds in German (the
    players, and the players without a game: the document's ``$.players``), on the screen at
    both widths; the override's box is an administrator's only."""
    import json

    from tests.test_size_bounds import document

    base, _world = site
    big = json.dumps(document(100_000)).encode()
    page = _page(browser, width)
    try:
        _sign_in(page, base)
        page.goto(base + "/officer/upload")
        assert page.locator("input[name=allow_large]").count() == 0
        page.set_input_files("input[name=file]", files=[
            {"name": "big.json", "mimeType": "application/json", "buffer": big}])  # fmt: skip
        page.click("form.stack button[type=submit]")
        page.wait_for_selector("#problems")
        assert "ungültige Eingabe, nichts gespeichert" in page.locator("#problems").inner_text()
        problems = page.locator("table#problem-list tr.problem")
        assert problems.count() == 2
        problem = problems.first
        assert "$.players" in problem.inner_text()
        assert "100000 Spieler, über der Obergrenze von 5000 Spielern je Turnier" in (
            problem.inner_text()
        )
        measured = page.evaluate(OVERFLOW)
        _shot(page, "above-a-bound", width)
        assert measured["scrollWidth"] <= measured["innerWidth"], measured
    finally:
        page.context.close()
    page = _page(browser, width)
    try:
        _sign_in(page, base, "root")
        page.goto(base + "/officer/upload")
        box = page.locator("input[name=allow_large]")
        assert box.count() == 1 and box.is_visible()
        _shot(page, "upload-admin", width)
        assert page.evaluate(OVERFLOW)["scrollWidth"] <= width
    finally:
        page.context.close()
