"""The rating database as typed SQLAlchemy 2 models (schema created only by Alembic).

What is stored, with the WO sections behind it:

* ``organisations``: federation levels and clubs by VKZ (WO 6.3: the first three characters
  name the organisation level; VKZ compare as strings, WO 2.2.3).
* ``players``, ``memberships`` (WO 3.4.3 / 4.1.1: membership decides what is stored and the
  5-year retention), ``external_ratings`` (WO 4.1.2: FIDE or national ratings).
* ``tournaments``, ``participants`` (a player, or a *textual* participant, WO 3.4.3),
  ``games`` (results including forfeits, WO 2.2.5.2).
* ``residual_games`` (WO 3.4.2 / 4.1.1: created by one tournament, consumed by a first
  rating, expiring 2 years after the creating tournament's end).
* ``rating_snapshots``: one row per participant and evaluated tournament with everything
  that went in and came out (the per-player output of ``ratingdb evaluate``).
* ``rechenmodule`` (WO Anhang 1.2: versioned rule family + parameters by valid-from date),
  ``rating_adjustments`` (WO Anhang 4), ``recalc_runs`` (WO 3.7) and ``audit_log``.

Integrity lives in the database: foreign keys, CHECK constraints, unique keys, an exclusion
constraint against overlapping memberships in one club, and indexes for the hot reads.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, ExcludeConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

RESULT_CODES = ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "W-L", "L-W", "D-D")
KINDS = ("individual", "team", "match")
GROUPS = ("established", "first_stage", "second_stage", "remaining")
AGE_CLASSES = ("youth", "junior", "adult")


def _in(column: str, values: tuple[str, ...]) -> str:
    quoted = ", ".join(f"'{v}'" for v in values)
    return f"{column} IN ({quoted})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Organisation(Base):
    """A federation level or a club, identified by its VKZ (WO 6.3)."""

    __tablename__ = "organisations"
    __table_args__ = (
        CheckConstraint("vkz ~ '^[0-9A-Za-z]{1,10}$'", name="vkz_format"),
        CheckConstraint(_in("kind", ("federation", "region", "district", "club")), name="kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    vkz: Mapped[str] = mapped_column(String(10), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("organisations.id"))


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (
        CheckConstraint(_in("sex", ("m", "f", "d")), name="sex"),
        CheckConstraint("birth_year BETWEEN 1850 AND 2200", name="birth_year_range"),
        CheckConstraint(
            "birth_date IS NULL OR birth_year = EXTRACT(YEAR FROM birth_date)",
            name="birth_date_matches_year",
        ),
        CheckConstraint("fide_id > 0", name="fide_id_positive"),
        Index("ix_players_name", "surname", "given_name"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    dsb_id: Mapped[str | None] = mapped_column(String(20), unique=True)
    fide_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    surname: Mapped[str] = mapped_column(String(100))
    given_name: Mapped[str] = mapped_column(String(100), server_default="")
    sex: Mapped[str | None] = mapped_column(String(1))
    birth_date: Mapped[date | None] = mapped_column(Date)
    birth_year: Mapped[int | None] = mapped_column(Integer)
    #: FIDE federation and title as a tournament file gave them (migration 0021)
    federation: Mapped[str | None] = mapped_column(String(3))
    title: Mapped[str | None] = mapped_column(String(3))
    anonymised: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Membership(Base):
    """A player's membership in a club over a period (``valid_to`` null: ongoing)."""

    __tablename__ = "memberships"
    __table_args__ = (
        CheckConstraint("valid_to IS NULL OR valid_to >= valid_from", name="period"),
        CheckConstraint(_in("status", ("active", "passive")), name="status"),
        ExcludeConstraint(
            ("player_id", "="),
            ("organisation_id", "="),
            (text("daterange(valid_from, valid_to, '[]')"), "&&"),
            name="no_overlap",
            using="gist",
        ),
        Index("ix_memberships_player_period", "player_id", "valid_from"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"))
    member_number: Mapped[str | None] = mapped_column(String(10))
    valid_from: Mapped[date] = mapped_column(Date)
    valid_to: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), server_default="active")
    #: the member list's ``Spielberechtigung`` as given (migration 0016)
    eligibility: Mapped[str | None] = mapped_column(String(5))


class ExternalRating(Base):
    """A FIDE or national rating with its list date (WO 4.1.2)."""

    __tablename__ = "external_ratings"
    __table_args__ = (
        CheckConstraint(_in("system", ("fide", "national")), name="system"),
        CheckConstraint("rating > 0", name="rating_positive"),
        UniqueConstraint("player_id", "system", "federation", "rated_on"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    system: Mapped[str] = mapped_column(String(10))
    federation: Mapped[str] = mapped_column(String(4))
    rating: Mapped[int] = mapped_column(Integer)
    rated_on: Mapped[date] = mapped_column(Date)


class Rechenmodul(Base):
    """A versioned rule set: family, parameters, valid from a date (WO Anhang 1.2)."""

    __tablename__ = "rechenmodule"
    __table_args__ = (UniqueConstraint("family", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    family: Mapped[str] = mapped_column(String(30))
    version: Mapped[str] = mapped_column(String(30))
    valid_from: Mapped[date] = mapped_column(Date, unique=True)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONB)
    description: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Tournament(Base):
    """A tournament; the evaluation order is (end, start, VKZ, processed_at) (WO 2.2.3)."""

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint("end_date >= start_date", name="end_after_start"),
        CheckConstraint(_in("kind", KINDS), name="kind"),
        CheckConstraint(_in("status", ("submitted", "evaluated", "rejected")), name="status"),
        Index(
            "ix_tournaments_evaluation_order",
            "end_date",
            "start_date",
            "vkz",
            "processed_at",
            "id",
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    code: Mapped[str] = mapped_column(String(30), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    #: compared as a string (WO 2.2.3): byte order, whatever the database's locale
    vkz: Mapped[str] = mapped_column(String(10, collation="C"))
    city: Mapped[str | None] = mapped_column(String(100))
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    kind: Mapped[str] = mapped_column(String(12), server_default="individual")
    time_control: Mapped[str | None] = mapped_column(String(100))
    rated: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    evaluators: Mapped[list[str]] = mapped_column(ARRAY(String(100)), server_default="{}")
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    processed_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )
    status: Mapped[str] = mapped_column(String(12), server_default="submitted")
    #: a file's tournament data no rating needs (type, round dates, arbiters, team
    #: records, ...): migration 0010
    exchange: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")


class Participant(Base):
    """A player in a tournament, or a textual participant (non-member, WO 3.4.3)."""

    __tablename__ = "participants"
    __table_args__ = (
        CheckConstraint("player_id IS NOT NULL OR textual_name IS NOT NULL", name="identified"),
        CheckConstraint("start_rank > 0", name="start_rank_positive"),
        CheckConstraint(_in("rating_source", ("fide", "national")), name="rating_source"),
        CheckConstraint(
            "(rating_source IS NULL) = (external_rating IS NULL)", name="external_rating_source"
        ),
        CheckConstraint("external_rating > 0", name="external_rating_positive"),
        CheckConstraint("external_index >= 0", name="external_index_nonnegative"),
        UniqueConstraint("tournament_id", "player_id"),
        UniqueConstraint("tournament_id", "start_rank"),
        UniqueConstraint("tournament_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    start_rank: Mapped[int | None] = mapped_column(Integer)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    textual_name: Mapped[str | None] = mapped_column(String(200))
    club_vkz: Mapped[str | None] = mapped_column(String(10))
    rating_source: Mapped[str | None] = mapped_column(String(10))
    external_rating: Mapped[int | None] = mapped_column(Integer)
    external_index: Mapped[int | None] = mapped_column(Integer)
    computer: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    #: round -> TRF code of every round without an opponent (byes, absences; never rated)
    byes: Mapped[dict[str, str]] = mapped_column(JSONB, server_default="{}")
    title: Mapped[str | None] = mapped_column(String(3))
    federation: Mapped[str | None] = mapped_column(String(3))


class Game(Base):
    """One game; both participants belong to the game's tournament."""

    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint(_in("result", RESULT_CODES), name="result_code"),
        CheckConstraint("white_id <> black_id", name="two_players"),
        CheckConstraint("round >= 0", name="round_nonnegative"),
        ForeignKeyConstraint(
            ["tournament_id", "white_id"],
            ["participants.tournament_id", "participants.id"],
            ondelete="CASCADE",
            name="fk_games_white_participants",
        ),
        ForeignKeyConstraint(
            ["tournament_id", "black_id"],
            ["participants.tournament_id", "participants.id"],
            ondelete="CASCADE",
            name="fk_games_black_participants",
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    round: Mapped[int | None] = mapped_column(Integer)
    board: Mapped[int | None] = mapped_column(Integer)
    white_id: Mapped[int] = mapped_column(BigInteger)
    black_id: Mapped[int] = mapped_column(BigInteger)
    result: Mapped[str] = mapped_column(String(7))


class ResidualGameRow(Base):
    """A Restpartie: created by a tournament, consumed by a first rating, expiring (4.1.1)."""

    __tablename__ = "residual_games"
    __table_args__ = (
        CheckConstraint("opponent_rating > 0", name="opponent_rating_positive"),
        CheckConstraint("score IN (0, 0.5, 1)", name="score_value"),
        CheckConstraint("expires_on > played_on", name="expires_after_played"),
        CheckConstraint("seq >= 0", name="seq_nonnegative"),
        UniqueConstraint("owner_id", "created_by_id", "seq"),
        Index("ix_residual_games_owner_expiry", "owner_id", "expires_on"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    opponent_rating: Mapped[int] = mapped_column(Integer)
    score: Mapped[Decimal] = mapped_column(Numeric(2, 1))
    played_on: Mapped[date] = mapped_column(Date)
    expires_on: Mapped[date] = mapped_column(Date)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    #: position among the residual games one tournament gave this owner
    seq: Mapped[int] = mapped_column(Integer, server_default="0")
    consumed_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id", ondelete="SET NULL"), index=True
    )


class RatingSnapshot(Base):
    """One participant's evaluation in one tournament: what went in and what came out."""

    __tablename__ = "rating_snapshots"
    __table_args__ = (
        CheckConstraint(_in("player_group", GROUPS), name="player_group"),
        CheckConstraint(_in("rating_source", ("dwz", "fide", "national")), name="rating_source"),
        CheckConstraint(_in("age_class", AGE_CLASSES), name="age_class"),
        CheckConstraint("rating_old > 0", name="rating_old_positive"),
        CheckConstraint("rating_new > 0", name="rating_new_positive"),
        CheckConstraint("index_old >= 0 AND index_new >= 0", name="index_nonnegative"),
        CheckConstraint("games >= 0", name="games_nonnegative"),
        CheckConstraint("score >= 0 AND score <= games", name="score_range"),
        CheckConstraint("performance >= 0", name="performance_nonnegative"),
        CheckConstraint("k > 0", name="k_positive"),
        CheckConstraint("NOT stored OR player_id IS NOT NULL", name="stored_needs_player"),
        UniqueConstraint("tournament_id", "participant_id"),
        Index("ix_rating_snapshots_player_history", "player_id", "tournament_id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(ForeignKey("participants.id", ondelete="CASCADE"))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    rechenmodul_id: Mapped[int] = mapped_column(ForeignKey("rechenmodule.id"))
    # what went in
    player_group: Mapped[str] = mapped_column(String(12))
    age_class: Mapped[str] = mapped_column(String(6))
    rating_old: Mapped[int | None] = mapped_column(Integer)
    index_old: Mapped[int | None] = mapped_column(Integer)
    #: the rating and index the engine passed in (``rating_old``/``index_old`` are what the
    #: rules report: no rating for a computer, index 6 for a foreign rating without one)
    rating_in: Mapped[int | None] = mapped_column(Integer)
    index_in: Mapped[int | None] = mapped_column(Integer)
    rating_source: Mapped[str | None] = mapped_column(String(10))
    member: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    birth_year: Mapped[int | None] = mapped_column(Integer)
    #: the valid residual games that went in: [{created_by, seq, opponent_rating, score,
    #: played_on}]
    residual_in: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default="[]")
    # what came out
    k: Mapped[Decimal | None] = mapped_column(Numeric(4, 1))
    opponents_avg: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[Decimal] = mapped_column(Numeric(6, 1))
    games: Mapped[int] = mapped_column(Integer)
    expected: Mapped[Decimal | None] = mapped_column(Numeric(8, 3))
    performance: Mapped[int | None] = mapped_column(Integer)
    exceptional: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    start_value: Mapped[int | None] = mapped_column(Integer)
    iteration_value: Mapped[int | None] = mapped_column(Integer)
    rating_new: Mapped[int | None] = mapped_column(Integer)
    index_new: Mapped[int | None] = mapped_column(Integer)
    stored: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    new_residual_games: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default="[]")
    #: P(D) of each of the player's games in the tournament's game order (null: the game
    #: does not count), for an evaluated established player; [] otherwise (WO 3.3.2)
    expected_games: Mapped[list[float | None]] = mapped_column(JSONB, server_default="[]")


class RatingTakeover(Base):
    """A rating taken over from a federation list (the official "Datenübernahme"): on
    ``taken_on`` the player's rating and index become these values. Only for players
    without history at import time; later tournaments build on it (docs/data-exchange.md)."""

    __tablename__ = "rating_takeovers"
    __table_args__ = (
        CheckConstraint("rating > 0", name="rating_positive"),
        CheckConstraint("rating_index >= 1", name="index_positive"),
    )

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    taken_on: Mapped[date] = mapped_column(Date)
    rating: Mapped[int] = mapped_column(Integer)
    rating_index: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(200), server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class RatingAdjustment(Base):
    """A dated event that maps every stored rating through a formula (WO Anhang 4)."""

    __tablename__ = "rating_adjustments"
    __table_args__ = (UniqueConstraint("effective_on", "formula"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    effective_on: Mapped[date] = mapped_column(Date)
    formula: Mapped[str] = mapped_column(String(50))
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    raises_index: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class RecalcRun(Base):
    """A Berechnungslauf (WO 3.7): when, from which change point, what it changed."""

    __tablename__ = "recalc_runs"
    __table_args__ = (
        CheckConstraint(_in("status", ("running", "succeeded", "failed")), name="status"),
        CheckConstraint("finished_at IS NULL OR finished_at >= started_at", name="finished"),
        CheckConstraint(
            "tournaments_evaluated >= 0 AND ratings_changed >= 0", name="counts_nonnegative"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    change_point: Mapped[date | None] = mapped_column(Date)
    full: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    status: Mapped[str] = mapped_column(String(10), server_default="running")
    tournaments_evaluated: Mapped[int] = mapped_column(Integer, server_default="0")
    ratings_changed: Mapped[int] = mapped_column(Integer, server_default="0")
    message: Mapped[str | None] = mapped_column(Text)
    #: the code of the tournament a failed run was evaluating (migration 0012)
    failed_tournament: Mapped[str | None] = mapped_column(String(30))
    #: every player the run changed (:mod:`ratingdb.db.change_report`): ``[player_id,
    #: rating_before, index_before, rating_after, index_after, evaluations_changed]``
    changes: Mapped[list[list[Any]]] = mapped_column(JSONB, server_default="[]")


class RemovedSnapshot(Base):
    """An evaluation an edit removed before the next run (deleting or correcting a
    tournament deletes its snapshots at once), kept for that run's change report
    (:mod:`ratingdb.db.change_report`): the tournament's order key (WO 2.2.3) at the time,
    what it stored and the fingerprint of its exported values. The run drops it."""

    __tablename__ = "removed_snapshots"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: no foreign key: the tournament may be gone
    tournament_id: Mapped[int] = mapped_column(BigInteger)
    end_date: Mapped[date] = mapped_column(Date)
    start_date: Mapped[date] = mapped_column(Date)
    vkz: Mapped[str] = mapped_column(String(10, collation="C"))
    processed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    stored: Mapped[bool] = mapped_column(Boolean)
    rating_new: Mapped[int | None] = mapped_column(Integer)
    index_new: Mapped[int | None] = mapped_column(Integer)
    fingerprint: Mapped[int] = mapped_column(BigInteger)


class ChangePoint(Base):
    """A pending change the next recalculation run must replay from (WO 3.7).

    ``kind``: insert / correct / delete of a tournament, a changed player record, a
    Rechenmodul added, or a full replay. ``hold_key`` is the old order key of a deleted
    or corrected tournament (its players stay dirty until the replay passes it).
    """

    __tablename__ = "change_points"
    __table_args__ = (
        CheckConstraint(
            _in(
                "kind",
                ("insert", "correct", "delete", "player", "rechenmodul", "adjustment", "full"),
            ),
            name="kind",
        ),
        Index("ix_change_points_pending", "run_id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    kind: Mapped[str] = mapped_column(String(12))
    from_date: Mapped[date] = mapped_column(Date)
    tournament_id: Mapped[int | None] = mapped_column(BigInteger)
    player_ids: Mapped[list[int]] = mapped_column(ARRAY(BigInteger), server_default="{}")
    hold_key: Mapped[list[Any] | None] = mapped_column(JSONB)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("recalc_runs.id"))


class AuditEntry(Base):
    """Who changed what and when, with the change point it caused."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_at", "at"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(50))
    entity: Mapped[str] = mapped_column(String(50))
    entity_id: Mapped[str | None] = mapped_column(String(50))
    change_point: Mapped[date | None] = mapped_column(Date)
    details: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")


# -- the web service (docs/web.md) -------------------------------------------------------------
ROLES = ("officer", "admin")


class User(Base):
    """A rating officer or an administrator of the web API.

    Officers act for their organisation levels, named by VKZ prefixes (WO 6.3: the first
    characters of the VKZ name the level and so the responsible officer); administrators
    may act on everything, also after the one-year period of WO 6.2.
    """

    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint(_in("role", ROLES), name="role"),
        CheckConstraint("name ~ '^[A-Za-z0-9._@-]{1,100}$'", name="name_format"),
        CheckConstraint("role = 'admin' OR cardinality(scopes) >= 1", name="officer_scoped"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    full_name: Mapped[str] = mapped_column(String(200), server_default="")
    role: Mapped[str] = mapped_column(String(10))
    #: VKZ prefixes the officer is responsible for (WO 6.3); empty for admins
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(10)), server_default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    #: the argon2id hash of the password for the web pages (migration 0014); null: none
    password_hash: Mapped[str | None] = mapped_column(Text)
    #: when an administrator disabled the user (migration 0022); null: active
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """An API token of a user, stored only as its SHA-256 hash (the token is shown once)."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: the first characters of the token, to tell tokens apart in listings
    prefix: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(String(100), server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class WebSession(Base):
    """A browser signed in to the web pages (migration 0014): the session token is stored
    only as its SHA-256 hash, with the CSRF token of the session's forms."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SignInThrottle(Base):
    """Counted sign-in attempts of one key (``pair:ADDRESS|NAME`` or ``addr:ADDRESS``,
    :mod:`ratingdb.services.sign_in`) since its last success, and until when the key is locked
    (migration 0014)."""

    __tablename__ = "sign_in_throttle"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, server_default="0")
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class WebDraft(Base):
    """A tournament file uploaded on the officer's pages and not yet submitted (migration
    0015): its bytes, the upload form's options, the who-is-who choices, and for a
    correction the stored tournament (``target``) it replaces."""

    __tablename__ = "web_drafts"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    filename: Mapped[str] = mapped_column(String(200))
    content: Mapped[bytes] = mapped_column(LargeBinary)
    options: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    choices: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    target: Mapped[str | None] = mapped_column(String(30))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DataVersion(Base):
    """The data version (migration 0017; docs/database.md, "The data version"): ``n`` rises
    at the commit of every transaction that wrote data of the public pages (triggers); the
    web's page cache keys the pages by it. One row."""

    __tablename__ = "data_version"

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger)


class DataTouched(Base):
    """A transaction that wrote data and has not committed yet (its id; migration 0017):
    the deferred trigger on its row raises :class:`DataVersion` at the commit."""

    __tablename__ = "data_touched"

    xid: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)


class DataChange(Base):
    """The scopes a data version's change touched (migration 0018; docs/database.md, "The
    scopes of a change"): ``p:``/``n:``/``t:``/``v:`` words of :mod:`ratingdb.web.scopes`,
    None for everything. The last 5,000 versions."""

    __tablename__ = "data_changes"

    n: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    scopes: Mapped[list[str] | None] = mapped_column(ARRAY(Text))


class TournamentCalculation(Base):
    """When a tournament was first evaluated and last recalculated (WO 6.5.2.1 item 4:
    "Auswertungsdatum, letztes Berechnungsdatum"). Stamped by a statement-level trigger on
    ``rating_snapshots`` (migration 0006): every run that writes a tournament's snapshots
    sets ``calculated_at``; the first one also ``evaluated_at``."""

    __tablename__ = "tournament_calculations"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    evaluated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    calculated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EvaluationProblem(Base):
    """A tournament the rules refused in the last run that evaluated it, and the
    participants struck because of it (ratingdb/engine/problems.py): they kept their
    rating, index and residual games. Rewritten with the tournament's snapshots."""

    __tablename__ = "evaluation_problems"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    participant_ids: Mapped[list[int]] = mapped_column(ARRAY(BigInteger), server_default="{}")
    message: Mapped[str] = mapped_column(Text)
    run_started_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


# indexes of the web pages: player search by name prefix (accents and umlauts folded by
# ratingdb_fold_name, migration 0013; text_pattern_ops: a prefix is an index range, read in
# byte order with ``ORDER BY ... USING ~<~``), names of tournament imports (lower case),
# members of a club (rating lists, search by club), tournament lists by VKZ prefix
Index(
    "ix_players_search_name",
    func.lower(Player.surname).label("surname_lower"),
    func.lower(Player.given_name).label("given_lower"),
    postgresql_ops={"surname_lower": "text_pattern_ops", "given_lower": "text_pattern_ops"},
)
Index(
    "ix_players_folded_name",
    func.ratingdb_fold_name(Player.surname).label("surname_folded"),
    func.ratingdb_fold_name(Player.given_name).label("given_folded"),
    postgresql_ops={"surname_folded": "text_pattern_ops", "given_folded": "text_pattern_ops"},
)
Index("ix_memberships_organisation", Membership.organisation_id, Membership.valid_from)
Index("ix_tournaments_vkz", Tournament.vkz, Tournament.end_date)
