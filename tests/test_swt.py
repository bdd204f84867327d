"""The SwissChess SWT reader: every real file of the shared corpus (``swt``, read from there, never
copied), the sample files of fnogatz/swtparser.js against our expectations taken from that
repository's JSON (tests/data/swt, written by scripts/swt_expectations.py), synthetic files
(tests/swt_builder.py) for the variants, every error path by its message, and the import
through the command line (all or nothing)."""

from __future__ import annotations

import json
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.io import swt
from ratingdb.io.tournament_file import detect, read_tournament
from tests import shared_files
from tests.builders import organisations
from tests.swt_builder import P, Swt, T, round_robin_of_three

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

CORPUS = shared_files.CORPUS / "swt"
SAMPLES = json.loads(
    (Path(__file__).parent / "data" / "swt" / "swtparser-samples.json").read_text()
)
MIRROR = Path("/work/.mirror/fnogatz+swtparser.js/repo")
CODE_POINTS = {"1": Decimal(1), "=": Decimal("0.5"), "0": Decimal(0), "+": Decimal(1),
               "-": Decimal(0), "U": Decimal(1), "H": Decimal("0.5"), "Z": Decimal(0)}  # fmt: skip
NO_DATES = date(2019, 6, 30)
#: what we assert of each real file: players, rounds, games, forfeits, some names, and the
#: players whose card total SwissChess left different from the game records
CORPUS_FACTS = {
    "OliverNeff__ews-2018.swt": (56, 9, 252, 0, ["Effenberger, Luke U18",
                                                 "Baßermann Thore U14"], 0),
    "OliverNeff__ews-2019.swt": (36, 7, 126, 0, ["Kale, Günes Lale"], 0),
    "fnogatz__swiss-team.swt": (83, 7, 280, 1, ["Barber,Justin", "Green,Shirley"], 7),
}  # fmt: skip


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.swt"))


def _points(t) -> dict[int, Decimal]:  # type: ignore[no-untyped-def]
    return {
        p.start_rank: sum((CODE_POINTS[e.code] for e in p.rounds), Decimal(0)) for p in t.players
    }


# -- the real files ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_every_corpus_file_every_player(path):
    data = path.read_bytes()
    assert detect(data) == "swt"
    try:
        t = swt.read(data, path.name)
    except swt.SwtError as err:  # the club's files carry no dates at all
        assert "has no tournament dates" in str(err) and "give --end" in str(err)
        t = swt.read(data, path.name, end=NO_DATES)
        assert t.start == t.end == NO_DATES
    players, rounds, games, forfeits, names, differ = CORPUS_FACTS[path.name]
    assert len(t.players) == players
    assert len(t.games) == games
    assert sum(g.result in ("+-", "-+", "--") for g in t.games) == forfeits
    assert {p.name for p in t.players} >= set(names)
    points = _points(t)
    for p in t.players:
        assert p.name and "\ufffd" not in p.name
        assert len(p.rounds) <= rounds
    different = [p.name for p in t.players if points[p.start_rank] != p.points]
    assert len(different) == differ
    if differ:
        said = (f"the card total of {differ} player differs" if differ == 1
                else f"the card totals of {differ} players differ")  # fmt: skip
        assert said in " ".join(t.warnings)
    # every game gives one point in all
    assert sum(points.values()) == sum(1 for g in t.games if g.result != "--")


def test_corpus_team_file_has_teams_and_the_forfeit():
    path = shared_files.require(CORPUS / "fnogatz__swiss-team.swt")
    parsed = swt.parse(path.read_bytes(), path.name)
    assert parsed.team and parsed.version == 883 and len(parsed.teams) == 10
    assert [t.name for t in parsed.teams][:2] == ["Los Angeles", "Knoxville"]
    t = swt.to_tournament(parsed)
    assert t.team and t.type == "team Swiss" and (t.start, t.end) == (date(2010, 11, 16),
                                                                    date(2010, 11, 21))  # fmt: skip
    (forfeit,) = [g for g in t.games if g.result in ("+-", "-+")]
    assert forfeit.round == 7 and forfeit.result == "-+"
    # the reserve who never played is a participant without a game
    assert sum(1 for p in t.players if not p.rounds) == 1


# -- the sample files of swtparser.js against their expected JSON ----------------------------


def _sample_bytes(name: str) -> bytes:
    if name == "SwissTeam" and (CORPUS / "fnogatz__swiss-team.swt").exists():
        return (CORPUS / "fnogatz__swiss-team.swt").read_bytes()
    if not MIRROR.exists():
        pytest.skip("the swtparser.js mirror is not fetched")
    return subprocess.run(
        ["git", "--git-dir", str(MIRROR), "show", f"HEAD:test/SWT/{name}.SWT"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip


@pytest.mark.parametrize("name", sorted(SAMPLES["samples"]))
def test_swtparser_samples_match_their_json(name):
    expected = SAMPLES["samples"][name]
    parsed = swt.parse(_sample_bytes(name), f"{name}.SWT")
    assert [(p.ident, p.name) for p in parsed.players] == [
        (p["id"], p["name"]) for p in expected["players"]
    ]
    assert [p.stored_points for p in parsed.players] == [
        Decimal(p["points2"]) / 2 for p in expected["players"]
    ]
    colours = {"w": swt.WHITE, "b": swt.BLACK, "w-bye": swt.WHITE_BYE, "b-bye": swt.BLACK_BYE}
    ours = {
        (p.ident, r.round): (r.colour, r.opponent, swt.POINTS2.get(r.result),
                             "forfeit" if r.status in swt.FORFEIT else "")
        for p in parsed.players for r in p.records if r.colour
    }  # fmt: skip
    theirs = {
        (int(pid), rnd): (colours[colour], opp, result, status)
        for pid, recs in expected["pairings"].items()
        for rnd, colour, opp, result, status in recs
    }
    assert ours == theirs
    t = swt.to_tournament(parsed)
    rank = {p.ident: k for k, p in enumerate(parsed.players, 1)}
    for p in t.players:
        for e in p.rounds:
            ident = next(i for i, k in rank.items() if k == p.start_rank)
            colour, opp, result, status = theirs[(ident, e.round)]
            assert rank[opp] == e.opponent
            assert e.colour == {swt.WHITE: "w", swt.BLACK: "b"}.get(colour, "-")
            assert CODE_POINTS[e.code] * 2 == result
            assert (e.code in "+-") == (status == "forfeit")


# -- synthetic files: the variants -----------------------------------------------------------


def test_byes_against_the_placeholder_are_no_games():
    t = swt.read(round_robin_of_three().to_bytes(), "rr.SWT")
    assert [p.name for p in t.players] == ["Adler, Anna", "Bauer, Bernd", "Ceder, Carl"]
    assert [(g.round, g.white, g.black, g.result) for g in t.games] == [
        (1, 1, 2, "1-0"), (2, 3, 1, "1/2-1/2"), (3, 2, 3, "0-1")]  # fmt: skip
    assert [[e.code for e in p.rounds] for p in t.players] == [
        ["1", "=", "U"], ["0", "U", "0"], ["U", "=", "1"]]  # fmt: skip
    assert [p.points for p in t.players] == [Decimal("2.5"), Decimal(1), Decimal("2.5")]
    assert _points(t) == {p.start_rank: p.points for p in t.players}
    anna, bernd, carl = t.players
    assert anna.sex == "f" and anna.birth == 1990 and anna.national["GER"].number == "C0501-12"
    assert anna.national["GER"].rating == 1850
    assert bernd.fide_id == 4690001 and bernd.birth == date(1985, 12, 31)
    assert carl.birth == date(2001, 2, 1) and "GER" not in carl.national
    assert (t.name, t.start, t.end) == ("Synthetic Open", date(2026, 3, 6), date(2026, 3, 8))


def test_forfeits_and_half_point_byes_are_not_rated():
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2), P("Eiche, Eva", 3), P("Linde, Lars", 4)], 2)
    s.game(1, 1, 2, "1-0", status=0x02).game(1, 3, 4, "0-0", status=0x22)
    s.game(2, 2, 3, "1/2")
    s.records[(1, 2)] = (0, 0, 2, 0x02)  # no opponent: a half-point bye
    s.records[(4, 2)] = (2, 0, 0, 0x02)  # spielfrei colour, no points
    t = swt.read(s.to_bytes(), "ff.SWT")
    assert [(g.round, g.result) for g in t.games] == [(1, "+-"), (1, "--"), (2, "1/2-1/2")]
    assert [[e.code for e in p.rounds] for p in t.players] == [
        ["+", "H"], ["-", "="], ["-", "="], ["-", "Z"]]  # fmt: skip
    assert t.warnings == []


def test_unpaired_rounds_are_noted_and_players_not_fielded_skipped():
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2), P("Eiche, Eva", 3)], 3)
    s.game(1, 1, 2, "1-0")
    s.records[(3, 1)] = (1, 0, 0, 0x33)  # not fielded
    t = swt.read(s.to_bytes(), "up.SWT")
    assert len(t.games) == 1 and t.players[2].rounds == []
    assert t.warnings == ["rounds 2, 3 not paired: nothing to import"]


def test_team_tournament_and_its_team_check():
    players = [P("Ast, A", 1, team=1, board=1), P("Ast, B", 2, team=1, board=2),
               P("Baum, C", 3, team=2, board=1), P("Baum, D", 4, team=2, board=2)]  # fmt: skip
    s = Swt(players, 1, teams=[T("Ast", 999, 1), T("Baum", 1000, 2)])
    s.game(1, 1, 3, "1-0").game(1, 4, 2, "1/2")
    s.team_records = {(999, 1): (1, 1000), (1000, 1): (3, 999)}
    t = read_tournament(s.to_bytes(), "team.SWT")
    assert t.team and t.type == "team Swiss" and len(t.games) == 2
    s.team_records = {(999, 1): (1, 999), (1000, 1): (3, 1000)}
    with pytest.raises(swt.SwtError) as err:
        swt.read(s.to_bytes(), "team.SWT")
    assert len(err.value.problems) == 2
    assert "the team records do not pair Ast with Baum in that round" in str(err.value)


def test_version_7_layout_and_a_double_round_robin():
    """7.xx: pairings from 3894, 292-byte cards, FIDE id at 0x8B, card total at 0xE9
    (SWT-structure-files 700/); a round robin stores rounds × cycles records."""
    s = Swt([P("Ahorn, Ada", 1, fide_id="4690002", pkz="ignored"), P("Birke, Ben", 2)], 1,
            version=724, mode=1, cycles=2)  # fmt: skip
    s.game(1, 1, 2, "1-0").game(2, 2, 1, "1/2")
    data = s.to_bytes()
    assert len(data) == 3894 + 2 * 2 * 19 + 2 * 292
    t = swt.read(data, "old.SWT")
    assert t.type == "round robin" and [(g.round, g.result) for g in t.games] == [
        (1, "1-0"), (2, "1/2-1/2")]  # fmt: skip
    assert t.players[0].fide_id == 4690002 and "GER" not in t.players[0].national
    assert [p.points for p in t.players] == [Decimal("1.5"), Decimal("0.5")]
    assert t.warnings == []


def test_a_file_without_pairings_is_refused():
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2)], 3)
    err = _error(s.to_bytes())
    assert str(err) == (
        "bad.SWT: byte 5 (0x5) paired rounds (field 3): no round is paired: nothing to import"
    )


# -- errors: one per problem, each with its byte offset and field -----------------------------


def _error(data: bytes, **dates: date) -> swt.SwtError:
    with pytest.raises(swt.SwtError) as err:
        swt.read(data, "bad.SWT", **dates)
    return err.value


def test_truncated_file():
    data = round_robin_of_three().to_bytes()
    err = _error(data[:-100])
    assert str(err) == (
        f"bad.SWT: byte {len(data) - 100} (0x{len(data) - 100:X}) end of file: truncated: 4 "
        f"players, 0 teams, 3 rounds, version 8.89 need {len(data)} bytes, the file has "
        f"{len(data) - 100}"
    )
    assert "before the version field" in str(_error(data[:300]))
    assert "the header of version 8.89 has 13384: truncated" in str(_error(data[:5000]))


def test_wrong_version_and_a_foreign_layout():
    s = round_robin_of_three()
    s.version = 650
    assert str(_error(s.to_bytes())) == (
        "bad.SWT: byte 609 (0x261) file version (field 9999): reads 650: not a SwissChess "
        "file of a known version (7.00 and later; a binary file that is not an SWT?)"
    )
    data = round_robin_of_three().to_bytes() + b"\x00" * 19
    assert "19 bytes more than 4 players, 0 teams, 3 rounds, version 8.89 need" in str(_error(data))
    s.version = 1105  # a later version whose size fits the 8.xx layout: read, with a warning
    t = swt.read(s.to_bytes(), "new.SWT")
    assert "version 11.05 was not tried" in t.warnings[0]


def test_inconsistent_pairings_all_reported():
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2), P("Eiche, Eva", 3), P("Linde, Lars", 4)], 2)
    s.game(1, 1, 2, "1-0").game(1, 3, 4, "1-0")
    s.records[(4, 1)] = (3, 3, 3, 0)  # both claim the win
    s.records[(1, 2)] = (1, 9, 3, 0)  # an opponent not in the file
    s.records[(2, 2)] = (1, 3, 3, 0)  # 3's record names nobody
    err = _error(s.to_bytes())

    def at(k: int, rnd: int, byte: int) -> str:  # card k (from 0), 2 rounds a player
        offset = 13384 + (k * 2 + rnd - 1) * 19 + byte
        return f"bad.SWT: byte {offset} (0x{offset:X})"

    assert err.problems == [
        (f"{at(0, 2, 9)} opponent of player 1 (Ahorn, Ada) round 2",
         "player id 9 is not in the file"),
        (f"{at(1, 2, 9)} opponent of player 2 (Birke, Ben) round 2",
         f"paired with 3 (Eiche, Eva), whose record of round 2 (byte {13384 + 5 * 19}) names "
         "nobody"),
        (f"{at(2, 1, 11)} result of player 3 (Eiche, Eva) round 1",
         "1:1 between white 3 and black 4: the two records contradict each other or give a "
         "result ratingdb cannot store"),
    ]  # fmt: skip


def test_swt_refusals_are_worded_in_the_language_in_force():
    """The same broken file refused in German (the default) and in English: the location's
    words (byte, field, card, player, round) and the messages."""
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2), P("Eiche, Eva", 3), P("Linde, Lars", 4)], 2)
    s.game(1, 1, 2, "1-0", status=0x01).game(1, 3, 4, "1-0")
    s.game(2, 1, 3, "none").game(2, 2, 4, "0-1")
    data = s.to_bytes()
    with use("de"):
        german = _error(data).problems
        truncated = str(_error(data[:-7]))
    with use("en"):
        english = _error(data).problems
        truncated_en = str(_error(data[:-7]))
    at = 13384 + 15
    assert german[0] == (
        f"bad.SWT: Byte {at} (0x{at:X}) Status von Spieler 1 (Ahorn, Ada) in Runde 1",
        "eine Hängepartie hat kein Endergebnis",
    )
    assert english[0] == (
        f"bad.SWT: byte {at} (0x{at:X}) status of player 1 (Ahorn, Ada) round 1",
        "an adjourned game (Hängepartie) has no final result",
    )
    assert german[1][1] == (
        "die Runde ist ausgelost, aber 1 Partie hat kein Ergebnis (1-3): bitte zuerst die "
        "Ergebnisse in SwissChess eintragen"
    )
    assert english[1][1] == (
        "the round is paired but 1 game has no result (1-3): enter the results in SwissChess first"
    )
    assert truncated.endswith(
        "Dateiende: abgeschnitten: für 4 Spieler, 0 Mannschaften, 2 Runden, Version 8.89 "
        "sind 16156 Bytes nötig, die Datei hat 16149"
    ), truncated
    assert truncated_en.endswith(
        "end of file: truncated: 4 players, 0 teams, 2 rounds, version 8.89 need 16156 bytes, "
        "the file has 16149"
    ), truncated_en


def test_paired_round_without_results_adjourned_and_one_sided_forfeit():
    s = Swt([P("Ahorn, Ada", 1), P("Birke, Ben", 2), P("Eiche, Eva", 3), P("Linde, Lars", 4)], 2)
    s.game(1, 1, 2, "1-0", status=0x01).game(1, 3, 4, "1-0")
    s.game(2, 1, 3, "none").game(2, 2, 4, "0-1")
    s.records[(4, 2)] = (3, 2, 3, 0x02)
    err = _error(s.to_bytes())
    messages = [m for _, m in err.problems]
    assert messages == [
        "an adjourned game (Hängepartie) has no final result",
        "forfeit on one side only (status 0x00 and 0x02 against 4)",
        "the round is paired but 1 game has no result (1-3): enter the results in SwissChess first",
    ]
    assert err.problems[2][0] == "bad.SWT: byte 13414 (0x3466) result of round 2"


def test_bad_fields_and_missing_dates():
    s = round_robin_of_three()
    s.players[0].dwz = "18x0"
    s.players[1].name = ""
    s.start, s.end = "", ""
    err = _error(s.to_bytes())
    card = 13384 + 4 * 3 * 19
    assert err.problems[0] == (
        f"bad.SWT: byte {card + 0x4B} (0x{card + 0x4B:X}) national rating (field 2004) of card 1",
        "national rating is not a number: '18x0'",
    )
    assert err.problems[1][1] == "the player has no name"
    s.players[0].dwz, s.players[1].name = "", "Bauer, Bernd"
    assert str(_error(s.to_bytes())).endswith(
        "end date (field 71): the file has no tournament dates (fields 70/71 empty, no round "
        "dates): give --end (and --start)"
    )
    t = swt.read(s.to_bytes(), "x.SWT", start=date(2026, 1, 2), end=date(2026, 1, 3))
    assert (t.start, t.end) == (date(2026, 1, 2), date(2026, 1, 3))
    s.start, s.end = "Frühjahr", "08.03.2026"
    assert "'Frühjahr' is not a date (d.m.yyyy); give --start" in str(_error(s.to_bytes()))
    s.start = "09.03.2026"
    assert "end date 2026-03-08 is before the start 2026-03-09" in str(_error(s.to_bytes()))


def test_detection_by_content_not_by_name():
    data = round_robin_of_three().to_bytes()
    assert detect(data) == "swt"
    assert len(read_tournament(data, "upload.trf").players) == 3
    assert detect(b"\xff\xfe<\x00?\x00") != "swt"  # UTF-16 text is not binary
    with pytest.raises(InputError, match="not a SwissChess file of a known version"):
        read_tournament(b"PK\x03\x04" + b"\x00" * 700, "list.zip")


# -- through the command line: all or nothing ------------------------------------------------


def test_import_through_the_command_line(scratch_db, tmp_path):
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    from tests.cli import run
    from tests.conftest import at_head

    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)

    def counts() -> tuple[int, int]:
        with engine.connect() as conn:
            return (conn.execute(text("SELECT count(*) FROM tournaments")).scalar_one(),
                    conn.execute(text("SELECT count(*) FROM games")).scalar_one())  # fmt: skip

    organisations(scratch_db, "C05")
    bad = tmp_path / "broken.SWT"
    bad.write_bytes(round_robin_of_three().to_bytes()[:-7])
    out = run(["tournament", "import", str(bad), "--id", "B1", "--vkz", "C05"], scratch_db,
              lang=None)  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "broken.SWT: Byte" in out.stderr and "abgeschnitten" in out.stderr  # German
    assert counts() == (0, 0)
    imported = 0
    for k, path in enumerate(corpus_files(), 1):
        args = ["tournament", "import", str(path), "--id", f"SWT{k}", "--vkz", "C05"]
        out = run(args, scratch_db)
        if out.returncode == 2 and "give --end" in out.stderr:
            assert counts()[0] == imported  # nothing written
            out = run([*args, "--end", "2019-06-30"], scratch_db)
        assert out.returncode == 0, out.stderr
        players, _, games, *_ = CORPUS_FACTS[path.name]
        assert f": {players} players (" in out.stdout and f"{games} games" in out.stdout
        imported += 1
    rr = tmp_path / "rr.swt"
    rr.write_bytes(round_robin_of_three().to_bytes())
    out = run(["tournament", "import", str(rr), "--id", "RR1", "--vkz", "C05"], scratch_db)
    assert out.returncode == 0, out.stderr
    games = sum(CORPUS_FACTS[p.name][2] for p in corpus_files()) + 3
    assert counts() == (imported + 1, games)
    engine.dispose()


def test_team_names_boards_and_matches_are_kept(tmp_path):
    """A SwissChess team file's teams become TRF-2026 records: 310 (name, match and game
    points, the players' start ranks in board order) and 802 (opponent, home/away and game
    points per round); written back by the TRF export."""
    players = [P("Ast, A", 1, team=1, board=2), P("Ast, B", 2, team=1, board=1),
               P("Baum, C", 3, team=2, board=1), P("Baum, D", 4, team=2, board=2)]  # fmt: skip
    s = Swt(players, 1, teams=[T("Ast", 999, 1), T("Baum", 1000, 2)])
    s.game(1, 2, 3, "1-0").game(1, 4, 1, "1/2")
    s.team_records = {(999, 1): (1, 1000), (1000, 1): (3, 999)}
    t = read_tournament(s.to_bytes(), "team.SWT")
    assert t.records == [
        "310   1 Ast" + " " * 46 + "2.0    1.5         2    1",
        "802   1          2.0    1.5   2 w  1.5",
        "310   2 Baum" + " " * 45 + "0.0    0.5         3    4",
        "802   2          0.0    0.5   1 b  0.5",
    ]
    from ratingdb.io.trf import parse, write

    again = parse(write(t), "again.trf")
    assert again.records == t.records and again.team
