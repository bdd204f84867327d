"""One language at a time (docs/i18n.md): the catalogs are complete, the pages are German by
default and English on request (``Accept-Language``, the switch ``?lang=`` and its cookie),
the JSON API stays English, the CLI follows ``--lang`` / ``RATINGDB_LANG``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ratingdb import i18n
from ratingdb.settings import Settings, SettingsError
from tests.web_support import client_for, database

ROOT = Path(__file__).resolve().parents[1]


def test_the_catalogs_are_current_and_german_is_complete() -> None:
    """A message added to the code or a template without ``python scripts/i18n.py`` and a
    German translation fails here."""
    run = subprocess.run(
        [sys.executable, "scripts/i18n.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_gettext_follows_the_language_in_force() -> None:
    assert i18n.language() == "de"
    assert i18n._("Tournaments") == "Turniere"
    with i18n.use("en"):
        assert i18n._("Tournaments") == "Tournaments"
        assert i18n.ngettext("%(num)d tournament.", "%(num)d tournaments.", 2) == (
            "%(num)d tournaments."
        )
    assert i18n.ngettext("%(num)d tournament.", "%(num)d tournaments.", 1) == "%(num)d Turnier."
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.set_language("fr")


def test_the_language_setting() -> None:
    assert Settings.from_env({}).language == "de"
    assert Settings.from_env({"RATINGDB_LANG": "en_GB.UTF-8"}).language == "en"
    with pytest.raises(SettingsError, match="RATINGDB_LANG: unknown language 'fr'"):
        Settings.from_env({"RATINGDB_LANG": "fr"})


@pytest.fixture(scope="module")
def client(pg_server):
    with database(pg_server, "i18n") as url:
        yield client_for(url)


def test_pages_are_german_by_default(client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert '<html lang="de">' in page.text
    assert "<h2>Neueste Turniere</h2>" in page.text and "Latest tournaments" not in page.text
    assert page.headers["content-language"] == "de"
    assert "Accept-Language" in page.headers["vary"]
    # the switch offers English on this very page, keeping its query
    assert 'href="/tournaments?vkz=C0&amp;lang=en" hreflang="en"' in (
        client.get("/tournaments?vkz=C0").text
    )


def test_accept_language_chooses_english(client) -> None:
    page = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9,de;q=0.5"})
    assert '<html lang="en">' in page.text and "<h2>Latest tournaments</h2>" in page.text
    assert "Neueste Turniere" not in page.text
    # a language ratingdb lacks falls back to German
    fr = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert "<h2>Neueste Turniere</h2>" in fr.text


def test_the_switch_sets_a_cookie_that_wins_over_the_header(client) -> None:
    page = client.get("/?lang=en", headers={"Accept-Language": "de"})
    assert "<h2>Latest tournaments</h2>" in page.text
    assert "lang=en" in page.headers["set-cookie"]
    # the client keeps the cookie: the next page is English without asking again
    later = client.get("/tournaments", headers={"Accept-Language": "de"})
    assert "<h1>Tournaments</h1>" in later.text
    back = client.get("/?lang=de")
    assert "<h2>Neueste Turniere</h2>" in back.text
    assert "<h1>Turniere</h1>" in client.get("/tournaments").text
    client.cookies.clear()


def test_error_pages_and_the_api(client) -> None:
    missing = client.get("/tournaments/NOPE", headers={"Accept": "text/html"})
    assert missing.status_code == 404 and "Nicht gefunden" in missing.text
    english = client.get("/tournaments/NOPE?lang=en", headers={"Accept": "text/html"})
    assert "Not found" in english.text
    client.cookies.clear()
    # the JSON API is data for programs: English unless asked
    assert client.get("/api/tournaments").headers["content-language"] == "en"


def test_no_translation_inside_an_f_string() -> None:
    """Babel does not extract ``_()`` inside f-strings: such a text would stay English in
    German and ``--check`` could not notice; use ``_("...%(name)s") % {...}`` instead."""
    import re

    found = [
        f"{path.relative_to(ROOT)}:{k}"
        for path in sorted((ROOT / "ratingdb").rglob("*.py"))
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"f[\"'][^\"']*\{\s*(_|gettext|ngettext|pgettext|npgettext)\(", line)
    ]
    assert found == []


def test_cli_tables_follow_lang_and_the_setting() -> None:
    """``ratingdb evaluate --format table`` (the table of ``tournament show`` and the demo):
    German by default, English by ``RATINGDB_LANG`` or ``--lang``; the call's language does
    not outlive the call."""
    from click.testing import CliRunner

    from ratingdb.cli import main

    example = str(ROOT / "ratingdb" / "data" / "wo-2026-example.json")
    german = CliRunner().invoke(main, ["evaluate", example, "--format", "table"])
    assert german.exit_code == 0, german.output
    lines = german.output.splitlines()
    assert lines[0].startswith(
        "WO-Beispielturnier  Turnier-ID: 12345678  Beginn: 10.08.2026  Ende: 12.12.2026"
    )
    assert lines[4].split()[5:12] == ["2220-31", "25,0", "1855", "7,0", "7", "5,990", "2331"]
    assert lines[2].split() == ["#", "Spieler", "Altersstufe", "VKZ", "DWZ", "alt", "K",
                                "Niveau", "Punkte", "Partien", "We", "Leistung", "DWZ", "neu",
                                "+/-"]  # fmt: skip
    for word in ("Age", "youth", "junior", "adult", "residual", "non-member", "exceptional"):
        assert word not in german.output, word
    assert "  We (W_e): Punkterwartung im Turnier = Summe aller einzelnen Gewinnerwartungen" in (
        german.output
    )
    for args, env in ((["evaluate"], {"RATINGDB_LANG": "en"}), (["--lang", "en", "evaluate"], {})):
        english = CliRunner().invoke(main, [*args, example, "--format", "table"], env=env)
        out = english.output.splitlines()
        assert out[0].startswith("WO-Beispielturnier  Tournament ID: 12345678  Start: 2026-08-10")
        assert out[2].split()[:7] == ["#", "Player", "Age", "Club", "code", "Old", "rating"]
        assert out[4].split()[5:12] == ["2220-31", "25.0", "1855", "7.0", "7", "5.990", "2331"]
        assert i18n.language() == "de"
    bad = CliRunner().invoke(main, ["evaluate", example], env={"RATINGDB_LANG": "fr"})
    assert bad.exit_code == 2 and "RATINGDB_LANG: unknown language 'fr'" in bad.output


def test_the_what_if_counts_one_tournament_in_the_singular():
    """One tournament is "1 Turnier", several are "Turniere" (the what-if's summary)."""
    from ratingdb.i18n import ngettext, use

    one = "The next run would evaluate %(num)d tournament from %(day)s on (WO 3.7: everything after the change point is replayed)."  # noqa: E501
    many = one.replace("tournament from", "tournaments from")
    with use("de"):
        assert (ngettext(one, many, 1) % {"num": 1, "day": "05.10.2026"}).startswith(
            "Der nächste Lauf würde 1 Turnier ab dem 05.10.2026 auswerten"
        )
        assert "würde 3 Turniere ab" in ngettext(one, many, 3) % {"num": 3, "day": "x"}
    with use("en"):
        assert "evaluate 1 tournament from" in ngettext(one, many, 1) % {"num": 1, "day": "x"}
