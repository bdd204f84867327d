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

from ratingdb.rules.dwz.arithmetic import Arithmetic, Num, three_places
from ratingdb.rules.dwz.groups import (
    AgeRules,
    GroupRules,
    Groups,
    age_classes,
    classify,
    half_points,
    rated_games,
)
from ratingdb.rules.model import (
    NewResidualGame,
    PlayerInput,
    PlayerResult,
    ResidualGame,
    TournamentInput,
    TournamentResult,
)
from ratingdb.rules.rounding import div_half_up, round_half_up, round_half_up_to

#: an established player's values as the families compute them: W_e (in the table's
#: units, or a float), K or E as numerator and denominator, R_n, the classic R_p (None in
#: 2026), the opponents' rounded mean, the P(D) of each counted game as points, the
#: ratings seen
Row = tuple[Num, int, int, int, int | None, int, list[float | None], list[int]]


class DwzRules(GroupRules, AgeRules, Protocol):
    """What the shared part needs from a DWZ Rechenmodul's parameters."""

    @property
    def foreign_rating_index(self) -> int: ...
    @property
    def precision(self) -> str: ...
    @property
    def max_iterations(self) -> int: ...

    def to_dict(self) -> dict[str, Any]: ...


def rounded_mean(values: Sequence[Num]) -> int | None:
    """Average rounded half-up to an integer (None for no values).

    >>> rounded_mean([1500, 1501]), rounded_mean([1500.4, 1500.0]), rounded_mean([])
    (1501, 1500, None)
    """
    if not values:
        return None
    total = sum(values)
    if type(total) is int:  # integers only (a float or Fraction would make it one)
        return div_half_up(total, len(values))
    if type(total) is float and all(type(v) in (int, float) for v in values):
        # the exact sum: every value is an integer over a power of two
        ratios = [v.as_integer_ratio() for v in values]
        denominator = max(d for _, d in ratios)
        numerator = sum(n * (denominator // d) for n, d in ratios)
        return div_half_up(numerator, denominator * len(values))
    return round_half_up(sum(Fraction(v) for v in values) / len(values))


#: ``Decimal(w2) / 2`` for the usual half-point totals, made once
_SCORES = tuple(Decimal(w2) / 2 for w2 in range(1024))


def score(w2: int) -> Decimal:
    """Half-points as points."""
    return _SCORES[w2] if 0 <= w2 < len(_SCORES) else Decimal(w2) / 2


def plain(value: Num) -> Num | None:
    """Trace values: integers stay integers, other numbers are rounded half away from zero
    to 3 decimals (as the WO rounds; the float nearest that decimal), -infinity is None."""
    if isinstance(value, int):
        return value
    if not math.isfinite(value):
        return None
    if type(value) is float:
        return three_places(value)
    return float(round_half_up_to(value, 3))


class DwzEvaluation:
    """One tournament under one DWZ version: the state every family starts from."""

    rules_name: str
    coefficient: str = "k"
    #: the counted games of each player of Auswahl II (the family's choice of
    #: :func:`~ratingdb.rules.dwz.groups.counted_games`)
    games: dict[int, list[tuple[int, int, int]]]

    def __init__(
        self, t: TournamentInput, params: DwzRules, arith: Arithmetic, traced: bool = True
    ) -> None:
        self.t = t
        self.arith = arith
        #: build the trace (the steps of the iterations, as the WO's worked example shows
        #: them); without it the result's trace stays empty and every other value is the
        #: same: the replay stores no trace (ratingdb/rules/snapshots.py)
        self.traced = traced
        self.players: tuple[PlayerInput, ...] = t.players
        self.position = {p.id: i for i, p in enumerate(t.players)}
        self.ages = age_classes(t.players, t.tournament.end.year, params)
        self.foreign_index = params.foreign_rating_index
        #: R_0 of every player (None: unrated or a computer) and the index used
        self.ratings: list[int | None] = [None if p.computer else p.rating for p in t.players]
        foreign = self.foreign_index
        self.indexes: list[int | None] = [
            None if rating is None else foreign if p.index is None else p.index
            for p, rating in zip(t.players, self.ratings, strict=True)
        ]
        self.results = [
            PlayerResult(p.id, "remaining", age, rating, index)
            for p, age, rating, index in zip(
                t.players, self.ages, self.ratings, self.indexes, strict=True
            )
        ]
        self.adjacency, self._struck = rated_games(t, self.position)
        self.groups: Groups = classify(t, self.adjacency, params)
        self.is_match = t.tournament.kind == "match"
        #: WO 4.2.4.5 / classic 6.2.3.5: a match with an unrated player is not evaluated
        self.unevaluated_match = self.is_match and any(
            p.rating is None and not p.computer for p in self.players
        )
        self._params = params
        self._own_games: list[list[int]] | None = None

    def count_points(self, games: dict[int, list[tuple[int, int, int]]]) -> None:
        """Per player of ``games`` (the counted games): the sum of the half-points
        (``w2``); the half-points of each game are :meth:`points`."""
        self.w2 = {i: sum([p for _, p, _ in own]) for i, own in games.items()}

    def points(self, i: int) -> tuple[int, ...]:
        """The half-points of each of player ``i``'s counted games."""
        return tuple([p for _, p, _ in self.games[i]])

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
    def rating(self, i: int) -> int:
        rating = self.ratings[i]
        assert rating is not None
        return rating

    def index(self, i: int) -> int:
        index = self.indexes[i]
        assert index is not None
        return index

    def established_rows(self, players: list[int], seen_as: dict[int, int]) -> list[Row]:
        """The family's :data:`Row` of each of ``players`` (established, >= 1 counted game
        each, opponents seen at ``seen_as`` or R_0)."""
        raise NotImplementedError

    def seen_lists(self, players: list[int], seen_as: dict[int, int]) -> list[list[int]]:
        """Per player of ``players`` the ratings his counted games' opponents are seen at
        (:meth:`seen_at`)."""
        seen = self.seen_at(seen_as)
        return [[seen[j] for j, _, _ in self.games[i]] for i in players]  # type: ignore[misc]

    def seen_at(self, replaced: dict[int, int]) -> list[int | None]:
        """Per position the rating a game against that player counts with: R_0, or the
        value in ``replaced`` (a first rating, a Sonderwertung's R_h or R_p)."""
        seen = list(self.ratings)
        for j, value in replaced.items():
            seen[j] = value
        return seen

    def expected_games(
        self, i: int, games: Sequence[tuple[int, int, int]], probabilities: list[float | None]
    ) -> list[float | None]:
        """P(D) of each of player ``i``'s games in the input's order (``t.games``), None
        for a game that does not count; ``games`` are the counted games (as in
        :data:`~ratingdb.rules.dwz.groups.Adjacency`) and ``probabilities`` their P(D) as
        points (:meth:`Arithmetic.probabilities`, a list of the caller's own: where every
        game counts it is the answer itself)."""
        struck = self._struck
        if struck is not None and i not in struck and len(games) == len(self.adjacency[i]):
            # every game of the player counts (the counted games are some of his games,
            # in the input's order)
            return probabilities
        if struck is not None:  # his games: the rated ones and the struck ones
            own = sorted([g for _, _, g in self.adjacency[i]] + struck.get(i, []))
        else:  # somebody plays himself: every player's games, in one pass
            if self._own_games is None:
                self._own_games = [[] for _ in self.players]
                position = self.position
                for g, game in enumerate(self.t.games):
                    white, black = position[game.white], position[game.black]
                    self._own_games[white].append(g)
                    if black != white:
                        self._own_games[black].append(g)
            own = self._own_games[i]
        counted = [game[2] for game in games]
        if counted == own:  # every game of the player counts
            return probabilities
        by_game = dict(zip(counted, probabilities, strict=True))
        return [by_game.get(g) for g in own]

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
