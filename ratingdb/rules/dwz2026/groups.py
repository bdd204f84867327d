"""Rated games, valid residual games and the player groups of WO 3.4.

* WO 2.2.5.2 / 4.1.4: forfeits and every game of a chess computer are struck.
* WO 4.1.1: a residual game dated d is valid for a tournament ending e iff e < d + 2 years
  (the period starts on d; Feb 29 + 2 years = Mar 1). Residual games of a player who
  already has a rating are ignored.
* WO 3.4.1.1: unrated players with >= 5 games (residual games included, repeats counted)
  against established players and >= 0.5 points in them form the 1st Zusatzstufe;
  established + 1st stage = Auswahl I.
* WO 3.4.1.2: the other unrated players with >= 5 such games against Auswahl I and
  >= 0.5 points form the 2nd Zusatzstufe; Auswahl I + 2nd stage = Auswahl II.
* WO 3.4.2: everybody else (and every computer) is a remaining player.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Protocol

from ratingdb.rules.model import RESULTS, ResidualGame, TournamentInput

#: per player position: list of (opponent position, own half-points)
Adjacency = list[list[tuple[int, int]]]


def add_years(day: date, years: int) -> date:
    """``day`` moved by whole years; Feb 29 becomes Mar 1 in a non-leap target year."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return date(day.year + years, 3, 1)


def residual_valid(created: date, tournament_end: date, years: int) -> bool:
    """WO 4.1.1: valid iff the tournament ends before the anniversary ``years`` later."""
    return tournament_end < add_years(created, years)


def half_points(score: Decimal) -> int:
    """A score 0 / 0.5 / 1 as half-points."""
    return int(score * 2)


def rated_adjacency(t: TournamentInput, position: dict[str, int]) -> Adjacency:
    """Every rateable game, seen from both players (forfeits and computer games struck)."""
    adjacency: Adjacency = [[] for _ in t.players]
    computers = {i for i, p in enumerate(t.players) if p.computer}
    for game in t.games:
        points = RESULTS[game.result]
        if points is None:
            continue
        white, black = position[game.white], position[game.black]
        if white in computers or black in computers:
            continue
        adjacency[white].append((black, points[0]))
        adjacency[black].append((white, points[1]))
    return adjacency


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
        return self.established | self.first_stage

    @property
    def selection_2(self) -> set[int]:
        return self.established | self.first_stage | self.second_stage


class GroupRules(Protocol):
    """What the grouping needs from a DWZ Rechenmodul (DWZ 2026 and the classic versions)."""

    @property
    def min_games(self) -> int: ...
    @property
    def min_score(self) -> Decimal: ...
    @property
    def residual_validity_years(self) -> int: ...


def classify(t: TournamentInput, adjacency: Adjacency, params: GroupRules) -> Groups:
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
        for opponent, points in adjacency[i]:
            if opponent in against:
                games += 1
                w2 += points
        return games >= params.min_games and w2 >= min_w2

    first = {i for i in unrated if qualifies(i, established)}
    selection_1 = established | first
    second = {i for i in unrated if i not in first and qualifies(i, selection_1)}
    remaining = (set(unrated) - first - second) | computers
    return Groups(established, first, second, remaining, residual)
