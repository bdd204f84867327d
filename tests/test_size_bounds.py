"""The size bounds of one tournament (ratingdb/plausibility.py, docs/database.md "Size
bounds"): players, rounds, games per player and players without a game, the same for a
submission document and a tournament file of any format, from the command line, the API and
the officer's pages; refused in the user's language before any heavy work, allowed above a
bound only by an administrator on purpose and then recorded in the audit log."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ratingdb.i18n import use
from ratingdb.io import sizes, trf
from ratingdb.plausibility import (
    GAMES_PER_PLAYER,
    PLAYERS,
    ROUNDS,
    WITHOUT_GAME,
    AboveBound,
    check_sizes,
)
from tests.cli import run


def document(players: int, games: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A submission of ``players`` textual participants (p0, p1, ...), one game p0-p1
    unless ``games`` are given."""
    first = [{"white": "p0", "black": "p1", "result": "1-0"}]
    return {
        "tournament": {"id": "BIG-1", "name": "Big", "start": "2026-05-01", "end": "2026-05-03"},
        "players": [
            {"id": f"p{k}", "name": f"Gast{k}, Gustav", "member": False} for k in range(players)
        ],
        "games": first if games is None else games,
    }


def trf_file(players: int, rounds: int = 1, played: bool = True) -> str:
    """A TRF of ``players`` players: round 1 paired 1-2, 3-4, ... (unless not ``played``),
    every further round up to ``rounds`` an absence (``0000 - -``) for everyone."""
    lines = ["012 Big Open", "042 2026/05/01", "052 2026/05/03"]
    for k in range(1, players + 1):
        opponent = k + 1 if k % 2 else k - 1
        if played and opponent <= players:
            first = f"{opponent:4d} {'w' if k % 2 else 'b'} {'1' if k % 2 else '0'}"
        else:
            first = "0000 - -"
        cells = "  ".join([first] + ["0000 - -"] * (rounds - 1))
        static = f"001 {k:4d} m    {f'Spieler{k}, Paul':33} 1800 GER"  # to column 56
        lines.append(f"{static:80}{'0.0':>4} {k:4d}  {cells}")  # points 81, rank 86, 92
    return "\n".join(lines) + "\n"


# -- the bounds and their messages, without a database -------------------------------------------
def test_a_document_of_100000_players_is_counted_and_refused_naming_its_bound():
    doc = document(100_000)
    started = time.perf_counter()
    found = sizes.of_document(doc)
    assert time.perf_counter() - started < 1.0  # a count, not a parse
    assert found.players == 100_000 and found.without_game == 99_998
    with use("en"), pytest.raises(AboveBound) as err:
        check_sizes(found, "$")
    assert err.value.location == "$.players"
    assert "100000 players, above the bound of 5000 players per tournament" in str(err.value)
    assert "--allow-large" in str(err.value)
    with use("de"), pytest.raises(AboveBound) as err:
        check_sizes(found, "$")
    assert "100000 Spieler, über der Obergrenze von 5000 Spielern je Turnier" in str(err.value)
    assert "ein Administrator kann es bewusst zulassen" in str(err.value)
    assert [a.bound for a in err.value.above] == [PLAYERS, WITHOUT_GAME]


def test_the_override_returns_what_it_allowed():
    allowed = check_sizes(sizes.of_document(document(100_000)), "$", allow=True)
    assert [a.to_dict() for a in allowed] == [
        {"bound": "players", "high": 5000, "found": 100_000},
        {"bound": "players without a game", "high": 500, "found": 99_998},
    ]


def test_a_tournament_at_its_bounds_passes():
    games = [{"white": f"p{2 * k}", "black": f"p{2 * k + 1}", "result": "1-0", "round": 1}
             for k in range(2250)]  # fmt: skip
    games += [{"white": "p0", "black": "p1", "result": "1-0", "round": r} for r in range(2, 51)]
    found = sizes.of_document(document(5000, games))
    assert (found.players, found.rounds, found.most_games, found.without_game) == (
        PLAYERS.high,
        ROUNDS.high,
        GAMES_PER_PLAYER.high,
        WITHOUT_GAME.high,
    )
    assert check_sizes(found, "$") == []


def test_a_file_with_5000_empty_extra_rounds_is_refused_naming_the_rounds():
    parsed = trf.parse(trf_file(6, rounds=5001), "extra.trf")
    found = sizes.of_file(parsed)
    assert found.rounds == 5001 and found.most_games == 1
    with use("en"), pytest.raises(AboveBound) as err:
        check_sizes(found, parsed.source)
    assert str(err.value).startswith(
        "extra.trf: 5001 rounds, above the bound of 50 rounds per tournament"
    )
    with use("de"), pytest.raises(AboveBound) as err:
        check_sizes(found, parsed.source)
    assert "5001 Runden, über der Obergrenze von 50 Runden je Turnier" in str(err.value)


def test_a_document_naming_round_5000_in_a_bye_has_5000_rounds():
    doc = document(4)
    doc["players"][2]["byes"] = {"5000": "U"}
    assert sizes.of_document(doc).rounds == 5000


def test_too_many_games_for_one_player_names_the_player():
    games = [{"white": "p0", "black": f"p{1 + k % 3}", "result": "1-0"} for k in range(51)]
    found = sizes.of_document(document(4, games))
    assert (found.most_games, found.busiest) == (51, "p0")
    with use("en"), pytest.raises(AboveBound) as err:
        check_sizes(found, "$")
    assert err.value.location == "$.games"
    assert "51 games of player p0, above the bound of 50 games per player" in str(err.value)
    with use("de"), pytest.raises(AboveBound) as err:
        check_sizes(found, "$")
    assert "51 Partien von Spieler p0, über der Obergrenze von 50 Partien je Spieler" in str(
        err.value
    )
    assert [a.bound for a in err.value.above] == [GAMES_PER_PLAYER]


def test_a_file_of_3000_players_without_games_is_refused():
    parsed = trf.parse(trf_file(3000, played=False), "nobody.trf")
    with use("en"), pytest.raises(AboveBound) as err:
        check_sizes(sizes.of_file(parsed), parsed.source)
    assert "3000 players without a game, above the bound of 500 per tournament" in str(err.value)
    assert [a.bound for a in err.value.above] == [WITHOUT_GAME]


def test_a_file_names_its_busiest_player_by_start_rank_and_name():
    parsed = trf.parse(trf_file(4), "small.trf")
    found = sizes.of_file(parsed)
    assert (found.players, found.rounds, found.most_games, found.without_game) == (4, 1, 1, 0)
    assert found.busiest == "1 (Spieler1, Paul)"
    assert ROUNDS.high >= 15  # a long Swiss passes


# -- the command line ----------------------------------------------------------------------------
def _counts(url) -> tuple[int, int, int]:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as conn:
        out = tuple(
            conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("tournaments", "participants", "audit_log")
        )
    engine.dispose()
    return out  # type: ignore[return-value]


def _allowed(url) -> Any:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as conn:
        entry = conn.execute(
            text("SELECT actor, entity_id, details FROM audit_log "
                 "WHERE action = 'above size bounds'")
        ).one()  # fmt: skip
    engine.dispose()
    return entry


def test_cli_refuses_100000_players_in_one_line_in_the_users_language(scratch_db, tmp_path):
    from tests.conftest import at_head

    at_head(scratch_db)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document(100_000)))
    before = _counts(scratch_db)
    started = time.perf_counter()
    out = run(["tournament", "add", str(path)], scratch_db, lang=None)  # German by default
    assert time.perf_counter() - started < 10  # refused before the players are read
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "big.json: $.players: 100000 Spieler, über der Obergrenze von 5000" in out.stderr
    english = run(["--lang", "en", "tournament", "add", str(path)], scratch_db)
    assert english.returncode == 2
    assert "100000 players, above the bound of 5000 players per tournament" in english.stderr
    assert "--allow-large" in english.stderr
    assert _counts(scratch_db) == before  # nothing written


def test_cli_allow_large_goes_above_the_bound_and_is_audited(scratch_db, tmp_path: Path):
    from tests.conftest import at_head

    at_head(scratch_db)
    path = tmp_path / "large.json"
    path.write_text(json.dumps(document(5001)))
    assert run(["tournament", "add", str(path)], scratch_db).returncode == 2
    before = _counts(scratch_db)
    out = run(["tournament", "add", str(path), "--allow-large"], scratch_db)
    assert out.returncode == 0, out.stderr
    tournaments, participants, _ = _counts(scratch_db)
    assert (tournaments, participants) == (before[0] + 1, before[1] + 5001)
    entry = _allowed(scratch_db)
    assert entry.actor == "cli" and entry.entity_id == "BIG-1"
    assert entry.details["allowed"][0] == {"bound": "players", "high": 5000, "found": 5001}


@pytest.mark.slow
def test_cli_allow_large_stores_a_100000_player_submission(scratch_db, tmp_path: Path):
    """The override holds for the probe's size itself (storing 100,000 participants takes
    most of a minute: the slow tier)."""
    from tests.conftest import at_head

    at_head(scratch_db)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document(100_000)))
    out = run(["tournament", "add", str(path), "--allow-large"], scratch_db)
    assert out.returncode == 0, out.stderr
    assert _counts(scratch_db)[1] == 100_000
    assert _allowed(scratch_db).details["allowed"][0]["found"] == 100_000


def test_cli_import_refuses_a_file_of_3000_players_without_games(scratch_db, tmp_path: Path):
    from tests.conftest import at_head

    at_head(scratch_db)
    path = tmp_path / "nobody.trf"
    path.write_text(trf_file(3000, played=False))
    out = run(["--lang", "en", "tournament", "import", str(path), "--id", "NOBODY",
               "--vkz", "000"], scratch_db)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "nobody.trf: 3000 players without a game, above the bound of 500" in out.stderr
    assert _counts(scratch_db)[0] == 0


def test_cli_correct_refuses_too_many_games_for_one_player(scratch_db, tmp_path: Path):
    from tests.conftest import at_head

    at_head(scratch_db)
    path = tmp_path / "small.json"
    path.write_text(json.dumps(document(4)))
    assert run(["tournament", "add", str(path)], scratch_db).returncode == 0
    before = _counts(scratch_db)
    games = [{"white": "p0", "black": f"p{1 + k % 3}", "result": "1-0"} for k in range(60)]
    path.write_text(json.dumps(document(4, games)))
    out = run(["--lang", "en", "tournament", "correct", "BIG-1", str(path)], scratch_db)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1
    assert "small.json: $.games: 60 games of player p0, above the bound of 50 games" in out.stderr
    assert _counts(scratch_db) == before  # the correction wrote nothing
    allowed = run(["tournament", "correct", "BIG-1", str(path), "--allow-large"], scratch_db)
    assert allowed.returncode == 0, allowed.stderr
    entry = _allowed(scratch_db)
    assert entry.details["allowed"] == [{"bound": "games per player", "high": 50, "found": 60}]
