"""The Ingo rules (spec ingo-rules.txt): every worked number of the spec, the %d tables,
and the special rules C I-C VI."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from ratingdb.errors import ConvergenceError, RulesError
from ratingdb.rules.ingo import (
    RULES_NAME,
    IngoParameters,
    IngoResult,
    evaluate,
)
from ratingdb.rules.ingo.arithmetic import Arithmetic, exact_percent_diff
from ratingdb.rules.model import GameInput, PlayerInput, TournamentInfo, TournamentInput

TABLES = Path(__file__).parent / "data" / "ingo_percent_tables.txt"
RESULT = {"1": "1-0", "0": "0-1", "=": "1/2-1/2"}
SCORE = {1: "1-0", 0: "0-1", 0.5: "1/2-1/2"}


def tournament(
    players: list[PlayerInput], games: list[GameInput], kind: str = "individual"
) -> TournamentInput:
    info = TournamentInfo("T", date(1960, 9, 1), date(1960, 9, 30), kind=kind)  # type: ignore[arg-type]
    return TournamentInput(info, tuple(players), tuple(games))


def rated(pid: str, number: int, index: int = 10, **extra) -> PlayerInput:
    return PlayerInput(pid, rating=number, index=index, **extra)


def newcomer(pid: str, **extra) -> PlayerInput:
    return PlayerInput(pid, **extra)


def crosstable(names: list[str], rows: str) -> list[GameInput]:
    """Games of a round robin from its crosstable ('1' win, '=' draw, '0' loss)."""
    lines = rows.split()
    return [
        GameInput(names[i], names[j], RESULT[lines[i][j]])
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]


def games_of(player: str, results: list[tuple[str, float]]) -> list[GameInput]:
    return [GameInput(player, opponent, SCORE[score]) for opponent, score in results]


def dec(value: str) -> Decimal:
    return Decimal(value)


# -- B I / B II: the round robin of the spec ----------------------------------------------------
B_NAMES = ["Abel", "Behn", "Celler", "Demel", "Elers", "Fuchs", "Gehl", "Haak", "Ibsen", "Kapp"]
B_OLD = {
    "Abel": (128, 5), "Behn": (125, 8), "Celler": (122, 3), "Demel": (152, 10),
    "Elers": (150, 23), "Fuchs": (147, 7), "Gehl": (170, 8), "Haak": (165, 5),
    "Ibsen": (171, 8), "Kapp": (170, 4),
}  # fmt: skip
# a crosstable with the spec's points 7 1/2, 7, 6, 5 1/2, 4 1/2, 4, 3 1/2, 3, 2, 2
B_CROSS = """
x=1=1=1111
=x0111=111
01x===111=
=0=x011=11
00=1x1==10
=0=00x=1=1
0=00==x=1=
000==0=x=1
00000=0=x1
00=010=00x
"""
B_GAMES = crosstable(B_NAMES, B_CROSS)
#: spec B I, columns 4-7: points, %d, H, new F / index
B_I = {
    "Abel": ("7.5", -30, 120, 126, 6),
    "Behn": ("7", -25, 125, 125, 9),
    "Celler": ("6", -15, 135, 125, 4),
    "Demel": ("5.5", -10, 140, 149, 11),
    "Elers": ("4.5", 0, 150, 150, 24),
    "Fuchs": ("4", 5, 155, 149, 8),
    "Gehl": ("3.5", 10, 160, 168, 9),
    "Haak": ("3", 15, 165, 165, 6),
    "Ibsen": ("2", 25, 175, 172, 9),
    "Kapp": ("2", 25, 175, 171, 5),
}


def b_players(newcomers: tuple[str, ...] = (), **override: tuple[int, int]) -> list[PlayerInput]:
    out = []
    for name in B_NAMES:
        if name in newcomers:
            out.append(newcomer(name))
        else:
            number, index = override.get(name, B_OLD[name])
            out.append(rated(name, number, index))
    return out


@pytest.mark.parametrize("precision", ["table", "float"])
def test_b_i_round_robin_all_ten_numbers(precision: str) -> None:
    result = evaluate(tournament(b_players(), B_GAMES), IngoParameters(precision=precision))
    assert result.iterations == 0
    assert result.trace is not None
    assert result.trace["general"] == {
        "known_sum": 1500,
        "newcomers_percent_diff": 0.0,
        "known_numbers": 10,
        "level": 150.0,
    }
    for name, (points, d, h, new, index) in B_I.items():
        p = result.player(name)
        assert p.score == dec(points), name
        assert p.games == 9
        assert p.level == 150 and p.level_type == "general"
        assert p.percent_diff == d, name
        assert p.performance == h, name
        assert (p.rating_new, p.index_new) == (new, index), name
        assert p.stored and p.group == "established"
    assert sum(p.rating_new for p in result.players) == 1500  # "Summe: 1500"
    # Gehl: (3*170 + 160) / 4 = 167.5 rounds half up; Celler /3 already uses B I 4
    assert result.player("Gehl").method == "B I"
    assert result.player("Celler").method == "B I"


def test_b_ii_general_level_with_newcomers() -> None:
    result = evaluate(tournament(b_players(("Behn", "Haak")), B_GAMES))
    assert result.trace is not None
    # "Summe 1210, %d -10, 1200 : 8 = Niveau 150"
    assert result.trace["general"] == {
        "known_sum": 1210,
        "newcomers_percent_diff": -10.0,
        "known_numbers": 8,
        "level": 150.0,
    }
    behn, haak = result.player("Behn"), result.player("Haak")
    assert (behn.percent_diff, behn.performance, behn.rating_new, behn.index_new) == (
        -25, 125, 125, 1,
    )  # fmt: skip
    assert (haak.percent_diff, haak.performance, haak.rating_new, haak.index_new) == (
        15, 165, 165, 1,
    )  # fmt: skip
    assert behn.group == "first_stage" and behn.method == "C I" and behn.flag is None
    for name, (_, d, h, new, index) in B_I.items():
        if name in ("Behn", "Haak"):
            continue
        p = result.player(name)
        assert (p.percent_diff, p.performance, p.rating_new, p.index_new) == (d, h, new, index)
    assert sum(p.rating_new for p in result.players) == 1500


def test_b_ii_by_iteration_gives_the_same_numbers() -> None:
    """Without the Kapp-Ibsen game the round robin is incomplete: B III 3 instead of B II."""
    games = [g for g in B_GAMES if {g.white, g.black} != {"Ibsen", "Kapp"}]
    result = evaluate(tournament(b_players(("Behn", "Haak")), games))
    assert result.player("Behn").level_type == "individual"
    assert (result.player("Behn").rating_new, result.player("Haak").rating_new) == (125, 165)
    assert result.trace is not None
    assert result.trace["newcomers"]["order"] == ["Haak", "Behn"]  # smaller |%d| first


# -- B III: Swiss system ----------------------------------------------------------------------
BEHN_SWISS = [
    ("Abel", 0.5), ("Celler", 1), ("Demel", 0), ("Elers", 1), ("Fuchs", 0.5),
    ("Gehl", 1), ("Haak", 1), ("Ibsen", 1), ("Kapp", 1),
]  # fmt: skip


def test_b_iii_1_individual_level() -> None:
    players = [rated("Behn", 125, 8)] + [
        rated(name, B_OLD[name][0], B_OLD[name][1]) for name, _ in BEHN_SWISS
    ]
    result = evaluate(tournament(players, games_of("Behn", BEHN_SWISS)))
    behn = result.player("Behn")
    assert behn.score == 7 and behn.games == 9
    assert behn.level == 150 and behn.level_type == "individual"  # 1500 / 10
    assert (behn.percent_diff, behn.performance) == (-25, 125)
    assert (behn.rating_new, behn.index_new) == (125, 9)
    # the opponents played one game each: not calculated, number and index unchanged
    abel = result.player("Abel")
    assert (abel.rating_new, abel.index_new, abel.stored) == (128, 5, False)


def test_b_iii_2_one_newcomer() -> None:
    players = [newcomer("Behn")] + [rated(name, B_OLD[name][0]) for name, _ in BEHN_SWISS]
    result = evaluate(tournament(players, games_of("Behn", BEHN_SWISS)))
    assert result.trace is not None
    newcomers = result.trace["newcomers"]
    # "Summe 1375, %d -25, F-%d-Summe 1350, Niveau = 1/9 150"
    assert newcomers["f_d_sums"] == {"Behn": 1350.0}
    assert newcomers["known_numbers"] == {"Behn": 9}
    behn = result.player("Behn")
    assert (behn.level, behn.percent_diff, behn.performance) == (150, -25, 125)
    assert (behn.rating_new, behn.index_new) == (125, 1)
    assert result.iterations == 2  # the second pass changes nothing


B_III_3_KNOWN = {
    "Abel": 128, "Celler": 122, "Demel": 152, "Elers": 150, "Fuchs": 147, "Gehl": 170,
    "Ibsen": 171, "Kapp": 170, "Maas": 163, "Nolte": 167, "Opitz": 172, "Peters": 180,
    "Rix": 185,
}  # fmt: skip
B_III_3_GAMES = (
    games_of(
        "Lang",
        [("Elers", 0), ("Gehl", 0.5), ("Haak", 0), ("Ibsen", 0), ("Kapp", 0.5),
         ("Nolte", 1), ("Opitz", 0.5), ("Peters", 1), ("Rix", 1)],
    )
    + games_of(
        "Behn",
        [("Abel", 0.5), ("Celler", 1), ("Demel", 0), ("Elers", 1), ("Fuchs", 0.5),
         ("Gehl", 1), ("Haak", 1), ("Ibsen", 1), ("Kapp", 1)],
    )
    + games_of(
        "Haak",
        [("Elers", 0.5), ("Fuchs", 0), ("Gehl", 0.5), ("Ibsen", 0), ("Maas", 0),
         ("Nolte", 1), ("Opitz", 1)],
    )
)  # fmt: skip


def b_iii_3(params: IngoParameters | None = None) -> IngoResult:
    players = [newcomer("Lang"), newcomer("Behn"), newcomer("Haak")] + [
        rated(name, number) for name, number in B_III_3_KNOWN.items()
    ]
    return evaluate(tournament(players, B_III_3_GAMES), params)


def test_b_iii_3_several_newcomers_iteration() -> None:
    result = b_iii_3()
    scores = {pid: result.player(pid).score for pid in ("Lang", "Behn", "Haak")}
    assert scores == {"Lang": dec("4.5"), "Behn": 7, "Haak": 4}
    assert result.trace is not None
    newcomers = result.trace["newcomers"]
    assert newcomers["order"] == ["Lang", "Behn", "Haak"]
    # a) F-%d-Summen and the numbers of known Ingo numbers
    assert newcomers["f_d_sums"] == {"Lang": 1365.0, "Behn": 1185.0, "Haak": 1145.0}
    assert newcomers["known_numbers"] == {"Lang": 8, "Behn": 8, "Haak": 7}
    # b) Niveau 170,6 / 148,1 / (1438,7 : 9 =) 159,9; H 170,6 / 123,1 / 164,9
    # c) Niveau 170 / 150 / 160; H 170 / 125 / 165    d) unchanged
    assert newcomers["levels"] == [
        [170.6, 148.1, 159.9],
        [170.0, 150.0, 160.0],
        [170.0, 150.0, 160.0],
    ]
    assert newcomers["passes"] == [
        [170.6, 123.1, 164.9],
        [170.0, 125.0, 165.0],
        [170.0, 125.0, 165.0],
    ]
    assert result.iterations == 3
    final = {pid: (result.player(pid).rating_new, result.player(pid).index_new) for pid in scores}
    assert final == {"Lang": (170, 1), "Behn": (125, 1), "Haak": (165, 1)}
    assert result.player("Haak").percent_diff == 5
    assert result.player("Lang").percent_diff == 0


def test_b_iii_3_float_solves_the_fixed_point() -> None:
    result = b_iii_3(IngoParameters(precision="float"))
    assert result.iterations == 1
    assert [result.player(p).performance for p in ("Lang", "Behn", "Haak")] == [170, 125, 165]
    assert [result.player(p).rating_new for p in ("Lang", "Behn", "Haak")] == [170, 125, 165]


def test_b_iii_3_newcomers_count_with_their_h_for_the_others() -> None:
    """After the iteration the newcomers' H enter the known players' levels like F."""
    elers = b_iii_3().player("Elers")
    # Elers met Lang (won), Behn (lost), Haak (draw): (150 + 170 + 125 + 165) / 4 = 152.5
    assert (elers.games, elers.score, elers.level) == (3, dec("1.5"), dec("152.5"))
    # 1.5 of 3 -> %d 0; C IV (3 games): (7*150 + 152.5) / 8 = 150.3
    assert (elers.performance, elers.rating_new, elers.method) == (dec("152.5"), 150, "C IV")


def test_b_iii_3_cap_on_passes_is_a_convergence_error() -> None:
    capped = IngoParameters()
    # below the schema's range (ratingdb/rules/parameters.py ITERATIONS): the guard itself
    object.__setattr__(capped, "max_iterations", 2)
    with pytest.raises(ConvergenceError) as err:
        b_iii_3(capped)
    assert set(err.value.players) == {"Lang", "Behn", "Haak"}


# -- B IV / B V: incomplete and multi-round tournaments ------------------------------------------
def test_b_iv_incomplete_round_robin_individual_levels_and_forfeit() -> None:
    games = [
        GameInput(g.white, g.black, "--") if {g.white, g.black} == {"Abel", "Behn"} else g
        for g in B_GAMES
    ]
    result = evaluate(tournament(b_players(), games))
    abel, celler = result.player("Abel"), result.player("Celler")
    assert abel.level_type == celler.level_type == "individual"
    # Celler met everybody: still the common level 150
    assert (celler.level, celler.performance, celler.rating_new) == (150, 135, 125)
    # Abel: (1500 - 125) / 9 = 152.8; 7 of 8 -> %d = 50 - 750/9 = -33.3; H 119.5
    assert (abel.games, abel.score) == (8, 7)
    assert (abel.level, abel.percent_diff, abel.performance) == (
        dec("152.8"), dec("-33.3"), dec("119.5"),
    )  # fmt: skip
    assert abel.rating_new == 126  # (3*128 + 119.5) / 4 = 125.875


def test_b_v_double_round_robin_uses_individual_levels() -> None:
    players = [rated("A", 140), rated("B", 150), rated("C", 160)]
    games = games_of("A", [("B", 1), ("B", 0.5), ("C", 1), ("C", 1)]) + games_of(
        "B", [("C", 0.5), ("C", 0.5)]
    )
    a = evaluate(tournament(players, games)).player("A")
    # (140 + 2*150 + 2*160) / 5 = 152; 3.5 of 4 -> -30; H 122; C IV 4 games: (5*140+122)/6
    assert (a.level, a.level_type, a.percent_diff, a.performance) == (152, "individual", -30, 122)
    assert (a.rating_new, a.method) == (137, "C IV")


# -- %d tables ------------------------------------------------------------------------------------
#: cells where the printed table differs from 50 - 100 (W + 1/2) / (n + 1) rounded half up
#: to one decimal: (games, points, printed, computed)
TABLE_MISPRINTS = {
    (7, "0", "43.7", "43.8"), (7, "1", "31.2", "31.3"),
    (7, "6", "-31.2", "-31.3"), (7, "7", "-43.7", "-43.8"),
    (10, "0", "45.4", "45.5"), (10, "4.5", "4.6", "4.5"),
    (10, "5.5", "-4.6", "-4.5"), (10, "10", "-45.4", "-45.5"),
    (12, "0", "46.1", "46.2"), (12, "5.5", "3.9", "3.8"),
    (12, "6.5", "-3.9", "-3.8"), (12, "12", "-46.1", "-46.2"),
    (15, "0.5", "43.7", "43.8"), (15, "2.5", "31.2", "31.3"),
    (15, "12.5", "-31.2", "-31.3"), (15, "14.5", "-43.7", "-43.8"),
    (16, "2.5", "32.3", "32.4"), (16, "5", "17.7", "17.6"),
    (16, "11", "-17.7", "-17.6"), (16, "13.5", "-32.3", "-32.4"),
    (18, "14.5", "-29.0", "-28.9"),
    (20, "14", "-19.4", "-19.0"),
}  # fmt: skip


def printed_tables() -> list[tuple[int, Decimal, Decimal]]:
    """(games, points, printed %d) for every cell of both tables."""
    cells = []
    columns: list[int] = []
    row = 0
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) != 12 or not fields[11].strip():
            continue
        if fields[0] == "Pkt.":
            columns, row = [int(f) for f in fields[1:11]], 0
            continue
        points = Decimal(row) / 2
        row += 1
        for games, cell in zip(columns, fields[1:11], strict=True):
            text = cell.replace(" ", "").replace(",", ".").replace("+", "")
            if text:
                cells.append((games, points, Decimal(text)))
            else:
                assert points > games
    return cells


def test_percent_tables_against_the_formula() -> None:
    arith = Arithmetic(IngoParameters())
    cells = printed_tables()
    assert len(cells) == sum(2 * n + 1 for n in range(3, 23)) == 520
    misprints = set()
    for games, points, printed in cells:
        computed = arith.shown(arith.percent_diff(int(points * 2), games))
        if computed != printed:
            misprints.add((games, format(points.normalize(), "f"), str(printed), str(computed)))
    assert misprints == TABLE_MISPRINTS


def test_percent_diff_is_symmetric_and_exact_in_float() -> None:
    params = IngoParameters()
    for n in range(1, 30):
        for w2 in range(2 * n + 1):
            assert exact_percent_diff(w2, n, params) == -exact_percent_diff(2 * n - w2, n, params)
    assert exact_percent_diff(0, 7, params) == Fraction(175, 4)  # 43.75: the table shows 43.7
    assert Arithmetic(IngoParameters(precision="float")).percent_diff(0, 7) == Fraction(175, 4)
    assert Arithmetic(params).percent_diff(0, 7) == Fraction(438, 10)


# -- C I: the first three calculations ------------------------------------------------------------
@pytest.mark.parametrize(
    ("index", "new", "index_new", "method"),
    [(0, 135, 1, "C I"), (1, 129, 2, "C I"), (2, 126, 3, "C I"), (3, 125, 4, "B I")],
)
def test_c_i_first_calculations(index: int, new: int, index_new: int, method: str) -> None:
    """Celler, H 135, old F 122: H; (122 + 135)/2 = 128.5; (2*122 + 135)/3 = 126.3; 3:1."""
    result = evaluate(tournament(b_players(Celler=(122, index)), B_GAMES))
    celler = result.player("Celler")
    assert celler.performance == 135
    assert (celler.rating_new, celler.index_new, celler.method) == (new, index_new, method)


# -- C II: all won / all lost ---------------------------------------------------------------------
# all at 150: an all-win newcomer's H (mean - 50) stays within the 50-degree limit
FOUR = [rated("A", 150), rated("B", 150), rated("C", 150), rated("D", 150)]
FOUR_GAMES = games_of("A", [("B", 1), ("C", 0.5), ("D", 1)]) + games_of(
    "B", [("C", 1), ("D", 0.5)]
) + games_of("C", [("D", 1)])  # fmt: skip


def test_c_ii_all_won_newcomer_is_unseen_and_flagged() -> None:
    games = FOUR_GAMES + games_of("N", [("A", 1), ("B", 1), ("C", 1), ("D", 1)])
    result = evaluate(tournament([newcomer("N"), *FOUR], games))
    n = result.player("N")
    # own calculation as usual: (600 - 40) / 4 = 140, H 100, F/1 100 "or better"
    assert (n.games, n.percent_diff, n.level, n.performance) == (4, -40, 140, 100)
    assert (n.rating_new, n.index_new, n.flag, n.method) == (100, 1, "or_better", "C I")
    assert result.trace is not None and result.trace["excluded"] == {"N": "all_won"}
    # the others: results against N struck, their round robin is complete -> 150
    a = result.player("A")
    assert (a.games, a.score, a.level, a.level_type) == (3, dec("2.5"), 150, "general")
    # 2.5 of 3 -> -25, H 125; C IV (3 games): (7*150 + 125) / 8 = 146.9
    assert (a.performance, a.rating_new, a.method) == (125, 147, "C IV")


def test_c_ii_cascade() -> None:
    """M lost only to N; once N's results are struck M has won everything."""
    games = (
        FOUR_GAMES
        + games_of("N", [("A", 1), ("B", 1), ("C", 1), ("D", 1), ("M", 1)])
        + games_of("M", [("A", 1), ("B", 1), ("C", 1), ("D", 1)])
    )
    result = evaluate(tournament([newcomer("N"), newcomer("M"), *FOUR], games))
    assert result.trace is not None
    assert result.trace["excluded"] == {"N": "all_won", "M": "all_won"}
    for pid in ("N", "M"):
        p = result.player(pid)
        # each counts only the 4 games against A-D: 140 - 40 = 100
        assert (p.games, p.performance, p.rating_new, p.flag) == (4, 100, 100, "or_better")
    assert (result.player("A").games, result.player("A").level) == (3, 150)


def test_c_ii_all_lost_flag() -> None:
    games = FOUR_GAMES + games_of("N", [("A", 0), ("B", 0), ("C", 0), ("D", 0)])
    n = evaluate(tournament([newcomer("N"), *FOUR], games)).player("N")
    # (600 + 40) / 4 = 160, H 200 "or worse"
    assert (n.level, n.performance, n.rating_new, n.flag) == (160, 200, 200, "or_worse")


def test_c_ii_follow_up_of_a_flagged_number() -> None:
    """Fuchs's 147/1 carries a flag: he counts as numberless, B II gives the level."""
    players = b_players(Fuchs=(147, 1))
    worse = evaluate(tournament(players, B_GAMES), flags={"Fuchs": "or_worse"})
    assert worse.trace is not None
    assert worse.trace["general"]["known_sum"] == 1500 - 147
    fuchs = worse.player("Fuchs")
    # (1500 - 147 + 5) / 9 = 150.9; H = 155.9 is worse: it becomes the first F
    assert (fuchs.level, fuchs.performance) == (dec("150.9"), dec("155.9"))
    assert (fuchs.rating_new, fuchs.index_new, fuchs.method, fuchs.flag) == (156, 1, "C II", None)
    assert fuchs.flag_old == "or_worse" and fuchs.group == "first_stage"
    better = evaluate(tournament(players, B_GAMES), flags={"Fuchs": "or_better"}).player("Fuchs")
    # not better: the usual second calculation (147 + 155.9) / 2 = 151.45
    assert (better.rating_new, better.index_new, better.method) == (151, 2, "C I")


def test_c_ii_flag_errors() -> None:
    t = tournament(b_players(("Behn",)), B_GAMES)
    with pytest.raises(RulesError):
        evaluate(t, flags={"Nobody": "or_worse"})
    with pytest.raises(RulesError):
        evaluate(t, flags={"Abel": "maybe"})
    with pytest.raises(RulesError):
        evaluate(t, flags={"Behn": "or_better"})  # a flag needs a number


# -- C III: large improvements of juniors --------------------------------------------------------
def test_c_iii_junior_deviation_is_a_switch() -> None:
    players = [
        PlayerInput(p.id, rating=165, index=10, birth_year=1948) if p.id == "Celler" else p
        for p in b_players()
    ]
    t = tournament(players, B_GAMES)
    # level (1500 - 122 + 165) / 10 = 154.3; Celler's H = 139.3 is 25.7 better than 165
    off = evaluate(t).player("Celler")
    assert (off.performance, off.rating_new, off.method) == (dec("139.3"), 159, "B I")
    on = evaluate(t, IngoParameters(junior_deviation=True)).player("Celler")
    assert (on.rating_new, on.method) == (148, "C III")  # (165 + 2*139.3) / 3 = 147.9
    adult = [PlayerInput(p.id, rating=p.rating, index=p.index) for p in players]
    grown = evaluate(tournament(adult, B_GAMES), IngoParameters(junior_deviation=True))
    assert grown.player("Celler").rating_new == 159
    small = evaluate(t, IngoParameters(junior_deviation=True, junior_deviation_degrees=26))
    assert small.player("Celler").method == "B I"


# -- C IV: short tournaments ----------------------------------------------------------------------
def winner_round_robin(games: int) -> IngoResult:
    """games + 1 players at 150: A wins everything, the others draw among themselves."""
    names = ["A"] + [f"P{k}" for k in range(games)]
    rows = []
    for i in range(len(names)):
        rows.append("".join("x" if i == j else ("1" if i == 0 else ("0" if j == 0 else "="))
                            for j in range(len(names))))  # fmt: skip
    return evaluate(tournament([rated(n, 150) for n in names], crosstable(names, "\n".join(rows))))


@pytest.mark.parametrize(
    ("games", "percent_diff", "performance", "new", "method"),
    [
        (3, "-37.5", "112.5", 146, "C IV"),  # (7*150 + 112.5)/8 = 145.3, capped at -4
        (4, "-40", "110", 145, "C IV"),  # (5*150 + 110)/6 = 143.3, capped at -5
        (5, "-41.7", "108.3", 144, "C IV"),  # (4*150 + 108.3)/5 = 141.7, capped at -6
        (6, "-42.9", "107.1", 139, "B I"),  # (3*150 + 107.1)/4 = 139.3, no cap
    ],
)
def test_c_iv_short_tournaments(
    games: int, percent_diff: str, performance: str, new: int, method: str
) -> None:
    result = winner_round_robin(games)
    a = result.player("A")
    assert (a.games, a.level, a.percent_diff, a.performance) == (
        games, 150, dec(percent_diff), dec(performance),
    )  # fmt: skip
    assert (a.rating_new, a.method) == (new, method)


def test_c_iv_below_the_cap() -> None:
    p0 = winner_round_robin(3).player("P0")
    # 1 of 3 -> +12.5, H 162.5; (7*150 + 162.5)/8 = 151.6 -> 152 (within 4 degrees)
    assert (p0.performance, p0.rating_new, p0.method) == (dec("162.5"), 152, "C IV")


def test_too_few_games_no_calculation() -> None:
    players = [rated("A", 150), rated("B", 160), newcomer("N")]
    games = games_of("A", [("B", 1), ("N", 0.5)]) + games_of("N", [("B", 1)])
    result = evaluate(tournament(players, games))
    a, n = result.player("A"), result.player("N")
    assert (a.rating_new, a.index_new, a.stored, a.performance) == (150, 10, False, None)
    assert (n.rating_new, n.group, n.stored) == (None, "remaining", False)
    assert result.trace is not None and result.trace["excluded"] == {"N": "too_few_games"}
    # N has no H: his games are not used by A either
    assert a.games == 1


# -- C V: matches ---------------------------------------------------------------------------------
def test_c_v_match() -> None:
    players = [rated("A", 150), rated("B", 170)]
    games = games_of("A", [("B", 1), ("B", 1), ("B", 0.5), ("B", 1)])
    result = evaluate(tournament(players, games, kind="match"))
    a, b = result.player("A"), result.player("B")
    # A: (150 + 4*170)/5 = 166, 3.5 of 4 -> -30, H 136, (7*150 + 136)/8 = 148.25
    assert (a.level, a.percent_diff, a.performance, a.rating_new, a.method) == (
        166, -30, 136, 148, "C V",
    )  # fmt: skip
    # B: (170 + 4*150)/5 = 154, +30, H 184, (7*170 + 184)/8 = 171.75
    assert (b.level, b.performance, b.rating_new, b.method) == (154, 184, 172, "C V")


def test_c_v_match_needs_four_games() -> None:
    players = [rated("A", 150), rated("B", 170)]
    games = games_of("A", [("B", 1), ("B", 1), ("B", 0.5)])
    result = evaluate(tournament(players, games, kind="match"))
    assert [(p.rating_new, p.stored) for p in result.players] == [(150, False), (170, False)]


def test_c_v_match_with_a_newcomer() -> None:
    players = [newcomer("N"), rated("B", 170)]
    games = games_of("N", [("B", 1), ("B", 0.5), ("B", 0.5), ("B", 0)])
    result = evaluate(tournament(players, games, kind="match"))
    n, b = result.player("N"), result.player("B")
    # N: F-%d-Summe 4*170 + 0 over 4 numbers = 170, %d 0, H 170
    assert (n.level, n.performance, n.rating_new, n.index_new) == (170, 170, 170, 1)
    assert (b.level, b.performance, b.rating_new) == (170, 170, 170)


# -- C VI: the 50-degree limit --------------------------------------------------------------------
def test_c_vi_struck_and_capped_games() -> None:
    players = [rated("A", 100), rated("B", 160), rated("C", 155), rated("D", 150), rated("E", 145)]
    games = games_of("A", [("B", 1), ("C", 0.5), ("D", 1), ("E", 1)]) + games_of(
        "B", [("C", 0.5), ("D", 0.5), ("E", 0.5)]
    ) + games_of("C", [("D", 0.5), ("E", 0.5)]) + games_of("D", [("E", 0.5)])  # fmt: skip
    result = evaluate(tournament(players, games))
    assert result.trace is not None
    # A (better by 60) beat B: struck; A drew C (55): capped; A-D exactly 50: normal
    assert result.trace["limit"] == {"struck": [["A", "B"]], "capped": [["A", "C", "A"]]}
    a, b, c = result.player("A"), result.player("B"), result.player("C")
    # A sees C as 100 + 50: (100 + 150 + 150 + 145)/4 = 136.25 -> 136.3; 2.5/3 -> -25
    assert (a.games, a.level, a.performance) == (3, dec("136.3"), dec("111.3"))
    assert (a.rating_new, a.method) == (101, "C IV")  # (7*100 + 111.3)/8 = 101.4
    # B without the game against A: (160 + 155 + 150 + 145)/4 = 152.5, 1.5/3 -> 0
    assert (b.games, b.level, b.performance, b.rating_new) == (3, dec("152.5"), dec("152.5"), 159)
    # C sees A as 155 - 50 = 105: (155 + 105 + 160 + 150 + 145)/5 = 143, 2/4 -> 0
    assert (c.games, c.level, c.performance, c.rating_new) == (4, 143, 143, 153)


def test_c_vi_for_a_newcomer_uses_his_h() -> None:
    players = [newcomer("N"), rated("W", 260)] + [rated(f"P{k}", 150) for k in range(4)]
    games = games_of("N", [("P0", 1), ("P1", 1), ("P2", 1), ("P3", 0.5), ("W", 1)])
    result = evaluate(tournament(players, games))
    assert result.trace is not None
    # round 1: H = (600 + 260 - 33.3)/5 - 33.3 = 132.0, 128 better than W who lost: struck
    assert result.trace["rounds"] == 2
    assert result.trace["limit"]["struck"] == [["N", "W"]]
    n = result.player("N")
    # round 2: (600 - 30)/4 = 142.5, H 112.5 -> F/1 113
    assert (n.games, n.level, n.performance, n.rating_new) == (4, dec("142.5"), dec("112.5"), 113)
    assert result.player("W").games == 0


# -- members, computers, output -------------------------------------------------------------------
def test_non_member_is_calculated_but_not_stored_and_computer_games_struck() -> None:
    players = [
        PlayerInput(p.id, rating=p.rating, index=p.index, member=p.id != "Abel")
        for p in b_players()
    ] + [PlayerInput("Fritz", computer=True)]
    games = [*B_GAMES, *games_of("Fritz", [("Abel", 1), ("Behn", 1)])]
    result = evaluate(tournament(players, games))
    abel = result.player("Abel")
    assert (abel.rating_new, abel.stored, abel.games) == (126, False, 9)
    fritz = result.player("Fritz")
    assert (fritz.games, fritz.rating_new, fritz.group, fritz.stored) == (
        0,
        None,
        "remaining",
        False,
    )


def test_result_dict_shape() -> None:
    result = b_iii_3()
    out = result.to_dict(trace=True)
    assert set(out) == {
        "tournament", "rules", "precision", "parameters", "iterations", "players", "trace",
    }  # fmt: skip
    assert out["rules"] == RULES_NAME == "ingo"
    assert "trace" not in result.to_dict()
    lang = out["players"][0]
    assert lang["id"] == "Lang" and lang["rating_new"] == 170 and lang["performance"] == 170.0
    assert lang["new_residual_games"] == [] and lang["stored"] is True
    assert {"level", "percent_diff", "performance", "rating_new", "index_new", "flag"} <= set(lang)
    json.dumps(out)
    with pytest.raises(KeyError):
        result.player("Nobody")


# -- parameters ------------------------------------------------------------------------------------
def test_parameters_round_trip_and_validation() -> None:
    params = IngoParameters()
    data = params.to_dict()
    assert data["short_tournaments"] == {"3": [7, 4], "4": [5, 5], "5": [4, 6]}
    assert data["score_offset"] == 0.5 and data["junior_deviation"] is False
    assert data["retention_years"] == 5 and data["residual_validity_years"] == 2
    assert data["late_member_years"] == 1
    assert IngoParameters.from_dict(json.loads(json.dumps(data))) == params
    assert IngoParameters.from_dict({}) == params
    changed = IngoParameters.from_dict({"short_tournaments": {"3": [3, 2]}, "limit_degrees": 40})
    assert changed.short_tournaments == {3: (3, 2)} and changed.limit_degrees == 40
    assert params.with_precision("float").precision == "float"
    for bad in (
        {"nonsense": 1},
        {"precision": "exact"},
        {"limit_degrees": "fifty"},
        {"limit_degrees": 0},
        {"min_games": 2.5},
        {"junior_deviation": 1},
        {"short_tournaments": {"3": [7]}},
        {"short_tournaments": {"x": [7, 4]}},
        {"decimals": 9},
        {"score_offset": 2},
    ):
        with pytest.raises(ValueError):
            IngoParameters.from_dict(bad)
    with pytest.raises(ValueError):
        params.with_precision("exact")  # type: ignore[arg-type]


def test_number_without_index_and_dropped_flagged_player() -> None:
    players = [PlayerInput(p.id, rating=p.rating, index=None if p.id == "Celler" else p.index)
               for p in b_players()]  # fmt: skip
    celler = evaluate(tournament(players, B_GAMES)).player("Celler")
    assert (celler.index_old, celler.rating_new, celler.index_new) == (3, 125, 4)
    # a flagged number with too few games stays as it was, flag included
    players = [rated("A", 150), rated("B", 150), rated("F", 170, 1)]
    games = games_of("F", [("A", 0), ("B", 0)]) + games_of("A", [("B", 0.5)])
    f = evaluate(tournament(players, games), flags={"F": "or_worse"}).player("F")
    assert (f.rating_new, f.index_new, f.flag, f.stored, f.group) == (
        170, 1, "or_worse", False, "remaining",
    )  # fmt: skip
