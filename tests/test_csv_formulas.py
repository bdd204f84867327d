"""No CSV ratingdb writes lets a spreadsheet run a name as a formula (OWASP "CSV
injection"): players named with each formula prefix (``=``, ``+``, ``-``, ``@``, tab,
carriage return) and a club named like a formula go through every CSV export, on the web
and on the command line; each such cell comes out behind an apostrophe with the name
readable after it, and negative numbers stay numbers."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from ratingdb.csv_cells import FORMULA_START, neutralise
from tests.builders import ok
from tests.web_support import client_for, database, engine_for

#: one formula name per prefix of the OWASP guidance
FORMULAS = [
    '=HYPERLINK("http://evil.example/";"klick")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]
CLUB = "=cmd|' /C calc'!A0 Schachclub"


@pytest.fixture(scope="module")
def federation(
    pg_server: URL, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A recalculated synthetic federation; the players of one tournament renamed to the
    formulas (surname and the name the tournament file gave), their club too."""
    with database(pg_server, "csv_formulas") as url:
        ok(["synth", "--players", "60", "--years", "1", "--seed", "11"], url)
        ok(["recalc", "--quiet"], url)
        with engine_for(url).begin() as conn:
            code, tid = conn.execute(
                text("SELECT code, id FROM tournaments WHERE status = 'evaluated' "
                     "ORDER BY (SELECT count(*) FROM participants p WHERE p.tournament_id = "
                     "tournaments.id) DESC, code LIMIT 1")
            ).one()  # fmt: skip
            players = conn.execute(
                text("SELECT player_id FROM participants WHERE tournament_id = :t "
                     "AND player_id IS NOT NULL ORDER BY start_rank"), {"t": tid}
            ).scalars().all()  # fmt: skip
            renamed = {}
            for k, pid in enumerate(players[: len(FORMULAS)]):
                renamed[pid] = FORMULAS[k]
                conn.execute(
                    text("UPDATE players SET surname = :s, given_name = 'Eve' WHERE id = :p"),
                    {"s": FORMULAS[k], "p": pid},
                )
                conn.execute(
                    text("UPDATE participants SET textual_name = :n WHERE player_id = :p "
                         "AND textual_name IS NOT NULL"), {"n": f"{FORMULAS[k]}, Eve", "p": pid}
                )  # fmt: skip
            club = conn.execute(
                text(
                    "SELECT o.vkz FROM memberships m JOIN organisations o "
                    "ON o.id = m.organisation_id WHERE m.player_id = :p LIMIT 1"
                ),
                {"p": players[0]},
            ).scalar_one()
            conn.execute(text("UPDATE organisations SET name = :n WHERE vkz = :v"),
                         {"n": CLUB, "v": club})  # fmt: skip
        yield {"url": url, "code": code, "club": club, "players": renamed,
               "dir": tmp_path_factory.mktemp("csv")}  # fmt: skip


def cells(data: str) -> list[list[str]]:
    """The cells of a CSV in either form: German ``;``-separated (the people's CSVs in
    German), else ``,`` (English, the DSB's and the machine formats)."""
    delimiter = csv.Sniffer().sniff(data.splitlines()[0], delimiters=",;").delimiter
    return list(csv.reader(io.StringIO(data, newline=""), delimiter=delimiter))


def assert_neutral(data: str, *, names: int = 1) -> None:
    """No cell starts a formula (numbers aside); at least ``names`` formula names are in
    it, each behind an apostrophe and readable."""
    rows = cells(data)[1:]  # below the column heads (ratingdb's own words)
    flat = [cell for row in rows for cell in row]
    for cell in flat:
        if cell.startswith(FORMULA_START):
            assert re.fullmatch(r"[+-]?\d+([.,]\d+)?", cell), repr(cell)
    shown = [c for c in flat if c.startswith("'") and any(f in c for f in [*FORMULAS, CLUB])]
    assert len(shown) >= names, flat[:80]
    for cell in shown:
        assert any(cell in (neutralise(f), neutralise(f"{f}, Eve"), neutralise(CLUB))
                   or cell.startswith("'" + f) for f in [*FORMULAS, CLUB]), repr(cell)  # fmt: skip


def negative_numbers(data: str) -> list[str]:
    return [c for row in cells(data) for c in row if re.fullmatch(r"-\d+([.,]\d+)?", c)]


def test_neutralise_keeps_numbers_and_plain_names():
    assert [neutralise(f)[0] for f in FORMULAS] == ["'"] * len(FORMULAS)
    assert neutralise("-12") == "-12" and neutralise("+5") == "+5" and neutralise("-0.5") == "-0.5"
    assert neutralise("Müller, Anna") == "Müller, Anna" and neutralise("") == ""
    assert neutralise(FORMULAS[0]) == "'" + FORMULAS[0]  # the name stays readable


def test_web_evaluation_csv(federation):
    client = client_for(federation["url"])
    answer = client.get(f"/tournaments/{federation['code']}/evaluation.csv")
    assert answer.status_code == 200
    assert_neutral(answer.text, names=len(FORMULAS))
    assert negative_numbers(answer.text)  # the +/- of a loss stays a number


def test_web_rating_list_csv(federation):
    client = client_for(federation["url"])
    answer = client.get(f"/lists.csv?club={federation['club']}")
    assert answer.status_code == 200, answer.text
    assert_neutral(answer.text)


def test_web_top_list_csv(federation):
    client = client_for(federation["url"])
    answer = client.get("/lists/top.csv?organisation=000&limit=1000")
    assert answer.status_code == 200, answer.text
    assert_neutral(answer.text, names=len(FORMULAS))


def test_cli_evaluation_and_list_csv(federation):
    url = federation["url"]
    assert_neutral(ok(["export", "evaluation", federation["code"]], url), names=len(FORMULAS))
    assert_neutral(ok(["export", "list", "--club", federation["club"]], url))
    top = ok(["export", "list", "--federation", "000", "--top", "1000"], url)
    assert_neutral(top, names=len(FORMULAS))


def test_cli_card_csv(federation):
    url = federation["url"]
    for pid in federation["players"]:
        data = ok(["player", "card", str(pid), "--format", "csv"], url)
        rows = cells(data)
        assert all(not c.startswith(("=", "@", "\t", "\r")) for row in rows for c in row)


def test_cli_evaluations_export(federation):
    data = ok(["export", "evaluations"], federation["url"])
    assert_neutral(data, names=len(FORMULAS))
    assert negative_numbers(data) == [] or all(c.startswith("-") for c in negative_numbers(data))


def test_dsb_player_files(federation):
    url, out = federation["url"], Path(federation["dir"])
    plain = out / "spieler.csv"
    club = federation["club"]
    ok(["export", "list", "--club", club, "--format", "dsb-csv", "-o", str(plain)], url)
    assert_neutral(plain.read_bytes().decode("cp1252"))
    zipped = out / "lv.zip"
    ok(["export", "list", "--club", club, "--format", "dsb-csv-zip", "-o", str(zipped)], url)
    with zipfile.ZipFile(zipped) as archive:
        assert_neutral(archive.read("spieler.csv").decode("cp1252"))
        assert_neutral(archive.read("vereine.csv").decode("cp1252"))


def test_a_list_dated_before_1980_exports_as_zip(federation):
    """A ZIP entry cannot carry a date before 1980: the entry is dated 1980-01-01."""
    url, out = federation["url"], Path(federation["dir"])
    with engine_for(url).begin() as conn:
        conn.execute(
            text("UPDATE memberships SET valid_from = '1960-01-01' WHERE organisation_id = "
                 "(SELECT id FROM organisations WHERE vkz = :v)"), {"v": federation["club"]}
        )  # fmt: skip
    for fmt in ("dsb-csv-zip", "dos-zip"):
        target = out / f"old-{fmt}.zip"
        ok(["export", "list", "--club", federation["club"], "--date", "1970-01-01",
            "--format", fmt, "-o", str(target)], url)  # fmt: skip
        with zipfile.ZipFile(target) as archive:
            assert {i.date_time[:3] for i in archive.infolist()} == {(1980, 1, 1)}
