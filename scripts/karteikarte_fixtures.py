"""Write tests/data/karteikarte/*.json: published DeWIS Karteikarte rows as tournaments.

A Karteikarte row publishes R_o-index (the previous row), n, W, W_e (3 decimals) and the
new DWZ-index, but not the opponents. Each fixture is a ``ratingdb evaluate`` input with
the player of the row and n constructed opponents (one game each) whose ratings make
W_e come out as published, under the P(D) of the Rechenmodul of the default DSB timeline
valid at the tournament's end (normal distribution, unrounded, before 2026-06-08; the WO
2026 table after). Where a source names the opponents, they are used. The published
numbers are kept under ``published`` (ignored by ``ratingdb evaluate``), the source and
what was constructed or assumed under ``source`` and ``note``.

Usage: python scripts/karteikarte_fixtures.py  (rewrites the directory's fixtures)
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from scipy.special import ndtr

from ratingdb.rules.dwz2026.probability import p_milli

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "karteikarte"
SIGMA = 200 * math.sqrt(2)
MTSJ = (
    "mtsj.de player page (DeWIS Karteikarte republished; stored copy in the search tool's "
    "pages corpus): "
)
LEHNERT = MTSJ + "https://www.mtsj.de/verein/sfr-moerfelden-walldorf/leander-josef-lehnert"
DP = (
    "Schachverein-Dresden-Striesen/Schachverein-Dresden-Striesen.github.io "
    "docs/dwz-spieler-NU4241593.html @27c6a7a00131f97e4aeec67dcb71637e5234ff79 "
    "(schachbund.de Karteikarte of player NU4241593)"
)
# key, source, tournament, end (published or assumed), J, Ro, index, n, W, We, Rn, index_new,
# tests, opponents (None = construct), rating source
ROWS = [
    ("TIS-4", MTSJ + "https://www.mtsj.de/verein/sfr1932-kelkheim/marcel-tischer row 4",
     "MTSJ EM U14-U20", "2011-06-30", 5, 1441, 23, 5, 4.5, "2.922", 1546, 24,
     "youth acceleration fB = 1441/2000 (E 7; classic E 9 gives 1540)", None, "dwz"),
    ("TIS-6", MTSJ + "https://www.mtsj.de/verein/sfr1932-kelkheim/marcel-tischer row 6",
     "Bez.7 MK 2011/2012", "2012-04-30", 5, 1555, 25, 7, 6.0, "4.727", 1623, 26,
     "youth acceleration (E 8)", None, "dwz"),
    ("TIS-11", MTSJ + "https://www.mtsj.de/verein/sfr1932-kelkheim/marcel-tischer row 11",
     "Landesklasse Sued 2012/2013", "2013-04-30", 5, 1650, 30, 4, 1.5, "1.780", 1636, 31,
     "youth with W < W_e: no acceleration (E 12 = E0)", None, "dwz"),
    ("ROT-1", MTSJ + "https://www.mtsj.de/verein/sv-1946-gross-gerau/jan-rother row 1",
     "Offene Gross-Gerauer SM", "2011-06-30", 5, 1219, 18, 4, 2.0, "1.276", 1283, 19,
     "youth acceleration below the minimum: E0*fB = 4.39 -> E 5", None, "dwz"),
    ("ROT-7", MTSJ + "https://www.mtsj.de/verein/sv-1946-gross-gerau/jan-rother row 7",
     "MTS-Liga 2014/2015", "2015-04-30", 10, 1335, 24, 1, 0.5, "0.077", 1359, 25,
     "junior (J 10), single game (E 13)", None, "dwz"),
    ("LEH-1", LEHNERT + " row 1",
     "MK Bezirk Starkenburg 2010/2011", "2011-04-30", 15, 812, 1, 3, 2.0, "1.557", 856, 2,
     "cap E <= 5 * index (E0 15.44 -> 5 at index 1)", None, "dwz"),
    ("LEH-2", LEHNERT + " row 2",
     "Bezirk Starkenburg 2011/2012", "2012-04-30", 15, 856, 2, 6, 2.0, "2.207", 852, 3,
     "braking supplement: E = 15.54 + 18.30 -> 34 above 5 * index = 10", None, "dwz"),
    ("LEH-6", LEHNERT + " row 6",
     "Einladungsturnier SSG Roedermark / Epper", "2013-06-30", 15, 959, 6, 2, 0.0, "1.244",
     922, 7, "braking supplement (E 25)", None, "dwz"),
    ("LEH-21", LEHNERT + " row 21",
     "Bezirksklasse C", "2019-04-30", 15, 1152, 21, 7, 0.5, "1.372", 1124, 22,
     "braking supplement (E 18), in the Sonderwertung era (dwz-2016)", None, "dwz"),
    ("LAU-8", MTSJ + "https://www.mtsj.de/verein/sv-1920-hofheim/ingrid-lauterbach row 8",
     "Int. Festival Biel Meisterturnier 2012", "2012-07-31", 15, 2077, 133, 11, 5.5, "3.717",
     2112, 134, "cap E <= 30 (E0 33.61)", None, "dwz"),
    ("PER-21", MTSJ + "https://www.mtsj.de/verein/sc-1961-konig-nied/sven-perlitz row 21",
     "Oberliga Ost Staffel B", "2018-04-30", 15, 2043, 116, 11, 2.0, "4.545", 1993, 117,
     "cap E <= 30 with W < W_e", None, "dwz"),
    ("DP-2", DP + " row 2", "1. Landesklasse, Staffel A", "2022-04-30", 15, 2042, None, 5, 4.0,
     "3.918", 2044, 7,
     "a FIDE-rated player without DWZ starts at index 6 (E 30); R_o 2042 is the only value "
     "that reproduces 2044 (derived by the research notes, not published)", None, "fide"),
    ("DP-8", DP + " row 8", "1. Landesklasse A", "2025-04-30", 15, 2067, 12, 1, 0.5, "0.447",
     2068, 13, "single game against 2105 (the published Niveau): normal P(-38) = .4465 -> "
     ".447 (logistic .446)", [(2105, 0.5)], "dwz"),
    ("DP-10", DP + " row 10", "Bezirksliga", "2026-04-26", 15, 2065, 14, 1, 0.5, "0.578", 2063,
     15, "single game against 2009 (named in the scoresheet): normal .5785 -> .578 (logistic "
     ".580); the last old-rules row before the Umstufung", [(2009, 0.5)], "dwz"),
    ("DP-AKT", DP + " row AKT and its tournament page docs/dwz-turniere-...html @d1776dfd",
     "Ryck-Open 2026", "2026-07-19", 15, 2080, 16, 7, 6.0, "4.344", 2121, 17,
     "first row after the Umstufung (2063-15 -> 2080-16): rated with WO 2026 (K 25); the "
     "published W_e 4.344 is the unrounded normal sum, WO 2026 table precision (P(D) in "
     "thousandths per game) gives 4.345 and the same R_n 2121",
     [(1806, 1), (1907, 1), (1954, 1), (2025, 1), (2212, 0), (2061, 1), (1944, 1)], "dwz"),
]  # fmt: skip


def half_up(value: float, places: int = 3) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def expected(ro: int, opponents: list[int], table_2026: bool) -> Decimal:
    if table_2026:  # WO 2026 table precision: P(D) in thousandths per game
        return Decimal(sum(p_milli(ro - r) for r in opponents)).scaleb(-3)
    return half_up(sum(float(ndtr((ro - r) / SIGMA)) for r in opponents))


def construct(ro: int, n: int, we: Decimal) -> list[int]:
    """n opponent ratings around the level that gives W_e, the last one solved."""
    p = min(max(float(we) / n, 0.0005), 0.9995)
    base = ro - round(SIGMA * float(_ndtri(p)))
    spread = [0, -40, 40, -80, 80, -20, 20, -60, 60, -100, 100]
    for shift in range(0, 200):
        firsts = [base + shift + spread[k % len(spread)] for k in range(n - 1)]
        for last in range(base - 400, base + 400):
            if expected(ro, [*firsts, last], False) == we:
                return [*firsts, last]
    raise SystemExit(f"no opponents for {ro} n={n} We={we}")


def _ndtri(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def scores(opponents: list[int], w: float) -> list[float]:
    """W spread over the games: wins against the weakest, a draw, losses against the rest."""
    order = sorted(range(len(opponents)), key=lambda k: opponents[k])
    out = [0.0] * len(opponents)
    left = w
    for k in order:
        out[k] = 1.0 if left >= 1 else (0.5 if left >= 0.5 else 0.0)
        left -= out[k]
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for row in ROWS:
        key, source, name, end, j, ro, index, n, w, we, rn, index_new, tests, opps, src = row
        if opps is None:
            ratings = construct(ro, n, Decimal(we))
            games = list(zip(ratings, scores(ratings, w), strict=True))
            how = "opponents constructed (not published) to reproduce the published W_e"
        else:
            games = [(r, float(s)) for r, s in opps]
            how = "opponents as published"
        # nu's W_e after 2026 is the unrounded normal sum too (4.344 for DP-AKT), while WO 2026
        # Anhang 2.1 in table precision sums P(D) in thousandths (4.345): see the note
        assert expected(ro, [r for r, _ in games], False) == Decimal(we), key
        year = int(end[:4])
        birth = year - {5: 15, 10: 23, 15: 40}[j]
        player = {"id": key, "name": f"Karteikarte {key}", "rating": ro, "index": index,
                  "rating_source": src, "birth_year": birth}  # fmt: skip
        players = [player] + [
            {"id": f"o{k}", "rating": r, "index": 20, "birth_year": 1970}
            for k, (r, _) in enumerate(games, 1)
        ]
        result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}
        doc = {
            "source": source,
            "note": (
                f"{how}; age class J={j} inferred from the rows (birth year {birth} assumed, "
                f"not published); end date {end} "
                + ("published" if key in ("DP-10", "DP-AKT") else "assumed (season, neighbours)")
                + f". Tests: {tests}."
            ),
            "published": {
                "rating_old": ro,
                "index_old": index,
                "games": n,
                "score": w,
                "expected": float(we),
                "rating_new": rn,
                "index_new": index_new,
            },
            "tournament": {"id": key, "name": name, "start": end, "end": end},
            "players": players,
            "games": [
                {"round": k, "white": key, "black": f"o{k}", "result": result[s]}
                for k, (_, s) in enumerate(games, 1)
            ],
        }
        (OUT / f"{key}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
