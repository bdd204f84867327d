"""The Karteikarte: a player's evaluations in order, memberships, residual games
(WO 6.5.2.1 item 2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from types import SimpleNamespace
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.db.store import fetch_together
from ratingdb.engine.order import ORDER_COLUMNS
from ratingdb.i18n import N_, _, date_text, decimal, pgettext
from ratingdb.names import full_name
from ratingdb.queries.publication import PUBLISHED


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


#: why an anonymous visitor gets no Karteikarte (a 404 on the web, WO 4.1.1)
UNPUBLISHED = N_(
    "no published Karteikarte for player %(id)s: non-members and former members appear only "
    "as textual participants (WO 4.1.1)"
)


def rating_card(
    session: Session, player_id: int, today: date | None = None, *, published_only: bool = False
) -> RatingCard:
    """The Karteikarte of ``player_id`` as of ``today``; LookupError for an unknown player
    and, with ``published_only``, for one not published that day (WO 4.1.1): then nothing
    else is used. Its five reads go to the server together (one round trip,
    :func:`ratingdb.db.store.fetch_together`)."""
    day = today or date.today()
    params = {"p": player_id, "d": day}
    found, evaluation_rows, adjustments, membership_rows, residual_rows = fetch_together(
        session,
        [
            (
                "SELECT p.id, p.surname, p.given_name, p.sex, p.birth_year, p.dsb_id, "
                f"p.fide_id, p.anonymised, {PUBLISHED} AS published, "
                "k.taken_on AS takeover_on, k.rating AS takeover_rating, "
                "k.rating_index AS takeover_index, k.source AS takeover_source "
                "FROM players p LEFT JOIN rating_takeovers k ON k.player_id = p.id "
                "WHERE p.id = :p",
                params,
            ),
            (
                "SELECT t.code AS tournament, t.name, t.end_date, s.player_group AS group, "
                "s.participant_id, "
                "s.score, s.games, s.expected, s.k, s.opponents_avg, s.performance, "
                "s.exceptional, s.rating_old, s.index_old, s.rating_new, s.index_new, s.stored, "
                "jsonb_array_length(s.new_residual_games) AS new_residual, "
                "r.version AS rechenmodul "
                "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
                "LEFT JOIN rechenmodule r ON r.id = s.rechenmodul_id "
                "WHERE s.player_id = :p "
                f"ORDER BY {ORDER_COLUMNS}",
                params,
            ),
            (
                "SELECT name, effective_on, formula, raises_index FROM rating_adjustments "
                "WHERE effective_on <= :d ORDER BY effective_on, id",
                params,
            ),
            (
                "SELECT o.vkz, o.name AS club, m.member_number, m.valid_from, m.valid_to, "
                "m.status FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
                "WHERE m.player_id = :p ORDER BY m.valid_from",
                params,
            ),
            (
                "SELECT r.opponent_rating, r.score, r.played_on, r.expires_on, "
                "t.code AS tournament FROM residual_games r "
                "LEFT JOIN tournaments t ON t.id = r.created_by_id "
                "WHERE r.owner_id = :p AND r.consumed_by_id IS NULL "
                "ORDER BY r.played_on, r.seq",
                params,
            ),
        ],
    )
    row = found[0]._asdict() if found else None
    if published_only and (row is None or not row["published"]):
        raise LookupError(_(UNPUBLISHED) % {"id": player_id})
    if row is None:
        raise LookupError(_("no player with id %(id)s") % {"id": player_id})
    player = {k: v for k, v in row.items() if k != "published" and not k.startswith("takeover")}
    evaluations = [r._asdict() | {"kind": "evaluation"} for r in evaluation_rows]
    evaluations = _with_takeover(row, evaluations)
    evaluations, current = _with_adjustments(adjustments, evaluations)
    for e in evaluations:
        e["change"] = rating_change(e)
    memberships = [r._asdict() for r in membership_rows]
    residual = [r._asdict() | {"valid": r.expires_on > day} for r in residual_rows]
    return RatingCard(dict(player), current[0], current[1], evaluations, memberships, residual)


def rating_change(entry: dict[str, Any]) -> int | None:
    """The +/- of a Karteikarte row: new minus old rating of a stored evaluation or an
    adjustment (None for a takeover, a first rating or an evaluation not stored)."""
    if not entry.get("stored") or entry.get("rating_old") is None:
        return None
    if entry.get("rating_new") is None:
        return None
    return int(entry["rating_new"]) - int(entry["rating_old"])


def current_memberships(card: RatingCard, day: date) -> list[dict[str, Any]]:
    """The memberships of the card's player that cover ``day`` (the club at the top)."""
    return [
        m
        for m in card.memberships
        if m["valid_from"] <= day and (m["valid_to"] is None or m["valid_to"] >= day)
    ]


def _with_takeover(
    player: Mapping[str, Any], evaluations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The list takeover ("Datenübernahme", the ``takeover_*`` columns of the player's row)
    as a row after the tournaments of its day."""
    if player["takeover_on"] is None:
        return evaluations
    row = SimpleNamespace(
        taken_on=player["takeover_on"], rating=player["takeover_rating"],
        rating_index=player["takeover_index"], source=player["takeover_source"],
    )  # fmt: skip
    entry = {
        "kind": "takeover",
        "name": _("List takeover (%(source)s)") % {"source": row.source}
        if row.source
        else _("List takeover"),
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
    rows: list[Any], evaluations: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], tuple[int | None, int | None]]:
    """Insert the rating adjustments (WO Anhang 4; ``rows``: those up to today, in order)
    that changed the player's rating between two evaluations, and return the current
    rating and index."""
    from ratingdb.engine.model import Adjustment, PlayerState

    adjustments = [(r.name, Adjustment(r.effective_on, r.formula, r.raises_index)) for r in rows]
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


def render_card(card: RatingCard, today: date | None = None) -> str:
    """The Karteikarte as a text table (``ratingdb player card``) in the language in force:
    the club at the top, every row with its +/-, a legend of the symbols, memberships and
    residual games."""
    from ratingdb.terms import card_terms, membership_status, residual_mark

    p = card.player
    name = full_name(p["surname"], p["given_name"])
    current = "-" if card.current_rating is None else f"{card.current_rating}-{card.current_index}"
    clubs = "; ".join(
        f"{m['club']} ({m['vkz']})" for m in current_memberships(card, today or date.today())
    )
    born = p["birth_year"] or "-"
    w, n, w_e, k, r_c, r_h, r_o, r_n, change = (t.label for t in card_terms())
    end, tournament = pgettext("column", "End"), pgettext("column", "Tournament")
    lines = [
        _("Rating card: %(name)s (id %(id)s, born %(born)s)  DWZ %(rating)s")
        % {"name": name, "id": p["id"], "born": born, "rating": current},
        _("Club: %(clubs)s") % {"clubs": clubs or "-"},
        "",
        f"{end:10}  {tournament:36} {w + '/' + n:>13} {w_e:>7} {k:>5} {r_c:>6} {r_h:>8} "
        f"{r_o:>9} {r_n:>9} {change:>5}  " + pgettext("column", "Rechenmodul"),
    ]

    def signed(e: dict[str, Any]) -> str:
        return "" if e.get("change") is None else f"{e['change']:+d}"

    def old(e: dict[str, Any]) -> str:
        return "" if e["rating_old"] is None else f"{e['rating_old']}-{e['index_old']}"

    for e in card.evaluations:
        if e["kind"] in ("adjustment", "takeover"):
            modul = f"  {e['rechenmodul']}" if e["rechenmodul"] else ""
            new = f"{e['rating_new']}-{e['index_new']}"
            lines.append(
                f"{date_text(e['end_date']):10}  {e['name'][:36]:36} {'':>13} {'':>7} {'':>5} "
                f"{'':>6} {'':>8} {old(e):>9} {new:>9} {signed(e):>5}{modul}"
            )
            continue
        new = (
            f"{e['rating_new']}-{e['index_new']}"
            if e["stored"]
            else (residual_mark() if e["new_residual"] else "-")
        )
        perf = "" if e["performance"] is None else str(e["performance"])
        lines.append(
            f"{date_text(e['end_date']):10}  {(e['name'] or e['tournament'])[:36]:36} "
            f"{decimal(e['score'], 1):>8}/{e['games']:<4} "
            f"{'' if e['expected'] is None else decimal(e['expected'], 3):>7} "
            f"{'' if e['k'] is None else decimal(e['k'], 1):>5} "
            f"{'' if e['opponents_avg'] is None else e['opponents_avg']:>6} "
            f"{perf + ('*' if e['exceptional'] else ''):>8} {old(e):>9} {new:>9} "
            f"{signed(e):>5}  {e['rechenmodul'] or ''}"
        )
    lines += ["", *(f"  {t.legend}" for t in card_terms())]
    if card.memberships:
        lines += ["", _("Memberships:")]
        for m in card.memberships:
            until = date_text(m["valid_to"]) if m["valid_to"] else _("today")
            lines.append(
                f"  {m['vkz']} {m['club']}  {date_text(m['valid_from'])} - {until}  "
                f"{membership_status(m['status'])}"
            )
    if card.residual_games:
        lines += ["", _("Residual games:")]
        for r in card.residual_games:
            text = (
                _("played %(played)s, valid until %(expires)s")
                if r["valid"]
                else _("played %(played)s, expired %(expires)s")
            ) % {"played": date_text(r["played_on"]), "expires": date_text(r["expires_on"])}
            lines.append(f"  {r['opponent_rating']:>5} {decimal(r['score'], 1):>3}  {text}")
    return "\n".join(lines)
