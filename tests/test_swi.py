"""The SWI/ELOBASE text reader on the real files of the shared corpus (``swi``, read from there,
never copied) and on small fixtures of our own, one per writer variant and encoding."""

from __future__ import annotations

import itertools
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.io import swi
from tests import shared_files

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

CORPUS = shared_files.CORPUS / "swi"
FIXTURES = Path(__file__).parent / "fixtures" / "swi"

# 6. Stadtmeisterschaft LE 2011 (SwissChess): read off the rows by hand, participant number ->
# (name, points, rated games, forfeit games)
LE_2011 = {
    1: ("Reck, Moritz", "5.5", 7, 0),
    2: ("Zoellmer, Fritz", "5", 7, 0),
    3: ("Schieweck, Gert", "5.5", 7, 0),
    4: ("Gehringer, Frank", "3.5", 6, 1),
    5: ("Böhmler, Thomas", "4", 7, 0),
    6: ("Viehoff, Jürgen", "3", 7, 0),
    7: ("Pudmensky, Stefan", "3", 7, 0),
    8: ("Tölg, Wolfgang", "3", 7, 0),
    9: ("Kunzi, Jürgen", "3.5", 7, 0),
    10: ("Menzel, Siegfried", "1.5", 6, 1),
    11: ("Schmidt, Heiko", "3.5", 7, 0),
    12: ("Charalambakis, Michail", "1", 7, 0),
}
# DWZ column, and the two players with ZPS + member number
LE_DWZ = {1: 2096, 2: 1958, 3: 1875, 4: 1860, 5: 1830, 6: 1772, 7: 1671, 8: 1601, 9: 1580,
          10: 1481, 11: 1462, 12: 1138}  # fmt: skip
POINTS = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5), "+-": (1, 0), "-+": (0, 1),
          "--": (0, 0)}  # fmt: skip


def _points_from_games(t) -> dict[int, Decimal]:
    out = {p.start_rank: Decimal(0) for p in t.players}
    for g in t.games:
        w, b = POINTS[g.result]
        out[g.white] += Decimal(str(w))
        out[g.black] += Decimal(str(b))
    return out


def _games_per_player(t) -> tuple[Counter[int], Counter[int]]:
    rated: Counter[int] = Counter()
    forfeits: Counter[int] = Counter()
    for g in t.games:
        bucket = rated if g.result in ("1-0", "0-1", "1/2-1/2") else forfeits
        bucket[g.white] += 1
        bucket[g.black] += 1
    return rated, forfeits


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("marceljuenemann__stadtmeisterschaft-le-2011.swi", "utf-8"),
        ("marceljuenemann__stadtmeisterschaft-le-2011.derived-cp850-crlf.swi", "cp850"),
    ],
)
def test_swisschess_file_of_2011_every_player(name, encoding):
    data = (CORPUS / name).read_bytes()
    parsed = swi.parse(data, name)
    assert parsed.encoding == encoding
    assert (parsed.kind, parsed.declared_players, parsed.declared_rounds, parsed.tag) == (
        "ES", 12, 7, "860")  # fmt: skip
    t = swi.to_tournament(parsed)
    assert t.name == "6. Stadtmeisterschaft LE 2011"
    assert (t.start.isoformat(), t.end.isoformat()) == ("2011-10-13", "2012-02-16")
    assert t.city == "Leinfelden-Echterdingen" and t.arbiter == "Jürgen Viehoff"
    assert t.time_control == "90 Min." and not t.team and t.warnings == []
    assert {p.start_rank: p.name for p in t.players} == {k: v[0] for k, v in LE_2011.items()}
    expected_points = {k: Decimal(v[1]) for k, v in LE_2011.items()}
    assert {p.start_rank: p.points for p in t.players} == expected_points
    # the same points again from the game list (both rows checked against each other)
    assert _points_from_games(t) == expected_points
    rated, forfeits = _games_per_player(t)
    assert dict(rated) == {k: v[2] for k, v in LE_2011.items()}
    assert dict(forfeits) == {k: v[3] for k, v in LE_2011.items() if v[3]}
    assert len(t.games) == 42
    assert [g for g in t.games if g.result not in ("1-0", "0-1", "1/2-1/2")] == [
        swi.TrfGame(7, 4, 10, "-+")
    ]
    assert swi.TrfGame(1, 1, 6, "1-0") in t.games and swi.TrfGame(3, 3, 2, "1/2-1/2") in t.games
    assert {p.start_rank: p.national["GER"].rating for p in t.players} == LE_DWZ
    assert t.player(10).national["GER"].number == "C0512-135"
    assert t.player(11).national["GER"].number == "C0520-80"
    assert t.player(1).national["GER"].number == ""
    # SwissChess puts the final rank into rrr: ordering by it never increases the points
    by_rank = sorted(parsed.players, key=lambda p: p.second or 0)
    assert [p.second for p in by_rank] == list(range(1, 13))
    assert all(a.points >= b.points for a, b in itertools.pairwise(by_rank))


def test_the_two_encodings_of_2011_read_the_same():
    a = swi.read((CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.swi").read_bytes())
    b = swi.read(
        (CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.derived-cp850-crlf.swi").read_bytes()
    )
    assert [(p.name, p.points) for p in a.players] == [(p.name, p.points) for p in b.players]
    assert a.games == b.games


@pytest.mark.parametrize(
    ("name", "title", "start", "end", "tag"),
    [
        ("BiBaButzelmann__hsk-klubturnier-2018-excerpt.swi", "HSK Klubturnier 2018 A-Gruppe",
         "30.11.2018", "30.11.2018", "910"),
        ("BiBaButzelmann__hsk-klubturnier-2018-excerpt-v2.swi", "Klubturnier 2025",
         "16.9.2025", "12.12.2025", ""),
    ],
)  # fmt: skip
def test_fischer_excerpts_every_player_and_the_missing_opponents(name, title, start, end, tag):
    """Two of ten players: their rows are read completely; the opponents the excerpt leaves
    out are reported, all at once, with line and column."""
    parsed = swi.parse((CORPUS / name).read_bytes(), name)
    assert parsed.encoding == "utf-8" and parsed.kind == "ER" and parsed.tag == tag
    assert (parsed.footer.get("Name") or parsed.title) == title
    assert (parsed.footer["Datum(S)"], parsed.footer["Datum(E)"]) == (start, end)
    assert parsed.warnings == ["the kind line announces 10 players, the file has 2"]
    rows = {
        p.number: (p.name, p.points, [(b.result, b.colour, b.opponent) for b in p.blocks])
        for p in parsed.players
    }
    assert rows == {
        1: ("Meißner, Felix", Decimal(4),
            [("1", "W", 10), ("1", "W", 2), ("1", "B", 3), ("1", "W", 4)]),
        2: ("Spiric, Igor", Decimal(2),
            [("R", "W", 9), ("0", "B", 1), ("1", "W", 10), ("R", "W", 3)]),
    }  # fmt: skip
    meissner = parsed.player(1)
    assert (meissner.second, meissner.club, meissner.fide_id, meissner.vkz,
            meissner.member_number) == (1, "HSK", 24671827, "40023", "1237")  # fmt: skip
    assert parsed.player(2).second == 4  # fischer: start rank in rrr
    with pytest.raises(swi.SwiError) as err:
        swi.to_tournament(parsed)
    assert [m for _, m in err.value.problems] == [
        "round 1: opponent 10 is not in the file",
        "round 3: opponent 3 is not in the file",
        "round 4: opponent 4 is not in the file",
        "round 1: opponent 9 is not in the file",
        "round 3: opponent 10 is not in the file",
        "round 4: opponent 3 is not in the file",
    ]
    assert [w for w, _ in err.value.problems][:2] == [f"{name}:5:137", f"{name}:5:149"]
    assert str(err.value).count("\n") == 5


# -- own fixtures: one per writer variant ---------------------------------------------------
NAMES = {1: "Müller, Jörg", 2: "Weiß, Käthe", 3: "Öztürk, Ülkü", 4: "Schmidt, Hans"}
GAMES = [
    swi.TrfGame(1, 1, 4, "1-0"),
    swi.TrfGame(1, 2, 3, "1/2-1/2"),
    swi.TrfGame(2, 1, 2, "1/2-1/2"),
    swi.TrfGame(2, 4, 3, "0-1"),
    swi.TrfGame(3, 2, 4, "+-"),
    swi.TrfGame(3, 3, 1, "0-1"),
]


@pytest.mark.parametrize(
    ("fixture", "encoding", "kind", "team", "name", "points", "games"),
    [
        ("swisschess-cp850-crlf.swi", "cp850", "ER", False,
         "Vereinsmeisterschaft Jöllenbeck 2025", ["2.5", "2", "1.5", "0"], GAMES),
        ("clm-latin1-lf.swi", "latin-1", "MR", True, "Bezirksliga Süd 2025/26",
         ["2.5", "2", "1.5", "0"], [*GAMES, swi.TrfGame(4, 1, 2, "--")]),
        ("fischer-utf8-crcrlf.swi", "utf-8", "ER", False, "Klubturnier 2025",
         ["2.5", "2", "1.5", "0"], GAMES),
        ("bmm-utf8-lf.swi", "utf-8", "", False, "BMM 2025/26 Klasse 1",
         ["2.5", "1", "1.5", "0"], [g for g in GAMES if g.result != "+-"]),
    ],
)  # fmt: skip
def test_writer_variants(fixture, encoding, kind, team, name, points, games):
    parsed = swi.parse((FIXTURES / fixture).read_bytes(), fixture)
    assert parsed.encoding == encoding and parsed.kind == kind
    t = swi.to_tournament(parsed)
    assert t.name == name and t.team is team
    assert {p.start_rank: p.name for p in t.players} == NAMES
    assert [str(t.player(k).points.normalize()) for k in (1, 2, 3, 4)] == points
    assert sorted(t.games, key=lambda g: (g.round, g.white)) == sorted(
        games, key=lambda g: (g.round, g.white)
    )


def test_swisschess_fixture_fields():
    t = swi.read((FIXTURES / "swisschess-cp850-crlf.swi").read_bytes(), "sc.swi")
    mueller = t.player(1)
    assert (mueller.fide_id, mueller.rating, mueller.federation) == (4612345, 1850, "GER")
    assert mueller.birth.isoformat() == "1980-03-12"  # DDMMYYYY
    assert mueller.national["GER"].number == "10012345" and mueller.national["GER"].rating == 1802
    assert t.player(3).national["GER"].number == "C0102-135" and t.player(3).birth == 2008
    assert "GER" not in t.player(4).national
    assert t.time_control == "40 in 90 Min. / 30 Min." and t.arbiter == "Käthe Weiß"
    assert t.other["Ser.Nummer"] == "1234567890"


def test_nsv_extra_block_for_a_second_game_in_a_round():
    parsed = swi.parse((FIXTURES / "nsv-cp850-crlf.swi").read_bytes(), "nsv.swi")
    assert parsed.encoding == "cp850" and parsed.tag == "860" and parsed.team
    assert [p.birth for p in parsed.players] == [1985, 1990, 2001, 1964]  # left-aligned
    t = swi.to_tournament(parsed)
    assert t.games == [
        swi.TrfGame(1, 1, 2, "1-0"),
        swi.TrfGame(1, 4, 3, "0-1"),
        swi.TrfGame(2, 1, 4, "0-1"),
        swi.TrfGame(2, 3, 1, "0-1"),
    ]
    assert "different blocks" in t.warnings[0]


def test_fischer_line_ends_and_dates():
    data = (FIXTURES / "fischer-utf8-crcrlf.swi").read_bytes()
    assert b"\r\r\n" in data and data.endswith(b"\r\r")
    t = swi.read(data, "f.swi")
    assert (t.start.isoformat(), t.end.isoformat()) == ("2025-09-02", "2025-09-16")
    assert t.player(1).national["GER"].number == "40023-1231"


def test_cp850_and_latin1_told_apart():
    text = (FIXTURES / "swisschess-cp850-crlf.swi").read_bytes().decode("cp850")
    assert swi.detect_encoding(text.encode("cp850")) == "cp850"
    assert swi.detect_encoding(text.encode("latin-1")) == "latin-1"
    assert swi.detect_encoding(text.encode("utf-8")) == "utf-8"
    for enc in ("cp850", "latin-1", "utf-8"):
        t = swi.read(text.encode(enc), f"x.{enc}")
        assert [p.name for p in t.players] == list(NAMES.values())
    # a BOM is fine, and a given encoding wins over the guess
    assert swi.read(b"\xef\xbb\xbf" + text.encode("utf-8")).player(2).name == "Weiß, Käthe"
    assert swi.read(text.encode("cp850"), encoding="cp850").player(2).name == "Weiß, Käthe"


def _lines() -> list[str]:
    return (FIXTURES / "swisschess-cp850-crlf.swi").read_bytes().decode("cp850").split("\r\n")


def test_swi_refusals_are_worded_in_the_language_in_force():
    """The same broken file refused in German (the default) and in English: the messages,
    the footer's location and the dates as the language writes them."""
    lines = _lines()
    lines[4] = lines[4][:135] + "X" + lines[4][136:]  # colour of round 1 of player 1
    lines[7] = lines[7][:1] + "  x" + lines[7][4:]  # participant number
    bad = "\r\n".join(lines).encode("cp850")
    swapped = "\r\n".join(_lines()).replace("Datum(S):   05.09.2025", "Datum(S):   20.09.2025")
    with use("de"):
        with pytest.raises(swi.SwiError) as german:
            swi.parse(bad, "bad.swi")
        with pytest.raises(swi.SwiError) as german_dates:
            swi.read(swapped.encode("cp850"), "bad.swi")
    with use("en"):
        with pytest.raises(swi.SwiError) as english:
            swi.parse(bad, "bad.swi")
        with pytest.raises(swi.SwiError) as english_dates:
            swi.read(swapped.encode("cp850"), "bad.swi")
    assert german.value.problems == [
        ("bad.swi:5:136", "Runde 1: unbekannte Farbe 'X' (W B :)"),
        ("bad.swi:8:2", "Teilnehmernummer ist keine Zahl: 'x'"),
    ]
    assert english.value.problems == [
        ("bad.swi:5:136", "round 1: unknown colour 'X' (W B :)"),
        ("bad.swi:8:2", "participant number is not a number: 'x'"),
    ]
    assert german_dates.value.problems == [
        ("bad.swi: Fußteil Datum(E)", "das Enddatum 19.09.2025 liegt vor dem Beginn 20.09.2025")
    ]
    assert english_dates.value.problems == [
        ("bad.swi: footer Datum(E)", "end date 2025-09-19 is before the start 2025-09-20")
    ]


def test_all_errors_of_a_file_at_once_with_line_and_column():
    lines = _lines()
    lines[4] = lines[4][:135] + "X" + lines[4][136:]  # colour of round 1 of player 1
    lines[5] = lines[5][:140] + "Q" + lines[5][141:]  # result of round 2 of player 2
    lines[7] = lines[7][:1] + "  x" + lines[7][4:]  # participant number
    with pytest.raises(swi.SwiError) as err:
        swi.parse("\r\n".join(lines).encode("cp850"), "bad.swi")
    assert err.value.problems == [
        ("bad.swi:5:136", "round 1: unknown colour 'X' (W B :)"),
        ("bad.swi:6:141", "round 2: unknown result 'Q' (1 0 R + - = :)"),
        ("bad.swi:8:2", "participant number is not a number: 'x'"),
    ]
    assert isinstance(err.value, InputError)
    text = str(err.value)
    assert "bad.swi:5:136" in text and "bad.swi:6:141" in text and "bad.swi:8:2" in text


def test_pairing_errors_are_collected():
    lines = _lines()
    lines[6] = lines[6][:145] + " 1W  1" + lines[6][151:]  # player 3 round 3: 1W vs 1 (1 says 1B)
    lines[4] = lines[4][:133] + " 1W  5" + lines[4][139:]  # player 1 round 1 vs 5 (absent)
    with pytest.raises(swi.SwiError) as err:
        swi.read("\r\n".join(lines).encode("cp850"), "pair.swi")
    messages = [m for _, m in err.value.problems]
    assert "round 1: opponent 5 is not in the file" in messages
    assert any("says 1W against 1" in m or "says 1B against 3" in m for m in messages)
    assert any("has no block against 4" in m for m in messages)  # player 4's round 1


def test_one_sided_results_are_refused():
    lines = _lines()
    # CLM's "0-0": 0 for player 1 and - for player 4 in round 1
    lines[4] = lines[4][:133] + " 0W  4" + lines[4][139:]
    lines[7] = lines[7][:133] + " -B  1" + lines[7][139:]
    with pytest.raises(swi.SwiError, match="rated for one side only"):
        swi.read("\r\n".join(lines).encode("cp850"), "oneside.swi")


def test_missing_end_date_and_not_an_swi_file():
    lines = [line for line in _lines() if not line.startswith("Datum")]
    with pytest.raises(swi.SwiError, match="no end date"):
        swi.read("\r\n".join(lines).encode("cp850"), "nodate.swi")
    with pytest.raises(swi.SwiError, match="no ruler line"):
        swi.read(b"012 A TRF file\n001    1      Player\n", "x.trf")
    assert swi.looks_like_swi((FIXTURES / "bmm-utf8-lf.swi").read_bytes())
    assert not swi.looks_like_swi(b"012 A TRF file\n")


def test_round_trip_through_the_database(db):
    """An SWI file goes through the TRF import path: textual participants and every game."""
    from ratingdb.db.organisations import create_placeholder
    from ratingdb.services.trf_import import import_trf

    create_placeholder(db, "C05", actor="test")
    t = swi.read((CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.swi").read_bytes())
    stored, matches = import_trf(db, t, code="LE2011", vkz="C05")
    assert stored.name == "6. Stadtmeisterschaft LE 2011" and len(matches) == 12
    assert all(m.player_id is None for m in matches)
    from sqlalchemy import text

    n = db.execute(
        text("SELECT count(*) FROM games WHERE tournament_id = :t"), {"t": stored.id}
    ).scalar_one()
    assert n == 42
