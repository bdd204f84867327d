"""The officer's and the administrator's pages on a phone (390×844, German), in a real
headless Chromium (Debian's ``chromium`` driven by Playwright, as tests/test_web_browser.py):
along the officer's path — overview, upload (step 1), who is who (step 2), the what-if
(step 3), the stored evaluation after submitting, the Karteikarte, the stored results
edited, the deletion — and on the runs, the audit log and the users, the page never
scrolls sideways, no table is wider than its box (the name and the DWZ are on the screen;
the other values are in the row's details line), and the page's primary action is visible
and at least 44 px tall. At 1280 px the tables keep every column.

Screenshots go to ``$RATINGDB_SCREENSHOTS`` (default tests/artifacts/screens) as
``officer-phone-*-390.png``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests import test_web_submit_browser as submit_browser
from tests.submit_support import CODE, PASSWORD
from tests.test_web_browser import CHROMIUM
from tests.web_support import ARTIFACTS

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

SCREENS = Path(os.environ.get("RATINGDB_SCREENSHOTS") or ARTIFACTS / "screens")
PHONE = {"width": 390, "height": 844}
#: the served submission world and Chromium, as the submission's browser tests have them
site = submit_browser.site
browser = submit_browser.browser

THUMB = 44  # px: the smallest target for a primary action

#: the page's width against the viewport, every scroll box whose table is wider than the
#: box, and the primary action's box
MEASURE = """(primary) => {
  const boxes = [...document.querySelectorAll('.scroll')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${(e.querySelector('table') || {}).id}: ${e.scrollWidth} > ${e.clientWidth}`);
  const p = primary ? document.querySelector(primary) : null;
  const r = p ? p.getBoundingClientRect() : null;
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
          boxes, primary: r && {left: r.left, right: r.right, height: r.height,
            shown: getComputedStyle(p).visibility === 'visible' && r.width > 0}};
}"""

#: the boxes of the first rows' cells picked by a selector
CELLS = """([table, selector]) => [...document.querySelectorAll(`table#${table} tbody tr`)]
  .slice(0, 5).map(row => { const c = row.querySelector(selector);
    if (!c) return null; const r = c.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width, text: c.innerText.trim()}; })"""


def _signed_in(browser: Any, base: str, name: str, viewport: dict[str, int] = PHONE) -> Any:
    page = browser.new_context(viewport=viewport, device_scale_factor=2, locale="de-DE").new_page()
    page.goto(base + "/anmelden")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/anmelden'] button[type=submit]")
    page.wait_for_url(base + "/officer")
    return page


def _fits(page: Any, name: str, primary: str | None) -> dict[str, Any]:
    """Measures the page (and saves its screenshot); the problems found, by kind."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"officer-phone-{name}-390.png"), full_page=True)
    m = page.evaluate(MEASURE, primary)
    problems: dict[str, Any] = {}
    if m["scrollWidth"] > m["innerWidth"]:
        problems["page wider than the screen"] = m["scrollWidth"]
    if m["boxes"]:
        problems["tables wider than their box"] = m["boxes"]
    if primary is not None:
        p = m["primary"]
        if p is None or not p["shown"]:
            problems["primary action not shown"] = primary
        elif p["height"] < THUMB or p["left"] < 0 or p["right"] > m["innerWidth"]:
            problems["primary action too small or off the screen"] = (primary, p)
    return problems


def _on_screen(page: Any, table: str, selector: str) -> list[Any]:
    """The first rows' cells of ``selector`` that are missing, empty or not inside the
    phone's width."""
    cells = page.evaluate(CELLS, [table, selector])
    assert cells, (table, selector)
    return [c for c in cells if c is None or c["right"] > PHONE["width"] or c["left"] < 0
            or c["width"] == 0]  # fmt: skip


def test_the_officer_path_fits_a_phone_with_thumb_sized_primary_actions(site, browser):
    """Overview, upload, who is who, what-if, the stored evaluation, the Karteikarte, the
    stored results edited and the deletion at 390 px: no sideways scrolling, no table
    wider than its box, the primary action on the screen and >= 44 px tall."""
    base, world = site
    page = _signed_in(browser, base, "anna")
    found: dict[str, Any] = {}
    try:
        found["overview"] = _fits(page, "overview", "a#upload")
        page.click("a#upload")
        found["upload"] = _fits(page, "upload", "form.stack button[type=submit]")
        page.set_input_files("input[name=file]", files=[
            {"name": "web.trf", "mimeType": "text/plain", "buffer": world.trf}])  # fmt: skip
        page.click("form.stack button[type=submit]")
        page.wait_for_url("**/officer/drafts/**")
        found["who-is-who"] = _fits(page, "who-is-who", "button[name=save]")
        # the participant in the file and the database player (with his DWZ) side by side
        found["who-is-who cells"] = _on_screen(page, "who-is-who", "td:nth-child(5)")
        decide = page.locator(f"fieldset#decide-{world.ambiguous_rank}")
        value = f"input[value='p{world.right_player}']"
        choice = decide.locator(value)
        assert choice.bounding_box()["height"] >= 20  # a radio button a thumb can hit
        label = decide.locator("label").filter(has=page.locator(value)).bounding_box()
        assert label["height"] >= THUMB and label["x"] + label["width"] <= PHONE["width"]
        choice.check()
        page.click("button[name=save]")
        page.wait_for_selector("table#what-if")
        found["what-if"] = _fits(page, "what-if", "#submit")
        # next run without, next run with and the change of each moved player on the screen
        found["what-if cells"] = (_on_screen(page, "what-if", "td.old")
                                  + _on_screen(page, "what-if", "td.new")
                                  + _on_screen(page, "what-if", "td.change"))  # fmt: skip
        page.click("#submit")
        page.wait_for_url("**/officer/done/**")
        found["evaluated"] = _fits(page, "evaluated", "#evaluation-link")
        # name, DWZ neu (the 12th column) and +/- of the stored evaluation on the screen
        name_cells = _on_screen(page, "evaluation", "td:nth-child(2)")
        found["evaluated cells"] = name_cells + _on_screen(page, "evaluation", "td:nth-child(12)")
        page.goto(f"{base}/players/{world.right_player}")
        found["karteikarte"] = _fits(page, "karteikarte", None)
        page.goto(f"{base}/officer/upload?correct={CODE}")
        found["correct"] = _fits(page, "correct", "#edit-stored")
        page.click("#edit-stored")
        page.wait_for_url("**/officer/drafts/**")
        found["edit-stored"] = _fits(page, "edit-stored", "#save-results")
        page.click("form[action$='/discard'] button")
        page.wait_for_url(base + "/officer")
        page.goto(f"{base}/officer/tournaments/{CODE}/delete")
        page.wait_for_selector("#changes")
        found["delete"] = _fits(page, "delete", "#delete")
    finally:
        page.context.close()
    assert {name: p for name, p in found.items() if p} == {}


def test_runs_audit_log_and_users_fit_a_phone_with_thumb_sized_primary_actions(site, browser):
    """The runs, one run's changed players, the audit log, the users and one user at
    390 px, as the administrator sees them."""
    base, _world = site
    page = _signed_in(browser, base, "root")
    found: dict[str, Any] = {}
    try:
        found["admin-overview"] = _fits(page, "admin-overview", "a#upload")
        page.goto(base + "/officer/runs")
        found["runs"] = _fits(page, "runs", None)
        page.click("table#runs tbody tr td a")
        page.wait_for_url("**/officer/runs/*")
        found["run"] = _fits(page, "run", None)
        page.goto(base + "/admin/audit")
        found["audit"] = _fits(page, "audit", "form[action='/admin/audit'] button")
        page.goto(base + "/admin/users")
        found["users"] = _fits(page, "users", "form[action='/admin/users'] button")
        page.goto(base + "/admin/users/anna")
        found["user"] = _fits(page, "user", "form[action$='/scopes'] button")
    finally:
        page.context.close()
    assert {name: p for name, p in found.items() if p} == {}


def test_the_measurement_catches_a_wide_table_and_a_small_button(site, browser):
    """With the phone rules taken back (every column shown, default button height) the
    measurement above finds the what-if's table wider than its box and a small button:
    the tests above can fail."""
    base, _world = site
    page = _signed_in(browser, base, "anna")
    try:
        page.goto(base + "/officer/upload")
        page.add_style_tag(content="body.officer main button { min-height: 0 !important; }")
        assert "primary action too small or off the screen" in _fits(
            page, "measured-upload", "form.stack button[type=submit]"
        )
        page.goto(f"{base}/officer/runs")
        page.add_style_tag(content=".wide { display: table-cell !important; }")
        assert "tables wider than their box" in _fits(page, "measured-runs", None)
    finally:
        page.context.close()


def test_the_desktop_keeps_every_column_and_no_details_line(site, browser):
    """At 1280 px the who-is-who table shows all its columns and no details line."""
    base, world = site
    page = _signed_in(browser, base, "anna", {"width": 1280, "height": 900})
    try:
        page.goto(base + "/officer/upload")
        page.set_input_files("input[name=file]", files=[
            {"name": "web.trf", "mimeType": "text/plain", "buffer": world.trf}])  # fmt: skip
        page.click("form.stack button[type=submit]")
        page.wait_for_url("**/officer/drafts/**")
        heads = page.locator("table#who-is-who thead th")
        assert all(heads.nth(k).is_visible() for k in range(heads.count()))
        assert heads.count() == 6
        subs = page.locator("table#who-is-who span.sub")
        assert subs.count() > 0 and not any(subs.nth(k).is_visible() for k in range(subs.count()))
        page.click("form[action$='/discard'] button")
        page.wait_for_url(base + "/officer")
    finally:
        page.context.close()
