"""The reads of the DeWIS interface (:mod:`ratingdb.web.dewis`) that no page makes in this
shape: players' current memberships and last tournament, FIDE data, the officers responsible
for organisations, the organisation tree, a tournament's stored results per participant.

Publication is the caller's: these read what they are asked for; the DeWIS operations ask
only for published players (:mod:`ratingdb.queries.publication`, WO 4.1.1).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.store import fetch_together
from ratingdb.rules.model import RESULTS


def current_memberships(
    session: Session, player_ids: list[int], day: date
) -> dict[int, list[dict[str, Any]]]:
    """player id -> the memberships covering ``day`` (the latest begun first): VKZ, club
    name, member number, status."""
    rows = session.execute(
        text(
            "SELECT m.player_id, o.vkz, o.name AS club, m.member_number, m.status "
            "FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
            "WHERE m.player_id = ANY(:ids) AND m.valid_from <= :d "
            "AND (m.valid_to IS NULL OR m.valid_to >= :d) "
            "ORDER BY m.player_id, m.valid_from DESC, o.vkz"
        ),
        {"ids": player_ids, "d": day},
    )
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        out[r.player_id].append(
            {"vkz": r.vkz, "club": r.club, "member_number": r.member_number, "status": r.status}
        )
    return out


def last_tournaments(
    session: Session, player_ids: list[int], day: date
) -> dict[int, tuple[str, date]]:
    """player id -> (code, end date) of the last tournament up to ``day`` the player has an
    evaluation of (stored or not: residual games are an evaluation too), in the order of
    evaluation (WO 2.2.3)."""
    rows = session.execute(
        text(
            "SELECT DISTINCT ON (s.player_id) s.player_id, t.code, t.end_date "
            "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            "WHERE s.player_id = ANY(:ids) AND t.end_date <= :d "
            "ORDER BY s.player_id, t.end_date DESC, t.start_date DESC, t.vkz DESC, "
            "t.processed_at DESC, t.id DESC"
        ),
        {"ids": player_ids, "d": day},
    )
    return {r.player_id: (r.code, r.end_date) for r in rows}


def fide_data(
    session: Session, player_ids: list[int], day: date
) -> dict[int, tuple[int, str, str]]:
    """player id -> (last FIDE rating up to ``day`` or 0, FIDE federation — that rating's,
    else the player's — or "", FIDE title or "") of the given players."""
    rows = session.execute(
        text(
            "SELECT p.id, e.rating, coalesce(e.federation, p.federation) AS federation, p.title "
            "FROM players p LEFT JOIN LATERAL (SELECT rating, federation FROM external_ratings "
            "WHERE system = 'fide' AND player_id = p.id AND rated_on <= :d "
            "ORDER BY rated_on DESC LIMIT 1) e ON true WHERE p.id = ANY(:ids)"
        ),
        {"ids": player_ids, "d": day},
    )
    return {r.id: (r.rating or 0, r.federation or "", r.title or "") for r in rows}


@dataclass(frozen=True, slots=True)
class Officer:
    user_id: int
    name: str
    full_name: str
    scopes: tuple[str, ...]


def officers(session: Session) -> list[Officer]:
    """The rating officers (WO 6.3: responsible for the VKZ prefixes of their scopes)."""
    rows = session.execute(
        text("SELECT id, name, full_name, scopes FROM users WHERE role = 'officer' ORDER BY id")
    )
    return [Officer(r.id, r.name, r.full_name, tuple(r.scopes or ())) for r in rows]


def responsible(officer_list: list[Officer], vkz: str) -> Officer | None:
    """The officer responsible for ``vkz``: the one whose scope is the longest prefix of
    it (the lowest user id among equals), None when nobody's scope covers it."""
    best: tuple[int, int, Officer] | None = None
    for o in officer_list:
        for scope in o.scopes:
            if vkz.startswith(scope) and (best is None or (len(scope), -o.user_id) > best[:2]):
                best = (len(scope), -o.user_id, o)
    return None if best is None else best[2]


@dataclass(frozen=True, slots=True)
class Organisation:
    id: int
    vkz: str
    name: str
    kind: str
    parent_id: int | None


def organisation_tree(session: Session) -> list[Organisation]:
    """Every organisation (federation levels and clubs), by VKZ."""
    rows = session.execute(
        text("SELECT id, vkz, name, kind, parent_id FROM organisations ORDER BY vkz")
    )
    return [Organisation(r.id, r.vkz, r.name, r.kind, r.parent_id) for r in rows]


def organisation(session: Session, vkz: str) -> Organisation | None:
    r = session.execute(
        text("SELECT id, vkz, name, kind, parent_id FROM organisations WHERE vkz = :v"),
        {"v": vkz},
    ).first()
    return None if r is None else Organisation(r.id, r.vkz, r.name, r.kind, r.parent_id)


def ancestors(session: Session, vkz: str) -> list[Organisation]:
    """The organisation ``vkz`` and the levels above it, bottom to top (empty if unknown)."""
    rows = session.execute(
        text(
            "WITH RECURSIVE up(id, vkz, name, kind, parent_id, depth) AS ("
            "SELECT id, vkz, name, kind, parent_id, 0 FROM organisations WHERE vkz = :v "
            "UNION ALL SELECT o.id, o.vkz, o.name, o.kind, o.parent_id, up.depth + 1 "
            "FROM organisations o JOIN up ON o.id = up.parent_id WHERE up.depth < 20) "
            "SELECT id, vkz, name, kind, parent_id FROM up ORDER BY depth"
        ),
        {"v": vkz},
    )
    return [Organisation(r.id, r.vkz, r.name, r.kind, r.parent_id) for r in rows]


def tournament_results(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """The stored evaluation of every participant of a tournament, in start-rank order:
    participant and player id, the participant's club VKZ and its name, the snapshot's
    values, and the number of the participant's unrated games (forfeits)."""
    params = {"t": tournament_id}
    results, games = fetch_together(
        session,
        [
            (
                "SELECT pa.id AS participant_id, pa.player_id, pa.club_vkz, "
                "(SELECT o.name FROM organisations o WHERE o.vkz = pa.club_vkz) AS club, "
                "s.rating_old, s.index_old, s.score, s.games, s.expected, s.performance, "
                "s.k, s.rating_new, s.index_new, s.opponents_avg, s.stored, s.player_group "
                "FROM participants pa JOIN rating_snapshots s ON s.participant_id = pa.id "
                "WHERE pa.tournament_id = :t ORDER BY pa.start_rank NULLS LAST, pa.id",
                params,
            ),
            ("SELECT white_id, black_id, result FROM games WHERE tournament_id = :t", params),
        ],
    )
    unrated: dict[int, int] = defaultdict(int)
    for g in games:
        if RESULTS.get(g.result) is None:
            unrated[g.white_id] += 1
            unrated[g.black_id] += 1
    return [r._asdict() | {"unrated": unrated[r.participant_id]} for r in results]


def unrated_games(session: Session, participant_ids: list[int]) -> dict[int, int]:
    """participant id -> number of its unrated games (forfeits), for those that have any."""
    rows = session.execute(
        text(
            "SELECT p.id, g.result FROM participants p JOIN games g "
            "ON g.tournament_id = p.tournament_id AND p.id IN (g.white_id, g.black_id) "
            "WHERE p.id = ANY(:ids)"
        ),
        {"ids": participant_ids},
    )
    out: dict[int, int] = defaultdict(int)
    for r in rows:
        if RESULTS.get(r.result) is None:
            out[r.id] += 1
    return dict(out)


def tournament_rounds(session: Session, tournament_ids: list[int]) -> dict[int, tuple[int, int]]:
    """tournament id -> (number of rounds: the highest round number, number of games)."""
    rows = session.execute(
        text(
            "SELECT tournament_id, coalesce(max(round), 0) AS rounds, count(*) AS games "
            "FROM games WHERE tournament_id = ANY(:ids) GROUP BY tournament_id"
        ),
        {"ids": tournament_ids},
    )
    return {r.tournament_id: (r.rounds, r.games) for r in rows}


def players_by_id(session: Session, player_ids: list[int]) -> dict[int, Any]:
    """player id -> (surname, given name, sex, birth year, FIDE id) as a named row."""
    rows = session.execute(
        text(
            "SELECT id, surname, given_name, sex, birth_year, fide_id FROM players "
            "WHERE id = ANY(:ids)"
        ),
        {"ids": player_ids},
    )
    return {r.id: r for r in rows}
