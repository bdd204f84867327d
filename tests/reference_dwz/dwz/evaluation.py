"""What every DWZ evaluation shares: players, index handling, groups, residual games.

A family (:mod:`ratingdb.rules.dwz2026`, :mod:`ratingdb.rules.dwz_classic`) subclasses
:class:`DwzEvaluation` and adds only what differs: start values, the iteration's end and
correction, performances, the Sonderwertung and the coefficient K or E.

Shared rules:

* WO 2.2.4 / classic 4.9.3: a rating given without an index (a FIDE or national rating
  used as R_0, WO 4.1.2) reads as index ``foreign_rating_index`` (6 in 2026, 0 in the
  classic text);
* WO 4.2.4.5 / classic 6.2.3.5: a match with an unrated player changes nothing;
* WO 3.4.2 / classic 4.7.7: remaining members receive their games against Auswahl I as
  residual games (opponent at R_0 or the new first rating, dated on the tournament's end);
  a remaining player's games, score and R_c are over every residual game held afterwards;
* WO 3.3.2: every evaluated established player's result carries the P(D) of each counted
  game (``PlayerResult.expected_games``), as the rules computed it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from ratingdb.rules.model import (
    NewResidualGame,
    PlayerInput,
    PlayerResult,
    ResidualGame,
    TournamentInput,
    TournamentResult,
)
from ratingdb.rules.rounding import div_half_up, round_half_up
from tests.reference_dwz.dwz.arithmetic import Arithmetic, Num
from tests.reference_dwz.dwz.groups import (
    AgeRules,
    GroupRules,
    Groups,
    age_class,
    classify,
    half_points,
    rated_adjacency,
)


class DwzRules(GroupRules, AgeRules, Protocol):
    """What the shared part needs from a DWZ Rechenmodul's parameters."""

    @property
    def foreign_rating_index(self) -> int: ...
    @property
    def precision(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


def rounded_mean(values: Sequence[Num]) -> int | None:
    """Average rounded half-up to an integer (None for no values).

    >>> rounded_mean([1500, 1501]), rounded_mean([1500.4, 1500.0]), rounded_mean([])
    (1501, 1500, None)
    """
    if not values:
        return None
    if all(type(v) is int for v in values):
        return div_half_up(sum(values), len(values))  # type: ignore[arg-type]
    return round_half_up(sum(Fraction(v) for v in values) / len(values))


def score(w2: int) -> Decimal:
    """Half-points as points."""
    return Decimal(w2) / 2


def plain(value: Num) -> Num | None:
    """Trace values: integers stay integers, floats keep 3 decimals, -infinity is None."""
    if isinstance(value, int):
        return value
    if not math.isfinite(value):
        return None
    thousandths = Fraction(value) * 1000  # exact; halves away from zero, as the WO rounds
    whole = math.floor(abs(thousandths) + Fraction(1, 2))
    return float(Fraction(whole if thousandths >= 0 else -whole, 1000))


class DwzEvaluation:
    """One tournament under one DWZ version: the state every family starts from."""

    rules_name: str
    coefficient: str = "k"

    def __init__(self, t: TournamentInput, params: DwzRules, arith: Arithmetic) -> None:
        self.t = t
        self.arith = arith
        self.players: tuple[PlayerInput, ...] = t.players
        self.position = {p.id: i for i, p in enumerate(t.players)}
        end_year = t.tournament.end.year
        self.ages = [age_class(p.birth_year, end_year, params) for p in t.players]
        self.foreign_index = params.foreign_rating_index
        self.results = [
            PlayerResult(
                id=p.id,
                group="remaining",
                age_class=self.ages[i],
                rating_old=None if p.computer else p.rating,
                index_old=self._index_of(p),
            )
            for i, p in enumerate(t.players)
        ]
        self.adjacency = rated_adjacency(t, self.position)
        self.groups: Groups = classify(t, self.adjacency, params)
        self.is_match = t.tournament.kind == "match"
        #: WO 4.2.4.5 / classic 6.2.3.5: a match with an unrated player is not evaluated
        self.unevaluated_match = self.is_match and any(
            p.rating is None and not p.computer for p in self.players
        )
        self._params = params
        self._own_games: list[list[int]] | None = None

    def result(self, iterations: int, trace: dict[str, Any]) -> TournamentResult:
        return TournamentResult(
            tournament=self.t.tournament,
            rules=self.rules_name,
            precision=self._params.precision,
            parameters=self._params.to_dict(),
            iterations=iterations,
            players=self.results,
            trace=trace,
            coefficient=self.coefficient,
        )

    # -- players ------------------------------------------------------------------------
    def _index_of(self, p: PlayerInput) -> int | None:
        """The index used; a rating without one reads as ``foreign_rating_index``."""
        if p.computer or p.rating is None:
            return None
        return self.foreign_index if p.index is None else p.index

    def rating(self, i: int) -> int:
        rating = self.players[i].rating
        assert rating is not None
        return rating

    def index(self, i: int) -> int:
        index = self._index_of(self.players[i])
        assert index is not None
        return index

    def expected_games(
        self, i: int, games: Sequence[tuple[int, int, int]], probabilities: Sequence[Num]
    ) -> list[float | None]:
        """P(D) of each of player ``i``'s games in the input's order (``t.games``), None
        for a game that does not count; ``games`` are the counted games (as in
        :data:`~tests.reference_dwz.dwz.groups.Adjacency`) and ``probabilities`` their P(D)."""
        if self._own_games is None:  # every player's games, in one pass
            self._own_games = [[] for _ in self.players]
            position = self.position
            for g, game in enumerate(self.t.games):
                white, black = position[game.white], position[game.black]
                self._own_games[white].append(g)
                if black != white:
                    self._own_games[black].append(g)
        by_game = {g: p for (_, _, g), p in zip(games, probabilities, strict=True)}
        probability = self.arith.probability
        return [
            None if (p := by_game.get(g)) is None else probability(p) for g in self._own_games[i]
        ]

    # -- WO 4.2.4.5 / classic 6.2.3.5 ----------------------------------------------------
    def not_evaluated(self) -> None:
        """A match with an unrated player changes nothing."""
        for i, p in enumerate(self.players):
            if p.computer:
                continue
            res = self.results[i]
            if p.rating is not None:
                res.group = "established"
                res.rating_new, res.index_new = p.rating, res.index_old
            else:  # remaining: show the residual games still held
                self._hold(i, [])

    # -- WO 3.4.2 / classic 4.7.7: remaining players and their residual games ----------
    def remaining(self, first: dict[int, int]) -> None:
        """Games against Auswahl I become residual games of remaining members; the
        opponent at R_0 or the new first rating ``first``."""
        selection_1 = self.groups.selection_1
        end = self.t.tournament.end
        for i in sorted(self.groups.remaining):
            p = self.players[i]
            if p.computer:
                continue
            new = [
                NewResidualGame(first[j] if j in first else self.rating(j), score(points), end)
                for j, points, _ in self.adjacency[i]
                if j in selection_1
            ]
            self._hold(i, new)
            self.results[i].new_residual_games = new if p.member else []

    def _hold(self, i: int, new: list[NewResidualGame]) -> None:
        """games/score/R_c of a remaining player: all residual games held afterwards."""
        res = self.results[i]
        held: list[ResidualGame | NewResidualGame] = [*self.groups.residual.get(i, []), *new]
        res.games = len(held)
        res.score = score(sum(half_points(g.score) for g in held))
        res.opponents_avg = rounded_mean([g.opponent_rating for g in held])
