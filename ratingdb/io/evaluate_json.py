"""The ``ratingdb evaluate`` JSON contract (docs/DESIGN.md): parsing with validation, and output.

Every problem is reported as an :class:`InputError` naming the JSON path (``$`` is the
document root, ``$[2]`` the third tournament of an array) and what is wrong. Checks:
types and required fields; ISO dates (YYYY-MM-DD) from the earliest plausible date
(1950-01-01 unless configured) to 2999-12-31 with end >= start; ratings and
residual-game opponent ratings integers 1..4000; indexes 0..999 (WO 2.2.4); rounds
0..9999; scores 0, 0.5 or 1; unique player ids; games between two different known players
with a known result string; residual games not dated after the tournament's end; a match
(Zweikampf) has exactly two players.
Unknown keys are ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from ratingdb.errors import InputError
from ratingdb.plausibility import INDEX, RATING, ROUND, bounds
from ratingdb.rules.model import (
    KINDS,
    RATING_SOURCES,
    RESULTS,
    GameInput,
    PlayerInput,
    ResidualGame,
    TournamentInfo,
    TournamentInput,
)

T = TypeVar("T")
P = TypeVar("P")
_SCORES = {0: Decimal("0.0"), 0.5: Decimal("0.5"), 1: Decimal("1.0")}
#: no chess rating system goes anywhere near this; larger numbers are typing errors
MAX_RATING = RATING.high
#: the DWZ index counts evaluations (WO 2.2.4); the DSB's lists show at most three digits
MAX_INDEX = INDEX.high
#: no tournament has more rounds (TRF's round columns stop far earlier)
MAX_ROUND = ROUND.high
#: the last date a document may carry: any plan fits before it, and the date arithmetic
#: after it (residual games valid 2 years, retention 5 years) stays far from ``date.max``;
#: the first is the configured earliest plausible date (:mod:`ratingdb.plausibility`)
LAST_DATE = date(2999, 12, 31)
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def parse_items(data: Any, parse_one: Callable[[Any, str], T], what: str) -> tuple[list[T], bool]:
    """One object or a non-empty array of them (``what`` names one in the error)."""
    if isinstance(data, list):
        if not data:
            raise InputError("$", f"the array holds no {what}")
        return [parse_one(item, f"$[{k}]") for k, item in enumerate(data)], True
    return [parse_one(data, "$")], False


def parse_document(data: Any) -> tuple[list[TournamentInput], bool]:
    """A tournament object or an array of them; returns (tournaments, was_array)."""
    return parse_items(data, parse_tournament, "tournament")


def unique_players(
    raw_players: list[Any], path: str, parse_one: Callable[[Any, str], P]
) -> tuple[list[P], dict[str, int]]:
    """Parse ``players[k]`` with ``parse_one``; a repeated ``id`` is an error. Returns the
    players and their positions by id."""
    players: list[P] = []
    seen: dict[str, int] = {}
    for k, raw in enumerate(raw_players):
        p_path = f"{path}.players[{k}]"
        player = parse_one(raw, p_path)
        pid = player.id  # type: ignore[attr-defined]
        if pid in seen:
            raise InputError(
                f"{p_path}.id", f"duplicate player id {pid!r} (also players[{seen[pid]}])"
            )
        seen[pid] = k
        players.append(player)
    return players, seen


def parse_tournament(data: Any, path: str = "$") -> TournamentInput:
    obj = _object(data, path)
    info = _tournament_info(_required(obj, "tournament", path), f"{path}.tournament")
    players_raw = _array(_required(obj, "players", path), f"{path}.players")
    games_raw = _array(obj.get("games", []), f"{path}.games")

    players, seen = unique_players(
        players_raw, path, lambda raw, p_path: _player(raw, p_path, info.end)
    )
    if info.kind == "match" and len(players) != 2:
        raise InputError(
            f"{path}.players", f"a match (Zweikampf) has exactly 2 players, got {len(players)}"
        )

    games = [_game(raw, f"{path}.games[{k}]", seen) for k, raw in enumerate(games_raw)]
    return TournamentInput(info, tuple(players), tuple(games))


def _tournament_info(data: Any, path: str) -> TournamentInfo:
    obj = _object(data, path)
    start = _date(_required(obj, "start", path), f"{path}.start")
    end = _date(_required(obj, "end", path), f"{path}.end")
    if end < start:
        raise InputError(f"{path}.end", f"end {end} is before start {start}")
    kind = obj.get("kind", "individual")
    if kind not in KINDS:
        raise InputError(f"{path}.kind", f"unknown kind {kind!r} (expected {', '.join(KINDS)})")
    return TournamentInfo(
        id=_identifier(_required(obj, "id", path), f"{path}.id"),
        name=_optional_string(obj.get("name"), f"{path}.name"),
        start=start,
        end=end,
        vkz=_optional_string(obj.get("vkz"), f"{path}.vkz"),
        kind=kind,
    )


def _player(data: Any, path: str, end: date) -> PlayerInput:
    obj = _object(data, path)
    rating = _optional_int(obj.get("rating"), f"{path}.rating")
    if rating is not None:
        _check_rating(rating, f"{path}.rating")
    index = _optional_int(obj.get("index"), f"{path}.index")
    if index is not None and not 0 <= index <= MAX_INDEX:
        raise InputError(f"{path}.index", f"an index is 0 to {MAX_INDEX}, got {index}")
    source = obj.get("rating_source")
    if source is not None and source not in RATING_SOURCES:
        raise InputError(
            f"{path}.rating_source",
            f"unknown rating source {source!r} (expected {', '.join(RATING_SOURCES)} or null)",
        )
    if rating is not None and index is None and source in (None, "dwz"):
        raise InputError(f"{path}.index", "a DWZ rating needs its index")
    birth_year = _optional_int(obj.get("birth_year"), f"{path}.birth_year")
    if birth_year is not None and not 1800 <= birth_year <= end.year:
        raise InputError(
            f"{path}.birth_year", f"birth year {birth_year} is not between 1800 and {end.year}"
        )
    residual_raw = obj.get("residual_games")
    residual_raw = [] if residual_raw is None else _array(residual_raw, f"{path}.residual_games")
    return PlayerInput(
        id=_identifier(_required(obj, "id", path), f"{path}.id"),
        name=_optional_string(obj.get("name"), f"{path}.name"),
        rating=rating,
        index=index,
        birth_year=birth_year,
        member=_bool(obj.get("member", True), f"{path}.member"),
        rating_source=source,
        computer=_bool(obj.get("computer", False), f"{path}.computer"),
        club_vkz=_optional_string(obj.get("club_vkz"), f"{path}.club_vkz"),
        residual_games=tuple(
            _residual(raw, f"{path}.residual_games[{k}]", end) for k, raw in enumerate(residual_raw)
        ),
    )


def _residual(data: Any, path: str, end: date) -> ResidualGame:
    obj = _object(data, path)
    rating = _int(_required(obj, "opponent_rating", path), f"{path}.opponent_rating")
    _check_rating(rating, f"{path}.opponent_rating")
    played = _date(_required(obj, "date", path), f"{path}.date")
    if played > end:
        raise InputError(
            f"{path}.date", f"residual game dated {played} after the tournament's end {end}"
        )
    return ResidualGame(rating, _score(_required(obj, "score", path), f"{path}.score"), played)


def game_core(data: Any, path: str, ids: dict[str, int]) -> tuple[dict[str, Any], str, str, str]:
    """A game object's white, black (known, different players) and result string; every
    family's game reader starts here. Returns (object, white, black, result)."""
    obj = _object(data, path)
    white = _identifier(_required(obj, "white", path), f"{path}.white")
    black = _identifier(_required(obj, "black", path), f"{path}.black")
    for side, pid in (("white", white), ("black", black)):
        if pid not in ids:
            raise InputError(f"{path}.{side}", f"unknown player {pid!r}")
    if white == black:
        raise InputError(path, f"player {white!r} cannot play against himself")
    result = _required(obj, "result", path)
    if not isinstance(result, str) or result not in RESULTS:
        raise InputError(
            f"{path}.result",
            f"unknown result {result!r} (expected {', '.join(RESULTS)})",
        )
    return obj, white, black, result


def _game(data: Any, path: str, ids: dict[str, int]) -> GameInput:
    obj, white, black, result = game_core(data, path, ids)
    round_no = _optional_int(obj.get("round"), f"{path}.round")
    if round_no is not None and not 0 <= round_no <= MAX_ROUND:
        raise InputError(f"{path}.round", f"a round number is 0 to {MAX_ROUND}, got {round_no}")
    return GameInput(white=white, black=black, result=result, round=round_no)


# -- small typed readers ----------------------------------------------------------------
def _check_rating(rating: int, path: str) -> None:
    if rating <= 0:
        raise InputError(path, f"a rating must be positive, got {rating}")
    if rating > MAX_RATING:
        raise InputError(path, f"a rating must be at most {MAX_RATING}, got {rating}")


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(path, f"expected an object, got {json_kind(value)}")
    return value


def _array(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(path, f"expected an array, got {json_kind(value)}")
    return value


def _required(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj or obj[key] is None:
        raise InputError(f"{path}.{key}", "missing")
    return obj[key]


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, f"expected an integer, got {json_kind(value)}")
    if isinstance(value, float):  # 1800.0, 1.8e3: a count or a rating is written as digits
        raise InputError(path, f"expected an integer (digits only), got {value}")
    return value


def _optional_int(value: Any, path: str) -> int | None:
    return None if value is None else _int(value, path)


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(path, f"expected true or false, got {json_kind(value)}")
    return value


def _identifier(value: Any, path: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(path, f"expected a string id, got {json_kind(value)}")
    text = str(value)
    if not text:
        raise InputError(path, "an id cannot be empty")
    return text


def _optional_string(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(path, f"expected a string, got {json_kind(value)}")
    return value


def _date(value: Any, path: str) -> date:
    if not isinstance(value, str):
        raise InputError(path, f"expected a date YYYY-MM-DD, got {json_kind(value)}")
    if not _ISO_DATE.match(value):
        raise InputError(path, f"not a date (YYYY-MM-DD): {value!r}")
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InputError(path, f"not a date (YYYY-MM-DD): {value!r}") from None
    earliest = bounds().earliest
    if not earliest <= day <= LAST_DATE:
        raise InputError(path, f"{day} is not plausible (from {earliest} to {LAST_DATE})")
    return day


def _score(value: Any, path: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in _SCORES:
        raise InputError(path, f"a score must be 0, 0.5 or 1, got {value!r}")
    return _SCORES[value]


def json_kind(value: Any) -> str:
    """What a JSON value is, for a message: ``null``, ``true``, ``the number -5``, …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def dump_results(results: list[dict[str, Any]], was_array: bool) -> str:
    """JSON text for stdout: one object, or an array in input order."""
    payload: Any = results if was_array else results[0]
    return json.dumps(payload, indent=1, ensure_ascii=False)
