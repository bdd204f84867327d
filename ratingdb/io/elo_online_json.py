"""JSON input of the online Elo rules (players' ratings and timed games; docs/rules-elo.md).

Every problem is an :class:`InputError` naming the JSON path (``$`` the document root,
``$[2]`` the third element of an array). Checks: types and required fields; ratings
integers 1..4000; ``games_before`` an integer >= 0; unique player ids and game ids;
games between two different known players with a known result string and an ``end``
that is an ISO date-time ``YYYY-MM-DDTHH:MM[:SS[.ffffff]]`` with an optional ``Z`` or
``+HH:MM`` offset (no offset = UTC). Unknown keys are ignored. The messages are in the
language in force.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _
from ratingdb.io.evaluate_json import (
    _array,
    _check_rating,
    _identifier,
    _int,
    _object,
    _optional_string,
    _required,
    game_core,
    json_kind,
    negative,
    parse_items,
    unique_players,
)
from ratingdb.rules.elo_online.model import OnlineGameInput, OnlineInput, OnlinePlayerInput

_ISO_DATETIME = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?$"
)


#: the refusal of an empty array of inputs
NO_INPUT = N_("the array holds no input")


def parse_document(data: Any) -> tuple[list[OnlineInput], bool]:
    """An input object or an array of them; returns (inputs, was_array)."""
    return parse_items(data, parse_input, NO_INPUT)


def parse_input(data: Any, path: str = "$") -> OnlineInput:
    obj = _object(data, path)
    raw_id = obj.get("id")
    input_id = None if raw_id is None else _identifier(raw_id, f"{path}.id")
    players_raw = _array(_required(obj, "players", path), f"{path}.players")
    games_raw = _array(obj.get("games", []), f"{path}.games")

    players, seen = unique_players(players_raw, path, _player)

    games: list[OnlineGameInput] = []
    game_ids: dict[str, int] = {}
    for k, raw in enumerate(games_raw):
        g_path = f"{path}.games[{k}]"
        game = _game(raw, g_path, seen)
        if game.id is not None:
            if game.id in game_ids:
                raise InputError(
                    f"{g_path}.id",
                    _("duplicate game id %(id)r (also games[%(other)d])")
                    % {"id": game.id, "other": game_ids[game.id]},
                )
            game_ids[game.id] = k
        games.append(game)
    return OnlineInput(
        players=tuple(players),
        games=tuple(games),
        id=input_id,
        name=_optional_string(obj.get("name"), f"{path}.name"),
    )


def _player(data: Any, path: str) -> OnlinePlayerInput:
    obj = _object(data, path)
    player_id = _identifier(_required(obj, "id", path), f"{path}.id")
    rating = _int(_required(obj, "rating", path), f"{path}.rating")
    _check_rating(rating, f"{path}.rating")
    games_before = _int(obj.get("games_before", 0), f"{path}.games_before")
    if games_before < 0:
        raise InputError(f"{path}.games_before", negative(games_before))
    return OnlinePlayerInput(
        id=player_id,
        rating=rating,
        games_before=games_before,
        name=_optional_string(obj.get("name"), f"{path}.name"),
    )


def _game(data: Any, path: str, ids: dict[str, int]) -> OnlineGameInput:
    obj, white, black, result = game_core(data, path, ids)
    raw_id = obj.get("id")
    game_id = None if raw_id is None else _identifier(raw_id, f"{path}.id")
    end = _datetime(_required(obj, "end", path), f"{path}.end")
    return OnlineGameInput(white=white, black=black, result=result, end=end, id=game_id)


def _datetime(value: Any, path: str) -> datetime:
    if not isinstance(value, str):
        raise InputError(
            path,
            _("expected a date-time YYYY-MM-DDTHH:MM:SS, got %(kind)s")
            % {"kind": json_kind(value)},
        )
    if not _ISO_DATETIME.match(value):
        raise InputError(
            path,
            _("not a date-time (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM]): %(value)r") % {"value": value},
        )
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InputError(path, _("not a date-time: %(value)r") % {"value": value}) from None
