"""The TRF reader and writer (ratingdb/io/trf.py) without a database: every record type and
result code of a hand-written file, one test per kind of error (with its line and column),
a write/parse round-trip property and a fuzz test on mutated files."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratingdb.errors import InputError
from ratingdb.io.trf import (
    PLACEHOLDERS,
    NationalRecord,
    RoundEntry,
    TrfError,
    TrfGame,
    TrfPlayer,
    TrfTournament,
    decode,
    differences,
    parse,
    write,
)

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

DATA = Path(__file__).parent / "data"
ALL = (DATA / "trf" / "all-records.trf").read_text()


@pytest.fixture(scope="module")
def trf() -> TrfTournament:
    return parse(ALL, "all-records.trf")


def test_tournament_records(trf):
    assert trf.name == "Offene Stadtmeisterschaft Musterstadt 2026"
    assert (trf.city, trf.federation, trf.type) == ("Musterstadt", "GER", "Swiss System")
    assert (trf.start, trf.end) == (date(2026, 9, 5), date(2026, 9, 7))
    assert trf.arbiter == "Arbiter, Anna (DE 12345)"
    assert trf.time_control == "90'/40+30'+30\""
    assert trf.other == {"112": "Deputy, Dora"}
    assert trf.round_dates == [
        date(2026, 9, 5),
        date(2026, 9, 6),
        date(2026, 9, 6),
        date(2026, 9, 7),
    ]
    assert trf.warnings == [] and not trf.team


def test_player_fixed_columns(trf):
    adler = trf.player(1)
    assert (adler.sex, adler.title, adler.name) == ("m", "GM", "Adler, Anton")
    assert (adler.rating, adler.federation, adler.fide_id) == (2450, "GER", 4600001)
    assert adler.birth == date(1990, 5, 17) and adler.birth_year == 1990
    assert (adler.points, adler.rank) == (Decimal("3.5"), 1)
    bauer = trf.player(2)
    assert (bauer.sex, bauer.title, bauer.birth) == ("f", "WIM", 2004)  # 'w' is female
    claus = trf.player(3)
    assert (claus.rating, claus.fide_id, claus.birth) == (None, None, None)


def test_national_records(trf):
    ger = trf.player(1).national["GER"]
    assert (ger.rating, ger.origin, ger.number) == (2390, "C03", "10012345")
    claus = trf.player(3).national["GER"]
    assert (claus.rating, claus.number, claus.birth) == (1720, "C0327-0012", 1968)
    assert trf.player(2).national == {}


def test_every_result_code_becomes_the_right_game(trf):
    games = {(g.round, g.white, g.black): g.result for g in trf.games}
    assert games == {
        (1, 1, 4): "1-0",  # 1 / 0
        (1, 5, 2): "0-1",
        (1, 3, 6): "0-1",
        (2, 2, 1): "1/2-1/2",  # = / =
        (3, 1, 3): "+-",  # forfeit
        (3, 4, 5): "--",  # double forfeit: both '-'
        (3, 6, 2): "D-D",  # unrated short draw
        (4, 5, 1): "L-W",  # unrated short games
        (4, 3, 4): "L-W",
    }


def test_byes_are_not_games(trf):
    codes = {(e.round, e.code) for p in trf.players for e in p.rounds if not e.opponent}
    assert codes == {(4, "H"), (2, "F"), (2, "U"), (2, "Z"), (2, " "), (4, "F")}


def _replace(text: str, line_no: int, column: int, new: str) -> str:
    lines = text.splitlines()
    row = lines[line_no - 1].ljust(column - 1 + len(new))
    lines[line_no - 1] = row[: column - 1] + new + row[column - 1 + len(new) :]
    return "\n".join(lines) + "\n"


def _line_of(prefix: str) -> int:
    return next(k for k, line in enumerate(ALL.splitlines(), start=1) if line.startswith(prefix))


ADLER = _line_of("001    1")
DIETZ = _line_of("001    4")


@pytest.mark.parametrize(
    ("line", "column", "new", "where", "message"),
    [
        (ADLER, 99, "X", f"{ADLER}:99", "unknown result code 'X'"),
        (ADLER, 92, "  17", f"{ADLER}:92", "opponent 17 is out of range"),
        (
            ADLER,
            97,
            "b",
            f"{ADLER}:92",
            "asymmetric pairing in round 1: 1 says he played 4 as black",
        ),
        (
            DIETZ,
            99,
            "=",
            f"{_line_of('001    1')}:92",
            "line 18 of 4 says opponent 1, colour b, result '='",
        ),
        (_line_of("042"), 5, "2026/13/05", f"{_line_of('042')}:5", "not a date"),
        (_line_of("052"), 5, "2026/09/01", f"{_line_of('052')}:5", "end date 2026-09-01 is before"),
        (DIETZ, 5, "   1", f"{DIETZ}:5", "duplicate start rank 1 (also line"),
        (
            _line_of("GER    3"),
            5,
            "   9",
            f"{_line_of('GER    3')}:5",
            "start rank 9, which has no 001",
        ),
        (ADLER, 97, "-", f"{ADLER}:97", "a played game needs colour w or b"),
        (
            ADLER,
            49,
            " 2450",
            f"{ADLER}:53",
            "column 53 should be blank: the FIDE rating runs into it (shifted columns?)",
        ),
        (ADLER, 58, "     46000011", f"{ADLER}:69", "the FIDE id runs into it"),
    ],
)
def test_errors_name_line_and_column(line, column, new, where, message):
    with pytest.raises(TrfError) as info:
        parse(_replace(ALL, line, column, new), "t.trf")
    assert info.value.location == f"t.trf:{where}"
    assert message in info.value.message


@pytest.mark.parametrize(
    ("column", "new", "warning"),
    [
        (70, "1990-13-17", "column 70: not a date: '1990-13-17' (month must be in 1..12) "
         "(left empty)"),
        (70, "12.12.1837", "column 70: birth year 1837 is not plausible (1850..2200) (left "
         "empty)"),
        (70, "  1990/05/1", "column 80 should be blank: the birth date runs into it (shifted "
         "columns?); left empty"),
        (54, "G3R", "column 54: a federation is 3 letters, got 'G3R' (left empty)"),
        (11, "G1 ", "column 11: a title is letters, got 'G1' (left empty)"),
    ],
)  # fmt: skip
def test_fields_no_rating_needs_are_warnings_left_empty(column, new, warning):
    """A birth date, federation or title that cannot be read (or is shifted) is a warning
    naming line and column, and the value is left empty: the file is imported."""
    t = parse(_replace(ALL, ADLER, column, new), "t.trf")
    assert f"line {ADLER}: {warning}" in t.warnings, t.warnings
    adler = t.player(1)
    assert {70: adler.birth, 54: adler.federation, 11: adler.title}[column] in (None, "")


def test_missing_dates_and_lines_that_are_no_records():
    without_end = "\n".join(x for x in ALL.splitlines() if not x.startswith("052"))
    t = parse(without_end, "t.trf")
    assert t.end == date(2026, 9, 7)  # the last round date
    assert "record 052 (end date) is missing: 2026-09-07 is used (the last round date)" in (
        t.warnings
    )
    no_dates = "\n".join(x for x in without_end.splitlines() if x[:3] not in ("042", "132"))
    with pytest.raises(TrfError, match=r"t.trf: records 042 and 052 .start and end date. are"):
        parse(no_dates, "t.trf")
    t = parse(ALL + "abc what\n", "t.trf")
    assert t.comments == ["abc what"]
    assert t.warnings == [f"line {len(ALL.splitlines()) + 1}: not a TRF record, kept as a "
                          "comment: 'abc what'"]  # fmt: skip


def test_encoding_problems_are_reported_not_guessed():
    data = ALL.replace("Bauer", "Bäuer").encode("cp1252")
    with pytest.raises(TrfError) as info:
        decode(data, "t.trf")
    line = _line_of("001    2")
    assert info.value.location == f"t.trf:{line}:16"  # B at 15, ä at 16
    assert "byte 0xe4 is not valid utf-8" in info.value.message
    assert parse(decode(data, "t.trf", "cp1252")).player(2).name == "Bäuer, Berta"
    assert parse(decode(b"\xef\xbb\xbf" + ALL.encode(), "t.trf")).name.startswith("Offene")
    for codec, message in (("no-such-codec", "unknown encoding"), ("undefined", "cannot decode")):
        with pytest.raises(TrfError, match=message):
            decode(data, "t.trf", codec)


def test_write_then_parse_keeps_everything(trf):
    again = parse(write(trf), "again.trf")
    assert again.games == trf.games
    assert [(p.start_rank, p.name, p.sex, p.rating, p.fide_id, p.birth) for p in again.players] == [
        (p.start_rank, p.name, p.sex, p.rating, p.fide_id, p.birth) for p in trf.players
    ]
    assert {p.start_rank: p.national for p in again.players}.keys() == {1, 2, 3, 4, 5, 6}
    assert again.player(3).national["GER"].number == "C0327-0012"
    # points are computed from the games and byes written: every bye is kept
    assert again.player(1).points == trf.player(1).points == Decimal("3.5")  # 1 + ½ + 1 + 1
    assert again.player(2).points == trf.player(2).points == Decimal("2.5")  # ½ of an H bye
    assert [p.byes for p in again.players] == [p.byes for p in trf.players]
    assert (again.records, again.other) == (trf.records, trf.other)


# -- properties ----------------------------------------------------------------------------

CODES = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "W-L", "L-W", "D-D"]
names = st.text(
    alphabet=st.characters(whitelist_categories=("Lu", "Ll"), whitelist_characters=" -,"),
    min_size=1,
    max_size=33,
).filter(lambda s: s.strip() == s and s.strip())
names = names.filter(lambda s: re.sub("[^a-z]", "", s.lower()) not in PLACEHOLDERS)  # no "bye"


def unique(value: int | None, rank: int) -> int | None:
    """An id no other start rank has (one person, one start rank)."""
    return None if value is None else value * 100 + rank


@st.composite
def tournaments(draw) -> TrfTournament:
    n = draw(st.integers(min_value=2, max_value=12))
    players = []
    for rank in range(1, n + 1):
        p = TrfPlayer(
            start_rank=rank,
            sex=draw(st.sampled_from(["", "m", "f"])),
            title=draw(st.sampled_from(["", "GM", "WFM"])),
            name=draw(names),
            rating=draw(st.one_of(st.none(), st.integers(1000, 2900))),
            federation=draw(st.sampled_from(["", "GER", "AUT"])),
            fide_id=unique(draw(st.one_of(st.none(), st.integers(1, 10**7))), rank),
            birth=draw(
                st.one_of(
                    st.none(),
                    st.integers(1920, 2020),
                    st.dates(date(1920, 1, 1), date(2020, 12, 31)),
                )
            ),
            points=None,
            rank=None,
            rounds=[],
            line=0,
        )
        if draw(st.booleans()):
            p.national["GER"] = NationalRecord(
                "GER", rank, draw(st.one_of(st.none(), st.integers(800, 2800))), "",
                str(draw(st.integers(1, 10**6)) * 100 + rank), "", None, 0,
            )  # fmt: skip
        players.append(p)
    games = []
    for rnd in range(1, draw(st.integers(1, 9)) + 1):
        free = list(range(1, n + 1))
        order = draw(st.permutations(free))
        for k in range(0, len(order) - 1, 2):
            if draw(st.integers(0, 4)):
                result = draw(st.sampled_from(CODES))
                coloured = result not in ("+-", "-+", "--") or draw(st.booleans())
                white, black = order[k], order[k + 1]
                if not coloured:  # without colours the lower start rank comes first
                    white, black = min(white, black), max(white, black)
                games.append(TrfGame(rnd, white, black, result, coloured))
        busy = {x for g in games if g.round == rnd for x in (g.white, g.black)}
        for q in players:  # a bye, an absence or nothing in a round without a game
            code = draw(st.sampled_from(["", "H", "F", "U", "Z", "-", "=", "+"]))
            if q.start_rank not in busy and code:
                q.rounds.append(RoundEntry(rnd, 0, "-", code, 0))
    games.sort(key=lambda g: (g.round, g.white))
    start = draw(st.dates(date(2000, 1, 1), date(2030, 1, 1)))
    return TrfTournament("gen", draw(names), start, start, players=players, games=games)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_generated_tournaments_survive_write_and_parse(t):
    again = parse(write(t), "gen.trf")
    assert (again.name, again.start, again.end) == (t.name, t.start, t.end)
    assert again.games == t.games
    assert [(p.start_rank, p.name, p.sex, p.title, p.rating, p.federation, p.fide_id, p.birth)
            for p in again.players] == [
        (p.start_rank, p.name, p.sex, p.title, p.rating, p.federation, p.fide_id, p.birth)
        for p in t.players
    ]  # fmt: skip
    for p in t.players:
        if "GER" in p.national:
            got = again.player(p.start_rank).national["GER"]
            assert (got.rating, got.number) == (p.national["GER"].rating, p.national["GER"].number)
    assert differences(t, again) == []  # byes and forfeits without colours included
    for q in again.players:  # the points column is what the rounds score
        assert q.points == sum((e.points for e in q.rounds), Decimal(0))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(ALL) - 1),
            st.sampled_from(["delete", "insert", "replace"]),
            st.text(alphabet="0123456789 -+=wbWDLHFUZ/.\nx\t", min_size=1, max_size=3),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_files_parse_or_fail_with_a_location(mutations):
    text = ALL
    for pos, kind, chunk in mutations:
        pos = min(pos, len(text))
        if kind == "delete":
            text = text[:pos] + text[pos + len(chunk) :]
        elif kind == "insert":
            text = text[:pos] + chunk + text[pos:]
        else:
            text = text[:pos] + chunk + text[pos + len(chunk) :]
    try:
        t = parse(text, "m.trf")
    except TrfError as err:
        assert err.location.startswith("m.trf")
        assert err.message
    else:
        starts = {p.start_rank for p in t.players}
        assert all(g.white in starts and g.black in starts for g in t.games)


def test_team_records_mark_a_team_competition():
    team = (
        ALL
        + "310   1 Musterstadt I                    MUS                                 1    2\n"
    )
    assert parse(team, "t.trf").team and not parse(ALL, "t.trf").team
    old_style = ALL + "013 Musterstadt I                       1    2\n"
    assert parse(old_style, "t.trf").team


def test_a_bye_with_an_opponent_and_a_game_without_one_are_errors():
    line = _line_of("001    2")
    with pytest.raises(TrfError, match="result 'H' is a bye, but an opponent"):
        parse(_replace(ALL, line, 122, "   3 - H"), "t.trf")
    with pytest.raises(TrfError, match="result '1' needs an opponent"):
        parse(_replace(ALL, line, 122, "0000 - 1"), "t.trf")


def test_superscript_digits_unknown_and_implausible_birth_years_and_diverse_sex_are_read_as_meant():
    # superscript digits are digits to str.isdigit but not numbers: a located error
    line = _line_of("001    1")
    with pytest.raises(TrfError, match="FIDE rating is not a number"):
        parse(_replace(ALL, line, 49, "245²"), "t.trf")
    # birth year 0000 is unknown; an implausible one is a warning with its place
    assert parse(_replace(ALL, line, 70, "0000/00/00"), "t.trf").player(1).birth is None
    implausible = parse(_replace(ALL, line, 70, "1066/00/00"), "t.trf")
    assert implausible.player(1).birth is None
    assert f"line {line}: column 70: birth year 1066 is not plausible (1850..2200) (left " \
        "empty)" in implausible.warnings  # fmt: skip
    # sex d (diverse) has no TRF letter: written blank, read back as unknown
    t = parse(ALL, "t.trf")
    t.player(1).sex = "d"
    assert parse(write(t), "again.trf").player(1).sex == ""


def test_member_list_encoding_and_csv_errors():
    from ratingdb.io.dsb_list import parse_list

    header = (
        "ID,VKZ,Mgl-Nr,Status,Spielername,Geschlecht,Spielberechtigung,Geburtsjahr,"
        "Letzte-Auswertung,DWZ,Index,FIDE-Elo,FIDE-Titel,FIDE-ID,FIDE-Land\r\n"
    )
    row = '10,C0101,1,A,"Müller,Jörg",M,D,1980,,,,,,,\r\n'
    utf8 = (header + row).encode("utf-8")
    with pytest.raises(InputError, match=r"valid UTF-8 .* give --encoding utf-8"):
        parse_list(utf8, "l.csv")  # read as windows-1252 it would be "MÃ¼ller"
    with pytest.raises(InputError, match="byte order mark"):
        parse_list(b"\xef\xbb\xbf" + utf8, "l.csv")
    assert parse_list(utf8, "l.csv", "utf-8")[0].surname == "Müller"
    assert parse_list((header + row).encode("cp1252"), "l.csv")[0].given_name == "Jörg"
    with pytest.raises(InputError, match=r"l.csv:2: column DWZ"):
        parse_list((header + row.replace(",,,,,,\r", ",18²0,3,,,,\r")).encode("cp1252"), "l.csv")
    broken = header + '10,C0101,1,A,"Müller,Jörg,M,D,1980,,,,,,,\r\n' + row
    with pytest.raises(InputError, match=r"l.csv:2: 16 fields.*runs to line 3"):
        parse_list(broken.encode("cp1252"), "l.csv")


def test_trf_refusals_are_worded_in_the_language_in_force():
    """The reader's refusals and warnings are in the language of the call: German for a
    German officer (Runde, Ergebniscode, Startnummer, Zeile, Spalte), English on request;
    the location (file:line:column) is the same in both."""
    from ratingdb.i18n import use

    bad = _replace(ALL, ADLER, 99, "X")
    shifted = _replace(ALL, ADLER, 70, "  1990/05/1")
    with use("de"):
        with pytest.raises(TrfError) as german:
            parse(bad, "t.trf")
        warned = parse(shifted, "t.trf").warnings
        with pytest.raises(TrfError) as duplicate:
            parse(_replace(ALL, DIETZ, 5, "   1"), "t.trf")
        with pytest.raises(TrfError) as month:
            parse(_replace(ALL, _line_of("042"), 5, "2026/13/05"), "t.trf")
    with use("en"):
        with pytest.raises(TrfError) as english:
            parse(bad, "t.trf")
        warned_en = parse(shifted, "t.trf").warnings
    assert german.value.location == english.value.location == f"t.trf:{ADLER}:99"
    assert german.value.message == "Runde 1: unbekannter Ergebniscode 'X'"
    assert english.value.message == "round 1: unknown result code 'X'"
    assert duplicate.value.message == f"Startnummer 1 doppelt (auch Zeile {ADLER})"
    assert month.value.message == "kein Datum: '2026/13/05' (der Monat muss 1..12 sein)"
    assert warned == [
        f"Zeile {ADLER}: Spalte 70: kein Datum (erwartet: JJJJ/MM/TT): '1990/05/' (leer gelassen)",
        f"Zeile {ADLER}: Spalte 80 sollte leer sein: das Feld Geburtsdatum reicht hinein "
        "(verschobene Spalten?); leer gelassen",
    ]
    assert warned_en == [
        f"line {ADLER}: column 70: not a date (expected YYYY/MM/DD): '1990/05/' (left empty)",
        f"line {ADLER}: column 80 should be blank: the birth date runs into it (shifted "
        "columns?); left empty",
    ]


def test_tournament_file_refusals_are_worded_in_the_language_in_force():
    """The entry point's refusals (no format, an empty file, the dates) in German and in
    English."""
    from ratingdb.i18n import use
    from ratingdb.io.tournament_file import read_tournament

    for lang, empty, html, dates in (
        (
            "de",
            "die Datei ist leer",
            "XML mit dem Wurzelelement 'html': weder ein DSB_DWZ_TournamentReport "
            "(http://www.schachbund.de/XMLSchema) noch eine DeWIS-Datei",
            "das Enddatum 01.09.2026 liegt vor dem Beginn 05.09.2026",
        ),
        (
            "en",
            "the file is empty",
            "XML with root element 'html': neither a DSB_DWZ_TournamentReport "
            "(http://www.schachbund.de/XMLSchema) nor a DeWIS file",
            "end date 2026-09-01 is before the start date 2026-09-05",
        ),
    ):
        with use(lang):
            with pytest.raises(InputError) as info:
                read_tournament(b"  \n", "t.trf")
            assert (info.value.location, info.value.message) == ("t.trf", empty)
            with pytest.raises(InputError) as info:
                read_tournament(b"<html/>", "page.html")
            assert info.value.message == html
            with pytest.raises(InputError) as info:
                read_tournament(ALL.encode(), "t.trf", end=date(2026, 9, 1))
            assert info.value.message == dates
