"""Every date a request or a command takes is a date written ``YYYY-MM-DD`` (a 422 naming
the parameter for anything else: ``0`` is no 1970-01-01, ``2026-02-30`` no day), and every
export works for any date the database can hold: with the earliest plausible date set to
0001-01-01 (``RATINGDB_EARLIEST_DATE``), a tournament of the year 1 and the lists of its
days come out as CSV, PDF, the pairing programs' files (zips among them: their timestamps
are clamped to the format's 1980), JSON, TRF and the DSB's XML."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from ratingdb.services.reports import PLAYER_FILE_FORMATS
from tests.cli import run
from tests.web_support import bearer, client_for, engine_for, synth_database, user_token

NONSENSE = ("0", "1e3", "abc", "2026-02-30", "2026-13-01", "2026-1-1", "20261121",
            "99999-01-01", "-2026-01-01", "2026-11-21T00:00:00")  # fmt: skip
#: what the German pages say of a date that is none
GERMAN = "ein Datum wird JJJJ-MM-TT geschrieben, z. B. 2026-11-21"
#: the pages' date parameters (the API's come from its OpenAPI document)
PAGES = (("/tournaments", "from"), ("/tournaments", "to"), ("/lists?club={club}", "date"),
         ("/lists.csv?club={club}", "date"), ("/lists.pdf?club={club}", "date"),
         ("/lists/top?organisation=000", "date"), ("/lists/top.csv?organisation=000", "date"),
         ("/lists/top.pdf?organisation=000", "date"))  # fmt: skip


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[tuple[URL, str]]:
    with synth_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            club = conn.execute(
                text("SELECT vkz FROM organisations WHERE kind = 'club' ORDER BY vkz LIMIT 1")
            ).scalar_one()
        yield url, club


def _date_parameters(schema: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(method, path, name) of every query parameter the API declares as a date."""
    found = []
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            for p in op.get("parameters", []):
                if p["in"] == "query" and "'format': 'date'" in str(p.get("schema")):
                    found.append((method, path, p["name"]))
    return found


def test_every_date_parameter_of_the_api_refuses_what_is_no_date(world):
    url, _club = world
    client = client_for(url)
    admin = bearer(user_token(url, "dates-admin", "admin"))
    parameters = _date_parameters(client.get("/openapi.json").json())
    assert ("get", "/api/tournaments", "to") in parameters
    assert ("post", "/api/tournaments/trf", "start") in parameters
    for method, path, name in parameters:
        for value in NONSENSE:
            answer = client.request(
                method.upper(), path.replace("{code}", "X-1"), params={name: value},
                content=b"012 x\n", headers=admin,
            )  # fmt: skip
            assert answer.status_code == 422, (method, path, name, value, answer.text)
            # a required parameter left out is named too (the top list's organisation)
            places = [e["location"] for e in answer.json()["errors"]]
            assert f"query.{name}" in places, answer.text


def test_every_date_parameter_of_the_pages_refuses_what_is_no_date_in_german(world):
    url, club = world
    client = client_for(url)
    for path, name in PAGES:
        path = path.format(club=club)
        for value in NONSENSE:
            answer = client.get(f"{path}{'&' if '?' in path else '?'}{urlencode({name: value})}")
            assert answer.status_code == 422, (path, name, value)
            assert "<html" in answer.text and "query." + name in answer.text
    answer = client.get("/tournaments", params={"to": "0"})
    assert GERMAN in html.unescape(answer.text)
    # a date, but none a list can have: the bound in the page's language
    for lang, words in (("de", "1949-12-31 ist nicht plausibel (von 1950-01-01 bis"),
                        ("en", "1949-12-31 is not plausible (from 1950-01-01 to")):  # fmt: skip
        answer = client.get(f"/lists?club={club}&date=1949-12-31&lang={lang}")
        assert answer.status_code == 422 and words in answer.text, answer.text[-800:]


def test_every_export_works_for_a_tournament_and_lists_of_the_year_1(world, monkeypatch, tmp_path):
    url, club = world
    monkeypatch.setenv("RATINGDB_EARLIEST_DATE", "0001-01-01")
    member = {"club": club, "member_since": "0001-01-01"}
    doc = {
        "tournament": {"id": "YEAR-1", "start": "0001-01-02", "end": "0001-01-03", "vkz": club},
        "players": [{"id": f"a{k}", "name": f"Alt{k}, Max", **member} for k in range(6)],
        "games": [
            {"white": f"a{i}", "black": f"a{j}", "result": "1-0"}
            for i in range(6)
            for j in range(i + 1, 6)
        ],
    }
    (tmp_path / "year1.json").write_text(json.dumps(doc))
    assert run(["tournament", "add", str(tmp_path / "year1.json")], url).returncode == 0
    recalc = run(["recalc", "--quiet"], url)
    assert recalc.returncode == 0, recalc.stderr
    out = tmp_path / "out"
    for day in ("0001-01-10", "1979-12-31"):
        calls = [
            ["export", "list", "--club", club, "--date", day, "--format", fmt]
            for fmt in ("csv", "pdf", *PLAYER_FILE_FORMATS)
        ]
        calls.append(["export", "list", "--federation", "000", "--date", day, "--top", "10",
                      "--format", "pdf"])  # fmt: skip
        for args in calls:
            done = run([*args, "-o", str(out)], url)
            assert done.returncode == 0, (args, done.stderr)
            assert out.stat().st_size > 0
    for fmt in ("json", "trf", "dsb-xml", "evaluate"):
        done = run(["tournament", "export", "YEAR-1", "--format", fmt, "-o", str(out)], url)
        assert done.returncode == 0, (fmt, done.stderr)
    assert "0001/01/03" in run(["tournament", "export", "YEAR-1", "--format", "trf"], url).stdout
    for fmt in ("csv", "pdf"):
        done = run(["export", "evaluation", "YEAR-1", "--format", fmt, "-o", str(out)], url)
        assert done.returncode == 0, (fmt, done.stderr)
    client = client_for(url)
    with engine_for(url).connect() as conn:
        player = conn.execute(
            text("SELECT pa.player_id FROM participants pa JOIN tournaments t "
                 "ON t.id = pa.tournament_id WHERE t.code = 'YEAR-1' LIMIT 1")
        ).scalar_one()  # fmt: skip
    for path in (f"/players/{player}", f"/players/{player}/card.pdf", f"/api/players/{player}",
                 "/tournaments/YEAR-1", "/tournaments/YEAR-1/evaluation.csv",
                 "/api/tournaments/YEAR-1", "/tournaments?from=0001-01-01&to=0001-12-31",
                 f"/lists?club={club}&date=0001-01-10", f"/lists.csv?club={club}&date=0001-01-10",
                 f"/lists.pdf?club={club}&date=0001-01-10",
                 f"/api/lists?club={club}&date=0001-01-10",
                 "/lists/top.pdf?organisation=000&date=0001-01-10"):  # fmt: skip
        for lang in ("de", "en"):
            answer = client.get(f"{path}{'&' if '?' in path else '?'}lang={lang}")
            shown = re.sub(r"<[^>]+>", " ", answer.text)[-600:]
            assert answer.status_code == 200, (path, lang, shown)
    listed = client.get("/api/tournaments", params={"from": "0001-01-01", "to": "0001-12-31"})
    assert [t["code"] for t in listed.json()["items"]] == ["YEAR-1"]


def test_lists_at_the_end_of_the_calendar_export_in_every_format(world, tmp_path):
    """With today on 9999-12-29 (``RATINGDB_TODAY``), the last day a list may carry is the
    calendar's last but one (not ``today`` plus the days ahead, past ``date.max``): the
    lists of 9999-12-30 come out in every format, the zips dated at the format's 2107."""
    from datetime import date

    from click.testing import CliRunner

    from ratingdb.cli import main

    url, club = world
    env = {"DATABASE_URL": url.render_as_string(hide_password=False),
           "RATINGDB_TODAY": "9999-12-29"}  # fmt: skip
    out = tmp_path / "out"
    for fmt in ("csv", "pdf", *PLAYER_FILE_FORMATS):
        args = ["export", "list", "--club", club, "--date", "9999-12-30", "--format", fmt]
        done = CliRunner().invoke(main, [*args, "-o", str(out)], env=env)
        assert done.exit_code == 0, (fmt, done.output, done.exception)
        assert out.stat().st_size > 0
    client = client_for(url, today=date(9999, 12, 29))
    for path in (f"/lists?club={club}&date=9999-12-30", f"/lists.pdf?club={club}",
                 f"/lists.csv?club={club}&date=9999-12-30", "/lists/top?organisation=000",
                 "/lists/top.pdf?organisation=000", f"/api/lists?club={club}&date=9999-12-30",
                 "/api/lists/top?organisation=000", "/tournaments"):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text[-300:])
    assert client.get(f"/lists?club={club}&date=9999-12-31").status_code == 422
