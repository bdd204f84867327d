"""Anonymisation of a non-member's or former member's personal data (WO 4.1.1).

"Für Spieler, die nicht oder nicht mehr Mitglied innerhalb des DSB sind, kann auf Antrag an
die Wertungszentrale die Anonymisierung ihrer Daten in betroffenen Turnierauswertungen
vorgenommen werden." Every evaluation shows the player's name from the player record, so
replacing the record's personal data anonymises all of them at once:

* name -> the placeholder ``Anonymisiert`` (given name empty), ``anonymised`` set;
* DSB id, FIDE id, sex, birth date and the member numbers of the memberships -> removed.

No number changes: the ratings, snapshots, games and residual games stay as they are, and
so does everything a later replay reads — the birth year (age class, WO 3.5.2.2) and the
membership periods (what is stored, WO 3.4.3/4.1.1) are kept, but never shown (an
anonymised player is never published). A current member cannot be anonymised.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from sqlalchemy import CursorResult, text
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry
from ratingdb.errors import InputError, NotFound
from ratingdb.i18n import _

PLACEHOLDER = "Anonymisiert"


@dataclass(frozen=True, slots=True)
class Anonymised:
    player_id: int
    evaluations: int
    memberships: int


def anonymise_player(
    session: Session, player_id: int, *, today: date | None = None, actor: str = "cli"
) -> Anonymised:
    """Replace the personal data of player ``player_id``; InputError if unknown, already
    anonymised, or a member on ``today`` (or later)."""
    today = today or date.today()
    row = session.execute(
        text("SELECT id, anonymised FROM players WHERE id = :p FOR UPDATE"), {"p": player_id}
    ).first()
    if row is None:
        raise NotFound(_("no player with id %(id)s") % {"id": player_id})  # the web's 404
    if row.anonymised:
        raise InputError("player", _("player %(id)s is anonymised already") % {"id": player_id})
    member = session.execute(
        text(
            "SELECT o.vkz FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
            "WHERE m.player_id = :p AND (m.valid_to IS NULL OR m.valid_to >= :d) LIMIT 1"
        ),
        {"p": player_id, "d": today},
    ).scalar()
    if member is not None:
        raise InputError(
            "player",
            f"player {player_id} is a member of {member} on {today}: only non-members and "
            "former members can be anonymised (WO 4.1.1)",
        )
    session.execute(
        text(
            "UPDATE players SET surname = :name, given_name = '', sex = NULL, birth_date = NULL, "
            "dsb_id = NULL, fide_id = NULL, federation = NULL, title = NULL, anonymised = true "
            "WHERE id = :p"
        ),
        {"p": player_id, "name": PLACEHOLDER},
    )
    memberships = cast(
        CursorResult[Any],
        session.execute(
            text("UPDATE memberships SET member_number = NULL WHERE player_id = :p"),
            {"p": player_id},
        ),
    ).rowcount
    evaluations = session.execute(
        text("SELECT count(*) FROM rating_snapshots WHERE player_id = :p"), {"p": player_id}
    ).scalar_one()
    session.add(
        AuditEntry(
            actor=actor,
            action="anonymise",
            entity="player",
            entity_id=str(player_id),
            details={"evaluations": evaluations, "memberships": memberships},
        )
    )
    session.flush()
    return Anonymised(player_id, evaluations, memberships)
