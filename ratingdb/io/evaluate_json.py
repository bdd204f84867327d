"""The ``ratingdb evaluate`` JSON contract (docs/DESIGN.md): parsing with validation, and output.

Every problem is reported as an :class:`InputError` naming the JSON path (``$`` is the
document root, ``$[2]`` the third tournament of an array) and what is wrong. Checks:
types and required fields; ISO dates (YYYY-MM-DD) from the earliest plausible date
(1950-01-01 unless configured) to 2999-12-31 with end >= start; ratings and
residual-game opponent ratings integers 1..4000; indexes 0..999 (WO 2.2.4); rounds
0..9999; scores 0, 0.5 or 1; unique player ids; games between two different known players
with a known result string; residual games not dated after the tournament's end; a match
(Zweikampf) has exactly two players.
Unknown keys are ignored. The messages are in the language in force (:mod:`ratingdb.i18n`);
the paths and the values quoted from the document stay as the document writes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _
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


def parse_items(data: Any, parse_one: Callable[[Any, str], T], empty: str) -> tuple[list[T], bool]:
    """One object or a non-empty array of them; ``empty`` (an English message marked with
    ``N_``, translated here) refuses an empty array."""
    if isinstance(data, list):
        if not data:
            raise InputError("$", _(empty))
        return [parse_one(item, f"$[{k}]") for k, item in enumerate(data)], True
    return [parse_one(data, "$")], False


#: the refusal of an empty array of tournaments
NO_TOURNAMENT = N_("the array holds no tournament")


def parse_document(data: Any) -> tuple[list[TournamentInput], bool]:
    """A tournament object or an array of them; returns (tournaments, was_array)."""
    return parse_items(data, parse_tournament, NO_TOURNAMENT)


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
                f"{p_path}.id",
                _("duplicate player id %(id)r (also players[%(other)d])")
                % {"id": pid, "other": seen[pid]},
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
            f"{path}.players",
            _("a match (Zweikampf) has exactly 2 players, got %(count)d") % {"count": len(players)},
        )

    games = [_game(raw, f"{path}.games[{k}]", seen) for k, raw in enumerate(games_raw)]
    return TournamentInput(info, tuple(players), tuple(games))


def _tournament_info(data: Any, path: str) -> TournamentInfo:
    obj = _object(data, path)
    start = _date(_required(obj, "start", path), f"{path}.start")
    end = _date(_required(obj, "end", path), f"{path}.end")
    if end < start:
        raise InputError(f"{path}.end", end_before_start(end, start))
    kind = obj.get("kind", "individual")
    if kind not in KINDS:
        raise InputError(
            f"{path}.kind",
            _("unknown kind %(kind)r (expected %(kinds)s)")
            % {"kind": kind, "kinds": ", ".join(KINDS)},
        )
    return TournamentInfo(
        id=_identifier(_required(obj, "id", path), f"{path}.id"),
        name=_optional_string(obj.get("name"), f"{path}.name"),
        start=start,
        end=end,
        vkz=_optional_string(obj.get("vkz"), f"{path}.vkz"),
        kind=kind,
    )


def end_before_start(end: date, start: date) -> str:
    """Why an end before the start is refused (tournaments and rating periods)."""
    return _("end %(end)s is before start %(start)s") % {"end": end, "start": start}


def check_birth_year(birth_year: int | None, path: str, last: int) -> None:
    """A birth year from 1800 to ``last`` (the year the tournament or period ends)."""
    if birth_year is not None and not 1800 <= birth_year <= last:
        raise InputError(
            path,
            _("birth year %(year)d is not between 1800 and %(last)d")
            % {"year": birth_year, "last": last},
        )


def negative(count: int) -> str:
    """Why a negative count (``games_before``) is refused."""
    return _("cannot be negative, got %(count)d") % {"count": count}


def _player(data: Any, path: str, end: date) -> PlayerInput:
    obj = _object(data, path)
    rating = _optional_int(obj.get("rating"), f"{path}.rating")
    if rating is not None:
        _check_rating(rating, f"{path}.rating")
    index = _optional_int(obj.get("index"), f"{path}.index")
    if index is not None and not 0 <= index <= MAX_INDEX:
        raise InputError(
            f"{path}.index",
            _("an index is 0 to %(high)d, got %(index)d") % {"high": MAX_INDEX, "index": index},
        )
    source = obj.get("rating_source")
    if source is not None and source not in RATING_SOURCES:
        raise InputError(
            f"{path}.rating_source",
            _("unknown rating source %(source)r (expected %(sources)s or null)")
            % {"source": source, "sources": ", ".join(RATING_SOURCES)},
        )
    if rating is not None and index is None and source in (None, "dwz"):
        raise InputError(f"{path}.index", _("a DWZ rating needs its index"))
    birth_year = _optional_int(obj.get("birth_year"), f"{path}.birth_year")
    check_birth_year(birth_year, f"{path}.birth_year", end.year)
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
            f"{path}.date",
            _("residual game dated %(date)s after the tournament's end %(end)s")
            % {"date": played, "end": end},
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
            raise InputError(f"{path}.{side}", _("unknown player %(id)r") % {"id": pid})
    if white == black:
        raise InputError(path, _("player %(id)r cannot play against himself") % {"id": white})
    result = _required(obj, "result", path)
    if not isinstance(result, str) or result not in RESULTS:
        raise InputError(
            f"{path}.result",
            _("unknown result %(result)r (expected %(results)s)")
            % {"result": result, "results": ", ".join(RESULTS)},
        )
    return obj, white, black, result


def _game(data: Any, path: str, ids: dict[str, int]) -> GameInput:
    obj, white, black, result = game_core(data, path, ids)
    round_no = _optional_int(obj.get("round"), f"{path}.round")
    if round_no is not None and not 0 <= round_no <= MAX_ROUND:
        raise InputError(
            f"{path}.round",
            _("a round number is 0 to %(high)d, got %(round)d")
            % {"high": MAX_ROUND, "round": round_no},
        )
    return GameInput(white=white, black=black, result=result, round=round_no)


# -- small typed readers ----------------------------------------------------------------
def _check_rating(rating: int, path: str) -> None:
    if rating <= 0:
        raise InputError(path, _("a rating must be positive, got %(rating)d") % {"rating": rating})
    if rating > MAX_RATING:
        raise InputError(
            path,
            _("a rating must be at most %(high)d, got %(rating)d")
            % {"high": MAX_RATING, "rating": rating},
        )


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(path, _("expected an object, got %(kind)s") % {"kind": json_kind(value)})
    return value


def _array(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(path, _("expected an array, got %(kind)s") % {"kind": json_kind(value)})
    return value


def _required(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj or obj[key] is None:
        raise InputError(f"{path}.{key}", _("missing"))
    return obj[key]


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, _("expected an integer, got %(kind)s") % {"kind": json_kind(value)})
    if isinstance(value, float):  # 1800.0, 1.8e3: a count or a rating is written as digits
        raise InputError(
            path, _("expected an integer (digits only), got %(value)s") % {"value": value}
        )
    return value


def _optional_int(value: Any, path: str) -> int | None:
    return None if value is None else _int(value, path)


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(
            path, _("expected true or false, got %(kind)s") % {"kind": json_kind(value)}
        )
    return value


def _identifier(value: Any, path: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(path, _("expected a string id, got %(kind)s") % {"kind": json_kind(value)})
    text = str(value)
    if not text:
        raise InputError(path, _("an id cannot be empty"))
    return text


def _optional_string(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(path, _("expected a string, got %(kind)s") % {"kind": json_kind(value)})
    return value


def _date(value: Any, path: str) -> date:
    if not isinstance(value, str):
        raise InputError(
            path, _("expected a date YYYY-MM-DD, got %(kind)s") % {"kind": json_kind(value)}
        )
    not_a_date = _("not a date (YYYY-MM-DD): %(value)r") % {"value": value}
    if not _ISO_DATE.match(value):
        raise InputError(path, not_a_date)
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InputError(path, not_a_date) from None
    earliest = bounds().earliest
    if not earliest <= day <= LAST_DATE:
        raise InputError(
            path,
            _("%(day)s is not plausible (from %(earliest)s to %(last)s)")
            % {"day": day, "earliest": earliest, "last": LAST_DATE},
        )
    return day


def _score(value: Any, path: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in _SCORES:
        raise InputError(path, _("a score must be 0, 0.5 or 1, got %(value)r") % {"value": value})
    return _SCORES[value]


def json_kind(value: Any) -> str:
    """What a JSON value is, for a message, in the language in force: ``null``, ``a
    boolean``, ``the number -5``, ``the string 'x'``, ``an array``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _("a boolean")
    if isinstance(value, int | float):
        return _("the number %(value)s") % {"value": value}
    if isinstance(value, str):
        return _("the string %(value)r") % {"value": value}
    if isinstance(value, list):
        return _("an array")
    return _("an object")


def dump_results(results: list[dict[str, Any]], was_array: bool) -> str:
    """JSON text for stdout: one object, or an array in input order."""
    payload: Any = results if was_array else results[0]
    return json.dumps(payload, indent=1, ensure_ascii=False)
