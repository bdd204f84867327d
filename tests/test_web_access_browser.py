"""An administrator disables and enables an officer in a real headless Chromium (Debian's
``chromium``, driven by Playwright), at a desktop's and a phone's width: the page says
what happened in German, the officer's open session is out at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from ratingdb.services.users import add_user
from tests.cli import run
from tests.web_support import ARTIFACTS, TODAY, database, engine_for, ok, served

CHROMIUM = Path("/usr/bin/chromium")
PASSWORD = "correct horse battery"
if os.environ.get("RATINGDB_CI") and not CHROMIUM.exists():
    raise RuntimeError("RATINGDB_CI is set but /usr/bin/chromium is missing")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def site(pg_server):  # type: ignore[no-untyped-def]
    from ratingdb.web.app import create_app

    with database(pg_server, "web_access_browser") as url:
        ok(["synth", "--players", "20", "--years", "1", "--seed", "4"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"], full_name="Anna A")
            add_user(session, "root", "admin")
        for name in ("anna", "root"):
            out = run(["user", "password", name, "--password-stdin"], url, input=PASSWORD + "\n")
            assert out.returncode == 0, out.stderr
        with served(create_app(engine_for(url), today=lambda: TODAY)) as base:
            yield base


def sign_in(page, base: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(base + "/anmelden")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(base + "/officer")


@pytest.mark.parametrize("width", [1280, 390])
def test_admin_disables_and_enables_an_officer(site, width):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        officer = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE")
        admin = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE")
        victim, page = officer.new_page(), admin.new_page()
        sign_in(victim, site, "anna")
        sign_in(page, site, "root")
        page.goto(site + "/admin/users/anna")
        assert page.locator("#state").inner_text() == "aktiv"
        page.click("text=Benutzer sperren")
        page.wait_for_url("**done=disabled")
        assert "Der Benutzer wurde gesperrt" in page.inner_text("main")
        assert page.locator("#state").inner_text().startswith("gesperrt am")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"admin-user-disabled-{width}.png"), full_page=True)
        victim.goto(site + "/officer")
        assert victim.url.startswith(site + "/anmelden")  # out at once
        page.click("text=Benutzer entsperren")
        page.wait_for_url("**done=enabled")
        assert page.locator("#state").inner_text() == "aktiv"
        browser.close()
