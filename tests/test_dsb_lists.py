"""The DSB's member, club and federation lists as published: every
layout by header (made-up fixtures in tests/data/dsb/), errors that name the file's own
headers, all errors at once, and the database side (takeover dated by ``Letzte
Auswertung``, club names and hierarchy, ``ratingdb clubs list``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.io.dsb_clubs import parse_orgs
from ratingdb.io.dsb_list import ListError, parse_list, week_date
from tests.cli import run
from tests.conftest import at_head

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

DATA = Path(__file__).parent / "data" / "dsb"


def rows(name: str, encoding: str = "cp1252"):  # type: ignore[no-untyped-def]
    return parse_list((DATA / name).read_bytes(), name, encoding)


def test_the_current_wertungsportal_layout():
    got = rows("spieler-current.csv")
    mueller = got[0]
    assert (mueller.dsb_id, mueller.vkz, mueller.member_number) == ("NU4005017", "10614", "17")
    assert (mueller.surname, mueller.given_name, mueller.sex) == ("Müller", "Jörg", "m")
    assert (mueller.dwz, mueller.index, mueller.fide_rating) == (1850, 45, 1902)
    assert mueller.last_evaluation == date(2024, 9, 8)  # week 36 of 2024, its Sunday
    assert mueller.eligibility == "D"
    meier = got[1]
    assert (meier.surname, meier.given_name, meier.passive) == ("Meier", "Hans", True)  # no Dr.
    assert got[3].vkz == "10615" and got[3].dsb_id == "NU4005017"  # one row per membership
    assert got[4].fide_title == "WFM"  # FIDE-Frauentitel when FIDE-Titel is empty


def test_the_oldest_quoted_layout_and_ratingdbs_own_list():
    old = rows("spieler-oldest.csv")
    assert [(r.vkz, r.member_number, r.surname, r.given_name, r.dsb_id) for r in old] == [
        ("10614", "17", "Müller", "Jörg", None),  # 0017: zeros dropped
        ("10614", "18", "Meier", "Hans", None),
    ]
    for name in ("ratingdb-list.csv", "ratingdb-list-de.csv"):  # English and German heads
        own = rows(name, "utf-8")
        assert [(r.surname, r.given_name, r.birth_year, r.sex, r.dwz, r.fide_id) for r in own] == [
            ("Weiß", "Wiebke", 2001, "f", 2011, 4699002),
            ("Müller", "Jörg", 1980, "m", 1850, 4699001),
        ], name


def test_errors_name_the_files_headers_and_come_all_at_once():
    with pytest.raises(ListError) as info:
        rows("spieler-three-errors.csv")
    assert str(info.value).splitlines() == [
        "spieler-three-errors.csv:2: column Status: expected A or P, got 'X'",
        "spieler-three-errors.csv:3: column DWZ: DWZ is not a number: '16x0'",
        "spieler-three-errors.csv:4: column Letzte Auswertung: week 60 of 2024 does not exist",
    ]
    header = b'ID,Verein,Nummer,Status,Spielername\r\n1,10614,1,A,"A,B"\r\n'
    with pytest.raises(InputError) as missing:
        parse_list(header, "l.csv")
    assert str(missing.value) == (
        "l.csv:1: the header has no column for ZPS or VKZ; Mitgliedsnummer or Mgl-Nr (the "
        "file's header: ID, Verein, Nummer, Status, Spielername)"
    )


def test_week_dates():
    assert week_date("202436") == date(2024, 9, 8)
    assert week_date("2024-01") == date(2024, 1, 7)
    assert week_date("0") is None and week_date("") is None
    with pytest.raises(ValueError, match=r"expected year and week .YYYYWW., got '24/36'"):
        week_date("24/36")


@pytest.mark.parametrize("name", ["vereine-current.csv", "vereine-old.csv",
                                  "vereine-noheader.csv"])  # fmt: skip
def test_club_lists_in_every_layout(name):
    got = parse_orgs((DATA / name).read_bytes(), name, clubs=True)
    assert [(r.code, r.parent, r.name) for r in got] == [
        ("10614", "106", "SC Musterstadt 1920"),
        ("10615", "106", "Schachfreunde Beispieldorf"),
        ("20101", "201", "SK Weißenfels"),
    ]


@pytest.mark.parametrize("name", ["verbaende-current.csv", "verbaende-old.csv"])
def test_federation_lists_in_every_layout(name):
    got = parse_orgs((DATA / name).read_bytes(), name, clubs=False)
    assert [(r.code, r.parent) for r in got] == [("100", "000"), ("106", "100"), ("200", "000")]


def test_club_list_errors():
    bad = "ZPS-Nummer,Landesverband,UebergeordneterVerband,Vereinsname\r\n10614,1,106,\r\n" \
          "1 06,1,106,X\r\n10615,1,1-6,Y\r\n10616,1,106,Z\r\n10616,1,106,Z2\r\n"  # fmt: skip
    with pytest.raises(ListError) as info:
        parse_orgs(bad.encode(), "v.csv", clubs=True)
    assert str(info.value).splitlines() == [
        "v.csv:2: column Vereinsname: the name is empty",
        "v.csv:3: column ZPS-Nummer: a VKZ has 1 to 10 letters or digits, got '1 06'",
        "v.csv:4: column UebergeordneterVerband: a VKZ has 1 to 10 letters or digits, got '1-6'",
        "v.csv:6: 10616 is listed twice (also line 5)",
    ]
    with pytest.raises(InputError, match=r"v.csv:1: the header has no column for the name of a "
                       r"club \(the file's header: ZPS, Name2\)"):  # fmt: skip
        parse_orgs(b"ZPS,Name2\r\n10614,x\r\n", "v.csv", clubs=True)


# -- the database ----------------------------------------------------------------------------


@pytest.fixture
def empty_db(scratch_db):  # type: ignore[no-untyped-def]
    at_head(scratch_db)
    return scratch_db


def query(url, sql: str) -> list[tuple]:  # type: ignore[no-untyped-def,type-arg]
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        out = [tuple(r) for r in conn.execute(text(sql))]
    eng.dispose()
    return out


def test_lists_into_the_database(empty_db):
    url = empty_db
    out = run(["players", "import", str(DATA / "spieler-current.csv"), "--date", "2026-08-01",
               "--quiet"], url)  # fmt: skip
    assert out.returncode == 0, out.stderr
    # takeovers dated on the Sunday of the week of 'Letzte Auswertung' (never after the list)
    sql = (
        "SELECT p.dsb_id, t.taken_on, t.rating FROM rating_takeovers t "
        "JOIN players p ON p.id = t.player_id"
    )
    assert sorted(query(url, sql)) == [
        ("NU4005017", date(2024, 9, 8), 1850),
        ("NU4005018", date(2019, 3, 24), 1620),
        ("NU4005020", date(2025, 5, 18), 2011),
    ]
    assert query(url, "SELECT name FROM organisations WHERE vkz = '10614'") == [
        ("Verein 10614",)]  # fmt: skip
    clubs = run(["clubs", "import", str(DATA / "vereine-current.csv"),
                 str(DATA / "verbaende-old.csv")], url)  # fmt: skip
    assert clubs.returncode == 0, clubs.stderr
    assert clubs.stdout.strip() == (
        "3 clubs and 3 federation levels: 3 new, 3 updated, 1 missing parents created"
    )
    orgs = query(url, "SELECT o.vkz, o.name, o.kind, p.vkz FROM organisations o "
                 "LEFT JOIN organisations p ON p.id = o.parent_id ORDER BY o.vkz")  # fmt: skip
    assert orgs == [
        ("100", "Musterländischer Schachverband", "region", None),
        ("106", "Bezirk Musterstadt", "district", "100"),
        ("10614", "SC Musterstadt 1920", "club", "106"),
        ("10615", "Schachfreunde Beispieldorf", "club", "106"),
        ("200", "Schachverband Beispielland", "region", None),
        ("201", "Verband 201", "district", None),
        ("20101", "SK Weißenfels", "club", "201"),
    ]
    listed = run(["clubs", "list", "--federation", "10"], url)
    assert listed.stdout.splitlines() == [
        "100    Musterländischer Schachverband",
        "106    Bezirk Musterstadt",
        "10614  SC Musterstadt 1920",
        "10615  Schachfreunde Beispieldorf",
    ]
    again = run(["clubs", "import", str(DATA / "vereine-noheader.csv")], url)
    assert again.stdout.strip() == (
        "3 clubs and 0 federation levels: 0 new, 0 updated, 0 missing parents created"
    )
    bad = run(["clubs", "import", str(DATA / "spieler-current.csv")], url)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "the header has no column for the name of a club" in bad.stderr


def test_club_names_are_shown(empty_db):
    from sqlalchemy.orm import Session

    from ratingdb.queries.evaluation_table import tournament_info

    url = empty_db
    for args in (
        ["players", "import", str(DATA / "spieler-current.csv"), "--date", "2026-08-01",
         "--quiet"],
        ["clubs", "import", str(DATA / "vereine-current.csv")],
        ["tournament", "import", str(DATA.parent / "trf" / "spielfrei-team.trf"), "--id", "K1",
         "--vkz", "10614"],
    ):  # fmt: skip
        out = run(args, url)
        assert out.returncode == 0, out.stderr
    listing = run(
        ["export", "list", "--club", "10614", "--date", "2026-08-02"], url, lang=None
    ).stdout  # German by default
    assert listing.splitlines()[0].startswith("#;Name;VKZ;Verein;Mgl-Nr")
    assert "Müller, Jörg;10614;SC Musterstadt 1920;17;" in listing
    eng = create_engine(url, poolclass=NullPool)
    with Session(eng) as session:
        assert tournament_info(session, "K1").vkz_name == "SC Musterstadt 1920"
    eng.dispose()


def test_member_and_club_list_refusals_are_worded_in_the_language_in_force():
    members = (
        b'ZPS,Mgl-Nr,Status,Spielername\r\nC0101,1,Q,"Meier,Hans"\r\n'
        b'C0101,2,A,"Meier,Hans"\r\nC0101,2,A,"Huber,Eva"\r\n'
    )
    clubs = b"ZPS,LV,Verband,Vereinname\r\nC01 01,C,C0,X\r\nC0102,C,C0,\r\n"
    said = {}
    for lang in ("de", "en"):
        with use(lang):
            with pytest.raises(ListError) as member_list:
                parse_list(members, "s.csv")
            with pytest.raises(ListError) as club_list:
                parse_orgs(clubs, "v.csv", clubs=True)
            with pytest.raises(InputError) as header:
                parse_orgs(b"LV,Name\r\n", "b.csv", clubs=False)
            with pytest.raises(InputError) as long_field:
                parse_list(b"ZPS,Mgl-Nr,Spielername\r\nC0101,1,M" + b"x" * 200_000, "l.csv")
        said[lang] = [str(e.value) for e in (member_list, club_list, header, long_field)]
    assert said["de"] == [
        "s.csv:2: Spalte Status: A oder P erwartet, nicht 'Q'\n"
        "s.csv:4: Mitglied C0101-2 steht zweimal in der Liste (auch Zeile 3)",
        "v.csv:2: Spalte ZPS: eine VKZ hat 1 bis 10 Buchstaben oder Ziffern, nicht 'C01 01'\n"
        "v.csv:3: Spalte Vereinname: der Name ist leer",
        "b.csv:1: die Kopfzeile hat keine Spalte für die Nummer eines Verbands "
        "(Kopfzeile der Datei: LV, Name)",
        "l.csv:2: fehlerhafter CSV-Datensatz: ein Feld ist länger als 131072 Zeichen",
    ]
    assert said["en"] == [
        "s.csv:2: column Status: expected A or P, got 'Q'\n"
        "s.csv:4: member C0101-2 is listed twice (also line 3)",
        "v.csv:2: column ZPS: a VKZ has 1 to 10 letters or digits, got 'C01 01'\n"
        "v.csv:3: column Vereinname: the name is empty",
        "b.csv:1: the header has no column for the code of a federation level "
        "(the file's header: LV, Name)",
        "l.csv:2: malformed CSV record: a field is longer than 131072 characters",
    ]
