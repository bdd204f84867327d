"""KBSB Elo in the replay engine: a rating period's games are collected tournament by
tournament and rated together at the next list (spec: "every game of a period is rated from
the ratings of the list before it").

* :func:`outputs` — one tournament: every counted game (played, opponent on the list before
  the period) of every participant becomes a pending game (opponent's list rating, score),
  stored in the snapshot like a residual game; nobody's rating changes yet (``group``
  "remaining", ``stored`` false). ``expected`` and ``k`` show W_e (table 2) and K for a
  player with a rating, for information.
* :func:`close_period` — at the list: one player's new rating from his pending games
  (through :func:`~ratingdb.rules.elo_kbsb.evaluate`, so formula 1/2 and the improvement rule
  are exactly those of a whole period), his games count, and whether his games must be kept
  (formula 1 is cumulative until his 20th game).
* :func:`list_after` / :func:`list_before` — the list dates: the 1st of every
  (12 / ``lists_per_year``)-th month from January.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction

from ratingdb.rules.elo_kbsb.evaluate import evaluate, expected_score, k_factor
from ratingdb.rules.elo_kbsb.model import (
    KbsbGameInput,
    KbsbHistory,
    KbsbPeriodInput,
    KbsbPlayerInput,
    PeriodInfo,
)
from ratingdb.rules.elo_kbsb.params import KbsbParameters
from ratingdb.rules.model import RESULTS, TournamentInput
from ratingdb.rules.rounding import round_half_up, round_half_up_to
from ratingdb.rules.snapshots import SnapshotOutput, empty


def list_before(day: date, lists_per_year: int) -> date:
    """The last list date on or before ``day``."""
    step = 12 // lists_per_year
    month = (day.month - 1) // step * step + 1
    return date(day.year, month, 1)


def list_after(day: date, lists_per_year: int) -> date:
    """The first list date after ``day``."""
    start = list_before(day, lists_per_year)
    month = start.month + 12 // lists_per_year
    return date(start.year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def outputs(t: TournamentInput, params: KbsbParameters) -> list[SnapshotOutput]:
    by_id = {p.id: p for p in t.players}
    counted: dict[str, list[tuple[int, Decimal]]] = {p.id: [] for p in t.players}
    for g in t.games:
        halves = RESULTS[g.result]
        white, black = by_id[g.white], by_id[g.black]
        if halves is None or white.computer or black.computer:
            continue
        if black.rating is not None:
            counted[white.id].append((black.rating, Decimal(halves[0]) / 2))
        if white.rating is not None:
            counted[black.id].append((white.rating, Decimal(halves[1]) / 2))
    rows = []
    for p in t.players:
        games = counted[p.id]
        w_e = (
            None
            if p.rating is None or not games
            else sum((expected_score(p.rating, r, params) for r, _ in games), Fraction(0))
        )
        rows.append(
            empty(
                group="remaining",
                age_class="adult",
                rating_old=p.rating,
                index_old=p.index,
                k=None
                if p.rating is None or (p.index or 0) < params.formula1_games
                else float(k_factor(p.index or 0, p.rating, params)),
                opponents_avg=round_half_up(Fraction(sum(r for r, _ in games), len(games)))
                if games
                else None,
                score=float(sum((s for _, s in games), Decimal(0))),
                games=len(games),
                expected=None if w_e is None else float(round_half_up_to(w_e, 3)),
                new_residual_games=[
                    {"opponent_rating": r, "score": float(s), "date": t.tournament.end.isoformat()}
                    for r, s in games
                ],
            )
        )
    return rows


def close_period(
    rating: int | None,
    games_before: int,
    history: list[tuple[int, Decimal]],
    games: list[tuple[int, Decimal]],
    period_end: date,
    params: KbsbParameters,
) -> tuple[int | None, int, bool]:
    """(new rating, games after, keep the games for formula 1) of one player at a list.

    ``history`` are his earlier games while he is rated by formula 1 (then ``games_before``
    is their number), ``games`` the period's."""
    players = [
        KbsbPlayerInput(
            "p",
            len(history) if history else games_before,
            rating,
            history=KbsbHistory(
                sum(r for r, _ in history), sum((s for _, s in history), Decimal(0))
            )
            if history
            else None,
        )
    ]
    played = []
    for k, (opponent, score) in enumerate(games):
        players.append(KbsbPlayerInput(f"o{k}", params.formula1_games, opponent))
        outcome = {Decimal(1): "1-0", Decimal("0.5"): "1/2-1/2", Decimal(0): "0-1"}[score]
        played.append(KbsbGameInput("p", f"o{k}", outcome))
    start = list_before(period_end, params.lists_per_year)
    info = PeriodInfo("list", start, period_end)
    result = evaluate(KbsbPeriodInput(info, tuple(players), tuple(played)), params).players[0]
    return result.rating_new, result.games_after, result.games_after < params.formula1_games


def period_of(day: date, params: KbsbParameters) -> tuple[date, date]:
    """(first day of the rating period containing ``day``, the date of the next list)."""
    return list_before(day, params.lists_per_year), list_after(day, params.lists_per_year)
