"""Output of one Ingo evaluation (docs/rules-ingo.md lists every field).

The shape follows :class:`ratingdb.rules.model.TournamentResult`: ``to_dict`` gives
{"tournament", "rules", "precision", "parameters", "iterations", "players"} (plus
"trace" on request). Per player, beside the Ingo quantities, ``group``, ``stored`` and
``new_residual_games`` (always empty) let the engine treat the family like the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from ratingdb.rules.model import NewResidualGame, TournamentInfo

#: established: a usable number before; first_stage: calculated without a usable number
#: (newcomer or C II flag); remaining: not calculated without a usable number, computers
IngoGroup = Literal["established", "first_stage", "remaining"]


def _num(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


@dataclass(slots=True)
class IngoPlayerResult:
    id: str
    group: IngoGroup
    #: old Ingo number F and its index (number of calculations); None for newcomers
    rating_old: int | None
    index_old: int | None
    #: C II flag of the old number ("or_better" / "or_worse") as given to evaluate()
    flag_old: str | None = None
    #: points and number of the counted games (forfeits and struck games left out)
    score: Decimal = Decimal("0.0")
    games: int = 0
    #: the level (Niveau) and whether it is the general (B I/B II) or individual one
    level: Decimal | None = None
    level_type: Literal["general", "individual"] | None = None
    #: %d, positive = worse than the level
    percent_diff: Decimal | None = None
    #: H, the tournament number
    performance: Decimal | None = None
    #: new Ingo number F and index; unchanged when not calculated (None for newcomers)
    rating_new: int | None = None
    index_new: int | None = None
    #: C II flag of the new number
    flag: str | None = None
    #: section whose formula gave rating_new: "B I", "C I", "C II", "C III", "C IV", "C V"
    method: str | None = None
    stored: bool = False
    new_residual_games: list[NewResidualGame] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "group": self.group,
            "rating_old": self.rating_old,
            "index_old": self.index_old,
            "flag_old": self.flag_old,
            "score": float(self.score),
            "games": self.games,
            "level": _num(self.level),
            "level_type": self.level_type,
            "percent_diff": _num(self.percent_diff),
            "performance": _num(self.performance),
            "rating_new": self.rating_new,
            "index_new": self.index_new,
            "flag": self.flag,
            "method": self.method,
            "stored": self.stored,
            "new_residual_games": [g.to_dict() for g in self.new_residual_games],
        }


@dataclass(slots=True)
class IngoResult:
    tournament: TournamentInfo
    rules: str
    precision: str
    parameters: dict[str, Any]
    #: passes of the newcomers' calculation (B III 3); 0 without it
    iterations: int
    players: list[IngoPlayerResult]
    trace: dict[str, Any] | None = None

    def player(self, player_id: str) -> IngoPlayerResult:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def to_dict(self, trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tournament": self.tournament.to_dict(),
            "rules": self.rules,
            "precision": self.precision,
            "parameters": self.parameters,
            "iterations": self.iterations,
            "players": [p.to_dict() for p in self.players],
        }
        if trace:
            out["trace"] = self.trace
        return out
