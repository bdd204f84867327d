"""Published ELOBASE evaluations of 1995-2009, with their opponents, rated by the DSB
timeline's version of their end date: ``dwz-elobase`` before 9 May 2002 (seven of them),
``dwz-wo2002`` after.

Source: twenty official ELOBASE calculations of one player quoted in the tests of the CPAN
distribution Games-Ratings 0.0.5 (``t/200.DWZ.t`` to ``t/219.DWZ.t``: tournament code,
R_o, E, every opponent's DWZ and result, published R_n, W_e and R_h; copied from the DSB's
ELOBASE pages, metacpan.org/pod/Games::Ratings::Chess::DWZ). The end dates are the
tournament codes' (WO 4.3.1: the first two characters the year, ``A`` standing for 200x,
the next two the calendar week of the tournament's end); the Sunday of that week is used.
Birth years are not quoted: adults, except 9529-0F0-IDJ whose published E 24 is the youth
E of R_o 2085 (2.085^4 + 5 = 23.9; adult 30). Indices are not quoted: 20 (E is below
5 * index either way).

Every W_e and R_n is reproduced exactly only with P(D) from the normal distribution in
thousandths, in both eras (the classic text's two-digit table misses all seven W_e before
2002 and two of their R_n). The published R_h is ELOBASE's iterated performance; ratingdb's is
within 1 of every one (docs/engine.md, "Texts and published numbers").
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules import dsb_timeline, get_family
from ratingdb.rules.dwz_classic import evaluate
from ratingdb.rules.dwz_classic.versions import CLASSIC

RESULT = {"win": "1-0", "draw": "1/2-1/2", "loss": "0-1"}
# code, R_o, E, opponents, results, R_n, W_e, R_h (all published)
CASES = [
    ("9529-0F0-IDJ", 2085, 24, [1551, 1828, 2310, 2211, 2082, 1547, 2049, 2210, 2375],
     "win win draw loss draw win win draw win", 2125, 4.837, 2279),
    ("9706-E00-NBA", 2195, 30, [2024, 2099, 2076, 2228, 2188],
     "win draw draw win loss", 2195, 2.987, 2197),
    ("9810-F00-VFB", 2165, 30, [1790, 1989, 2057, 2460, 2435, 2210, 2036, 2064, 2098],
     "win win win draw loss draw win draw draw", 2186, 4.954, 2273),
    ("9934-E30-RYC", 2202, 30, [1715, 2131, 2126, 2524, 2083, 1902, 2112],
     "win win win loss draw win win", 2225, 4.433, 2369),
    ("A115-E00-LMM", 2226, 30, [1888, 2188, 2013, 2273, 2102, 1742, 2169, 2092, 1938],
     "win win win loss win win draw draw win", 2239, 6.378, 2294),
    ("A117-000-OLN", 2249, 30, [2134, 2343, 2200, 2163, 2175, 2229],
     "draw draw loss loss loss draw", 2208, 3.347, 2011),
    ("A217-A00-000", 2212, 30, [2329, 2328, 2293, 2300, 2302, 2190, 2348, 2350, 2181],
     "win loss draw loss win draw win win draw", 2253, 3.524, 2373),
    ("A313-000-ONN", 2253, 30, [2216, 2234, 2245, 2247, 2270, 2231, 2278, 2118, 2337],
     "loss draw loss draw loss win loss draw draw", 2219, 4.636, 2118),
    ("A417-E00-MMX", 2214, 30, [2039, 2118, 2000, 2123, 2079],
     "loss draw win win win", 2215, 3.449, 2222),
    ("A422-E30-VMX", 2215, 30, [1877, 1734, 1993, 1923, 2089, 1983, 1647],
     "win win win draw win draw win", 2217, 5.916, 2231),
    ("A514-000-ONO", 2217, 30, [2378, 2263, 2409, 2189, 2333, 2302, 2251, 2306, 2476],
     "draw loss draw loss draw loss loss loss loss", 2181, 3.240, 2038),
    ("A540-336-OPN", 2181, 30, [1712, 1950, 2013, 2411, 2089, 1987, 1968, 1796, 2014],
     "win win draw draw loss draw loss win draw", 2151, 6.468, 2032),
    ("A617-E00-MMX", 2161, 30, [2044, 2057, 1999, 2084, 2244, 2127, 2013, 2009],
     "draw win draw draw loss loss win win", 2151, 4.965, 2117),
    ("A625-E03-VMA", 2151, 30, [1934, 2052, 2051, 2091, 1934, 2052, 2051, 2091],
     "win loss draw draw draw win win draw", 2145, 5.276, 2125),
    ("A707-E03-OMA", 2145, 30, [1917, 1926, 1959, 1986, 2103],
     "draw win win draw draw", 2143, 3.588, 2130),
    ("A712-F00-VFB", 2143, 30, [1670, 1705, 2591, 1758, 1993, 2029, 1862, 2027, 2038],
     "win win loss win draw loss win win win", 2146, 6.365, 2161),
    ("A716-000-ONO", 2146, 30, [2148, 2222, 2201, 2246, 2240, 2357, 2238, 2334, 2281],
     "draw win draw win draw loss draw loss draw", 2172, 3.216, 2252),
    ("A734-E02-OMX", 2160, 30, [1794, 1710, 2038, 2122, 1981, 2137, 2211],
     "win win win loss win draw draw", 2165, 4.763, 2191),
    ("A830-302-OPN", 2116, 30, [1679, 1902, 1861, 2070, 2505, 2123, 2060, 2316, 2122],
     "draw win win win loss draw win draw win", 2147, 4.980, 2285),
    ("A913-000-ONO", 2147, 30, [2089, 2122, 2132, 2097, 2187, 2121, 2117, 2169, 2165],
     "draw draw win loss loss loss win loss win", 2133, 4.674, 2093),
]  # fmt: skip


def end_date(code: str) -> date:
    """The Sunday of the week the tournament code names (WO 4.3.1)."""
    decade = 1990 if code[0].isdigit() else 2000 + 10 * (ord(code[0]) - ord("A"))
    return date.fromisocalendar(decade + int(code[1]), int(code[2:4]), 7)


def tournament(code: str, rating: int, youth: bool, opponents: list[int], results: str):
    end = end_date(code).isoformat()
    players: list[dict[str, Any]] = [
        {"id": "P", "rating": rating, "index": 20, "birth_year": 1990 if youth else 1960}
    ]
    players += [{"id": f"o{k}", "rating": r, "index": 20, "birth_year": 1960}
                for k, r in enumerate(opponents)]  # fmt: skip
    games = [{"white": "P", "black": f"o{k}", "result": RESULT[x]}
             for k, x in enumerate(results.split())]  # fmt: skip
    doc = {"tournament": {"id": code, "start": end, "end": end},
           "players": players, "games": games}  # fmt: skip
    return parse_tournament(doc)


def test_the_codes_give_the_eras():
    eras = [dsb_timeline.at(end_date(case[0])).version for case in CASES]
    assert eras == ["dwz-elobase"] * 7 + ["dwz-wo2002"] * 13
    assert end_date("9529-0F0-IDJ") == date(1995, 7, 23)
    assert end_date("A217-A00-000") == date(2002, 4, 28)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_an_elobase_evaluation_is_reproduced_by_the_timeline(case):
    code, rating, e, opponents, results, rating_new, expected, performance = case
    version = dsb_timeline.at(end_date(code))
    params = get_family(version.family).parameters.from_dict(version.parameters)
    player = evaluate(tournament(code, rating, e == 24, opponents, results), params).players[0]
    assert (int(player.k or 0), player.rating_new, float(player.expected or 0)) == (
        e,
        rating_new,
        expected,
    )
    assert player.performance is not None and abs(player.performance - performance) <= 1


def test_the_classic_texts_two_digit_table_misses_what_elobase_published():
    """Before 2002 the text's table gives another W_e for every row, and two R_n are off."""
    missed_we, missed_rn = [], []
    for code, rating, e, opponents, results, rating_new, expected, _ in CASES[:7]:
        player = evaluate(tournament(code, rating, e == 24, opponents, results), CLASSIC)
        if float(player.players[0].expected or 0) != expected:
            missed_we.append(code)
        if player.players[0].rating_new != rating_new:
            missed_rn.append(code)
    assert len(missed_we) == 7
    assert missed_rn == ["9810-F00-VFB", "A217-A00-000"]
