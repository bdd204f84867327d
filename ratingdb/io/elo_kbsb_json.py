"""JSON input of the KBSB Elo rules (one rating period; docs/rules-elo.md).

Every problem is an :class:`InputError` naming the JSON path (``$`` the document root,
``$[2]`` the third period of an array). Checks: types and required fields; ISO dates
(YYYY-MM-DD) with end >= start and game dates inside the period; ratings null or integers
1..4000; ``games_before`` an integer >= 0; unique player ids; ``history`` consistent with
``games_before`` (opponents_sum between 1 and 4000 per game, score a multiple of 0.5 not
above games_before) and present for a player without rating who has games before; games
between two different known players with a known result string. Unknown keys are ignored.
Checks that depend on the parameters (a player with 20 or more games before needs a
rating) are the rules' (RulesError). The messages are in the language in force.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, ngettext
from ratingdb.io.evaluate_json import (
    MAX_RATING,
    _array,
    _check_rating,
    _date,
    _identifier,
    _int,
    _object,
    _optional_int,
    _optional_string,
    _required,
    check_birth_year,
    end_before_start,
    game_core,
    json_kind,
    negative,
    parse_items,
    unique_players,
)
from ratingdb.rules.elo_kbsb.model import (
    KbsbGameInput,
    KbsbHistory,
    KbsbPeriodInput,
    KbsbPlayerInput,
    PeriodInfo,
)

#: the refusal of an empty array of rating periods
NO_PERIOD = N_("the array holds no rating period")


def parse_document(data: Any) -> tuple[list[KbsbPeriodInput], bool]:
    """A period object or an array of them; returns (periods, was_array)."""
    return parse_items(data, parse_period, NO_PERIOD)


def parse_period(data: Any, path: str = "$") -> KbsbPeriodInput:
    obj = _object(data, path)
    info = _period_info(_required(obj, "period", path), f"{path}.period")
    players_raw = _array(_required(obj, "players", path), f"{path}.players")
    games_raw = _array(obj.get("games", []), f"{path}.games")

    players, seen = unique_players(
        players_raw, path, lambda raw, p_path: _player(raw, p_path, info.end)
    )
    games = [_game(raw, f"{path}.games[{k}]", seen, info) for k, raw in enumerate(games_raw)]
    return KbsbPeriodInput(info, tuple(players), tuple(games))


def _period_info(data: Any, path: str) -> PeriodInfo:
    obj = _object(data, path)
    start = _date(_required(obj, "start", path), f"{path}.start")
    end = _date(_required(obj, "end", path), f"{path}.end")
    if end < start:
        raise InputError(f"{path}.end", end_before_start(end, start))
    return PeriodInfo(
        id=_identifier(_required(obj, "id", path), f"{path}.id"),
        name=_optional_string(obj.get("name"), f"{path}.name"),
        start=start,
        end=end,
    )


def _player(data: Any, path: str, end: date) -> KbsbPlayerInput:
    obj = _object(data, path)
    player_id = _identifier(_required(obj, "id", path), f"{path}.id")
    rating = _optional_int(obj.get("rating"), f"{path}.rating")
    if rating is not None:
        _check_rating(rating, f"{path}.rating")
    games_before = _int(_required(obj, "games_before", path), f"{path}.games_before")
    if games_before < 0:
        raise InputError(f"{path}.games_before", negative(games_before))
    birth_year = _optional_int(obj.get("birth_year"), f"{path}.birth_year")
    check_birth_year(birth_year, f"{path}.birth_year", end.year)
    history_raw = obj.get("history")
    history = (
        None if history_raw is None else _history(history_raw, f"{path}.history", games_before)
    )
    if rating is None and games_before > 0 and history is None:
        raise InputError(
            f"{path}.history",
            _(
                "missing: a player without rating who has played games before needs the "
                "formula-1 history (opponents_sum, score)"
            ),
        )
    return KbsbPlayerInput(
        id=player_id,
        games_before=games_before,
        rating=rating,
        name=_optional_string(obj.get("name"), f"{path}.name"),
        birth_year=birth_year,
        history=history,
    )


def _history(data: Any, path: str, games_before: int) -> KbsbHistory:
    obj = _object(data, path)
    total = _int(_required(obj, "opponents_sum", path), f"{path}.opponents_sum")
    if not games_before <= total <= MAX_RATING * games_before:
        raise InputError(
            f"{path}.opponents_sum",
            ngettext(
                "%(total)d is not a sum of %(games)d rating 1..%(high)d",
                "%(total)d is not a sum of %(games)d ratings 1..%(high)d",
                games_before,
            )
            % {"total": total, "games": games_before, "high": MAX_RATING},
        )
    raw_score = _required(obj, "score", path)
    if isinstance(raw_score, bool) or not isinstance(raw_score, int | float):
        raise InputError(
            f"{path}.score", _("expected a number, got %(kind)s") % {"kind": json_kind(raw_score)}
        )
    if not float(raw_score * 2).is_integer():
        raise InputError(
            f"{path}.score",
            _("a score must be a multiple of 0.5, got %(score)s") % {"score": raw_score},
        )
    score = Decimal(int(raw_score * 2)) / 2
    if not 0 <= score <= games_before:
        raise InputError(
            f"{path}.score",
            _("a score must be between 0 and games_before, got %(score)s") % {"score": raw_score},
        )
    return KbsbHistory(total, score)


def _game(data: Any, path: str, ids: dict[str, int], period: PeriodInfo) -> KbsbGameInput:
    obj, white, black, result = game_core(data, path, ids)
    played = obj.get("date")
    played_on = None if played is None else _date(played, f"{path}.date")
    if played_on is not None and not period.start <= played_on <= period.end:
        raise InputError(
            f"{path}.date",
            _("game dated %(date)s outside the period %(start)s .. %(end)s")
            % {"date": played_on, "start": period.start, "end": period.end},
        )
    return KbsbGameInput(white=white, black=black, result=result, date=played_on)
