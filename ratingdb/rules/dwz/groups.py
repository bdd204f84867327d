"""Rated games, age classes, the player groups and the selections (Auswahl) of every DWZ.

* WO 2.2.5.2 / 4.1.4 (classic 6.1.4): forfeits and every game of a chess computer are
  struck.
* WO 4.1.1 (classic 6.1.1): a residual game dated d is valid for a tournament ending e iff
  e < d + 2 years (:func:`ratingdb.dates.residual_valid`). Residual games of a player who
  already has a rating are ignored.
* WO 3.4.1.1 (classic 4.3.2, 4.7.3): unrated players with >= ``min_games`` games (residual
  games included, repeats counted) against established players and >= ``min_score``
  points in them (0.5 in 2026, none in the classic rules) form the 1st Zusatzstufe;
  established + 1st stage = Auswahl I.
* WO 3.4.1.2: the other unrated players with as many such games against Auswahl I form
  the 2nd Zusatzstufe; Auswahl I + 2nd stage = Auswahl II.
* WO 3.4.2 (classic 4.7.7): everybody else (and every computer) is a remaining player.
* WO 3.2 (classic 4.9.2): age = year of the tournament's end - birth year; youth <= 20,
  junior 21-25, adult >= 26; no birth year means adult.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from ratingdb.dates import residual_valid
from ratingdb.rules.model import RESULTS, AgeClass, PlayerInput, ResidualGame, TournamentInput

#: per player position: (opponent position, own half-points, position of the game in
#: ``TournamentInput.games``) of every rated game
Adjacency = list[list[tuple[int, int, int]]]


class GroupRules(Protocol):
    """What the grouping needs from a DWZ Rechenmodul (DWZ 2026 and the classic versions)."""

    @property
    def min_games(self) -> int: ...
    @property
    def min_score(self) -> Decimal: ...
    @property
    def residual_validity_years(self) -> int: ...


class AgeRules(Protocol):
    """The age limits of a DWZ Rechenmodul (WO 3.2, classic 4.9.2)."""

    @property
    def youth_max_age(self) -> int: ...
    @property
    def junior_max_age(self) -> int: ...


def age_class(birth_year: int | None, end_year: int, params: AgeRules) -> AgeClass:
    """youth (<= 20), junior (21-25), adult (>= 26); no birth year means adult (WO 3.2).

    >>> from ratingdb.rules.dwz2026.params import Dwz2026Parameters
    >>> [age_class(y, 2026, Dwz2026Parameters()) for y in (2006, 2005, 2001, 2000, None)]
    ['youth', 'junior', 'junior', 'adult', 'adult']
    """
    if birth_year is None:
        return "adult"
    age = end_year - birth_year
    if age <= params.youth_max_age:
        return "youth"
    if age <= params.junior_max_age:
        return "junior"
    return "adult"


def age_classes(players: Sequence[PlayerInput], end_year: int, params: AgeRules) -> list[AgeClass]:
    """:func:`age_class` of every player, the limits read once."""
    youth, junior = params.youth_max_age, params.junior_max_age
    out: list[AgeClass] = []
    for p in players:
        if p.birth_year is None:
            out.append("adult")
            continue
        age = end_year - p.birth_year
        out.append("youth" if age <= youth else "junior" if age <= junior else "adult")
    return out


def half_points(score: Decimal) -> int:
    """A score 0 / 0.5 / 1 as half-points."""
    return int(score * 2)


def rated_adjacency(t: TournamentInput, position: dict[str, int]) -> Adjacency:
    """Every rateable game, seen from both players (forfeits and computer games struck)."""
    return rated_games(t, position)[0]


def rated_games(
    t: TournamentInput, position: dict[str, int]
) -> tuple[Adjacency, dict[int, list[int]] | None]:
    """:func:`rated_adjacency`, and the positions in ``t.games`` of each player's struck
    games, for the players who have any; None for these when a player plays himself (a
    player's games are then not his adjacency's and his struck ones)."""
    computers = {i for i, p in enumerate(t.players) if p.computer}
    adjacency: Adjacency = [[] for _ in t.players]
    struck: dict[int, list[int]] = {}
    results = RESULTS
    self_play = False
    for g, game in enumerate(t.games):
        points = results[game.result]
        white, black = position[game.white], position[game.black]
        if white == black:
            self_play = True
        if points is None or (computers and (white in computers or black in computers)):
            struck.setdefault(white, []).append(g)
            if black != white:
                struck.setdefault(black, []).append(g)
            continue
        adjacency[white].append((black, points[0], g))
        adjacency[black].append((white, points[1], g))
    return adjacency, None if self_play else struck


@dataclass(slots=True)
class Groups:
    established: set[int]
    first_stage: set[int]
    second_stage: set[int]
    remaining: set[int]
    #: valid residual games of the unrated players
    residual: dict[int, list[ResidualGame]]

    @property
    def selection_1(self) -> set[int]:
        """Auswahl I: established + 1st Zusatzstufe (WO 3.4.1.1)."""
        return self.established | self.first_stage

    @property
    def selection_2(self) -> set[int]:
        """Auswahl II: Auswahl I + 2nd Zusatzstufe (WO 3.4.1.2)."""
        return self.established | self.first_stage | self.second_stage


def classify(t: TournamentInput, adjacency: Adjacency, params: GroupRules) -> Groups:
    """The groups of WO 3.4.1 / 3.4.2 (classic 4.3, 4.7.3, 4.7.7)."""
    end = t.tournament.end
    established: set[int] = set()
    unrated: list[int] = []
    computers: set[int] = set()
    residual: dict[int, list[ResidualGame]] = {}
    for i, p in enumerate(t.players):
        if p.computer:
            computers.add(i)
        elif p.rating is not None:
            established.add(i)
        else:
            unrated.append(i)
            residual[i] = [
                g
                for g in p.residual_games
                if residual_valid(g.date, end, params.residual_validity_years)
            ]
    min_w2 = half_points(params.min_score)

    def qualifies(i: int, against: set[int]) -> bool:
        games = len(residual[i])
        w2 = sum(half_points(g.score) for g in residual[i])
        for opponent, points, _ in adjacency[i]:
            if opponent in against:
                games += 1
                w2 += points
        return games >= params.min_games and w2 >= min_w2

    first = {i for i in unrated if qualifies(i, established)}
    selection_1 = established | first
    second = {i for i in unrated if i not in first and qualifies(i, selection_1)}
    remaining = (set(unrated) - first - second) | computers
    return Groups(established, first, second, remaining, residual)


def counted_games(
    groups: Groups, adjacency: Adjacency, *, second_stage_pairs: bool
) -> dict[int, list[tuple[int, int, int]]]:
    """The games that count, per player of Auswahl II: every game within Auswahl II (WO
    3.4.4, 3.5); without ``second_stage_pairs`` a game between two 2nd-stage players does
    not count (classic 4.7.1.2, 4.7.3.2: a 2nd-stage rating is used only by its
    "unmittelbaren DWZ-Gegnern")."""
    selection_2, second = groups.selection_2, groups.second_stage
    if len(selection_2) == len(adjacency):  # everybody is in Auswahl II
        if second_stage_pairs or not second:  # the adjacency's own lists (nobody changes them)
            return dict(enumerate(adjacency))
    elif second_stage_pairs or not second:
        return {
            i: [game for game in adjacency[i] if game[0] in selection_2]
            for i in sorted(selection_2)
        }
    return {
        i: [
            game
            for game in adjacency[i]
            if game[0] in selection_2
            and (second_stage_pairs or not (i in second and game[0] in second))
        ]
        for i in sorted(selection_2)
    }
