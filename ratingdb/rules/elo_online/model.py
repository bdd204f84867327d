"""Input and output of the online Elo rules (spec online-elo.txt).

The input is the players' ratings before a list of games and the games with the time
each ended; the output the ratings after each game and per player. The JSON form is in
docs/rules-elo.md, parsed by :mod:`ratingdb.io.elo_online_json`. A replay engine carries,
per player, ``rating_new`` and ``games_after``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any


@dataclass(frozen=True, slots=True)
class OnlinePlayerInput:
    id: str
    rating: int
    games_before: int = 0
    name: str | None = None


@dataclass(frozen=True, slots=True)
class OnlineGameInput:
    white: str
    black: str
    #: "1-0", "0-1", "1/2-1/2"; forfeits "+-", "-+", "--" are not rated
    result: str
    #: when the game ended; naive datetimes are read as UTC
    end: datetime
    id: str | None = None


@dataclass(frozen=True, slots=True)
class OnlineInput:
    players: tuple[OnlinePlayerInput, ...]
    games: tuple[OnlineGameInput, ...]
    id: str | None = None
    name: str | None = None


@dataclass(slots=True)
class OnlinePlayerResult:
    id: str
    rating_old: int
    rating_new: int
    games_before: int
    #: rated games in this input
    games: int = 0
    games_after: int = 0
    score: Decimal = Decimal("0.0")
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rating_old": self.rating_old,
            "rating_new": self.rating_new,
            "games_before": self.games_before,
            "games": self.games,
            "games_after": self.games_after,
            "score": float(self.score),
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
        }


@dataclass(slots=True)
class OnlineGameResult:
    """One game in rating order; ratings are null for an unrated (forfeited) game."""

    #: position of the game in the input
    index: int
    id: str | None
    end: datetime
    white: str
    black: str
    result: str
    rated: bool
    white_before: int | None = None
    white_after: int | None = None
    black_before: int | None = None
    black_after: int | None = None
    #: White's win expectancy (Black's is 1 - it), 3 decimals
    white_expected: Decimal | None = None
    white_k: int | None = None
    black_k: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "id": self.id,
            "end": self.end.isoformat(),
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "rated": self.rated,
            "white_before": self.white_before,
            "white_after": self.white_after,
            "black_before": self.black_before,
            "black_after": self.black_after,
            "white_expected": (None if self.white_expected is None else float(self.white_expected)),
            "white_k": self.white_k,
            "black_k": self.black_k,
        }


@dataclass(slots=True)
class OnlineResult:
    id: str | None
    name: str | None
    rules: str
    precision: str
    parameters: dict[str, Any]
    players: list[OnlinePlayerResult]
    #: in rating order (by end time, ties in input order)
    games: list[OnlineGameResult]
    trace: dict[str, Any] | None = field(default=None)

    def player(self, player_id: str) -> OnlinePlayerResult:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def to_dict(self, trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "rules": self.rules,
            "precision": self.precision,
            "parameters": self.parameters,
            "players": [p.to_dict() for p in self.players],
            "games": [g.to_dict() for g in self.games],
        }
        if trace:
            out["trace"] = self.trace
        return out
