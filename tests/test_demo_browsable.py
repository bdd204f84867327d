"""The demo is browsable: ``ratingdb demo`` ends with the command that
serves what it built, and that command, run as printed (in the same environment, only on a
free port), serves the Karteikarte the demo printed: over HTTP and in headless Chromium."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ratingdb.commands.demo import SERVE
from tests.test_web_browser import CHROMIUM

ROOT = Path(__file__).resolve().parent.parent


def _printed(stdout: str) -> tuple[list[str], str, str, str]:
    """(the printed serve command, the Karteikarte's path, the card's name and DWZ)."""
    lines = stdout.splitlines()
    at = next(k for k, line in enumerate(lines) if line.strip().startswith("ratingdb serve"))
    command = shlex.split(lines[at])
    link = re.search(r"http://127\.0\.0\.1:8000(/players/\d+)", lines[at + 1])
    assert link, lines[at + 1]
    card = re.search(r"^Karteikarte: (.+) \(ID \d+, .*\)  DWZ (\S+)$", stdout, re.M)
    assert card, stdout
    return command, link.group(1), card.group(1), card.group(2)


@pytest.fixture(scope="module")
def demo_served(demo_run: tuple[Any, Any]) -> Iterator[tuple[str, str, str, str]]:
    """The demo's printed serve command running on a free port: (base URL, the card's path,
    name, DWZ)."""
    out, url = demo_run
    assert out.returncode == 0, out.stderr
    command, path, name, dwz = _printed(out.stdout)
    assert command == shlex.split(SERVE) == ["ratingdb", "serve", "--database", "ratingdb_demo"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = os.environ | {"DATABASE_URL": url.render_as_string(hide_password=False)}
    # `ratingdb` is `python -m ratingdb.cli` of this checkout
    proc = subprocess.Popen(
        [sys.executable, "-m", "ratingdb.cli", *command[1:], "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=5):
                    break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"the printed command stopped: {proc.stderr.read()}")  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the printed command did not serve"
                time.sleep(0.5)
        yield base, path, name, dwz
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_printed_command_serves_the_demo_karteikarte(demo_served):
    base, path, name, dwz = demo_served
    with urllib.request.urlopen(base + path, timeout=30) as answer:
        assert answer.status == 200
        page = answer.read().decode("utf-8")
    assert f"<h1>Karteikarte: {name}</h1>" in page
    assert f'<span class="big" id="current-rating">{dwz}</span>' in page


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_demo_karteikarte_in_chromium(demo_served):
    from playwright.sync_api import sync_playwright

    base, path, name, dwz = demo_served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            page = browser.new_page(locale="de-DE")
            page.goto(base + path)
            assert page.locator("h1").inner_text() == f"Karteikarte: {name}"
            assert page.locator("#current-rating").inner_text() == dwz
            assert page.locator("svg.chart circle.pt").count() >= 1
        finally:
            browser.close()


def _signs_in(stdout: str) -> dict[str, str]:
    """The demo's printed users: name -> password."""
    found = dict(re.findall(r"^\s+(referent|admin) / (\S+)\s", stdout, re.M))
    assert set(found) == {"referent", "admin"}, stdout
    return found


def test_the_demo_prints_how_to_sign_in_and_the_officer_can(demo_served, demo_run):
    """The printed officer signs in on the served demo with the printed password and sees
    his overview; the administrator too."""
    import httpx

    base, _path, _name, _dwz = demo_served
    out, _url = demo_run
    for name, password in _signs_in(out.stdout).items():
        with httpx.Client(base_url=base, timeout=30) as client:
            page = client.get("/anmelden")
            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert csrf, page.text
            answer = client.post(
                "/anmelden",
                data={"name": name, "password": password, "csrf": csrf.group(1),
                      "next": "/officer"},
            )  # fmt: skip
            assert answer.status_code == 303, (name, answer.text)
            overview = client.get("/officer")
            assert overview.status_code == 200 and "Übersicht" in overview.text


def test_every_command_takes_the_demo_database(demo_run):
    """``ratingdb --database ratingdb_demo`` (the printed hint) acts on the demo's database:
    its users are there; the same as RATINGDB_DATABASE; a bad name is one error line."""
    from tests.cli import run

    out, url = demo_run
    listed = run(["--database", "ratingdb_demo", "user", "list"], url)
    assert listed.returncode == 0, listed.stderr
    assert "referent" in listed.stdout and "admin" in listed.stdout
    assert "--database ratingdb_demo user list" in out.stdout
    bad = run(["--database", "x; drop", "user", "list"], url)
    assert bad.returncode != 0 and bad.stderr.startswith("error: --database: not a database")
    assert "Traceback" not in bad.stderr
