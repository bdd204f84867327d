"""The DSB's TournamentReport 2.5 XML: round trips validated against the DSB's XSD
(the shared spec folder, tests/shared_files.py), invalid files refused with their element
path, import and export through the database."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratingdb.i18n import use
from ratingdb.io import dsb_xml as X
from ratingdb.io import swi
from tests import shared_files

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

XSD = shared_files.DSB_XSD
CORPUS = shared_files.CORPUS / "swi"
LE_2011 = CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.swi"
UUID = "3f2b8c1e-4d5a-4e6f-8a7b-9c0d1e2f3a4b"


def valid(data: bytes) -> list[tuple[str, str]]:
    problems = X.xsd_problems(data, XSD)
    assert problems is not None
    return problems


def small_report() -> X.DsbReport:
    return X.DsbReport(
        tournament_uuid=UUID,
        label="Open & <Cup> 2026",
        type="SW-H",
        timecontrol="90 min + 30 s",
        rounds=3,
        start=date(2026, 8, 10),
        end=date(2026, 8, 12),
        location="Köln",
        url="https://example.org/open",
        notes="notes",
        age_class="U18",
        header=X.DsbHeader("2026-08-13T10:00:00+02:00", "Sender", "ratingdb", X.new_uuid()),
        players=[
            X.DsbPlayer(
                1,
                "Müller",
                "Jörg",
                1980,
                dsb_id="10012345",
                dob_date=date(1980, 3, 12),
                vkz="C0101",
                member_number=12,
                club="SK Köln",
                fide_id=4612345,
                fide_rating=1850,
                sex="m",
            ),
            X.DsbPlayer(2, "Weiß", "Käthe", 2010, vkz="C0102", member_number=7, sex="w"),
            X.DsbPlayer(3, "Guest", "Guest", 1975, fide_id=999, fide_rating=2011),
            X.DsbPlayer(4, X.COMPUTER, X.COMPUTER, 2000),
        ],
        games=[
            X.DsbGame(1, 1, 2, "1", "0", date(2026, 8, 10)),
            X.DsbGame(1, 3, 4, "-", "-"),
            X.DsbGame(2, 2, 3, "0.5", "0.5", date(2026, 8, 11)),
            X.DsbGame(2, 1, None, "+", "-"),
            X.DsbGame(3, 3, 1, "+", "-"),
            X.DsbGame(3, None, 2, "-", "1"),
        ],
    )


def test_small_report_round_trip_every_element():
    data = X.write(small_report())
    assert valid(data) == []
    text = data.decode()
    for element in (
        "header",
        "fileUUID",
        "tournamentUUID",
        "url",
        "notes",
        "ageClass",
        "dsbId",
        "dobDate",
        "vkz",
        "numberClubMember",
        "club",
        "fideId",
        "fideRating",
        "sex",
        "noneWhitePlayer",
        "noneBlackPlayer",
        "<date>",
    ):
        assert element in text
    assert "Open &amp; &lt;Cup&gt; 2026" in text
    again = X.parse(data, "small.xml")
    expected = small_report()
    expected.header = again.header
    assert again == expected
    assert again.hybrid and not again.team
    t = X.to_tournament(again, "small.xml")
    assert [(p.start_rank, p.name, p.computer) for p in t.players] == [
        (1, "Müller, Jörg", False),
        (2, "Weiß, Käthe", False),
        (3, "Guest", False),
        (4, X.COMPUTER, True),
    ]
    assert t.player(1).national["GER"].number == "10012345"
    assert t.player(2).national["GER"].number == "C0102-7"
    assert "GER" not in t.player(3).national and t.player(3).rating == 2011
    assert t.player(2).sex == "f" and t.player(1).birth == date(1980, 3, 12)
    assert [(g.round, g.white, g.black, g.result) for g in t.games] == [
        (1, 1, 2, "1-0"),
        (1, 3, 4, "--"),
        (2, 2, 3, "1/2-1/2"),
        (3, 3, 1, "+-"),
    ]
    assert "2 games without an opponent" in t.warnings[0]
    assert t.other["tournamentUUID"] == UUID and t.type == "SW-H"


def test_detection_by_root_element_and_namespace():
    data = X.write(small_report())
    assert X.is_report(data)
    assert not X.is_report(data.replace(X.NS.encode(), b"urn:other"))
    assert not X.is_report(b"<dewis/>") and X.root_element(b"<dewis/>") == ("", "dewis")
    assert X.root_element(b"not xml") is None
    assert not X.is_report((LE_2011).read_bytes())


# -- generated tournaments -----------------------------------------------------------------
NAME = (
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzÄÖÜäöüßéABCXYZ &<>'\"-.", min_size=1, max_size=20)
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)


@st.composite
def reports(draw) -> X.DsbReport:
    n = draw(st.integers(2, 8))
    numbers = draw(st.lists(st.integers(1, 9999), min_size=n, max_size=n, unique=True))
    start = draw(st.dates(date(2026, 6, 8), date(2030, 1, 1)))
    end = start + timedelta(days=draw(st.integers(0, 200)))
    players = []
    for number in numbers:
        if draw(st.integers(0, 9)) == 0:
            players.append(X.DsbPlayer(number, X.COMPUTER, X.COMPUTER, 2000))
            continue
        year = draw(st.integers(1920, 2020))
        players.append(
            X.DsbPlayer(
                number=number,
                surname=draw(NAME),
                forename=draw(NAME),
                dob_year=year,
                dsb_id=draw(st.none() | st.from_regex(r"\A[0-9]{5,9}\Z")),
                dob_date=draw(st.none() | st.dates(date(year, 1, 1), date(year, 12, 31))),
                vkz=draw(st.none() | st.from_regex(r"\A[A-Z0-9]{5}\Z")),
                member_number=draw(st.none() | st.integers(1, 99999)),
                club=draw(st.none() | NAME),
                fide_id=draw(st.none() | st.integers(1, 9999999999)),
                fide_rating=draw(st.none() | st.integers(1, 4000)),
                sex=draw(st.sampled_from([None, "m", "w"])),
            )
        )
    computers = {p.number for p in players if p.computer}
    rounds = draw(st.integers(1, 12))
    games = []
    for _ in range(draw(st.integers(1, 20))):
        white, black = draw(st.lists(st.sampled_from(numbers), min_size=2, max_size=2, unique=True))
        side = draw(st.integers(0, 9))
        if side == 0:
            white = None
        elif side == 1:
            black = None
        if {white, black} & computers:
            points = ("-", "-")
        else:
            points = draw(st.sampled_from(sorted(X.RESULTS)))
        day = draw(st.none() | st.dates(start, end))
        games.append(X.DsbGame(draw(st.integers(1, rounds)), white, black, *points, day))
    return X.DsbReport(
        tournament_uuid=X.new_uuid(),
        label=draw(NAME),
        type=draw(st.sampled_from(X.ALL_TYPES)),
        timecontrol=draw(NAME),
        rounds=rounds,
        start=start,
        end=end,
        location=draw(NAME),
        url=draw(st.none() | NAME),
        notes=draw(st.none() | NAME),
        age_class=draw(st.none() | st.sampled_from(["U10", "U18", "Senioren"])),
        header=draw(st.none() | st.just(X.header("Generated"))),
        players=players,
        games=games,
    )


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reports())
def test_generated_reports_validate_and_read_back(report):
    data = X.write(report)
    assert valid(data) == []
    again = X.parse(data, "gen.xml")
    assert again == report
    t = X.to_tournament(again)
    assert {
        p.start_rank: (p.name, p.computer, p.fide_id if not p.computer else None) for p in t.players
    } == {p.number: (p.name, p.computer, None if p.computer else p.fide_id) for p in report.players}
    stored = [
        (g.round, g.white, g.black, X.RESULTS[(g.point_white, g.point_black)])
        for g in report.games
        if g.white is not None and g.black is not None
    ]
    assert sorted((g.round, g.white, g.black, g.result) for g in t.games) == sorted(stored)


@settings(max_examples=40, deadline=None)
@given(reports())
def test_neutral_model_round_trip(report):
    """report -> model -> report (export) -> model: the same players and games."""
    t = X.to_tournament(report)
    assume(t.games)  # the schema needs at least one game
    out = X.from_tournament(t, tournament_uuid=report.tournament_uuid, head=X.header("x"))
    data = X.write(out)
    assert valid(data) == []
    t2 = X.to_tournament(X.parse(data))
    assert [
        (p.start_rank, p.name, p.birth_year, p.fide_id, p.rating, p.sex, p.computer)
        for p in t2.players
    ] == sorted(
        (p.start_rank, p.name, p.birth_year, p.fide_id, p.rating, p.sex, p.computer)
        for p in t.players
    )
    assert t2.games == t.games and t2.type == report.type


# -- invalid files -------------------------------------------------------------------------
BASE = X.write(small_report()).decode()
P = "/DSB_DWZ_TournamentReport"


def sub(old: str, new: str, count: int = 1):
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, count)

    return change


def drop(element: str):
    return lambda text: re.sub(rf"\s*<{element}>[^<]*</{element}>", "", text, count=1)


INVALID = [
    (sub(X.NS, "urn:other"), P, "not a DSB_DWZ_TournamentReport"),
    (drop("tournamentUUID"), f"{P}/tournament/tournamentUUID", "required element missing"),
    (sub(UUID, "not-a-uuid"), f"{P}/tournament/tournamentUUID", "not a UUID"),
    (sub(">SW-H<", ">XX<"), f"{P}/tournament/tournamentType", "unknown tournament type"),
    (
        sub("<rounds>3<", "<rounds>0<"),
        f"{P}/tournament/rounds",
        "round 0 is not plausible (1..9999)",
    ),
    (
        sub("<endDate>2026-08-12", "<endDate>2026-08-01"),
        f"{P}/tournament/endDate",
        "before the startDate",
    ),
    (
        sub("<startDate>2026-08-10", "<startDate>2026-02-30"),
        f"{P}/tournament/startDate",
        "not a date",
    ),
    (drop("location"), f"{P}/tournament/location", "required element missing"),
    (
        sub("<tournamentPlayerNumber>2<", "<tournamentPlayerNumber>1<"),
        f"{P}/players/player[2]/tournamentPlayerNumber",
        "also",
    ),
    (sub("<fideId>999<", "<fideId>0<"), f"{P}/players/player[3]/fideId", "not plausible"),
    (sub("<vkz>C0101<", "<vkz>C01<"), f"{P}/players/player[1]/vkz", "exactly 5"),
    (sub("<sex>w<", "<sex>f<"), f"{P}/players/player[2]/sex", "m or w"),
    (sub("<dobYear>1975<", "<dobYear>abc<"), f"{P}/players/player[3]/dobYear", "not a year"),
    (
        sub("<dobYear>1975<", "<dobYear>99999<"),
        f"{P}/players/player[3]/dobYear",
        "birth year 99999 is not plausible (1850..2200)",
    ),
    (sub("<dobYear>1975<", "<dobYear>1849<"), f"{P}/players/player[3]/dobYear", "1849 is not"),
    (
        sub("<dobDate>1980-03-12<", "<dobDate>1981-03-12<"),
        f"{P}/players/player[1]/dobDate",
        "not in dobYear",
    ),
    (
        sub("<fideRating>1850<", "<fideRating>6000<"),
        f"{P}/players/player[1]/fideRating",
        "not plausible",
    ),
    (drop("surname"), f"{P}/players/player[1]/surname", "required element missing"),
    (
        sub("<tournamentPlayerNumberBlack>2<", "<tournamentPlayerNumberBlack>99<"),
        f"{P}/games/game[1]/tournamentPlayerNumberBlack",
        "no player with",
    ),
    (
        sub("<pointBlack>0</pointBlack>", "<pointBlack>1</pointBlack>"),
        f"{P}/games/game[1]/pointBlack",
        "more than 1 point",
    ),
    (
        sub("<pointWhite>0.5<", "<pointWhite>1<"),
        f"{P}/games/game[3]/pointBlack",
        "more than 1 point",
    ),
    (sub("<round>3<", "<round>4<"), f"{P}/games/game[5]/round", "higher than the tournament"),
    (sub("<pointWhite>1<", "<pointWhite>2<"), f"{P}/games/game[1]/pointWhite", "one of"),
    (sub("<pointWhite>1<", "<pointWhite>½<"), f"{P}/games/game[1]/pointWhite", "one of"),
    (
        sub("<tournamentPlayerNumberBlack>2<", "<tournamentPlayerNumberBlack>1<"),
        f"{P}/games/game[1]/tournamentPlayerNumberBlack",
        "plays himself",
    ),
    (
        sub("<noneBlackPlayer>true<", "<noneBlackPlayer>false<"),
        f"{P}/games/game[4]/noneBlackPlayer",
        "only allowed value",
    ),
    (sub("<location>", "<foo>x</foo><location>"), f"{P}/tournament/foo", "unexpected element"),
    (sub("<dsbId>10012345</dsbId>", ""), None, None),  # still valid: dsbId is optional
    (
        lambda t: t.replace("<dsbId>10012345</dsbId>", "").replace(
            "<surname>Müller</surname>", "<surname>Müller</surname><dsbId>1</dsbId>"
        ),
        f"{P}/players/player[1]/dsbId",
        "out of order",
    ),
    (
        lambda t: re.sub(
            r"<player>.*?</player>\s*<player>.*?</player>\s*<player>.*?</player>",
            "",
            t,
            count=1,
            flags=re.S,
        ),
        f"{P}/players/player",
        "at least 2 required",
    ),
    (
        sub("<games>", "<games><game><round>1</round></game>"),
        f"{P}/games/game[1]/",
        "required element missing",
    ),
    (sub("</label>", "</labl>"), "line", "not well-formed"),
    (
        lambda t: t.replace(
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>',
        ),
        "/",
        "refused",
    ),
]


@pytest.mark.parametrize(("mutate", "path", "message"), INVALID)
def test_invalid_files_are_refused_with_their_path(mutate, path, message):
    data = mutate(BASE).encode()
    if path is None:
        X.parse(data, "ok.xml")
        return
    with pytest.raises(X.DsbXmlError) as err:
        X.parse(data, "bad.xml")
    where = [w for w, _ in err.value.problems]
    assert any(w.startswith(path) for w in where), err.value.problems
    assert any(message in m for _, m in err.value.problems), err.value.problems
    assert str(err.value).startswith("bad.xml: ")


@pytest.mark.parametrize(("white", "black"), [("0", "-"), ("0.5", "0"), ("0", "0"), ("-", "0.5")])
def test_one_sided_results_are_refused_on_import(white, black):
    data = BASE.replace("<pointWhite>1</pointWhite>", f"<pointWhite>{white}</pointWhite>", 1)
    data = data.replace("<pointBlack>0</pointBlack>", f"<pointBlack>{black}</pointBlack>", 1)
    report = X.parse(data.encode(), "one.xml")  # valid for the schema
    with pytest.raises(X.DsbXmlError, match="rated for one side only") as err:
        X.to_tournament(report, "one.xml")
    assert err.value.problems[0][0] == f"{P}/games/game[1]"


def test_all_problems_at_once():
    data = BASE.replace("<sex>w<", "<sex>f<").replace("<rounds>3<", "<rounds>x<")
    with pytest.raises(X.DsbXmlError) as err:
        X.parse(data.encode(), "many.xml")
    assert len(err.value.problems) == 2


def test_clm_header_date_only_warns():
    data = BASE.replace("2026-08-13T10:00:00+02:00", "13.08.2026T10:00:00")
    report = X.parse(data.encode(), "clm.xml")
    assert any("creationDate" in w for w in report.warnings)


def test_swi_file_exported_as_xml_is_valid():
    t = swi.read(LE_2011.read_bytes(), LE_2011.name)
    report = X.from_tournament(t, tournament_uuid=UUID, head=X.header("test"))
    assert report.type == "SW" and report.rounds == 7
    data = X.write(report)
    assert valid(data) == []
    t2 = X.to_tournament(X.parse(data))
    assert t2.games == t.games
    assert [p.birth for p in t2.players] == [None] * 12  # unknown years written as 1900


# -- through the database ------------------------------------------------------------------
@pytest.fixture
def db(db):
    """The test session with the organisations C01 and C05 the files' VKZ name (a
    tournament's VKZ must be a known organisation)."""
    from ratingdb.db.organisations import create_placeholder

    for vkz in ("C01", "C05"):
        create_placeholder(db, vkz, actor="test")
    return db


def test_import_correct_and_export_through_the_database(db):
    from sqlalchemy import text

    from ratingdb.services.dsb_exchange import export_report, import_report

    t = swi.read(LE_2011.read_bytes(), LE_2011.name)
    report = X.from_tournament(t, tournament_uuid=UUID, head=X.header("test"))
    report.type = "SW-H"
    data = X.write(report)
    parsed, model = X.read(data, "le.xml")
    stored, matches, corrected = import_report(db, parsed, model, code="LE2011", vkz="C05")
    assert not corrected and len(matches) == 12
    # a corrected file: same tournamentUUID, one game changed -> the same tournament replaced
    fixed = data.replace(b"<pointWhite>1</pointWhite>", b"<pointWhite>0.5</pointWhite>", 1)
    fixed = fixed.replace(b"<pointBlack>0</pointBlack>", b"<pointBlack>0.5</pointBlack>", 1)
    parsed2, model2 = X.read(fixed, "le-fixed.xml")
    stored2, _, corrected2 = import_report(db, parsed2, model2)
    assert corrected2 and stored2.id == stored.id
    assert db.execute(text("SELECT count(*) FROM tournaments")).scalar_one() >= 1
    out = export_report(db, "LE2011", sender="Test")
    assert out.tournament_uuid == UUID and out.type == "SW-H"
    exported = X.write(out)
    assert valid(exported) == []
    again = X.to_tournament(X.parse(exported))
    assert again.games == model2.games
    assert [p.name for p in again.players] == [p.name for p in model2.players]
    assert out.header is not None and out.header.file_uuid != parsed.header.file_uuid


def test_export_derives_a_stable_uuid_and_marks_computers(db):
    from ratingdb.services.dsb_exchange import export_report, import_report

    report = small_report()
    report.tournament_uuid = X.new_uuid()
    parsed, model = X.read(X.write(report), "c.xml")
    _stored, matches, _ = import_report(db, parsed, model, code="COMP1", vkz="C01")
    assert [m.how for m in matches][3] == "computer"
    out = export_report(db, "COMP1")
    assert out.tournament_uuid == report.tournament_uuid
    assert out.players[3].computer and out.games[1].point_white == "-"
    assert valid(X.write(out)) == []


def test_one_entry_point_detects_every_format(db):
    from ratingdb.errors import InputError
    from ratingdb.i18n import use
    from ratingdb.io.tournament_file import detect, read_tournament
    from ratingdb.services.dsb_exchange import import_tournament

    here = Path(__file__).parent
    files = {
        "dsb-xml": X.write(small_report()),
        "dewis-xml": (here / "fixtures" / "dewis" / "clm-individual.xml").read_bytes(),
        "swi": LE_2011.read_bytes(),
        "trf": (here / "data" / "exchange" / "wo-2026-example.trf").read_bytes(),
    }
    for kind, data in files.items():
        assert detect(data) == kind
        assert len(read_tournament(data, f"x.{kind}").players) >= 4
    with use("en"), pytest.raises(InputError, match="neither a DSB_DWZ_TournamentReport"):
        read_tournament(b"<html/>", "page.html")
    with use("de"), pytest.raises(InputError, match="weder ein DSB_DWZ_TournamentReport"):
        read_tournament(b"<html/>", "page.html")
    t = read_tournament(files["dsb-xml"], "a.xml")
    stored, matches = import_tournament(db, t, code="XML1", vkz="C01")
    assert len(matches) == 4 and t.warnings == [
        "2 games without an opponent (noneWhitePlayer/noneBlackPlayer) are not stored"
    ]
    again = read_tournament(files["dsb-xml"], "a-corrected.xml")
    stored2, _ = import_tournament(db, again, vkz="C01")
    assert stored2.id == stored.id and "corrects that tournament" in again.warnings[-1]
    swi_t = read_tournament(files["swi"], "le.swi")
    stored3, _ = import_tournament(db, swi_t, code="SWI1", vkz="C05")
    assert stored3.id != stored.id


def test_dsb_xml_refusals_are_worded_in_the_language_in_force():
    data = BASE.replace("<sex>w<", "<sex>f<").replace("<pointWhite>1<", "<pointWhite>x<", 1)
    problems = {}
    for lang in ("de", "en"):
        with use(lang), pytest.raises(X.DsbXmlError) as err:
            X.parse(data.encode(), "t.xml", xsd=False)
        with use(lang), pytest.raises(X.DsbXmlError) as broken:
            X.parse(b"<a><b></a>", "b.xml")
        problems[lang] = [*err.value.problems, *broken.value.problems]
    sex, point = f"{P}/players/player[2]/sex", f"{P}/games/game[1]/pointWhite"
    assert problems["de"] == [
        (sex, "das Geschlecht ist m oder w, nicht 'f'"),
        (point, "ein Punktwert ist einer von 0 0.5 1 + -, nicht 'x'"),
        ("Zeile 1, Spalte 9", "kein wohlgeformtes XML: das End-Tag passt nicht zum Start-Tag"),
    ]
    assert problems["en"] == [
        (sex, "sex is m or w, got 'f'"),
        (point, "a point is one of 0 0.5 1 + -, got 'x'"),
        ("line 1, column 9", "not well-formed XML: mismatched tag"),
    ]


def test_the_place_of_a_malformed_file_is_read_by_the_web_in_either_language():
    from ratingdb.web.errors import error_item

    for lang, where in (("de", "Zeile 1, Spalte 9"), ("en", "line 1, column 9")):
        with use(lang), pytest.raises(X.DsbXmlError) as err:
            X.parse(b"<a><b></a>", "b.xml")
        item = error_item(*err.value.problems[0])
        assert (item["location"], item["line"], item["column"]) == (where, 1, 9)
