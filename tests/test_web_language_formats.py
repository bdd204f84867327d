"""Numbers, dates and column heads in the language of the page, in a real Chromium (Debian's
``chromium`` driven by Playwright), at a desktop and a phone width: the German evaluation
of the WO's worked example writes ``25,0`` and ``12.12.2026``, the English one ``25.0``
and ``2026-12-12`` under heads in words ("Old rating", "Expected score") with the WO's
symbol in the hover text (docs/i18n.md "Numbers and dates")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.web_support import engine_for, example_database, served

CHROMIUM = Path("/usr/bin/chromium")
if os.environ.get("RATINGDB_CI") and not CHROMIUM.exists():
    raise RuntimeError("RATINGDB_CI is set but /usr/bin/chromium is missing")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

EXAMPLE = "12345678"


@pytest.fixture(scope="module")
def site(pg_server):
    from ratingdb.web.app import create_app

    with example_database(pg_server) as url, served(create_app(engine_for(url))) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def row_of(page, given: str) -> list[str]:
    """The shown cells of the player whose name ends with ``given`` (``Player, A``)."""
    for row in page.locator("#evaluation tbody tr").all():
        cells = [" ".join(t.split()) for t in row.locator("td").all_inner_texts()]
        name = f"Player, {given}"
        if cells[1].startswith(name) and not cells[1][len(name) : len(name) + 1].isalpha():
            return cells
    raise AssertionError(f"no row of player {given}")


@pytest.mark.parametrize("width", [1280, 390])
def test_evaluation_page_writes_numbers_dates_and_heads_in_its_language(
    site, browser, width, tmp_path
):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE")
    page = context.new_page()
    page.goto(f"{site}/tournaments/{EXAMPLE}")
    german = page.inner_text("main")
    assert "10.08.2026 / 12.12.2026" in german and "2026-12-12" not in german
    a = " ".join(row_of(page, "A"))
    assert "25,0" in a and "5,990" in a and "7,0" in a and "5.990" not in a
    assert "DWZ neu" in page.inner_text("#evaluation thead")  # the phone shows fewer columns
    page.screenshot(path=str(tmp_path / f"de-{width}.png"), full_page=True)

    page.goto(f"{site}/tournaments/{EXAMPLE}?lang=en")
    english = page.inner_text("main")
    assert "2026-08-10 / 2026-12-12" in english and "12.12.2026" not in english
    a = " ".join(row_of(page, "A"))
    assert "25.0" in a and "5.990" in a and "7.0" in a and "5,990" not in a
    heads = page.inner_text("#evaluation thead")
    shown = ("Old rating", "Expected score", "Performance", "New rating") if width > 400 else ()
    for words in (*shown, "New rating"):
        assert words in heads, heads
    for symbol in ("R_o", "W_e", "R_h", "R_n"):
        assert symbol not in heads.split(), heads
    hover = page.locator("#evaluation thead abbr", has_text="Expected score").first
    assert hover.get_attribute("title").startswith("W_e: ")  # the symbol in the hover text
    page.screenshot(path=str(tmp_path / f"en-{width}.png"), full_page=True)
    print(f"screenshots: {tmp_path}")
    context.close()
