"""Data exchange on a real PostgreSQL, as a rating officer runs it (subprocesses): the worked
example of WO Anhang 3.1 from two member lists and TRF26 files, TRF round trips, the member
list's memberships and takeovers, CSV and PDF exports, and bad files that change nothing."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.errors import InputError
from ratingdb.io.trf import TrfError, parse
from ratingdb.services.trf_import import import_trf
from tests.builders import ok as ok_in
from tests.cli import run, wo_2026_throughout
from tests.conftest import at_head


def ok(args: list[str], url: object) -> str:
    """``ratingdb ARGS`` in the default language (German: the words these tests read)."""
    return ok_in(args, url, lang=None)


DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "exchange"


def counts(url) -> dict[str, int]:
    eng = create_engine(url, poolclass=NullPool)
    tables = ("players", "memberships", "tournaments", "participants", "games", "change_points",
              "rating_takeovers", "organisations")  # fmt: skip
    with eng.connect() as conn:
        out = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in tables}
    eng.dispose()
    return out


@pytest.fixture(scope="module")
def example_db(pg_server):
    """An empty database filled only from files: list 2025-01-01 (the residual games'
    opponents and the unrated members), seven small TRF26 tournaments of 2025 that leave the
    residual games of J, K, L, M and P, list 2026-08-01 (A-H with DWZ, index, birth year)
    and the example tournament as TRF26 with GER records."""
    from tests.conftest import _create_migrated, _drop_database

    name = f"exchange_example_{uuid.uuid4().hex[:8]}"
    url = _create_migrated(pg_server, name)
    wo_2026_throughout(url)
    ok(["players", "import", str(EXAMPLE / "spieler-2025-01-01.csv"), "--date", "2025-01-01",
        "--quiet"], url)  # fmt: skip
    for f in sorted(EXAMPLE.glob("residual-*.trf")):
        ok(["tournament", "import", str(f)], url)
    ok(["players", "import", str(EXAMPLE / "spieler-2026-08-01.csv"), "--date", "2026-08-01",
        "--quiet"], url)  # fmt: skip
    report = ok(["tournament", "import", str(EXAMPLE / "wo-2026-example.trf")], url)
    ok(["recalc", "--quiet"], url)
    yield url, report
    _drop_database(pg_server, name)


def test_import_reports_who_was_matched_how(example_db):
    _, report = example_db
    lines = {line.split()[2]: line for line in report.splitlines() if line.startswith("  ")}
    assert "DSB-ID" in lines["A"] and "Spieler" in lines["A"]
    assert "neu angelegt" in lines["E"]  # FIDE id, not in the list: a non-member record
    assert "Nichtmitglied" in lines["N"]  # nothing to identify him
    assert "14 zugeordnet, 1 neue Spieler, 1 Nichtmitglieder" in report


@pytest.fixture(scope="module")
def example_evaluation(example_db) -> dict[str, dict]:
    url, _ = example_db
    result = json.loads(ok(["tournament", "show", "12345678", "--json"], url))
    names = {}
    shown = ok(["export", "evaluation", "12345678", "--format", "csv"], url)
    for row in csv.DictReader(io.StringIO(shown), delimiter=";"):  # German: ";"
        names[row["#"]] = row["Spieler"].split(", ")[1]
    return {names[str(k)]: p for k, p in enumerate(result["players"], start=1)}


FIELDS = ("group", "k", "opponents_avg", "score", "games", "expected", "performance",
          "exceptional", "rating_new", "index_new", "stored")  # fmt: skip


@pytest.mark.parametrize("field", FIELDS)
def test_example_from_files_gives_the_published_numbers(
    example_evaluation, example_expected, field
):
    """Every published value of WO Anhang 3.1 for every player, after a pure file import."""
    for pid, expected in example_expected["players"].items():
        if field in expected:
            assert example_evaluation[pid][field] == expected[field], (pid, field)


def test_example_start_values_and_residual_games(example_evaluation, example_expected):
    for pid, value in example_expected["start_values"].items():
        assert example_evaluation[pid]["start_value"] == value, pid
    assert [g["opponent_rating"] for g in example_evaluation["P"]["new_residual_games"]] == [
        g["opponent_rating"] for g in example_expected["players"]["P"]["new_residual_games"]
    ]


def test_takeover_row_on_the_card_and_list_order(example_db):
    url, _ = example_db
    card = ok(["player", "card", "1", "--format", "csv"], url)  # a player of the first list
    rows = list(csv.reader(io.StringIO(card), delimiter=";"))
    # German by default (docs/i18n.md): the words of the page, the symbols in its legend;
    # DWZ and index, the marks in columns of their own
    assert rows[0] == ["Ende", "Turnier", "Punkte", "Partien", "We", "K/E", "Niveau", "Leistung",
                       "Sonderwertung", "DWZ alt", "Index alt", "DWZ neu", "Index neu",
                       "Restpartien", "+/-", "Rechenmodul"]  # fmt: skip
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        a = conn.execute(text("SELECT id FROM players WHERE given_name = 'A'")).scalar_one()
    eng.dispose()
    card_a = list(csv.DictReader(io.StringIO(ok(["player", "card", str(a), "--format", "csv"],
                                                url)), delimiter=";"))  # fmt: skip
    assert card_a[0]["Ende"] == "01.08.2026" and card_a[0]["Turnier"].startswith("Datenübernahme")
    takeover = [card_a[0][c] for c in ("DWZ alt", "Index alt", "DWZ neu", "Index neu", "+/-")]
    assert takeover == ["", "", "2220", "31", ""]  # a takeover has no +/-
    example = [card_a[1][c] for c in ("DWZ alt", "Index alt", "DWZ neu", "Index neu", "+/-")]
    assert card_a[1]["Turnier"] == "WO-Beispielturnier" and example == [
        "2220", "31", "2245", "32", "+25",
    ]  # fmt: skip
    assert card_a[1]["Rechenmodul"] == "2026.1"  # the Rechenmodul of the row
    evaluation = ok(["export", "evaluation", "12345678", "--format", "csv"], url)
    assert next(csv.reader(io.StringIO(evaluation), delimiter=";")) == [
        "#", "Spieler", "Altersstufe", "VKZ", "DWZ alt", "Index alt", "K", "Niveau", "Punkte",
        "Partien", "We", "Leistung", "Sonderwertung", "DWZ neu", "Index neu", "Restpartien",
        "+/-", "Mitglied",
    ]  # fmt: skip
    english = ok(["--lang", "en", "export", "evaluation", "12345678", "--format", "csv"], url)
    assert next(csv.reader(io.StringIO(english))) == [  # English: ","
        "#", "Player", "Age", "Club code", "Old rating", "Old index", "Factor", "Opp. average",
        "Points", "Games", "Expected score", "Performance", "Exceptional", "New rating",
        "New index", "Residual games", "+/-", "Member",
    ]  # fmt: skip
    listing = ok(["export", "list", "--club", "aaaaa", "--date", "2027-01-01"], url)
    assert next(csv.reader(io.StringIO(listing), delimiter=";")) == [
        "#", "Name", "VKZ", "Verein", "Mgl-Nr", "Jahrgang", "Geschlecht", "DWZ", "Index",
        "FIDE-ID", "Spieler-ID",
    ]  # fmt: skip
    assert list(csv.reader(io.StringIO(listing), delimiter=";"))[1][7:9] == ["2245", "32"]
    # the player id: the Karteikarte of the row's player is that of the row's name
    first = next(csv.DictReader(io.StringIO(listing), delimiter=";"))
    assert first["Name"] in ok(["player", "card", first["Spieler-ID"]], url)
    youth = ok(["export", "list", "--federation", "", "--age-class", "youth", "--date",
                "2027-01-01"], url)  # fmt: skip
    # D (born 2010) is the only youth member; E (2006) has no membership
    assert [r["Name"] for r in csv.DictReader(io.StringIO(youth), delimiter=";")] == ["Player, D"]
    jgd = ok(["export", "list", "--federation", "", "--age-class", "Jgd", "--date", "2027-01-01"],
             url)  # fmt: skip
    assert jgd == youth  # the display's German mark selects the same class


def test_player_file_week_of_the_last_stored_evaluation(example_db):
    """``Letzte Auswertung`` of the DSB CSV: the week of the tournament that gave A's DWZ
    (stored evaluation after the list takeover), with its DWZ and index."""
    url, _ = example_db
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        a = conn.execute(text("SELECT id FROM players WHERE given_name = 'A'")).scalar_one()
    eng.dispose()
    card_csv = ok(["player", "card", str(a), "--format", "csv"], url)
    card = list(csv.reader(io.StringIO(card_csv), delimiter=";"))
    day, month, year = card[2][0].split(".")  # the example tournament, a German date
    end = date(int(year), int(month), int(day))
    spieler = ok(["export", "list", "--club", "aaaaa", "--date", "2027-01-01", "--format",
                  "dsb-csv"], url)  # fmt: skip
    rows = {r["Vorname"]: r for r in csv.DictReader(io.StringIO(spieler))}
    year, week, _ = end.isocalendar()
    assert rows["A"]["Letzte Auswertung"] == f"{year}{week:02d}"
    assert (rows["A"]["DWZ"], rows["A"]["Index"]) == ("2245", "32")


def test_export_trf_and_import_again_keeps_players_and_games(example_db, tmp_path):
    url, _ = example_db
    trf = ok(["tournament", "export", "12345678", "--format", "trf"], url)
    path = tmp_path / "again.trf"
    path.write_text(trf)
    ok(["tournament", "import", str(path), "--id", "COPY1"], url)
    again = tmp_path / "again2.trf"
    again.write_text(ok(["tournament", "export", "COPY1", "--format", "trf"], url))
    eng = create_engine(url, poolclass=NullPool)
    sql = text(
        "SELECT pa.start_rank, pa.player_id, pa.textual_name, pa.external_rating, "
        "pa.rating_source FROM participants pa JOIN tournaments t ON t.id = pa.tournament_id "
        "WHERE t.code = :c ORDER BY pa.start_rank"
    )
    games = text(
        "SELECT g.round, w.start_rank, b.start_rank, g.result FROM games g "
        "JOIN participants w ON w.id = g.white_id JOIN participants b ON b.id = g.black_id "
        "JOIN tournaments t ON t.id = g.tournament_id WHERE t.code = :c ORDER BY 1, 2"
    )
    with eng.connect() as conn:
        first = conn.execute(sql, {"c": "12345678"}).all()
        second = conn.execute(sql, {"c": "COPY1"}).all()
        assert first == second and len(first) == 16
        g1 = conn.execute(games, {"c": "12345678"}).all()
        g2 = conn.execute(games, {"c": "COPY1"}).all()
        assert sorted(g2) == sorted(g1) and len(g1) == 54
    eng.dispose()
    # the second export equals the first except for the tournament id and the DWZ of the
    # GER records (the DWZ brought into the tournament: COPY1 is not evaluated yet)

    def without_dwz(text_: str) -> list[str]:
        return [x[:48] + x[52:] if x.startswith("GER") else x for x in text_.splitlines()]

    assert without_dwz(again.read_text()) == without_dwz(
        trf.replace("ratingdb id: 12345678", "ratingdb id: COPY1")
    )
    assert trf.count("GER ") == 14 and " 2220 " in trf
    ok(["tournament", "delete", "COPY1"], url)


def test_evaluation_pdf_renders_a_page_that_is_not_blank(example_db, tmp_path):
    import pypdfium2 as pdfium

    url, _ = example_db
    for args in (["export", "evaluation", "12345678"], ["export", "list", "--federation", ""],
                 ["player", "card", "1"]):  # fmt: skip
        target = tmp_path / "out.pdf"
        ok([*args, "--format", "pdf", "-o", str(target)], url)
        page = pdfium.PdfDocument(str(target))[0]
        image = page.render(scale=1).to_pil().convert("L")
        dark = sum(image.histogram()[:128])
        assert dark > 2000, args  # text and rules drawn, not an empty page
        image.save(tmp_path / f"{args[1]}.png")


# -- the member list -----------------------------------------------------------------------

HEADER = ("ID,VKZ,Mgl-Nr,Status,Spielername,Geschlecht,Spielberechtigung,Geburtsjahr,"
          "Letzte-Auswertung,DWZ,Index,FIDE-Elo,FIDE-Titel,FIDE-ID,FIDE-Land")  # fmt: skip


def write_list(path: Path, rows: list[str]) -> Path:
    path.write_bytes(("\r\n".join([HEADER, *rows]) + "\r\n").encode("cp1252"))
    return path


@pytest.fixture
def empty_db(scratch_db):
    at_head(scratch_db)
    return scratch_db


def test_member_list_memberships_takeovers_and_order(empty_db, tmp_path):
    url = empty_db
    first = write_list(tmp_path / "a.csv", [
        '11,C0101,1,A,"Öztürk,Änne",W,D,1999,,1500,12,,,,',
        '12,C0101,2,P,"Brandt,Bernd",M,D,1970,,,,,,,',
        '13,C0102,7,A,"Conrad,Clara",W,D,2012,,1320,3,1400,WCM,4711,GER',
    ])  # fmt: skip
    out = ok_in(["players", "import", str(first), "--date", "2026-01-01", "--quiet"], url)
    assert "3 new players" in out and "2 new clubs" in out and "2 ratings taken over" in out
    second = write_list(tmp_path / "b.csv", [
        '11,C0101,1,A,"Öztürk,Änne",W,D,1999,,1600,13,,,,',  # DWZ changed elsewhere: reported
        '13,C0102,7,A,"Conrad,Clara",W,D,2012,,1320,3,1400,WCM,4711,GER',
        '14,C0102,8,A,"Dahl,Dora",W,D,1988,,1700,20,,,,',
    ])  # fmt: skip
    # Brandt vanishes: 1 of 3 memberships ends, more than the 5 % a list may end unasked
    refused = run(["players", "import", str(second), "--date", "2026-07-01", "--quiet"], url)
    assert refused.returncode == 2 and "would end 1 of 3 open memberships" in refused.stderr
    out = ok_in(["players", "import", str(second), "--date", "2026-07-01", "--quiet", "--force"],
                url)  # fmt: skip
    assert "1 new players" in out and "1 ended" in out and "1 ratings taken over" in out
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT p.surname, m.valid_from, m.valid_to, m.status, k.rating, k.taken_on "
                "FROM players p JOIN memberships m ON m.player_id = p.id "
                "LEFT JOIN rating_takeovers k ON k.player_id = p.id ORDER BY p.dsb_id"
            )
        ).all()
    eng.dispose()
    assert [tuple(str(v) for v in r) for r in rows] == [
        ("Öztürk", "2026-01-01", "None", "active", "1500", "2026-01-01"),  # first list kept
        ("Brandt", "2026-01-01", "2026-07-01", "passive", "None", "None"),  # vanished: ended
        ("Conrad", "2026-01-01", "None", "active", "1320", "2026-01-01"),
        ("Dahl", "2026-07-01", "None", "active", "1700", "2026-07-01"),
    ]
    older = run(["players", "import", str(first), "--date", "2025-12-31", "--quiet"], url)
    assert older.returncode == 2 and "before the last imported list (2026-07-01)" in older.stderr


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('11,C0101,x,A,"A,B",M,D,1999,,,,,,,', "b.csv:3: column Mgl-Nr"),
        ('11,C0101,2,Q,"A,B",M,D,1999,,,,,,,', "b.csv:3: column Status: expected A or P"),
        (
            '11,C0101,2,A,"A,B",M,D,1999,,5000,3,,,,',
            "b.csv:3: column DWZ: DWZ 5000 is not plausible (1..4000)",
        ),
        ('11,C0101,2,A,"A,B",M,D,1999,,,3,,,,', "b.csv:3: column Index: index 3 without a DWZ"),
        ('11,C0101,2,A,"A,B",X,D,1999,,,,,,,', "b.csv:3: column Geschlecht"),
        ('11,C0101,2,A,"A,B",M,D', "b.csv:3: 7 fields, the header has 15"),
        ('11,C0101,1,A,"A,B",M,D,1999,,,,,,,', "b.csv:3: member C0101-1 is listed twice"),
        ('11,C01 01,2,A,"A,B",M,D,1999,,,,,,,', "b.csv:3: column VKZ: a VKZ has"),
    ],
)
def test_bad_member_lists_are_located_and_change_nothing(empty_db, tmp_path, row, message):
    before = counts(empty_db)
    path = write_list(tmp_path / "b.csv", ['10,C0101,1,A,"Erster,Eins",M,D,1980,,,,,,,', row])
    out = run(["players", "import", str(path), "--date", "2026-01-01", "--quiet"], empty_db)
    assert out.returncode == 2 and out.stdout == ""
    assert message in out.stderr and "Traceback" not in out.stderr
    assert counts(empty_db) == before


def test_member_list_encoding_is_reported(empty_db, tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes((HEADER + '\r\n10,C0101,1,A,"Öz,A",M,D,1980,,,,,,,\r\n').encode("utf-8"))
    out = run(["players", "import", str(path), "--date", "2026-01-01", "--encoding", "utf-8",
               "--quiet"], empty_db)  # fmt: skip
    assert out.returncode == 0, out.stderr
    # a byte windows-1252 lacks (0x81) is an error with its place, not a guess
    bad = tmp_path / "bad.csv"
    bad.write_bytes((HEADER + "\r\n").encode() + b'10,C0101,1,A,"\x81z,A",M,D,1980,,,,,,,\r\n')
    out = run(["players", "import", str(bad), "--date", "2026-01-01"], empty_db)
    assert out.returncode == 2 and "bad.csv:2:15: byte 0x81 is not valid cp1252" in out.stderr


# -- bad TRF files write nothing ------------------------------------------------------------


ALL = (DATA / "trf" / "all-records.trf").read_text()


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (("001    1", 99, "X"), "unknown result code 'X'"),
        (("001    4", 99, "="), "asymmetric pairing"),
        (("042", 5, "2026/02/30"), "not a date"),
    ],
)
def test_bad_trf_is_located_and_writes_nothing(empty_db, tmp_path, mutation, message):
    prefix, column, new = mutation
    lines = ALL.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith(prefix))
    lines[k] = lines[k][: column - 1] + new + lines[k][column - 1 + len(new) :]
    path = tmp_path / "bad.trf"
    path.write_text("\n".join(lines) + "\n")
    before = counts(empty_db)
    out = run(["tournament", "import", str(path), "--id", "T1", "--vkz", "C01"], empty_db)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    # the changed line is named: as the place of the error, or as the disagreeing partner
    assert f"bad.trf:{k + 1}:" in out.stderr or f"line {k + 1} " in out.stderr
    assert message in out.stderr
    assert counts(empty_db) == before


def test_trf_without_vkz_or_with_a_player_twice_writes_nothing(empty_db, tmp_path):
    path = tmp_path / "t.trf"
    path.write_text(ALL)
    before = counts(empty_db)
    out = run(["tournament", "import", str(path)], empty_db)
    assert out.returncode == 2 and "no VKZ: give --vkz" in out.stderr
    # start rank 3 gets the DSB id of start rank 1: both are the same new player
    twice = "\n".join(
        x if not x.startswith("GER    3") else "GER    3" + " " * 50 + "10012345"
        for x in ALL.splitlines()
    )
    path.write_text(twice)
    second = run(["tournament", "import", str(path), "--id", "T2", "--vkz", "C01"], empty_db)
    assert second.returncode == 2
    line = next(k for k, x in enumerate(twice.splitlines(), start=1) if x.startswith("GER    3"))
    assert f"t.trf:{line}:58: GER number 10012345 of start rank 3 is also start rank 1's" in (
        second.stderr
    )
    assert counts(empty_db) == before


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(0, len(ALL) - 1), st.text(alphabet="0123-+=wbWL/ \n", max_size=2)),
        min_size=1,
        max_size=3,
    )
)
def test_fuzzed_trf_imports_cleanly_or_not_at_all(migrated_engine, mutations):
    text_ = ALL
    for pos, chunk in mutations:
        text_ = text_[:pos] + chunk + text_[pos + len(chunk) :]
    with migrated_engine.connect() as conn:
        outer = conn.begin()
        session = Session(bind=conn, join_transaction_mode="create_savepoint")
        try:
            before = conn.execute(text("SELECT count(*) FROM tournaments")).scalar_one()
            try:
                t = parse(text_, "f.trf")
                with session.begin_nested():
                    import_trf(session, t, code="FUZZ", vkz="C01")
                grew = 1
            except (TrfError, InputError) as err:
                assert err.location and err.message
                grew = 0
            after = conn.execute(text("SELECT count(*) FROM tournaments")).scalar_one()
            assert after == before + grew
        finally:
            session.close()
            outer.rollback()


def test_a_new_member_list_reassigns_numbers_corrects_birth_years_and_makes_guests_members(
    empty_db, tmp_path
):
    url = empty_db
    first = write_list(tmp_path / "a.csv", [
        '1007,C1,7,A,"Old,Otto",M,D,1950,,1500,30,,,,',
        '1001,C1,1,A,"Alpha,A",M,D,1980,,1800,20,,,,',
        '1002,C1,2,A,"Beta,B",M,D,1981,,1700,20,,,,',
    ])  # fmt: skip
    ok(["players", "import", str(first), "--date", "2025-01-01", "--quiet"], url)
    # a tournament with a FIDE-rated guest who is no member yet
    trf = tmp_path / "t.trf"
    lines = [
        "012 Club evening", "042 2025/06/01", "052 2025/06/01",
        "001    1 m    Alpha, A                                               1980/00/00"
        "  1.0          2 w 1     3 w 1",
        "GER    1                                                     1001",
        "001    2 m    Beta, B                                                1981/00/00"
        "  0.0          1 b 0  0000 - Z",
        "GER    2                                                     1002",
        "001    3 m    Xeno, X                           1900 AUT     4000333 1990/00/00"
        "  0.0       0000 - Z     1 b 0",
    ]  # fmt: skip
    trf.write_text("\n".join(lines) + "\n")
    ok(["tournament", "import", str(trf), "--id", "T1", "--vkz", "C1"], url)  # C1: listed
    ok(["recalc", "--quiet"], url)
    # the next list: member number 7 given to someone else, Alpha's birth year corrected,
    # the guest became a member (late member: his June tournament now counts)
    second = write_list(tmp_path / "b.csv", [
        '1008,C1,7,A,"New,Nina",W,D,2012,,,,,,,',
        '1001,C1,1,A,"Alpha,A",M,D,2010,,1800,20,,,,',
        '1002,C1,2,A,"Beta,B",M,D,1981,,1700,20,,,,',
        '1009,C1,9,A,"Xeno,X",M,D,1990,,,,,,4000333,AUT',
    ])  # fmt: skip
    out = ok_in(["players", "import", str(second), "--date", "2025-09-01", "--quiet", "--force"],
                url)  # fmt: skip
    assert "1 new players" in out and "1 ended" in out  # Nina is new; Otto's membership ends
    incremental_run = ok(["recalc", "--quiet"], url)
    assert "1 von 1 Turnieren neu ausgewertet" in incremental_run
    incremental = ok(["export", "evaluations"], url)
    ok(["recalc", "--full", "--quiet"], url)
    assert ok(["export", "evaluations"], url) == incremental
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(incremental))}
    assert rows["Alpha, A"]["age_class"] == "youth" and rows["Xeno, X"]["stored"] == "True"
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        people = dict(conn.execute(text("SELECT dsb_id, surname FROM players")).all())
    eng.dispose()
    assert people["1007"] == "Old" and people["1008"] == "New"
    # listed again on the day the membership ended: it goes on (no overlap error)
    ok(["players", "import", str(first), "--date", "2025-09-01", "--quiet", "--force"], url)


def test_a_list_on_the_day_of_a_conversion_shows_converted_values(empty_db, tmp_path):
    """Review finding: the engine runs an adjustment before a takeover of the same day (the
    list shows converted ratings); the rating list and the Karteikarte must agree."""
    url = empty_db
    listed = write_list(tmp_path / "l.csv", ['1001,C1,1,A,"Alpha,A",M,D,1980,,1800,20,,,,'])
    ok(["players", "import", str(listed), "--date", "2026-06-07", "--quiet"], url)
    # the default DSB timeline holds this adjustment already (migration 0007)
    assert "dwz-2026-umstufung" in ok(["adjustment", "list"], url)
    listing = ok(["export", "list", "--club", "C1", "--date", "2026-06-20"], url)
    assert next(csv.DictReader(io.StringIO(listing), delimiter=";"))["DWZ"] == "1800"
    card_csv = ok(["player", "card", "1", "--format", "csv"], url)
    card = list(csv.DictReader(io.StringIO(card_csv), delimiter=";"))
    # the takeover row, no conversion
    assert [(row["DWZ neu"], row["Index neu"]) for row in card] == [("1800", "20")]
