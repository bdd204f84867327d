"""Input and output of a single-tournament evaluation, shared by every rule family.

These are the in-memory forms of the ``ratingdb evaluate`` JSON contract (docs/DESIGN.md):
the io layer parses JSON into :class:`TournamentInput`, a rules module turns it into a
:class:`TournamentResult`, and the engine builds the same objects from the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal
from operator import attrgetter
from typing import Any, Literal, TypeVar

Kind = Literal["individual", "team", "match"]
Group = Literal["established", "first_stage", "second_stage", "remaining"]
AgeClass = Literal["youth", "junior", "adult"]

KINDS: tuple[str, ...] = ("individual", "team", "match")
RATING_SOURCES: tuple[str, ...] = ("dwz", "fide", "national")
#: result string -> (white half-points, black half-points); None marks a forfeit
RESULTS: dict[str, tuple[int, int] | None] = {
    "1-0": (2, 0),
    "0-1": (0, 2),
    "1/2-1/2": (1, 1),
    "+-": None,
    "-+": None,
    "--": None,
    # games of less than one move (TRF codes W/L/D): never rated
    "W-L": None,
    "L-W": None,
    "D-D": None,
}


T = TypeVar("T")


def pickled_by_fields(cls: type[T]) -> type[T]:
    """Pickle a slots dataclass as its class and one tuple of its field values
    (rebuilt by ``cls(*values)``) instead of through the dataclasses module's generic state,
    which looks the fields up again for every object: a full replay sends every
    tournament's input and outputs to a worker process (ratingdb/engine/parallel.py).

    >>> import pickle
    >>> pickle.loads(pickle.dumps(GameInput("1", "2", "1-0", 3)))
    GameInput(white='1', black='2', result='1-0', round=3)
    """
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    values = attrgetter(*names)
    if len(names) == 1:

        def reduce_one(self: T) -> tuple[Any, ...]:
            return cls, (values(self),)

        cls.__reduce__ = reduce_one  # type: ignore[assignment,method-assign]
    else:

        def reduce(self: T) -> tuple[Any, ...]:
            return cls, values(self)

        cls.__reduce__ = reduce  # type: ignore[assignment,method-assign]
    return cls


#: The rules' per-game and per-player inputs are plain slots dataclasses, not frozen ones:
#: a full replay builds about 4 million games and a million players' inputs in its own
#: process and again in its worker (ratingdb/engine/parallel.py), and a frozen dataclass
#: sets each field with ``object.__setattr__`` (GameInput 0.38 against 0.10 µs, PlayerInput
#: 0.76 against 0.2 µs). Nothing changes them once made, and nothing hashes them.
@pickled_by_fields
@dataclass(slots=True)
class ResidualGame:
    """A Restpartie (WO 3.4.2): opponent rating, own score, date = creating tournament's end."""

    opponent_rating: int
    score: Decimal
    date: date


@pickled_by_fields
@dataclass(slots=True)
class PlayerInput:
    id: str
    name: str | None = None
    rating: int | None = None
    index: int | None = None
    birth_year: int | None = None
    member: bool = True
    rating_source: str | None = None
    computer: bool = False
    club_vkz: str | None = None
    residual_games: tuple[ResidualGame, ...] = ()


@pickled_by_fields
@dataclass(slots=True)
class GameInput:
    white: str
    black: str
    result: str
    round: int | None = None


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class TournamentInfo:
    id: str
    start: date
    end: date
    name: str | None = None
    vkz: str | None = None
    kind: Kind = "individual"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "vkz": self.vkz,
            "kind": self.kind,
        }


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class TournamentInput:
    tournament: TournamentInfo
    players: tuple[PlayerInput, ...]
    games: tuple[GameInput, ...]


@dataclass(frozen=True, slots=True)
class NewResidualGame:
    opponent_rating: int
    score: Decimal
    date: date

    def to_dict(self) -> dict[str, Any]:
        return {
            "opponent_rating": self.opponent_rating,
            "score": float(self.score),
            "date": self.date.isoformat(),
        }


@dataclass(slots=True)
class PlayerResult:
    """One player's evaluation; field names and meaning as in docs/DESIGN.md."""

    id: str
    group: Group
    age_class: AgeClass
    rating_old: int | None
    index_old: int | None
    k: Decimal | None = None
    opponents_avg: int | None = None
    score: Decimal = Decimal("0.0")
    games: int = 0
    expected: Decimal | None = None
    performance: int | None = None
    exceptional: bool = False
    start_value: int | None = None
    iteration_value: int | None = None
    rating_new: int | None = None
    index_new: int | None = None
    stored: bool = False
    new_residual_games: list[NewResidualGame] = field(default_factory=list)
    #: W_e game by game (WO 3.3.2): for an evaluated established player one entry per game
    #: of the player in the input's order, P(D) in the rules' precision (a table's
    #: decimals, or unrounded), None for a game that does not count; empty otherwise.
    #: Stored with the snapshot (:mod:`ratingdb.rules.snapshots`), not part of
    #: :meth:`to_dict` (the ``ratingdb evaluate`` output does not depend on the games' order)
    expected_games: list[float | None] = field(default_factory=list)

    @classmethod
    def from_dict(cls, player_id: str, data: dict[str, Any]) -> PlayerResult:
        """Inverse of :meth:`to_dict` (for stored snapshots)."""

        def dec(value: Any) -> Decimal | None:
            return None if value is None else Decimal(str(value))

        return cls(
            id=player_id,
            group=data["group"],
            age_class=data["age_class"],
            rating_old=data["rating_old"],
            index_old=data["index_old"],
            k=dec(data["k"] if "k" in data else data.get("e")),
            opponents_avg=data["opponents_avg"],
            score=Decimal(str(data["score"])),
            games=data["games"],
            expected=dec(data["expected"]),
            performance=data["performance"],
            exceptional=data["exceptional"],
            start_value=data["start_value"],
            iteration_value=data["iteration_value"],
            rating_new=data["rating_new"],
            index_new=data["index_new"],
            stored=data["stored"],
            new_residual_games=[
                NewResidualGame(
                    g["opponent_rating"], Decimal(str(g["score"])), date.fromisoformat(g["date"])
                )
                for g in data["new_residual_games"]
            ],
            expected_games=list(data.get("expected_games") or []),
        )

    def to_dict(self, coefficient: str = "k") -> dict[str, Any]:
        """``coefficient`` names the development coefficient's key (``e`` in classic DWZ)."""
        return {
            "id": self.id,
            "group": self.group,
            "age_class": self.age_class,
            "rating_old": self.rating_old,
            "index_old": self.index_old,
            coefficient: None if self.k is None else float(self.k),
            "opponents_avg": self.opponents_avg,
            "score": float(self.score),
            "games": self.games,
            "expected": None if self.expected is None else float(self.expected),
            "performance": self.performance,
            "exceptional": self.exceptional,
            "start_value": self.start_value,
            "iteration_value": self.iteration_value,
            "rating_new": self.rating_new,
            "index_new": self.index_new,
            "stored": self.stored,
            "new_residual_games": [g.to_dict() for g in self.new_residual_games],
        }


@dataclass(slots=True)
class TournamentResult:
    tournament: TournamentInfo
    rules: str
    precision: str
    parameters: dict[str, Any]
    iterations: int
    players: list[PlayerResult]
    trace: dict[str, Any] | None = None
    #: JSON key of ``PlayerResult.k``: "k" (DWZ 2026) or "e" (classic DWZ's coefficient E)
    coefficient: str = "k"

    def player(self, player_id: str) -> PlayerResult:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def to_dict(self, *, trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tournament": self.tournament.to_dict(),
            "rules": self.rules,
            "precision": self.precision,
            "parameters": self.parameters,
            "iterations": self.iterations,
            "players": [p.to_dict(self.coefficient) for p in self.players],
        }
        if trace:
            out["trace"] = self.trace
        return out
