"""A player's scoresheet in a tournament (WO Anhang 3.1.12, 6.5.2.1 item 1).

Per game: round, opponent, the rating the opponent enters the calculation with
("Wertung": R_0-index of an established opponent, its performance R_h when it is an
exceptional player (Sonderwertung, WO 3.6.3), the new R_1-index of a first-rating
opponent), the result and, for an established player, the winning expectation P(D) of the
game (WO 3.3.1); the sum of the rated games is W and W_e of the evaluation display. Row 0
summarises the player's old residual games used (their average opponent rating); games that
became new residual games are marked.

The rated games follow the DWZ groups (WO 3.4.1): forfeits, short games and games of
computers never count; established and first-rating players count their games against
Auswahl II (established and both Zusatzstufen); remaining members receive residual games
from their games against Auswahl I (WO 3.4.2). P(D) is the one the rules used, stored with
the evaluation (``PlayerResult.expected_games``, one entry per game of the player in the
tournament's game order), shown to 3 decimals (a table's value as it is, an unrounded one
rounded half-up); for an established player the stored values also say which games count.
Their sum is the stored W_e.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.i18n import _
from ratingdb.queries.evaluation_table import tournament_info
from ratingdb.queries.publication import published_players
from ratingdb.queries.tournament import load_stored_evaluation
from ratingdb.rules.model import RESULTS, PlayerInput, PlayerResult
from ratingdb.rules.rounding import decimal_half_up, div_half_up
from ratingdb.terms import game_result

SELECTION_2 = ("established", "first_stage", "second_stage")
SELECTION_1 = ("established", "first_stage")


@dataclass
class ScoresheetGame:
    round: int | None
    opponent: str
    opponent_participant: int
    opponent_player: int | None  # published opponents only
    rating: str  # "Wertung" as shown
    result: str  # from the player's view: 1, 0, ½, +, -, ...
    score: Decimal | None  # None when the game is not rated
    expected: Decimal | None
    new_residual: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "opponent": self.opponent,
            "opponent_participant": self.opponent_participant,
            "opponent_player": self.opponent_player,
            "rating": self.rating,
            "result": self.result,
            "score": None if self.score is None else float(self.score),
            "expected": None if self.expected is None else float(self.expected),
            "new_residual": self.new_residual,
        }


@dataclass
class Scoresheet:
    tournament: str
    tournament_name: str
    participant_id: int
    player_id: int | None
    name: str
    rating_old: str
    group: str
    residual_old: dict[str, Any] | None
    games: list[ScoresheetGame] = field(default_factory=list)
    score: Decimal = Decimal(0)
    rated_games: int = 0
    expected: Decimal | None = None
    k: Decimal | None = None
    rating_new: str = ""
    coefficient: str = "K"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "tournament_name": self.tournament_name,
            "participant_id": self.participant_id,
            "player_id": self.player_id,
            "name": self.name,
            "rating_old": self.rating_old,
            "group": self.group,
            "residual_old": self.residual_old,
            "games": [g.to_dict() for g in self.games],
            "score": float(self.score),
            "rated_games": self.rated_games,
            "expected": None if self.expected is None else float(self.expected),
            "k": None if self.k is None else float(self.k),
            "coefficient": self.coefficient,
            "rating_new": self.rating_new,
        }


def _rating_text(rating: int | None, index: int | None, with_index: bool) -> str:
    if rating is None:
        return "-"
    return f"{rating}-{index}" if with_index and index is not None else str(rating)


def _seen_as(me: PlayerResult, opp: PlayerResult, opp_in: PlayerInput, kind: str) -> str:
    """How the rating the opponent enters ``me``'s calculation with is shown."""
    member = opp_in.member and not opp_in.computer
    if opp.group in ("first_stage", "second_stage"):
        return _rating_text(opp.rating_new, opp.index_new, member)
    if opp.group == "established":
        if me.group == "established" and opp.exceptional and kind != "match":
            return f"{opp.performance} (R_h)"
        dwz = opp_in.rating_source in (None, "dwz")
        return _rating_text(opp.rating_old, opp.index_old, member and dwz)
    return "-"


def scoresheet(
    session: Session, ident: str, participant_id: int, day: date, *, show_all: bool = False
) -> Scoresheet:
    """The scoresheet of participant ``participant_id`` in tournament ``ident``.
    LookupError for an unknown tournament, participant or an unevaluated tournament."""
    info = tournament_info(session, ident)
    evaluation = load_stored_evaluation(session, info.id)
    if evaluation is None:
        raise LookupError(
            _(
                "tournament %(code)s has not been evaluated yet (the next calculation run "
                "evaluates it)"
            )
            % {"code": info.code}
        )
    tin, result = evaluation.input, evaluation.result
    key = str(participant_id)
    results = {r.id: r for r in result.players}
    inputs = {p.id: p for p in tin.players}
    if key not in results:
        raise LookupError(
            _("no participant %(participant)s in tournament %(code)s")
            % {"participant": participant_id, "code": info.code}
        )
    players = {p.id: p.player_id for p in evaluation.tournament.participants}
    shown = (
        {p for p in players.values() if p is not None}
        if show_all
        else published_players(session, players.values(), day)
    )
    me, me_in = results[key], inputs[key]
    games: list[ScoresheetGame] = []
    own_games = [g for g in tin.games if key in (g.white, g.black)]
    stored = me.expected_games if len(me.expected_games) == len(own_games) else []
    for k, g in enumerate(own_games):
        white = g.white == key
        other = g.black if white else g.white
        opp, opp_in = results[other], inputs[other]
        points = RESULTS[g.result]
        struck = points is None or me_in.computer or opp_in.computer
        own = None if points is None else Decimal(points[0 if white else 1]) / 2
        shown_rating = _seen_as(me, opp, opp_in, tin.tournament.kind)
        p = stored[k] if stored else None
        if stored:  # the rules' own list of the counted games
            counted = p is not None
        else:
            counted = not struck and me.group in SELECTION_2 and opp.group in SELECTION_2
        residual = (
            not struck
            and me.group == "remaining"
            and bool(me.new_residual_games)
            and opp.group in SELECTION_1
        )
        expected = None if p is None else decimal_half_up(p, 3)
        opp_player = players.get(int(other))
        games.append(
            ScoresheetGame(
                g.round,
                opp_in.name or other,
                int(other),
                opp_player if opp_player in shown else None,
                shown_rating if (counted or residual) else "-",
                game_result(g.result, white),
                own if (counted or residual) else None,
                expected,
                residual,
            )
        )
    games.sort(key=lambda x: (x.round is None, x.round or 0))
    residual_old = None
    if me_in.residual_games:
        held = me_in.residual_games
        residual_old = {
            "games": len(held),
            "score": float(sum(r.score for r in held)),
            "average": div_half_up(sum(r.opponent_rating for r in held), len(held)),
        }
    member = me_in.member and not me_in.computer
    new = ""
    if me.group == "remaining":
        new = _("Residual games") if me.new_residual_games else "-"
    elif me.rating_new is not None and (me.games or me.group != "established"):
        new = _rating_text(me.rating_new, me.index_new, member)
        new = new if member else f"({new})"
    player_id = players.get(participant_id)
    return Scoresheet(
        tournament=info.code,
        tournament_name=info.name,
        participant_id=participant_id,
        player_id=player_id if player_id in shown else None,
        name=me_in.name or key,
        rating_old=_rating_text(
            me.rating_old, me.index_old, member and me_in.rating_source in (None, "dwz")
        ),
        group=me.group,
        residual_old=residual_old,
        games=games,
        score=sum((x.score for x in games if x.score is not None), Decimal(0)),
        rated_games=sum(1 for x in games if x.score is not None),
        expected=me.expected,
        k=me.k,
        rating_new=new,
        coefficient=result.coefficient.upper(),
    )
