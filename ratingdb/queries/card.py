"""The Karteikarte: a player's evaluations in order, memberships, residual games
(WO 6.5.2.1 item 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.engine.order import ORDER_COLUMNS
from ratingdb.names import full_name


@dataclass
class RatingCard:
    player: dict[str, Any]
    current_rating: int | None
    current_index: int | None
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    memberships: list[dict[str, Any]] = field(default_factory=list)
    residual_games: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "current_rating": self.current_rating,
            "current_index": self.current_index,
            "evaluations": self.evaluations,
            "memberships": self.memberships,
            "residual_games": self.residual_games,
        }


def rating_card(session: Session, player_id: int, today: date | None = None) -> RatingCard:
    player = (
        session.execute(
            text(
                "SELECT id, surname, given_name, sex, birth_year, dsb_id, fide_id, anonymised "
                "FROM players WHERE id = :p"
            ),
            {"p": player_id},
        )
        .mappings()
        .first()
    )
    if player is None:
        raise LookupError(f"no player with id {player_id}")
    evaluations = [
        dict(r)
        for r in session.execute(
            text(
                "SELECT t.code AS tournament, t.name, t.end_date, s.player_group AS group, "
                "s.participant_id, "
                "s.score, s.games, s.expected, s.k, s.opponents_avg, s.performance, "
                "s.exceptional, s.rating_old, s.index_old, s.rating_new, s.index_new, s.stored, "
                "jsonb_array_length(s.new_residual_games) AS new_residual, "
                "r.version AS rechenmodul "
                "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
                "LEFT JOIN rechenmodule r ON r.id = s.rechenmodul_id "
                "WHERE s.player_id = :p "
                f"ORDER BY {ORDER_COLUMNS}"
            ),
            {"p": player_id},
        ).mappings()
    ]
    for e in evaluations:
        e["kind"] = "evaluation"
    evaluations = _with_takeover(session, player_id, evaluations)
    evaluations, current = _with_adjustments(session, evaluations, today or date.today())
    memberships = [
        dict(r)
        for r in session.execute(
            text(
                "SELECT o.vkz, o.name AS club, m.member_number, m.valid_from, m.valid_to, "
                "m.status FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
                "WHERE m.player_id = :p ORDER BY m.valid_from"
            ),
            {"p": player_id},
        ).mappings()
    ]
    today = today or date.today()
    residual = [
        dict(r) | {"valid": r["expires_on"] > today}
        for r in session.execute(
            text(
                "SELECT r.opponent_rating, r.score, r.played_on, r.expires_on, "
                "t.code AS tournament FROM residual_games r "
                "LEFT JOIN tournaments t ON t.id = r.created_by_id "
                "WHERE r.owner_id = :p AND r.consumed_by_id IS NULL "
                "ORDER BY r.played_on, r.seq"
            ),
            {"p": player_id},
        ).mappings()
    ]
    return RatingCard(dict(player), current[0], current[1], evaluations, memberships, residual)


def _with_takeover(
    session: Session, player_id: int, evaluations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The list takeover ("Datenübernahme") as a row after the tournaments of its day."""
    row = session.execute(
        text(
            "SELECT taken_on, rating, rating_index, source FROM rating_takeovers "
            "WHERE player_id = :p"
        ),
        {"p": player_id},
    ).first()
    if row is None:
        return evaluations
    entry = {
        "kind": "takeover",
        "name": f"Datenübernahme ({row.source})" if row.source else "Datenübernahme",
        "end_date": row.taken_on,
        "rating_old": None,
        "index_old": None,
        "rating_new": row.rating,
        "index_new": row.rating_index,
        "stored": True,
        "rechenmodul": None,
    }
    at = sum(1 for e in evaluations if e["end_date"] <= row.taken_on)
    return [*evaluations[:at], entry, *evaluations[at:]]


def _with_adjustments(
    session: Session, evaluations: list[dict[str, Any]], today: date
) -> tuple[list[dict[str, Any]], tuple[int | None, int | None]]:
    """Insert the rating adjustments (WO Anhang 4) that changed the player's rating between
    two evaluations, and return the current rating and index (adjustments up to today)."""
    from ratingdb.engine.model import Adjustment, PlayerState

    adjustments = [
        (r.name, Adjustment(r.effective_on, r.formula, r.raises_index))
        for r in session.execute(
            text(
                "SELECT name, effective_on, formula, raises_index FROM rating_adjustments "
                "WHERE effective_on <= :today ORDER BY effective_on, id"
            ),
            {"today": today},
        )
    ]
    out: list[dict[str, Any]] = []
    rating: int | None = None
    index: int | None = None
    last_end: date | None = None
    last_takeover = False
    pending = list(adjustments)

    def convert_until(day: date | None) -> None:
        nonlocal rating, index
        while pending and (day is None or pending[0][1].effective_on < day):
            name, adj = pending.pop(0)
            if rating is None or last_end is None or adj.effective_on < last_end:
                continue
            if adj.effective_on == last_end and last_takeover:
                continue  # the list of that day already shows converted values
            state = adj.apply(PlayerState(rating, index))
            out.append(
                {
                    "kind": "adjustment",
                    "name": name,
                    "end_date": adj.effective_on,
                    "rating_old": rating,
                    "index_old": index,
                    "rating_new": state.rating,
                    "index_new": state.index,
                    "stored": True,
                    "rechenmodul": adj.formula,
                }
            )
            rating, index = state.rating, state.index

    for e in evaluations:
        convert_until(e["end_date"])
        out.append(e)
        if e["stored"]:
            rating, index, last_end = e["rating_new"], e["index_new"], e["end_date"]
            last_takeover = e["kind"] == "takeover"
    convert_until(None)
    return out, (rating, index)


def render_card(card: RatingCard) -> str:
    p = card.player
    name = full_name(p["surname"], p["given_name"])
    current = "-" if card.current_rating is None else f"{card.current_rating}-{card.current_index}"
    lines = [
        f"Karteikarte: {name} (id {p['id']}, born {p['birth_year'] or '-'})  DWZ {current}",
        "",
        f"{'end':10}  {'tournament':36} {'W/n':>8} {'W_e':>7} {'K/E':>5} {'R_c':>5} "
        f"{'R_h':>5} {'DWZ':>9}  Rechenmodul",
    ]
    for e in card.evaluations:
        if e["kind"] in ("adjustment", "takeover"):
            before = "" if e["rating_old"] is None else f"{e['rating_old']}-{e['index_old']} -> "
            change = f"{before}{e['rating_new']}-{e['index_new']}"
            modul = f"  {e['rechenmodul']}" if e["rechenmodul"] else ""
            lines.append(f"{e['end_date'].isoformat():10}  {e['name'][:36]:36} {change:>46}{modul}")
            continue
        new = (
            f"{e['rating_new']}-{e['index_new']}"
            if e["stored"]
            else ("residual" if e["new_residual"] else "-")
        )
        perf = "" if e["performance"] is None else str(e["performance"])
        lines.append(
            f"{e['end_date'].isoformat():10}  {(e['name'] or e['tournament'])[:36]:36} "
            f"{float(e['score']):4.1f}/{e['games']:<3} "
            f"{'' if e['expected'] is None else format(e['expected'], '.3f'):>7} "
            f"{'' if e['k'] is None else format(e['k'], '.1f'):>5} "
            f"{'' if e['opponents_avg'] is None else e['opponents_avg']:>5} "
            f"{perf + ('*' if e['exceptional'] else ''):>5} {new:>9}  {e['rechenmodul'] or ''}"
        )
    if card.memberships:
        lines += ["", "Memberships:"]
        for m in card.memberships:
            until = m["valid_to"].isoformat() if m["valid_to"] else "today"
            lines.append(f"  {m['vkz']} {m['club']}  {m['valid_from'].isoformat()} - {until}")
    if card.residual_games:
        lines += ["", "Residual games (Restpartien):"]
        for r in card.residual_games:
            state = "valid until" if r["valid"] else "expired"
            lines.append(
                f"  {r['opponent_rating']:>5} {float(r['score']):3.1f}  played "
                f"{r['played_on'].isoformat()}  {state} {r['expires_on'].isoformat()}"
            )
    return "\n".join(lines)
