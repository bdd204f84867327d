"""The database refuses rows that break its integrity rules (real PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ratingdb.db.models import (
    Game,
    Membership,
    Organisation,
    Participant,
    Player,
    RatingSnapshot,
    RecalcRun,
    Rechenmodul,
    ResidualGameRow,
    Tournament,
)
from ratingdb.rules.dwz2026 import Dwz2026Parameters


@pytest.fixture
def world(db: Session) -> dict[str, Any]:
    """A club, two players, a tournament with two participants and the seeded Rechenmodul."""
    club = Organisation(vkz="C0327", name="SK Beispiel", kind="club")
    alice = Player(surname="Alpha", given_name="Alice", sex="f", birth_year=1990)
    bob = Player(surname="Beta", given_name="Bob", sex="m", birth_year=2001)
    tournament = Tournament(
        code="T-1", name="Open", vkz="C03", start_date=date(2026, 8, 1), end_date=date(2026, 8, 9)
    )
    db.add_all([club, alice, bob, tournament])
    db.flush()
    pa = Participant(tournament_id=tournament.id, player_id=alice.id, start_rank=1)
    pb = Participant(tournament_id=tournament.id, player_id=bob.id, start_rank=2)
    db.add_all([pa, pb])
    db.flush()
    modul = db.scalars(select(Rechenmodul).where(Rechenmodul.family == "dwz2026")).one()
    return {
        "club": club,
        "alice": alice,
        "bob": bob,
        "t": tournament,
        "pa": pa,
        "pb": pb,
        "modul": modul,
    }


def refused(db: Session, make: Callable[[], Any]) -> None:
    """Adding the row must fail with an integrity error; the session stays usable."""
    savepoint = db.begin_nested()
    with pytest.raises(IntegrityError):
        db.add(make())
        db.flush()
    savepoint.rollback()


def test_seeded_rechenmodul_matches_the_code_defaults(world):
    modul = world["modul"]
    assert (modul.version, modul.valid_from) == ("2026.1", date(2026, 6, 8))  # 0007 moved it
    assert Dwz2026Parameters.from_dict(modul.parameters) == Dwz2026Parameters()


def test_valid_rows_are_accepted(db, world):
    db.add(
        Game(
            tournament_id=world["t"].id,
            round=1,
            white_id=world["pa"].id,
            black_id=world["pb"].id,
            result="1/2-1/2",
        )
    )
    db.add(
        Membership(
            player_id=world["alice"].id,
            organisation_id=world["club"].id,
            valid_from=date(2020, 1, 1),
            valid_to=date(2024, 12, 31),
        )
    )
    db.add(
        Membership(
            player_id=world["alice"].id,
            organisation_id=world["club"].id,
            valid_from=date(2025, 1, 1),
        )
    )
    db.flush()
    assert db.scalar(text("SELECT count(*) FROM memberships")) == 2


# each case: (name, factory taking the world) -> a row the database must refuse
CASES: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    ("organisation vkz format", lambda w: Organisation(vkz="C-03", name="x", kind="club")),
    ("organisation kind", lambda w: Organisation(vkz="X1", name="x", kind="pub")),
    ("duplicate vkz", lambda w: Organisation(vkz="C0327", name="x", kind="club")),
    ("player sex", lambda w: Player(surname="X", sex="q")),
    ("birth year range", lambda w: Player(surname="X", birth_year=1700)),
    (
        "birth date vs year",
        lambda w: Player(surname="X", birth_year=1990, birth_date=date(1991, 5, 1)),
    ),
    ("fide id positive", lambda w: Player(surname="X", fide_id=-4)),
    (
        "membership period",
        lambda w: Membership(
            player_id=w["alice"].id,
            organisation_id=w["club"].id,
            valid_from=date(2026, 1, 1),
            valid_to=date(2025, 1, 1),
        ),
    ),
    (
        "membership status",
        lambda w: Membership(
            player_id=w["bob"].id,
            organisation_id=w["club"].id,
            valid_from=date(2026, 1, 1),
            status="honorary",
        ),
    ),
    (
        "tournament end before start",
        lambda w: Tournament(
            code="T-2", name="x", vkz="000", start_date=date(2026, 5, 2), end_date=date(2026, 5, 1)
        ),
    ),
    (
        "tournament kind",
        lambda w: Tournament(
            code="T-3",
            name="x",
            vkz="000",
            start_date=date(2026, 5, 1),
            end_date=date(2026, 5, 1),
            kind="blitz",
        ),
    ),
    (
        "duplicate tournament code",
        lambda w: Tournament(
            code="T-1", name="x", vkz="000", start_date=date(2026, 5, 1), end_date=date(2026, 5, 1)
        ),
    ),
    (
        "participant neither player nor name",
        lambda w: Participant(tournament_id=w["t"].id, start_rank=9),
    ),
    (
        "participant twice",
        lambda w: Participant(tournament_id=w["t"].id, player_id=w["alice"].id, start_rank=7),
    ),
    (
        "duplicate start rank",
        lambda w: Participant(tournament_id=w["t"].id, textual_name="N. N.", start_rank=1),
    ),
    (
        "external rating without source",
        lambda w: Participant(tournament_id=w["t"].id, textual_name="N. N.", external_rating=1800),
    ),
    (
        "external rating not positive",
        lambda w: Participant(
            tournament_id=w["t"].id, textual_name="N. N.", rating_source="fide", external_rating=0
        ),
    ),
    (
        "result code",
        lambda w: Game(
            tournament_id=w["t"].id, white_id=w["pa"].id, black_id=w["pb"].id, result="2-0"
        ),
    ),
    (
        "game against himself",
        lambda w: Game(
            tournament_id=w["t"].id, white_id=w["pa"].id, black_id=w["pa"].id, result="1-0"
        ),
    ),
    (
        "game with unknown participant",
        lambda w: Game(tournament_id=w["t"].id, white_id=w["pa"].id, black_id=10**12, result="1-0"),
    ),
    (
        "residual score",
        lambda w: ResidualGameRow(
            owner_id=w["bob"].id,
            opponent_rating=1500,
            score=Decimal("0.7"),
            played_on=date(2026, 1, 1),
            expires_on=date(2028, 1, 1),
        ),
    ),
    (
        "residual rating positive",
        lambda w: ResidualGameRow(
            owner_id=w["bob"].id,
            opponent_rating=0,
            score=Decimal("1"),
            played_on=date(2026, 1, 1),
            expires_on=date(2028, 1, 1),
        ),
    ),
    (
        "residual expiry",
        lambda w: ResidualGameRow(
            owner_id=w["bob"].id,
            opponent_rating=1500,
            score=Decimal("1"),
            played_on=date(2026, 1, 1),
            expires_on=date(2026, 1, 1),
        ),
    ),
    (
        "snapshot group",
        lambda w: RatingSnapshot(
            tournament_id=w["t"].id,
            participant_id=w["pa"].id,
            player_id=w["alice"].id,
            rechenmodul_id=w["modul"].id,
            player_group="champion",
            age_class="adult",
            score=Decimal("1"),
            games=1,
        ),
    ),
    (
        "snapshot rating positive",
        lambda w: RatingSnapshot(
            tournament_id=w["t"].id,
            participant_id=w["pa"].id,
            player_id=w["alice"].id,
            rechenmodul_id=w["modul"].id,
            player_group="established",
            age_class="adult",
            rating_old=-5,
            score=Decimal("1"),
            games=1,
        ),
    ),
    (
        "snapshot score above games",
        lambda w: RatingSnapshot(
            tournament_id=w["t"].id,
            participant_id=w["pa"].id,
            player_id=w["alice"].id,
            rechenmodul_id=w["modul"].id,
            player_group="established",
            age_class="adult",
            score=Decimal("3"),
            games=2,
        ),
    ),
    (
        "stored snapshot without player",
        lambda w: RatingSnapshot(
            tournament_id=w["t"].id,
            participant_id=w["pb"].id,
            player_id=None,
            rechenmodul_id=w["modul"].id,
            player_group="established",
            age_class="adult",
            score=Decimal("1"),
            games=1,
            stored=True,
        ),
    ),
    (
        "duplicate rechenmodul date",
        lambda w: Rechenmodul(
            family="dwz2026", version="2026.2", valid_from=date(2026, 6, 8), parameters={}
        ),
    ),
    ("recalc run status", lambda w: RecalcRun(status="paused")),
]


@pytest.mark.parametrize(("name", "factory"), CASES, ids=[c[0] for c in CASES])
def test_constraint_refuses(db, world, name, factory):
    refused(db, lambda: factory(world))


def test_overlapping_memberships_in_one_club_are_refused(db, world):
    db.add(
        Membership(
            player_id=world["alice"].id,
            organisation_id=world["club"].id,
            valid_from=date(2020, 1, 1),
            valid_to=date(2024, 12, 31),
        )
    )
    db.flush()
    refused(
        db,
        lambda: Membership(
            player_id=world["alice"].id,
            organisation_id=world["club"].id,
            valid_from=date(2024, 12, 31),
        ),
    )


def test_game_participant_must_belong_to_the_same_tournament(db, world):
    other = Tournament(
        code="T-9", name="x", vkz="000", start_date=date(2026, 5, 1), end_date=date(2026, 5, 1)
    )
    db.add(other)
    db.flush()
    stranger = Participant(tournament_id=other.id, textual_name="N. N.", start_rank=1)
    db.add(stranger)
    db.flush()
    refused(
        db,
        lambda: Game(
            tournament_id=world["t"].id, white_id=world["pa"].id, black_id=stranger.id, result="1-0"
        ),
    )


def test_tests_do_not_leak_into_each_other(db):
    """The world fixture of other tests was rolled back."""
    assert db.scalar(text("SELECT count(*) FROM tournaments")) == 0
