"""Input and output of one KBSB rating period (spec kbsb-elo.txt).

A period is everything between two lists: its games are all rated from the ratings of
the list before it. The JSON form is documented in docs/rules-elo.md and parsed by
:mod:`ratingdb.io.elo_kbsb_json`. A replay engine carries, per player, the state
(``rating_new``, ``games_after``) and, while a player is still on formula 1 (fewer than
20 games), ``history`` (sum of opponents' ratings and points over all games so far).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any


@dataclass(frozen=True, slots=True)
class PeriodInfo:
    id: str
    start: date
    end: date
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class KbsbHistory:
    """Formula-1 totals over a player's rated games so far: sum of the opponents' ratings
    (each as it was when the game was rated) and points (multiple of 0.5)."""

    opponents_sum: int
    score: Decimal

    def to_dict(self) -> dict[str, Any]:
        return {"opponents_sum": self.opponents_sum, "score": float(self.score)}


@dataclass(frozen=True, slots=True)
class KbsbPlayerInput:
    """``rating`` is the list rating before the period (None: not listed);
    ``games_before`` the number of rated games before it; ``history`` the formula-1
    totals over those games (needed while ``games_before`` < 20, see docs/rules-elo.md)."""

    id: str
    games_before: int = 0
    rating: int | None = None
    name: str | None = None
    birth_year: int | None = None
    history: KbsbHistory | None = None


@dataclass(frozen=True, slots=True)
class KbsbGameInput:
    white: str
    black: str
    #: "1-0", "0-1", "1/2-1/2"; forfeits "+-", "-+", "--" are not rated
    result: str
    date: date | None = None


@dataclass(frozen=True, slots=True)
class KbsbPeriodInput:
    period: PeriodInfo
    players: tuple[KbsbPlayerInput, ...]
    games: tuple[KbsbGameInput, ...]


@dataclass(slots=True)
class KbsbPlayerResult:
    """One player's evaluation; see docs/rules-elo.md for every field."""

    id: str
    rating_old: int | None
    rating_new: int | None
    games_before: int
    #: rated games in this period
    games: int = 0
    games_after: int = 0
    #: W, points in this period's rated games
    score: Decimal = Decimal("0.0")
    #: 1 (performance), 2 (R_o + K (W - W_e)) or None (no rated game in the period)
    formula: int | None = None
    provisional: bool = False
    k: int | None = None
    #: W_e (formula 2 only)
    expected: Decimal | None = None
    #: R_c of the formula-1 computation (all games on formula 1, the period's games on 2)
    opponents_avg: int | None = None
    #: R_c + D(P) of that computation; None when D(P) is undetermined ("X")
    performance: int | None = None
    #: R_n by formula 2 before the improvement rule
    formula2_rating: int | None = None
    improvement: bool = False
    #: formula-1 totals after the period, while the player was on formula 1
    history: KbsbHistory | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rating_old": self.rating_old,
            "rating_new": self.rating_new,
            "games_before": self.games_before,
            "games": self.games,
            "games_after": self.games_after,
            "score": float(self.score),
            "formula": self.formula,
            "provisional": self.provisional,
            "k": self.k,
            "expected": None if self.expected is None else float(self.expected),
            "opponents_avg": self.opponents_avg,
            "performance": self.performance,
            "formula2_rating": self.formula2_rating,
            "improvement": self.improvement,
            "history": None if self.history is None else self.history.to_dict(),
        }


@dataclass(slots=True)
class KbsbResult:
    period: PeriodInfo
    rules: str
    precision: str
    parameters: dict[str, Any]
    players: list[KbsbPlayerResult]
    trace: dict[str, Any] | None = field(default=None)

    def player(self, player_id: str) -> KbsbPlayerResult:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def to_dict(self, trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "period": self.period.to_dict(),
            "rules": self.rules,
            "precision": self.precision,
            "parameters": self.parameters,
            "players": [p.to_dict() for p in self.players],
        }
        if trace:
            out["trace"] = self.trace
        return out
