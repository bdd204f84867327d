"""A history whose Rechenmodul switches families on a date (WO Anhang 1.2: every tournament
is evaluated with the Rechenmodul valid at its end date): classic DWZ until 2026-06-07,
the one-off conversion of WO Anhang 4 on 2026-06-07, DWZ 2026 from 2026-06-08."""

from __future__ import annotations

import csv
import io
import json

from ratingdb.rules.adjustments import dwz_2026_conversion
from tests.builders import ok
from tests.cli import run

SWITCH = "2026-06-08"


def test_classic_then_conversion_then_dwz2026(loaded):
    # the default DSB timeline (migration 0007) is this switch: classic DWZ versions, the
    # conversion on 2026-06-07 and DWZ 2026 from 2026-06-08
    ok(["rechenmodul", "add", "--family", "dwz-classic", "--version", "classic",
        "--valid-from", "2000-01-01"], loaded)  # fmt: skip
    again = run(["adjustment", "add", "--date", "2026-06-07"], loaded)
    assert again.returncode == 2 and "exists already" in again.stderr
    listing = ok(["rechenmodul", "list"], loaded)
    assert "dwz-classic" in listing and "2026.1" in listing and "dwz-2026-umstufung" in listing
    ok(["recalc", "--quiet"], loaded)
    incremental = ok(["export", "evaluations"], loaded)
    ok(["recalc", "--full", "--quiet"], loaded)
    assert ok(["export", "evaluations"], loaded) == incremental

    rows = list(csv.DictReader(io.StringIO(incremental)))
    assert {r["end_date"] < SWITCH for r in rows} == {True, False}
    # which family evaluated what: classic rows carry E (an integer <= 30), 2026 rows K
    shown = {}
    for code in sorted({r["tournament"] for r in rows}):
        end = next(r["end_date"] for r in rows if r["tournament"] == code)
        if end not in shown:
            shown[end] = json.loads(ok(["tournament", "show", code, "--json"], loaded))
    for end, result in shown.items():
        assert result["rules"] == ("dwz-classic" if end < SWITCH else "dwz2026"), end
    classic = [p for e, r in shown.items() if e < SWITCH for p in r["players"] if p["e"]]
    assert classic and all(5 <= p["e"] <= 30 and p["e"] == int(p["e"]) for p in classic)

    # a player evaluated before and after: the first 2026 evaluation starts from the
    # converted last classic rating, with the index raised by one
    stored = [r for r in rows if r["stored"] == "True" and r["player_id"]]
    by_player: dict[str, list[dict]] = {}
    for r in stored:
        by_player.setdefault(r["player_id"], []).append(r)
    checked = 0
    for pid, evaluations in by_player.items():
        before = [r for r in evaluations if r["end_date"] < "2026-06-07"]
        after = [r for r in evaluations if r["end_date"] >= SWITCH]
        if not before or not after or before[-1]["rating_new"] == "":
            continue
        last, first = before[-1], after[0]
        if first["rating_old"] == "":
            continue  # left and came back after the retention period
        assert int(first["rating_old"]) == dwz_2026_conversion(int(last["rating_new"])), pid
        assert int(first["index_old"]) == int(last["index_new"]) + 1, pid
        checked += 1
        crossed = pid
    assert checked >= 5
    card = json.loads(ok(["player", "card", crossed, "--json"], loaded))
    assert [e["kind"] for e in card["evaluations"]].count("adjustment") == 1


def test_ingo_kbsb_and_online_elo_rechenmodule_round_trip_through_the_database(loaded):
    """Snapshots of the non-DWZ families survive PostgreSQL: a second run finds nothing to
    do, and a full replay reproduces the incremental one exactly. Ingo until mid-2024, KBSB
    Elo (periods closed at the January/July lists) until mid-2025, online Elo until the
    seeded DWZ 2026 version takes over on 2026-06-08."""
    for family, version, start in (("ingo", "i", "2000-01-01"), ("elo-kbsb", "k", "2024-07-01"),
                                   ("elo-online", "o", "2025-07-01")):  # fmt: skip
        ok(["rechenmodul", "add", "--family", family, "--version", version,
            "--valid-from", start], loaded)  # fmt: skip
    ok(["recalc", "--quiet"], loaded)
    assert "nothing to recalculate" in ok(["recalc", "--quiet"], loaded)
    incremental = ok(["export", "evaluations"], loaded)
    ok(["recalc", "--full", "--quiet"], loaded)
    assert ok(["export", "evaluations"], loaded) == incremental
    rows = list(csv.DictReader(io.StringIO(incremental)))
    kbsb = [r for r in rows if "2024-07-01" <= r["end_date"] < "2025-07-01" and r["player_id"]]
    # inside a KBSB period nothing is stored; the games wait for the next list
    assert kbsb and all(r["stored"] == "False" and r["player_group"] == "remaining" for r in kbsb)
    online = [
        r for r in rows if "2025-07-01" <= r["end_date"] < "2026-06-08" and r["stored"] == "True"
    ]
    ks = {r["k"] for r in online}
    # K per game is 32 / 24 / 16; a player crossing 2100 inside a tournament shows the mean
    # (the default timeline's DWZ before mid-2024 gives such ratings)
    assert online and all(16 <= float(k) <= 32 for k in ks if k), ks
