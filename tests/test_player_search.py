"""Finding people: names fold accents and umlaut spellings (Müller =
Mueller = Muller, ß = ss) through an index, a DSB id, FIDE id or ZPS number finds its player,
hits come a page at a time, and ``player card`` takes a DSB id or a name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from tests.builders import ok as ok_in
from tests.cli import Completed
from tests.cli import run as run_in
from tests.web_support import client_for, database


def run(args: list[str], url: Any, input: str | bytes | None = None) -> Completed:
    """``ratingdb ARGS`` in the default language (German: the words these tests read;
    ``--lang en`` where a test reads English)."""
    return run_in(args, url, input, lang=None)


def ok(args: list[str], url: Any) -> str:
    return ok_in(args, url, lang=None)


EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture(scope="module")
def members(pg_server):
    """The example member list (examples/spieler.csv, players 1-8) and one more Wolf, Lea."""
    with database(pg_server, "search") as url:
        ok(["players", "import", str(EXAMPLES / "spieler.csv"), "--date", "2026-08-03"], url)
        engine = create_engine(url, poolclass=NullPool)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO players (id, surname, given_name, birth_year) VALUES "
                    "(9, 'Wolf', 'Lea', 1990), (10, 'MÜLLER-LÜDENSCHEIDT', 'Łukasz', 1980), "
                    "(11, 'Wolf', 'Leander', 1985)"
                )
            )
        engine.dispose()
        yield url


def names(url, *args: str) -> list[str]:
    out = run(["player", "search", *args, "--json"], url)
    assert out.returncode == 0, out.stderr
    return [h["name"] for h in json.loads(out.stdout)["items"]]


def test_the_fold_of_names(members):
    engine = create_engine(members, poolclass=NullPool)
    with engine.connect() as conn:

        def fold(name: str) -> str:
            return conn.execute(text("SELECT ratingdb_fold_name(:n)"), {"n": name}).scalar_one()

        assert {fold(n) for n in ("Müller", "Mueller", "Muller", "MÜLLER", "MUELLER")} == {"muller"}
        assert fold("Strauß") == fold("Strauss") == fold("STRAUSS") == "strauss"
        assert fold("Çelik") == "celik" and fold("Łukasz") == "lukasz"
        assert fold("Ødegård") == "odegard" and fold("Ærø") == "aro"
        assert fold("Göbel") == fold("Goebel") == "gobel"
        assert fold("Jäger") == fold("Jaeger") == "jager"
        # the letters with marks of Latin-1 and Latin Extended-A fold to ASCII
        marked = "".join(chr(c) for c in range(0xC0, 0x180) if chr(c).isalpha())
        folded = fold(marked)
        assert sorted({c for c in folded if not c.isascii()}) == ["ĳ", "ĸ", "ŉ", "ŋ"]
    engine.dispose()


def test_umlaut_spellings_find_each_other(members):
    # one folded surname "muller": by given name; then the longer surname
    both = ["Müller, Anna", "Mueller, Jonas", "MÜLLER-LÜDENSCHEIDT, Łukasz"]
    assert names(members, "Mueller") == names(members, "Muller") == names(members, "müller")
    assert names(members, "Mueller") == both
    assert names(members, "Strasser") == names(members, "Straßer") == ["Straßer, Paul"]
    assert names(members, "celik") == ["Çelik, Deniz"]
    assert names(members, "Weiss, Luk") == ["Weiß, Lukas"]
    assert names(members, "Anna Mueller") == ["Müller, Anna"]
    assert names(members, "Lukasz Muller-Lu") == ["MÜLLER-LÜDENSCHEIDT, Łukasz"]
    assert names(members, "Oezdemir") == ["Özdemir, Emre"]


def test_the_folded_name_index_serves_the_search(members):
    engine = create_engine(members, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(text("SET LOCAL enable_seqscan = off"))
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                text(
                    "EXPLAIN SELECT id FROM players p WHERE ratingdb_fold_name(p.surname) "
                    "LIKE ratingdb_fold_name(:s) ORDER BY ratingdb_fold_name(p.surname) "
                    "USING ~<~ LIMIT 5"
                ),
                {"s": "Mü%"},
            )
        )
    engine.dispose()
    assert "ix_players_folded_name" in plan, plan


def test_ids_and_zps_numbers(members):
    assert names(members, "10012303") == ["Wolf, Lea"]  # DSB id
    assert names(members, "24612345") == ["Müller, Anna"]  # FIDE id
    assert names(members, "C0327-3") == names(members, "c0327-0003") == ["Wolf, Lea"]
    assert names(members, "C0401-1") == ["Mueller, Jonas"]
    assert names(members, "C0401-9") == [] and names(members, "99999999") == []
    client = client_for(members)
    got = client.get("/api/players", params={"fide_id": 24654321}).json()
    assert [h["name"] for h in got] == ["Özdemir, Emre"] and got[0]["fide_id"] == 24654321
    assert [h["id"] for h in client.get("/api/players", params={"zps": "C0327-0002"}).json()] == [2]
    bad = client.get("/api/players", params={"zps": "Wolf"})  # the schema's pattern
    assert bad.status_code == 422 and bad.json()["errors"][0]["location"] == "query.zps"


def test_paging(members):
    client = client_for(members)
    first = client.get("/api/players", params={"q": "Mu", "limit": 1})
    second = client.get("/api/players", params={"q": "Mu", "limit": 1, "offset": 1})
    assert first.headers["X-Total-Count"] == second.headers["X-Total-Count"] == "2"
    assert [h["name"] for h in first.json() + second.json()] == ["Müller, Anna", "Mueller, Jonas"]
    out = run(["player", "search", "Wolf", "--limit", "2"], members)
    # player 9 and 11 are no members: the command line finds them, the public page does not
    assert out.stdout.splitlines()[-1] == "gezeigt 1-2 von 3; --offset 2 für weitere"
    assert out.stdout.splitlines()[:3] == [
        "ID  Name       VKZ    Jahrgang    DSB-ID  FIDE-ID   DWZ  Index",
        " 3  Wolf, Lea  C0327      2009  10012303           1787     13",
        " 9  Wolf, Lea             1990",
    ]
    english = run(["--lang", "en", "player", "search", "Wolf", "--offset", "2"], members)
    assert english.stdout.splitlines()[-1] == "showing 3-3 of 3"
    page = client.get("/players", params={"q": "wolf"}).text
    assert '<p class="note" id="hits">1 Treffer.' in page
    assert run(["player", "search", "Lea Wolf"], members).stdout.splitlines()[-1] == "3 Spieler"


def test_card_by_dsb_id_or_name(members):
    by_dsb = run(["player", "card", "10012305"], members)
    assert by_dsb.returncode == 0 and "Karteikarte: Mueller, Jonas (ID 5," in by_dsb.stdout
    by_name = run(["player", "card", "Weiss, Lukas"], members)
    assert by_name.returncode == 0 and "Karteikarte: Weiß, Lukas (ID 2," in by_name.stdout
    assert "(ID 11," in run(["player", "card", "Wolf, Leand"], members).stdout
    ambiguous = run_in(["player", "card", "Wolf, Lea"], members)  # English
    assert ambiguous.returncode == 2 and ambiguous.stdout == ""
    assert ambiguous.stderr.strip() == (
        "error: Wolf, Lea: 2 players match: Wolf, Lea (id 3, C0327, born 2009, DSB id "
        "10012303); Wolf, Lea (id 9, born 1990); give the id"
    )
    assert "(ID 3," in run(["player", "card", "3"], members).stdout
    nobody = run(["player", "card", "Nobody, Nemo"], members)
    assert nobody.returncode != 0 and "kein Spieler namens 'Nobody, Nemo'" in nobody.stderr
    assert "Traceback" not in nobody.stderr + ambiguous.stderr
