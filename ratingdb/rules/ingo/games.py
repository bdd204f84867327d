"""Which games count, for whom, and with which opponent number.

Every game is seen from both sides; a *view* is one side of a counted game: the opponent,
the own half-points and how the opponent's number enters the level.

* B IV: forfeits ("kampflos") are never counted; every game of a chess computer is struck
  as well (the spec knows no computers; same as the other families).
* C VI (50-degree limit): when two players whose numbers differ by more than
  ``limit_degrees`` meet and the better (lower) one wins, the game is struck for both.
  After a draw or a loss of the better one "gilt der jeweilige Gegner um nicht mehr als
  50 Grad abweichend": each side sees the other at its own number +-50 (mode +1 for the
  better side, who sees own + 50; -1 for the worse side, who sees own - 50). "Mehr als 50"
  is strict. For players without a usable number the rule uses their H (last sentence of
  C VI), judged once on the H of a first calculation (see :mod:`.evaluate`).
* C II: a player without a number who won or lost every counted game is *unseen*: the
  results against him and his H are not used for anybody else ("bei der Berechnung seiner
  Gegner nicht berücksichtigt"), which may make another numberless player all-win/all-loss
  (cascade, applied until nothing changes). He still gets his own H and F/1 with the flag.
* Choices where the spec is silent: a numberless player with fewer than ``min_games``
  counted games (``match_min_games`` in a match) gets no number and is unseen as well (he
  has no H to offer); so is a numberless player who cannot be linked to any known number
  (no level can be formed). These exclusions cascade together with C II. Whether a player
  is all-win/all-loss is judged on his counted games after the 50-degree rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

FLAG_OR_BETTER = "or_better"
FLAG_OR_WORSE = "or_worse"
FLAGS: tuple[str, ...] = (FLAG_OR_BETTER, FLAG_OR_WORSE)


@dataclass(frozen=True, slots=True)
class Game:
    """A counted game: positions of both players and white's half-points."""

    number: int
    white: int
    black: int
    white_half_points: int


@dataclass(frozen=True, slots=True)
class View:
    """One side of a counted game."""

    opponent: int
    half_points: int
    #: 0: opponent's number; +1: own number + limit; -1: own number - limit (C VI)
    mode: int
    game: int


@dataclass(frozen=True, slots=True)
class Decisions:
    """The 50-degree rule's verdicts: struck games and capped games (with the better side)."""

    struck: frozenset[int]
    capped: tuple[tuple[int, int], ...]


def decide(games: Sequence[Game], reference: Mapping[int, Fraction | int], limit: int) -> Decisions:
    """C VI for every game whose two players both have a reference number."""
    struck: set[int] = set()
    capped: list[tuple[int, int]] = []
    for g in games:
        ra, rb = reference.get(g.white), reference.get(g.black)
        if ra is None or rb is None or abs(Fraction(ra) - Fraction(rb)) <= limit:
            continue
        better = g.white if ra < rb else g.black
        better_half_points = g.white_half_points if better == g.white else 2 - g.white_half_points
        if better_half_points == 2:
            struck.add(g.number)
        else:
            capped.append((g.number, better))
    return Decisions(frozenset(struck), tuple(sorted(capped)))


def views_of(games: Sequence[Game], players: int, decisions: Decisions) -> list[list[View]]:
    """Every player's views of the games the 50-degree rule leaves."""
    capped = dict(decisions.capped)
    views: list[list[View]] = [[] for _ in range(players)]
    for g in games:
        if g.number in decisions.struck:
            continue
        better = capped.get(g.number)
        white_mode = 0 if better is None else (1 if better == g.white else -1)
        views[g.white].append(View(g.black, g.white_half_points, white_mode, g.number))
        views[g.black].append(View(g.white, 2 - g.white_half_points, -white_mode, g.number))
    return views


@dataclass(slots=True)
class Exclusions:
    #: players whose results and H nobody else may use (C II and the choices above)
    unseen: set[int]
    #: numberless players who get no number, with the reason
    dropped: dict[int, str]
    #: C II flags of numberless players who still get a number
    flags: dict[int, str]
    #: why each unseen player is unseen
    reasons: dict[int, str]


def exclude(
    views: Sequence[Sequence[View]],
    numberless: Sequence[int],
    known: Mapping[int, int],
    min_games: int,
) -> Exclusions:
    """C II with its cascade, plus the silent-spec exclusions (too few games, no link)."""
    unseen: set[int] = set()
    dropped: dict[int, str] = {}
    flags: dict[int, str] = {}
    reasons: dict[int, str] = {}

    def own(i: int) -> list[View]:
        return [v for v in views[i] if v.opponent not in unseen]

    while True:
        changed = False
        for i in numberless:
            if i in dropped:
                continue
            mine = own(i)
            if len(mine) < min_games:
                dropped[i] = reasons[i] = "too_few_games"
                unseen.add(i)
                flags.pop(i, None)
                changed = True
            elif i not in flags:
                if all(v.half_points == 2 for v in mine):
                    flags[i], reasons[i] = FLAG_OR_BETTER, "all_won"
                elif all(v.half_points == 0 for v in mine):
                    flags[i], reasons[i] = FLAG_OR_WORSE, "all_lost"
                else:
                    continue
                unseen.add(i)
                changed = True
        if changed:
            continue
        # a level needs at least one known number, directly or through other newcomers
        anchored: set[int] = set()
        grew = True
        while grew:
            grew = False
            for i in numberless:
                if i in dropped or i in anchored:
                    continue
                if any(
                    v.mode == 0 and (v.opponent in known or v.opponent in anchored) for v in own(i)
                ):
                    anchored.add(i)
                    grew = True
        lost = [i for i in numberless if i not in dropped and i not in anchored]
        if not lost:
            return Exclusions(unseen, dropped, flags, reasons)
        for i in lost:
            dropped[i] = reasons[i] = "no_known_opponent"
            unseen.add(i)
            flags.pop(i, None)
