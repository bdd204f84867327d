"""The switches of the classic DWZ family that make the DSB's versions before 2026
(ratingdb/rules/dwz_classic/versions.py): each switch changes a number of a hand-worked
case; the derivation is in each test's docstring. Table precision (Anhang 2.1/2.2) is used
unless a test is about P(D), so the tables' two-digit values give exact hand numbers."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from ratingdb.errors import ConvergenceError
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz_classic import DwzClassicParameters, evaluate
from ratingdb.rules.dwz_classic.coefficient import (
    braking_supplement,
    development_coefficient,
    first_rating_floor,
)
from ratingdb.rules.dwz_classic.versions import (
    CLASSIC,
    DWZ2014,
    DWZ2016,
    ELOBASE,
    VERSIONS,
    WO2002,
)
from tests import builders

#: the 2014 rules with the two-digit tables of Anhang 2.1 (``probability`` "logistic" in table
#: precision reads them), so that hand-worked numbers stay short
TABLE_2014 = replace(DWZ2014, precision="table", probability="logistic")


def run(doc: dict[str, Any], params: DwzClassicParameters) -> dict[str, dict[str, Any]]:
    out = json.loads(json.dumps(evaluate(parse_tournament(doc), params).to_dict(trace=True)))
    return {p["id"]: p for p in out["players"]} | {"": out}


tournament = partial(builders.tournament, start="2012-03-01", end="2012-03-12")
rated = builders.rated_with(index=10, birth_year=1970)


def test_named_versions_differ_only_in_their_switches():
    assert set(VERSIONS) == {"dwz-classic", "dwz-elobase", "dwz-wo2002", "dwz-2014", "dwz-2016"}
    assert (CLASSIC.probability, ELOBASE.probability) == ("logistic", "normal")
    assert replace(ELOBASE, probability="logistic") == CLASSIC
    assert (CLASSIC.rating_expiry_years, WO2002.rating_expiry_years) == (5, 0)
    assert (CLASSIC.sonderwertung, WO2002.sonderwertung, DWZ2016.sonderwertung) == (
        "success",
        "off",
        "performance",
    )
    assert (DWZ2014.e_formula, DWZ2014.first_rating_floor, DWZ2014.probability) == (
        "2014",
        800,
        "normal",
    )
    assert (DWZ2016.exceptional_margin, DWZ2014.foreign_rating_index) == (300, 6)
    for params in VERSIONS.values():  # stored as JSON and read back unchanged
        assert DwzClassicParameters.from_dict(params.to_dict()) == params


def test_youth_acceleration():
    """Youth (born 1994, end 2012: 18), R_o 1600, index 10, beats a 1600 (adult, index 10).
    W = 1, W_e = P(0) = .50.
    classic: E = 1.6^4 + 5 = 6.5536 + 5 = 11.55 -> 12; R_n = 1600 + 800 * .5 / 13 = 1630.77 -> 1631
    2014: W >= W_e, fB = 1600/2000 = .8: E = 11.5536 * .8 = 9.24 -> 9;
          R_n = 1600 + 400 / 10 = 1640
    The loser (adult, W < W_e, R_o >= 1300): no fB, no SBr: E = 6.5536 + 15 -> 22 both ways,
    R_n = 1600 - 400 / 23 = 1582.6 -> 1583.
    Upper clamp: R_o 2200 youth, fB = 1.1 -> 1: E = 2.2^4 + 5 = 28.43 -> 28 (unclamped
    31.27 would give the cap 30)."""
    doc = tournament([rated("Y", 1600, 10, 1994), rated("A", 1600)], [("Y", "A", "1-0")])
    classic, new = run(doc, CLASSIC), run(doc, TABLE_2014)
    assert (classic["Y"]["e"], classic["Y"]["rating_new"]) == (12, 1631)
    assert (new["Y"]["e"], new["Y"]["rating_new"]) == (9, 1640)
    assert (new["A"]["e"], new["A"]["rating_new"]) == (classic["A"]["e"], 1583) == (22, 1583)
    assert development_coefficient(2200, 10, "youth", DWZ2014, True) == 28
    assert development_coefficient(2200, 10, "youth", DWZ2014, False) == 28  # fB = 1
    # no acceleration for a junior: 11.5536 + 5 -> 17
    assert development_coefficient(1600, 10, "junior", DWZ2014, True) == 17


def test_braking_supplement_lifts_the_index_cap():
    """Adult R_o 1000, index 2, loses to a 1000 (adult, index 10): W = 0, W_e = .50.
    classic: E = 1 + 15 = 16, capped at 5 * 2 = 10; R_n = 1000 - 400 / 11 = 963.6 -> 964.
    2014: W < W_e and R_o < 1300: SBr = e^(300/150) - 1 = 6.389; E = 16 + 6.389 = 22.39 -> 22,
          the caps 30 and 5 * index do not apply (SBr > 0); R_n = 1000 - 400/23 = 982.6 -> 983.
    The winner (W > W_e) gets no SBr: E = 16, capped at 30 -> 16 both ways:
          1000 + 400 / 17 = 1023.5 -> 1024."""
    doc = tournament([rated("L", 1000, 2), rated("O", 1000)], [("O", "L", "1-0")])
    classic, new = run(doc, CLASSIC), run(doc, TABLE_2014)
    assert (classic["L"]["e"], classic["L"]["rating_new"]) == (10, 964)
    assert (new["L"]["e"], new["L"]["rating_new"]) == (22, 983)
    assert (
        (new["O"]["e"], new["O"]["rating_new"])
        == (16, 1024)
        == (
            classic["O"]["e"],
            classic["O"]["rating_new"],
        )
    )


def test_both_e_caps_of_2014():
    """SBr > 0: E <= 150. R_o 500 adult, W < W_e: SBr = e^(800/150) - 1 = 207.127 - 1 = 206.13,
    E0 = .0625 + 15 = 15.06 -> 221.19 -> 150. R_o 600: SBr = e^(700/150) - 1 = 105.34,
    E = 15.13 + 105.34 = 120.47 -> 120 (under the cap).
    SBr = 0: E <= 30 and E <= 5 * index: R_o 2300 adult: 27.98 + 15 -> 43 -> 30;
    R_o 1500 adult index 1, W >= W_e: 5.06 + 15 -> 20 -> 5."""
    assert float(braking_supplement(500, False, DWZ2014)) == pytest.approx(206.127, abs=0.001)
    assert development_coefficient(500, 1, "adult", DWZ2014, False) == 150
    assert development_coefficient(600, 1, "adult", DWZ2014, False) == 120
    assert development_coefficient(600, 1, "adult", CLASSIC, False) == 5
    assert development_coefficient(2300, 10, "adult", DWZ2014, True) == 30
    assert development_coefficient(1500, 1, "adult", DWZ2014, True) == 5
    assert development_coefficient(1299, 1, "adult", DWZ2014, True) == 5  # W >= W_e: no SBr


def test_first_rating_floor():
    """U (unrated) scores 1 of 5 against five 900s (adult, index 10).
    Start: R_c = 900, P = .20 -> D = -240 -> 660; at 660 every P(-240) = .20, W_e = 1.00 = W:
    settled, R_i = 660.
    classic: first rating 660. With the floor (only this switch changed): 660 < 800 ->
    700 + 660/8 = 782.5 -> 783 (half-up).
    The opponent who lost sees the first rating: classic P(240) = .80 (236-245),
    E = .6561 + 15 -> 16: 900 - 800 * .80 / 17 = 862.4 -> 862; against 783:
    P(117) = .66 (114-121): 900 - 800 * .66 / 17 = 868.9 -> 869. With all of 2014 the
    loser also gets SBr = e^(400/150) - 1 = 13.39: E = 16.66 + 13.39 = 29.05 -> 29:
    900 - 800 * .66 / 30 = 882.4 -> 882.
    Direct: 799 -> 700 + 99.875 -> 800; 800 stays."""
    players = [rated(f"O{k}", 900) for k in range(1, 6)]
    players.append({"id": "U", "rating": None, "birth_year": 1980})
    games = [("U", "O1", "1-0")] + [(f"O{k}", "U", "1-0") for k in range(2, 6)]
    doc = tournament(players, games)
    classic, floor = run(doc, CLASSIC), run(doc, replace(CLASSIC, first_rating_floor=800))
    new = run(doc, TABLE_2014)
    assert (classic["U"]["iteration_value"], classic["U"]["rating_new"]) == (660, 660)
    assert (floor["U"]["iteration_value"], floor["U"]["rating_new"]) == (660, 783)
    assert (classic["O1"]["rating_new"], floor["O1"]["rating_new"]) == (862, 869)
    assert (new["U"]["rating_new"], new["O1"]["e"], new["O1"]["rating_new"]) == (783, 29, 882)
    assert first_rating_floor(799, DWZ2014) == 800 and first_rating_floor(800, DWZ2014) == 800
    assert first_rating_floor(223, CLASSIC) == 223


def test_probability_normal_or_logistic():
    """Adult 1600 (index 10) beats five 1300s; float precision. E = 1.6^4 + 15 -> 22, n = 5.
    logistic: P(300) = 1/(1 + 10^-.75) = .849071; W_e = 4.245; 800 * .7549 / 27 = 22.37
      -> 1622.37 -> 1622
    normal: Phi(300 / 282.843) = Phi(1.06066) = .855578; W_e = 4.278; 800 * .7221 / 27 =
      21.40 -> 1621.40 -> 1621"""
    players = [rated("S", 1600)] + [rated(f"O{k}", 1300) for k in range(1, 6)]
    doc = tournament(players, [("S", f"O{k}", "1-0") for k in range(1, 6)])
    logistic = run(doc, replace(DWZ2014, probability="logistic"))
    normal = run(doc, DWZ2014)
    assert (logistic["S"]["expected"], logistic["S"]["rating_new"]) == (4.245, 1622)
    assert (normal["S"]["expected"], normal["S"]["rating_new"]) == (4.278, 1621)


def sonderwertung_doc() -> dict[str, Any]:
    players = [rated("X", 1500)] + [rated(f"P{k}", 1700) for k in range(1, 6)]
    return tournament(players, [("X", f"P{k}", "1-0") for k in range(1, 6)])


def test_sonderwertung_modes():
    """X 1500 (adult, index 10) beats P1..P5 (1700, adult, index 10). Table precision.
    X: W = 5, W_e = 5 * P(-200) .24 = 1.20; R_p = 1500 + 800 * 3.8 / 5 = 2108;
       R_h: 100 % -> R_c + 677 = 2377.
    "success" (classic 4.7.6): 2108 >= 1500 + 200 -> the P see 2108: P(-408) = .08
       (392-411); E = 1.7^4 + 15 = 23.35 -> 23; 1700 - 800 * .08 / 24 = 1697.3 -> 1697.
    "performance" (2016): 2377 > 1500 + 300 -> the P see 2377: P(-677) = .01 (620-735);
       1700 - 800 * .01 / 24 = 1699.67 -> 1700.
    "off": the P see 1500: P(200) = .76; 1700 - 800 * .76 / 24 = 1674.67 -> 1675.
    X itself uses its own R_o: E = 5.0625 + 15 -> 20, R_n = 1500 + 800 * 3.8 / 25 = 1621.6
    -> 1622 in every mode."""
    doc = sonderwertung_doc()
    results = {
        mode: run(doc, replace(TABLE_2014, sonderwertung=mode, exceptional_margin=margin))
        for mode, margin in (("success", 200), ("performance", 300), ("off", 300))
    }
    assert {m: r["P1"]["rating_new"] for m, r in results.items()} == {
        "success": 1697,
        "performance": 1700,
        "off": 1675,
    }
    assert {m: r["X"]["rating_new"] for m, r in results.items()} == dict.fromkeys(results, 1622)
    assert results["performance"][""]["trace"]["sonderwertung"] == {"X": 2377}
    assert results["performance"]["X"]["exceptional"] is True
    assert results["off"]["X"]["exceptional"] is False
    # "more than 300": a margin of 877 = 2377 - 1500 is not exceeded
    strict = run(doc, replace(TABLE_2014, sonderwertung="performance", exceptional_margin=877))
    assert strict["P1"]["rating_new"] == 1675


def test_foreign_rating_index():
    """F has a FIDE rating 1400 and no DWZ, beats a 1400 (adult, index 10): W_e = .50.
    index 0 (classic 4.9.3): E = 1.4^4 + 15 = 18.84 -> 19, capped at 5 * max(0, 1) = 5:
      R_n = 1400 + 400 / 6 = 1466.7 -> 1467, index 1.
    index 6 (WO 2.2.4): E = 19 (cap 30): R_n = 1400 + 400 / 20 = 1420, index 7."""
    players = [
        {"id": "F", "rating": 1400, "index": None, "rating_source": "fide"},
        rated("O", 1400),
    ]
    doc = tournament(players, [("F", "O", "1-0")])
    classic, new = run(doc, CLASSIC), run(doc, TABLE_2014)
    assert (classic["F"]["e"], classic["F"]["rating_new"], classic["F"]["index_new"]) == (
        5,
        1467,
        1,
    )
    assert (new["F"]["e"], new["F"]["rating_new"], new["F"]["index_new"]) == (19, 1420, 7)


def test_rating_expiry_in_the_engine():
    """Classic 6.1.1: "DWZ verlieren ihre Gueltigkeit nach 5 Jahren". A member rated
    1800-20 at a tournament ending 2001-05-01 keeps the rating for a tournament ending
    2006-05-01 (5 years later) and has none on 2006-05-02 (rated like a player without
    DWZ); WO 2002 ("DWZ behalten ihre Gueltigkeit", rating_expiry_years 0) keeps it."""
    from datetime import date, datetime

    from ratingdb.engine.inputs import participant_input
    from ratingdb.engine.model import (
        EngineParticipant,
        EngineTournament,
        Membership,
        PlayerRecord,
        PlayerState,
    )
    from ratingdb.engine.timeline import RechenmodulVersion

    record = PlayerRecord(1, 1960, (Membership(date(1990, 1, 1), None),))
    state = PlayerState(1800, 20, (), date(2001, 5, 1))

    def rating_at(end: date, params: DwzClassicParameters) -> tuple[int | None, int | None]:
        part = EngineParticipant(10, 1)
        t = EngineTournament(1, "T", end, end, "C0327", datetime(2030, 1, 1), participants=(part,))
        modul = RechenmodulVersion("dwz-classic", "v", date(1990, 1, 1), params)
        inp = participant_input(part, record, state, t, modul)
        return inp.rating, inp.index

    assert rating_at(date(2006, 5, 1), CLASSIC) == (1800, 20)
    assert rating_at(date(2006, 5, 2), CLASSIC) == (None, None)
    assert rating_at(date(2006, 5, 2), WO2002) == (1800, 20)


def test_unbounded_group_rated_like_a_100_percent_result():
    """U and V (unrated) beat O1..O5 (1500..1900) and draw each other: in float precision
    no first rating solves W = W_e. The classic default raises; with
    ``unbounded_as_extreme`` (the 2014 versions) both are rated as 100 % results,
    R_c + 677 over their current opponents (4.7.2.1.2), iterated together:
    x = (1500 + 1600 + 1700 + 1800 + 1900 + x) / 6 + 677 -> 5x = 8500 + 4062 -> x = 2512.4
    -> 2512."""
    players = [rated(f"O{k + 1}", 1500 + 100 * k) for k in range(5)]
    players += [{"id": u, "rating": None, "birth_year": 1980} for u in "UV"]
    games = [(u, f"O{k}", "1-0") for u in "UV" for k in range(1, 6)] + [("U", "V", "1/2-1/2")]
    doc = tournament(players, games)
    with pytest.raises(ConvergenceError):
        evaluate(parse_tournament(doc), replace(CLASSIC, precision="float"))
    out = run(doc, replace(CLASSIC, precision="float", unbounded_as_extreme=True))
    assert out["U"]["rating_new"] == out["V"]["rating_new"] == 2512
    assert (out["U"]["games"], out["U"]["score"]) == (6, 5.5)
    assert run(doc, DWZ2014)["U"]["rating_new"] == 2512  # above 800: no floor
