"""Who is who: each participant of an uploaded file and the database
player the import would take, with how it was found, before anything is stored.

The match is the import's own (:func:`ratingdb.services.trf_import.match_players`: DSB id, ZPS
member number, FIDE id, then folded name + birth year with exactly one fit). A participant
it leaves open — nobody found, or several namesakes — gets candidates from the player
search that folds umlauts and accents (:func:`ratingdb.queries.search.search_players`,
members and non-members alike) and must be decided by the officer: one of the candidates,
a new member of a club, or a textual participant (WO 4.1.1). A submission document decides
every player itself (``player_id``, a new member, ``"member": false``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.io.trf import TrfTournament
from ratingdb.names import full_name
from ratingdb.queries.reports import current_ratings
from ratingdb.queries.search import search_players
from ratingdb.services.trf_import import FEDERATION, Choice, match_players

#: at most this many candidates per open participant
CANDIDATES = 8


@dataclass
class Row:
    """One participant: ``state`` is ``matched`` (by the import: ``how``), ``computer``,
    ``open`` (to be decided), ``decided`` (the officer's ``choice``) or ``document``."""

    key: str
    name: str
    birth_year: int | None
    fide_id: int | None
    number: str | None
    state: str
    how: str
    player: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    choice: Choice | None = None


def _players(session: Session, ids: list[int], day: date) -> dict[int, dict[str, Any]]:
    """Name, birth year, ids, club and current DWZ of players ``ids``."""
    rows = session.execute(
        text(
            "SELECT p.id, p.surname, p.given_name, p.birth_year, p.dsb_id, p.fide_id, "
            "(SELECT o.vkz FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
            " WHERE m.player_id = p.id AND m.valid_from <= :d AND (m.valid_to IS NULL OR "
            " m.valid_to >= :d) ORDER BY m.valid_from DESC LIMIT 1) AS vkz "
            "FROM players p WHERE p.id = ANY(:ids)"
        ),
        {"ids": ids, "d": day},
    ).all()
    ratings = current_ratings(session, ids, day)
    return {
        r.id: {
            "id": r.id,
            "name": full_name(r.surname, r.given_name),
            "birth_year": r.birth_year,
            "dsb_id": r.dsb_id,
            "fide_id": r.fide_id,
            "vkz": r.vkz,
            "rating": ratings.get(r.id, (None, None))[0],
            "index": ratings.get(r.id, (None, None))[1],
        }
        for r in rows
    }


def candidates(
    session: Session, name: str, birth_year: int | None, day: date
) -> list[dict[str, Any]]:
    """Database players whose folded name fits ``name`` (prefix search), those born in
    ``birth_year`` first."""
    hits = search_players(session, name=name, day=day, include_unpublished=True, limit=CANDIDATES)
    return sorted(hits, key=lambda h: (h["birth_year"] != birth_year, h["name"], h["id"]))


def for_file(
    session: Session, t: TrfTournament, choices: dict[int, Choice], day: date
) -> list[Row]:
    """The rows of a tournament file (InputError when two start ranks are one player)."""
    matches = match_players(session, t)
    chosen = [c.player_id for c in choices.values() if c.player_id is not None]
    known = _players(session, [m.player_id for m in matches if m.player_id] + chosen, day)
    rows = []
    for p, m in zip(t.players, matches, strict=True):
        rec = p.national.get(FEDERATION)
        row = Row(
            str(p.start_rank), p.name, p.birth_year, p.fide_id, rec.number if rec else None,
            "open", m.how,
        )  # fmt: skip
        c = choices.get(p.start_rank)
        if p.computer:
            row.state = "computer"
        elif m.player_id is not None and c is None:
            row.state, row.player = "matched", known.get(m.player_id)
        else:  # open, or decided by the officer (also over the import's match)
            row.candidates = candidates(session, p.name, p.birth_year, day)
            if c is not None:
                row.state, row.choice = "decided", c
                if c.player_id is not None:
                    row.player = known.get(c.player_id)
        rows.append(row)
    return rows


def for_document(session: Session, doc: dict[str, Any], day: date) -> list[Row]:
    """The rows of a submission document: every player is decided by the document."""
    raw = [p for p in doc.get("players", []) if isinstance(p, dict)]
    ids = [p["player_id"] for p in raw if isinstance(p.get("player_id"), int)]
    known = _players(session, ids, day)
    rows = []
    for p in raw:
        pid = p.get("player_id")
        if isinstance(pid, int):
            how = "player id"
        elif p.get("member", True):
            how = "new member"
        else:
            how = "non-member"
        player = known.get(pid) if isinstance(pid, int) else None
        rows.append(
            Row(
                str(p.get("id")),
                str(p.get("name") or (player["name"] if player else p.get("id"))),
                p.get("birth_year") if isinstance(p.get("birth_year"), int) else None,
                None,
                None,
                "document",
                how,
                player,
            )
        )
    return rows


def open_rows(rows: list[Row]) -> list[Row]:
    """The participants still to be decided: submitting waits until there are none."""
    return [r for r in rows if r.state == "open"]
