"""The DWZ calculator (``ratingdb calc``, ``/rechner``, ``POST /api/calc``): one player's games
against opponents of given ratings, evaluated under the Rechenmodul valid on a date.

Nothing here computes a rating. The request becomes a tournament of the ``ratingdb evaluate``
contract (docs/evaluate.md) that ends on the chosen date: the player (id ``S``) and one
participant per game (``G1``, ``G2``, ...). It is evaluated by
:func:`ratingdb.services.evaluation.evaluate_document` with the version of the database's
Rechenmodul timeline valid on that date (:meth:`ratingdb.engine.timeline.Timeline.at`, the
engine's choice by end date, WO Anhang 1.2).

A player from the database enters exactly as the engine would enter him in a tournament
ending on the date (:func:`ratingdb.engine.inputs.participant_input`): the state after his
last stored evaluation ending on or before the date (WO 6.4.2), rating adjustments up to the
day before (WO Anhang 4), his membership on the date (WO 3.4.3, 4.1.1), the expiry of an old
classic DWZ, and his valid residual games when he has no rating (WO 3.4.2, 4.1.1).

What one player's view cannot know (WO Anhang 3.3): the official result depends on the whole
tournament. Every game is a separate participant at the rating given, so no opponent gets a
first rating or a performance here, and none triggers a Sonderwertung (WO 3.6.3); an unrated
opponent must be entered with the first rating R_1 he receives (or the game left out).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _
from ratingdb.io.evaluate_json import LAST_DATE
from ratingdb.names import full_name
from ratingdb.plausibility import bounds

#: the rule families whose evaluation the calculator explains (tournament-shaped DWZ)
FAMILIES = ("dwz2026", "dwz-classic")
#: more games than any real tournament gives one player; a guard against abuse
MAX_GAMES = 200
#: ratings above this are typing errors (as in ``ratingdb evaluate``)
MAX_RATING = 4000
#: the bounds of the typed-in numbers (the OpenAPI document declares them: web/calculator.py)
RATINGS, INDICES, PLAYER_IDS = (1, MAX_RATING), (0, 999), (1, 2**31 - 1)
PLAYER_ID = "S"

_SCORES = {
    "1": Decimal("1"), "1.0": Decimal("1"), "0": Decimal("0"), "0.0": Decimal("0"),
    "0.5": Decimal("0.5"), "0,5": Decimal("0.5"), ".5": Decimal("0.5"), "½": Decimal("0.5"),
    "1/2": Decimal("0.5"), "=": Decimal("0.5"),
}  # fmt: skip
_RESULT = {Decimal("1"): "1-0", Decimal("0.5"): "1/2-1/2", Decimal("0"): "0-1"}
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)
_WHOLE = re.compile(r"^-?\d{1,12}$", re.ASCII)


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player or an opponent: a database player (``player_id``) or typed-in values."""

    player_id: int | None = None
    rating: int | None = None
    index: int | None = None
    birth_year: int | None = None


@dataclass(frozen=True, slots=True)
class CalcGame:
    opponent: Entrant
    score: Decimal


@dataclass(frozen=True, slots=True)
class CalcRequest:
    """What the user asked: the date, the player, one entry per game in playing order."""

    day: date
    player: Entrant
    games: tuple[CalcGame, ...]


@dataclass(frozen=True, slots=True)
class Seat:
    """One participant as he enters the evaluation."""

    id: str
    name: str
    player_id: int | None
    rating: int | None
    index: int | None
    birth_year: int | None = None
    member: bool = True
    rating_source: str | None = None
    residual_games: tuple[dict[str, Any], ...] = ()


@dataclass
class Calculation:
    """The evaluated request: the Rechenmodul used, the participants, the document given to
    the evaluation, its result and the notes a user should read."""

    request: CalcRequest
    rechenmodul: str
    family: str
    parameters: Any
    player: Seat
    opponents: list[Seat]
    document: dict[str, Any]
    result: Any
    notes: list[str] = field(default_factory=list)

    @property
    def me(self) -> Any:
        """The player's ``PlayerResult``."""
        return self.result.player(PLAYER_ID)


# -- parsing ----------------------------------------------------------------------------
def parse_score(value: Any, where: str) -> Decimal:
    """A game result from the player's view: 1, 0.5 (also ½, 1/2, 0,5) or 0."""
    key = str(value).strip() if isinstance(value, (int, float, str)) else None
    if isinstance(value, bool) or key is None or key not in _SCORES:
        raise InputError(
            where, _("a result is 1, 0.5 (or ½) or 0, got %(value)r") % {"value": value}
        )
    return _SCORES[key]


def _int(value: Any, where: str, low: int, high: int, what: str) -> int:
    if isinstance(value, str) and _WHOLE.match(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            where,
            _("%(what)s must be a whole number, got %(value)r") % {"what": _(what), "value": value},
        )
    if not low <= value <= high:
        raise InputError(
            where,
            _("%(what)s must be between %(low)s and %(high)s, got %(value)s")
            % {"what": _(what), "low": low, "high": high, "value": value},
        )
    return value


def _present(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key)
    return value is not None and not (isinstance(value, str) and not value.strip())


def parse_day(value: Any, where: str, today: date) -> date:
    """A date ``YYYY-MM-DD`` (missing or empty: ``today``)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return today
    if not isinstance(value, str) or not _ISO.match(value.strip()):
        raise InputError(where, _("a date is written YYYY-MM-DD, got %(value)r") % {"value": value})
    try:
        day = date.fromisoformat(value.strip())
    except ValueError:
        raise InputError(where, _("no such day: %(value)s") % {"value": value}) from None
    earliest = bounds().earliest  # the evaluation's own bounds (ratingdb/plausibility.py)
    if not earliest <= day <= LAST_DATE:
        raise InputError(
            where,
            _("a date from %(first)s to %(last)s, got %(value)s")
            % {"first": earliest, "last": LAST_DATE, "value": value},
        )
    return day


def _entrant(obj: Any, where: str, *, own: bool, year: int) -> Entrant:
    if not isinstance(obj, dict):
        raise InputError(
            where, _("an object expected, got %(type)s") % {"type": type(obj).__name__}
        )
    typed = [k for k in ("rating", "index", "birth_year") if _present(obj, k)]
    if _present(obj, "id"):
        if typed:
            raise InputError(
                f"{where}.{typed[0]}", _("give either a database player's id or typed-in values")
            )
        return Entrant(player_id=_int(obj["id"], f"{where}.id", *PLAYER_IDS, N_("a player id")))
    rating = index = birth_year = None
    if _present(obj, "rating"):
        rating = _int(obj["rating"], f"{where}.rating", *RATINGS, N_("a rating"))
    if _present(obj, "index"):
        if rating is None:
            raise InputError(f"{where}.index", _("an index needs a rating"))
        index = _int(obj["index"], f"{where}.index", *INDICES, N_("an index"))
    if own and rating is not None and index is None:
        raise InputError(
            f"{where}.index",
            _("the DWZ index is needed for the development factor (WO Anhang 1.3)"),
        )
    if not own and rating is None:
        raise InputError(
            f"{where}.rating",
            _(
                "an opponent needs a rating or a database id; an unrated opponent counts only "
                "with the first rating R_1 he receives (WO Anhang 3.3)"
            ),
        )
    if own and _present(obj, "birth_year"):
        birth_year = _int(obj["birth_year"], f"{where}.birth_year", 1900, year, N_("a birth year"))
    return Entrant(rating=rating, index=index, birth_year=birth_year)


def parse_request(data: Any, today: date) -> CalcRequest:
    """The JSON request (docs/calculator.md); an InputError names the JSON path.

    ``{"date": "2026-11-25", "player": {"id": 17} | {"rating": 1500, "index": 10,
    "birth_year": 1990}, "opponents": [{"rating": 1600, "index": 5, "result": 1},
    {"id": 42, "result": 0.5}]}``; ``date`` defaults to ``today``, a player without
    ``rating`` is unrated."""
    if not isinstance(data, dict):
        raise InputError(
            "$", _("a JSON object expected, got %(kind)s") % {"kind": type(data).__name__}
        )
    day = parse_day(data.get("date"), "$.date", today)
    if "player" not in data:
        raise InputError("$.player", _("missing: a database id or rating, index and birth year"))
    player = _entrant(data["player"], "$.player", own=True, year=day.year)
    opponents = data.get("opponents")
    if not isinstance(opponents, list) or not opponents:
        raise InputError("$.opponents", _("at least one opponent with a result is needed"))
    if len(opponents) > MAX_GAMES:
        raise InputError(
            "$.opponents",
            _("at most %(most)d games, got %(count)d")
            % {"most": MAX_GAMES, "count": len(opponents)},
        )
    games = []
    for k, item in enumerate(opponents):
        where = f"$.opponents[{k}]"
        opponent = _entrant(item, where, own=False, year=day.year)
        if "result" not in item:
            raise InputError(f"{where}.result", _("missing: 1, 0.5 or 0"))
        games.append(CalcGame(opponent, parse_score(item["result"], f"{where}.result")))
    return CalcRequest(day, player, tuple(games))


# -- evaluating -------------------------------------------------------------------------
def calculate(
    session: Session, request: CalcRequest, *, published_on: date | None = None
) -> Calculation:
    """Evaluate ``request`` under the Rechenmodul the engine uses on its date.

    ``published_on``: database players must be published that day (the public web, WO
    4.1.1); None (the command line, an officer) takes any player."""
    from ratingdb.db.store import load_timeline
    from ratingdb.services.evaluation import evaluate_document

    timeline, _versions = load_timeline(session)
    modul = timeline.at(request.day)
    if modul.family not in FAMILIES:
        raise InputError(
            "$.date",
            _(
                "the Rechenmodul valid on %(day)s is %(key)s; the calculator computes DWZ "
                "(%(families)s) only"
            )
            % {"day": request.day, "key": modul.key, "families": ", ".join(FAMILIES)},
        )
    entrants = [request.player] + [g.opponent for g in request.games]
    seats = _seats(session, entrants, request.day, modul, timeline, published_on)
    player, opponents = seats[0], seats[1:]
    for k, seat in enumerate(opponents):
        if seat.rating is None:
            raise InputError(
                f"$.opponents[{k}].id",
                _(
                    "%(name)s has no DWZ on %(day)s; enter the rating he enters the calculation "
                    "with (a first rating R_1) instead (WO Anhang 3.3)"
                )
                % {"name": seat.name, "day": request.day},
            )
    document = _document(request, player, opponents)
    done = evaluate_document(document, "calculator", modul.rules, modul.parameters, modul.key)
    calc = Calculation(
        request, modul.key, modul.family, modul.parameters, player, opponents, document,
        done.result,
    )  # fmt: skip
    calc.notes = _notes(calc)
    return calc


def _seats(
    session: Session,
    entrants: list[Entrant],
    day: date,
    modul: Any,
    timeline: Any,
    published_on: date | None,
) -> list[Seat]:
    """Each entrant as he enters the evaluation; database players as the engine enters them."""
    ids = sorted({e.player_id for e in entrants if e.player_id is not None})
    found = _database_seats(session, ids, day, modul, timeline) if ids else {}
    allowed = set(found)
    if published_on is not None and ids:
        from ratingdb.queries.publication import published_players

        allowed = published_players(session, ids, published_on)
    seats = []
    for k, e in enumerate(entrants):
        sid = PLAYER_ID if k == 0 else f"G{k}"
        where = "$.player.id" if k == 0 else f"$.opponents[{k - 1}].id"
        if e.player_id is None:
            name = _("Entered") if k == 0 else _("Opponent {k}").format(k=k)
            seats.append(Seat(sid, name, None, e.rating, e.index, e.birth_year))
            continue
        if e.player_id not in allowed:
            raise InputError(
                where,
                _("no published player %(id)s: only members can be looked up (WO 4.1.1)")
                % {"id": e.player_id}
                if e.player_id in found
                else _("no player %(id)s") % {"id": e.player_id},
            )
        seats.append(replace(found[e.player_id], id=sid))
    return seats


def _database_seats(
    session: Session, ids: list[int], day: date, modul: Any, timeline: Any
) -> dict[int, Seat]:
    """The engine's input of each player for a tournament ending on ``day``, after every
    stored evaluation ending on or before it (:func:`ratingdb.engine.inputs.participant_input`)."""
    from ratingdb.db.store import load_adjustments, load_player, prior_states
    from ratingdb.engine.inputs import participant_input
    from ratingdb.engine.model import EngineParticipant, EngineTournament, PlayerState
    from ratingdb.engine.order import OrderKey

    names = {
        r.id: full_name(r.surname, r.given_name)
        for r in session.execute(
            text("SELECT id, surname, given_name FROM players WHERE id = ANY(:ids)"), {"ids": ids}
        )
    }
    after = OrderKey(day + timedelta(days=1), date.min, "", datetime.min, 0)
    states = prior_states(session, names, after)
    adjustments = load_adjustments(session)
    stub = EngineTournament(0, "calculator", day, day, "")
    out = {}
    for pid in names:
        record = load_player(session, pid)
        inp = participant_input(
            EngineParticipant(0, pid), record, states.get(pid, PlayerState()), stub, modul,
            adjustments, timeline,
        )  # fmt: skip
        out[pid] = Seat(
            "", names[pid], pid, inp.rating, inp.index, inp.birth_year, inp.member,
            inp.rating_source,
            tuple(
                {"opponent_rating": r.opponent_rating, "score": float(r.score),
                 "date": r.played_on.isoformat()}
                for r in inp.residual
            ),
        )  # fmt: skip
    return out


def _document(request: CalcRequest, player: Seat, opponents: list[Seat]) -> dict[str, Any]:
    """The ``ratingdb evaluate`` input (docs/evaluate.md) of the request."""
    players = [
        {
            "id": s.id,
            "name": s.name,
            "rating": s.rating,
            "index": s.index,
            "birth_year": s.birth_year,
            "member": s.member,
            # an opponent's index never enters the player's numbers; one typed in without
            # an index is passed as a rating without index (WO 4.1.2, read as index 6)
            "rating_source": s.rating_source
            or ("dwz" if s.rating is None or s.index is not None else "national"),
            "residual_games": list(s.residual_games),
        }
        for s in [player, *opponents]
    ]
    games = [
        {"round": k, "white": PLAYER_ID, "black": s.id, "result": _RESULT[g.score]}
        for k, (g, s) in enumerate(zip(request.games, opponents, strict=True), start=1)
    ]
    day = request.day.isoformat()
    return {
        "tournament": {"id": "calculator", "name": "DWZ-Rechner", "start": day, "end": day,
                       "kind": "individual"},
        "players": players,
        "games": games,
    }  # fmt: skip


def _notes(calc: Calculation) -> list[str]:
    """What the user should know about this result, in the WO's words (translated)."""
    notes = []
    p = calc.player
    day = calc.request.day.strftime(_("%Y-%m-%d"))
    if p.player_id is not None:
        if not p.member:
            notes.append(
                _(
                    "{name} is not a member on {day}: he is counted as a textual participant "
                    "and nothing is stored (WO 3.4.3, 4.1.1)."
                ).format(name=p.name, day=day)
            )
        if p.rating is None and p.residual_games:
            notes.append(
                _(
                    "{count} valid residual games of earlier tournaments count as well "
                    "(WO 3.4.2, 4.1.1)."
                ).format(count=len(p.residual_games))
            )
    if any(s.player_id is not None for s in (p, *calc.opponents)):
        notes.append(
            _(
                "Players from the database enter with their rating and index on {day} (after "
                "every evaluation ending by then)."
            ).format(day=day)
        )
    notes.append(
        _(
            "The official result depends on the whole tournament, where all players are "
            "evaluated together. The calculator takes the opponents' ratings as given; in the "
            "evaluation an unrated opponent counts only with the first rating R_1 he receives "
            "and an exceptional player with his performance (Sonderwertung, WO 3.6.3) (WO "
            "Anhang 3.3)."
        )
    )
    return notes


@contextmanager
def locations_named(name: Callable[[str], str]) -> Iterator[None]:
    """Re-raise an InputError of the request with its JSON path renamed by ``name`` (the
    command line names its options, the page its form fields)."""
    try:
        yield
    except InputError as err:
        raise InputError(name(err.location), err.message) from None


_PATH = re.compile(r"^\$\.(?P<key>player|opponents|date)(?:\[(?P<k>\d+)\])?(?:\.(?P<f>\w+))?$")


def split_path(location: str) -> tuple[str, int | None, str | None] | None:
    """``$.opponents[2].result`` -> ("opponents", 2, "result"); None for another location."""
    m = _PATH.match(location)
    if m is None:
        return None
    k = m.group("k")
    return m.group("key"), None if k is None else int(k), m.group("f")
