"""The history commands end to end, as a user runs them (subprocesses, real PostgreSQL)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from pathlib import Path

import pytest

from ratingdb.rules.adjustments import dwz_2026_conversion
from tests.cli import run
from tests.conftest import at_head


def test_unmigrated_database_is_a_clear_error(scratch_db):
    out = run(["recalc"], scratch_db)
    assert out.returncode == 2 and "ratingdb db upgrade" in out.stderr and out.stdout == ""


def test_nightly_job_runs_and_cards(loaded, tmp_path: Path):
    first = run(["recalc"], loaded)
    assert first.returncode == 0, first.stderr
    assert "full replay" in first.stdout and "recalculating" in first.stderr  # progress bar
    assert "nothing to recalculate" in run(["recalc", "--quiet"], loaded).stdout
    runs = json.loads(run(["runs", "--json"], loaded).stdout)
    # newest first: the empty nightly run is recorded too (the job ran, nothing was pending)
    assert [r["full"] for r in runs] == [False, True]
    assert runs[1]["status"] == "succeeded" and runs[1]["tournaments_evaluated"] > 0
    assert runs[0]["tournaments_evaluated"] == 0

    listing = run(["tournament", "list", "--limit", "5"], loaded).stdout.splitlines()
    assert len(listing) == 5
    code = listing[-1].split()[1]
    shown = run(["tournament", "show", code], loaded)
    assert shown.returncode == 0 and "R_n" in shown.stdout and code in shown.stdout

    # the stored evaluation's input evaluates again to the stored numbers
    (tmp_path / "input.json").write_text(
        run(["tournament", "export", code, "--format", "evaluate"], loaded).stdout
    )
    again = run(["evaluate", str(tmp_path / "input.json"), "--rechenmodul", "auto"], loaded)
    assert again.returncode == 0, again.stderr
    stored_rows = json.loads(run(["tournament", "show", code, "--json"], loaded).stdout)
    assert [p["rating_new"] for p in json.loads(again.stdout)["players"]] == [
        p["rating_new"] for p in stored_rows["players"]
    ]

    exported = run(["tournament", "export", code], loaded)
    doc = json.loads(exported.stdout)
    assert doc["tournament"]["id"] == code and doc["games"]
    (tmp_path / "t.json").write_text(exported.stdout)

    deleted = run(["tournament", "delete", code, "--now"], loaded)
    assert deleted.returncode == 0, deleted.stderr
    assert "change point recorded" in deleted.stdout and "re-evaluated" in deleted.stdout
    added = run(["tournament", "add", str(tmp_path / "t.json")], loaded)
    assert added.returncode == 0, added.stderr
    dry = run(["recalc", "--dry-run", "--quiet"], loaded)
    assert dry.stdout.startswith("dry run: would re-evaluate")
    assert run(["recalc", "--quiet"], loaded).returncode == 0

    rows = list(csv.DictReader(io.StringIO(run(["export", "evaluations"], loaded).stdout)))
    assert rows and {"tournament", "player_id", "rating_new"} <= set(rows[0])
    player_id = next(r["player_id"] for r in rows if r["stored"] == "True")
    card = json.loads(run(["player", "card", player_id, "--json"], loaded).stdout)
    assert card["evaluations"] and card["current_rating"] is not None
    text_card = run(["player", "card", player_id], loaded, lang=None).stdout
    assert text_card.startswith("Karteikarte:")  # German by default


def test_bad_submission_names_the_place(loaded, tmp_path: Path):
    bad = {
        "tournament": {"id": "X1", "start": "2026-01-01", "end": "2026-01-02"},
        "players": [
            {"id": "a", "player_id": 1, "rating": 2000, "index": 5},
            {"id": "b", "player_id": 2},
        ],
        "games": [{"white": "a", "black": "b", "result": "1-0"}],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = run(["tournament", "add", str(path)], loaded)
    assert out.returncode == 2 and out.stdout == ""
    assert "$.players[0].rating" in out.stderr and "Traceback" not in out.stderr
    bad["players"][0] = {"id": "a", "player_id": 10**9}
    path.write_text(json.dumps(bad))
    out = run(["tournament", "add", str(path)], loaded)
    assert "$.players[0].player_id" in out.stderr
    listing = run(["tournament", "list", "--limit", "1000"], loaded).stdout
    assert "X1" not in listing  # nothing half-written


def test_demo(demo_run):
    out, _ = demo_run
    assert out.returncode == 0, out.stderr
    for needle in ("Nachtlauf", "Turnier nach", "Karteikarte", "2081-56", "1961*"):
        assert needle in out.stdout  # German by default (docs/i18n.md)
    for word in ("Age", "youth", "residual", "nightly job"):  # (its players are "Player A")
        assert word not in out.stdout, word
    # the demo's history ends today; until mid-2027 its late tournament ends on 2026-05-20:
    # old rules, then the Umstufung on the card
    if date(2026, 6, 1) <= date.today() < date(2027, 6, 1):
        assert "am 20.05.2026 endete" in out.stdout and "Rechenmodul: dwz-2016" in out.stdout
        assert "Umstufung 2026 (WO Anhang 4)" in out.stdout


def test_rechenmodul_and_adjustment_replay_like_a_full_run(loaded):
    assert run(["recalc", "--quiet"], loaded).returncode == 0
    listed = run(["rechenmodul", "list"], loaded).stdout
    assert "dwz2026" in listed and "2026.1" in listed
    bad = run(
        ["rechenmodul", "add", "--version", "x", "--valid-from", "2025-01-01", "--set", "t=0"],
        loaded,
    )
    assert bad.returncode == 2 and "parameters" in bad.stderr
    bad = run(
        [
            "rechenmodul",
            "add",
            "--version",
            "x",
            "--valid-from",
            "2025-01-01",
            "--set",
            "nonsense=1",
        ],
        loaded,
    )
    assert bad.returncode == 2 and "nonsense" in bad.stderr
    added = run(
        [
            "rechenmodul",
            "add",
            "--version",
            "2025.2",
            "--valid-from",
            "2025-06-01",
            "--set",
            "t=40",
            "--description",
            "smaller youth bonus",
        ],
        loaded,
    )
    assert added.returncode == 0, added.stderr
    shown = json.loads(run(["rechenmodul", "show", "2025.2"], loaded).stdout)
    assert shown["parameters"]["t"] == 40 and shown["parameters"]["r"] == 0.08
    # a conversion on a day after which some player with a rating plays again
    rows = list(csv.DictReader(io.StringIO(run(["export", "evaluations"], loaded).stdout)))
    stored: dict[str, list[str]] = {}
    for r in rows:
        if r["stored"] == "True":
            stored.setdefault(r["player_id"], []).append(r["end_date"])
    player_id, dates = next((p, d) for p, d in sorted(stored.items()) if len(set(d)) > 1)
    day = sorted(set(dates))[0]
    assert run(["adjustment", "add", "--date", day], loaded).returncode == 0
    assert "dwz-2026-umstufung" in run(["adjustment", "list"], loaded).stdout
    incremental = run(["recalc", "--quiet"], loaded)
    assert incremental.returncode == 0 and "re-evaluated" in incremental.stdout
    after_incremental = run(["export", "evaluations"], loaded).stdout
    assert run(["recalc", "--full", "--quiet"], loaded).returncode == 0
    assert run(["export", "evaluations"], loaded).stdout == after_incremental
    # the Karteikarte shows the conversion between two evaluations
    rows = list(csv.DictReader(io.StringIO(after_incremental)))
    before = {
        r["player_id"] for r in rows if r["stored"] == "True" and r["end_date"] < "2025-03-31"
    }
    after = {r["player_id"] for r in rows if r["stored"] == "True" and r["end_date"] > "2025-03-31"}
    player_id = sorted(before & after)[0]
    card = json.loads(run(["player", "card", player_id, "--json"], loaded).stdout)
    conversions = [
        e for e in card["evaluations"] if e["kind"] == "adjustment" and e["end_date"] == day
    ]  # (the default timeline's Umstufung of 2026-06-07 may follow)
    assert len(conversions) == 1
    old, new = conversions[0]["rating_old"], conversions[0]["rating_new"]
    assert new == dwz_2026_conversion(old)
    assert conversions[0]["index_new"] == conversions[0]["index_old"] + 1


def test_a_tournament_the_rules_refuse_does_not_block_the_night(scratch_db, tmp_path: Path):
    """A Rechenmodul that refuses a group without a finite first rating (classic DWZ in
    float precision without ``unbounded_as_extreme``): the run goes on, the group's two
    players are struck and keep having no rating, the five established players are rated
    on their other games (none here: unchanged), the problem is recorded with the
    tournament, the players and the reason, and a full replay gives the same."""
    at_head(scratch_db)
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(scratch_db, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO organisations (vkz, name, kind) VALUES ('A0001', 'A', 'club')")
        )
    engine.dispose()
    added = run(
        ["rechenmodul", "add", "--family", "dwz-classic", "--version", "strict",
         "--valid-from", "2020-01-01", "--set", "precision=float",
         "--set", "unbounded_as_extreme=false"],
        scratch_db,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    member = {"club": "A0001", "member_since": "2000-01-01", "birth_year": 1980}
    players = [
        {
            "id": f"e{k}",
            "name": f"E{k}, x",
            "rating": 1500 + 50 * k,
            "rating_source": "fide",
            **member,
        }
        for k in range(5)
    ]
    players += [{"id": u, "name": f"{u.upper()}, y", **member} for u in ("u", "v", "w")]
    games = [{"white": u, "black": f"e{k}", "result": "1-0"} for u in "uv" for k in range(5)]
    games.append({"white": "u", "black": "v", "result": "1/2-1/2"})
    # w is an ordinary newcomer: 2.5 of 5 against the established players
    games += [
        {"white": "w", "black": f"e{k}", "result": r}
        for k, r in enumerate(["1-0", "0-1", "1/2-1/2", "1-0", "0-1"])
    ]
    doc = {
        "tournament": {"id": "GROUP", "start": "2026-01-01", "end": "2026-01-02"},
        "players": players,
        "games": games,
    }
    (tmp_path / "g.json").write_text(json.dumps(doc))
    assert run(["tournament", "add", str(tmp_path / "g.json")], scratch_db).returncode == 0
    out = run(["recalc", "--quiet"], scratch_db)
    assert out.returncode == 0, out.stderr
    assert "could not be rated in full" in out.stdout and "GROUP" in out.stdout
    problems = json.loads(run(["runs", "--problems", "--json"], scratch_db).stdout)
    assert len(problems) == 1
    assert problems[0]["code"] == "GROUP"
    assert sorted(problems[0]["players"]) == ["U, y", "V, y"]
    assert "finite" in problems[0]["message"]
    listing = run(["runs"], scratch_db).stdout
    assert "not rated: U, y, V, y" in listing
    runs = json.loads(run(["runs", "--json"], scratch_db).stdout)
    assert runs[0]["status"] == "succeeded" and "struck" in runs[0]["message"]

    def rows() -> dict[str, dict[str, str]]:
        text_rows = run(["export", "evaluations"], scratch_db).stdout
        return {r["name"]: r for r in csv.DictReader(io.StringIO(text_rows))}

    from tests.web_support import client_for

    client = client_for(scratch_db)
    page = client.get("/tournaments/GROUP")
    assert page.status_code == 200
    banner = page.text.split('id="evaluation-problem"', 1)[1].split("</p>", 1)[0]
    assert "U, y" in banner and "V, y" in banner and "W, y" not in banner
    api = client.get("/api/tournaments/GROUP").json()
    assert len(api["problem"]["participant_ids"]) == 2 and "finite" in api["problem"]["message"]

    incremental = rows()
    assert incremental["U, y"]["stored"] == "False" and incremental["U, y"]["rating_new"] == ""
    assert incremental["W, y"]["stored"] == "True" and incremental["W, y"]["rating_new"] != ""
    assert incremental["E0, x"]["stored"] == "True"  # rated against W
    assert run(["recalc", "--full", "--quiet"], scratch_db).returncode == 0
    assert rows() == incremental
    assert len(json.loads(run(["runs", "--problems", "--json"], scratch_db).stdout)) == 1


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["players"].append({"id": "c", "player_id": 1}), "$.players[2].player_id"),
        (
            lambda d: d["players"].append(
                {
                    "id": "c",
                    "name": "New, N",
                    "sex": "x",
                    "club": "A0001",
                    "member_since": "2020-01-01",
                }
            ),
            "$.players[2].sex",
        ),
        (lambda d: d["tournament"].update(vkz="C-03"), "$.tournament.vkz"),
        (lambda d: d["tournament"].update(name="x" * 300), "$.tournament.name: at most 200"),
    ],
)
def test_submission_rules_end_in_one_line(loaded, tmp_path: Path, change, needle):
    doc = {
        "tournament": {"id": "Y1", "start": "2026-01-01", "end": "2026-01-02"},
        "players": [{"id": "a", "player_id": 1}, {"id": "b", "player_id": 2}],
        "games": [{"white": "a", "black": "b", "result": "1-0"}],
    }
    change(doc)
    (tmp_path / "y.json").write_text(json.dumps(doc))
    out = run(["tournament", "add", str(tmp_path / "y.json")], loaded)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["rechenmodul", "add", "--version", "v9", "--valid-from", "2030-01-01", "--base", "no"],
        ["rechenmodul", "add", "--version", "v9", "--valid-from", "2030-01-01", "--set", "r=abc"],
        ["rechenmodul", "add", "--version", "v9", "--valid-from", "2030-01-01", "--set", "k0=5"],
        ["db", "upgrade", "nonsense"],
        ["synth", "--players", "300", "--years", "3", "--seed", "3"],  # loaded already
        ["runs", "--limit", "-1"],
        ["tournament", "show", "no-such-code"],
    ],
)
def test_admin_errors_end_in_one_line(loaded, args):
    out = run(args, loaded)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr


def test_membership_change_replays_like_a_full_run(loaded):
    """A player leaves his club; with no retention period (a Rechenmodul parameter) his
    later tournaments count him as a textual participant."""
    assert run(["recalc", "--quiet"], loaded).returncode == 0
    assert (
        run(
            [
                "rechenmodul",
                "add",
                "--version",
                "r0",
                "--valid-from",
                "2000-01-01",
                "--set",
                "retention_years=0",
            ],
            loaded,
        ).returncode
        == 0
    )
    # the default DSB timeline (migration 0007) has its own versions over the history
    for family, since in (("dwz-classic", "2020-01-01"), ("dwz2026", "2026-06-09")):
        added = run(["rechenmodul", "add", "--family", family, "--version", f"r0-{family}",
                     "--valid-from", since, "--set", "retention_years=0"], loaded)  # fmt: skip
        assert added.returncode == 0, added.stderr
    assert run(["recalc", "--quiet"], loaded).returncode == 0
    rows = list(csv.DictReader(io.StringIO(run(["export", "evaluations"], loaded).stdout)))
    stored: dict[str, list[str]] = {}
    for r in rows:
        if r["stored"] == "True":
            stored.setdefault(r["player_id"], []).append(r["end_date"])
    player_id, dates = next((p, d) for p, d in sorted(stored.items()) if len(set(d)) > 1)
    first = sorted(set(dates))[0]
    card = json.loads(run(["player", "card", player_id, "--json"], loaded).stdout)
    club = card["memberships"][0]["vkz"]
    left = run(["player", "leave", player_id, "--club", club, "--on", first], loaded)
    assert left.returncode == 0, left.stderr
    assert run(["recalc", "--quiet"], loaded).returncode == 0
    after = run(["export", "evaluations"], loaded).stdout
    later = [
        r
        for r in csv.DictReader(io.StringIO(after))
        if r["player_id"] == player_id and r["end_date"] > first
    ]
    assert later and all(r["member"] == "False" and r["stored"] == "False" for r in later)
    assert run(["recalc", "--full", "--quiet"], loaded).returncode == 0
    assert run(["export", "evaluations"], loaded).stdout == after
    bad = run(["player", "leave", player_id, "--club", club, "--on", first], loaded)
    assert bad.returncode == 2 and "no open membership" in bad.stderr
    rejoined = run(["player", "join", player_id, "--club", club, "--from", "2026-12-01"], loaded)
    assert rejoined.returncode == 0, rejoined.stderr
    card = json.loads(run(["player", "card", player_id, "--json"], loaded).stdout)
    assert [m["valid_to"] for m in card["memberships"]] == [first, None]
    overlap = run(["player", "join", player_id, "--club", club, "--from", "2026-12-05"], loaded)
    assert overlap.returncode == 2 and overlap.stderr == (
        f"error: --from: player {player_id} is a member of {club} since 2026-12-01 (not ended), "
        "which a membership from 2026-12-05 would overlap: end it first (ratingdb player leave "
        f"{player_id} --club {club} --on DATE)\n"
    )
