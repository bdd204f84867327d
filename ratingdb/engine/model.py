"""The engine's in-memory view of the history (WO 2.2.3, 3.7, 4.1.1, 6.4.2).

Everything the replay needs is loaded once into these frozen objects; the database layer
builds them in bulk and writes the resulting snapshots back in bulk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ratingdb.engine.order import OrderKey
from ratingdb.rules.model import GameInput, Kind
from ratingdb.rules.snapshots import SnapshotOutput

EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class Membership:
    valid_from: date
    valid_to: date | None = None


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: int
    birth_year: int | None = None
    memberships: tuple[Membership, ...] = ()
    takeover: Takeover | None = None


@dataclass(frozen=True, slots=True)
class Takeover:
    """A rating taken over from a federation list (the "Datenübernahme"): after every
    tournament ending on ``taken_on`` the player's rating and index are these values."""

    taken_on: date
    rating: int
    index: int

    def apply(self, state: PlayerState) -> PlayerState:
        return PlayerState(self.rating, self.index, (), self.taken_on)


#: A participant, a participant's input and its snapshot are plain slots dataclasses, not
#: frozen ones: a full replay makes one of each per participant (1.2 million at 250,000
#: players) in the replay's own process, whose interpreter is its bottleneck, and a frozen
#: dataclass sets each field with ``object.__setattr__`` (4-5 times the cost). Nothing
#: changes them once made, and nothing hashes them. A player's state stays frozen (the
#: empty state is one shared object).
@dataclass(slots=True)
class EngineParticipant:
    """A participant: a database player or a textual one (``player_id`` None).

    ``external_rating`` is a FIDE/national rating used as R_0 when the player has no
    DWZ (WO 4.1.2); ``id`` is the participant's id, unique across tournaments.
    """

    id: int
    player_id: int | None
    name: str | None = None
    club_vkz: str | None = None
    rating_source: str | None = None
    external_rating: int | None = None
    external_index: int | None = None
    computer: bool = False


@dataclass(frozen=True, slots=True)
class EngineTournament:
    id: int
    code: str
    start: date
    end: date
    vkz: str
    processed_at: datetime = EPOCH
    kind: Kind = "individual"
    name: str | None = None
    participants: tuple[EngineParticipant, ...] = ()
    #: games name participants by ``str(participant.id)``
    games: tuple[GameInput, ...] = ()

    @property
    def player_ids(self) -> frozenset[int]:
        """The database players among the participants."""
        return frozenset(p.player_id for p in self.participants if p.player_id is not None)

    @property
    def order_key(self) -> OrderKey:
        """WO 2.2.3: end date, start date, VKZ as a string, processing time (then id)."""
        return OrderKey(self.end, self.start, self.vkz, self.processed_at, self.id)


@dataclass(frozen=True, slots=True, order=True)
class ResidualEntry:
    """A held residual game; (created_by, seq) identifies it across replays."""

    created_by: int
    seq: int
    opponent_rating: int
    score: Decimal
    played_on: date

    def as_json(self) -> dict[str, Any]:
        return {
            "created_by": self.created_by,
            "seq": self.seq,
            "opponent_rating": self.opponent_rating,
            "score": str(self.score),
            "played_on": self.played_on.isoformat(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResidualEntry:
        return cls(
            int(data["created_by"]),
            int(data["seq"]),
            int(data["opponent_rating"]),
            Decimal(data["score"]),
            date.fromisoformat(data["played_on"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's stored state between two evaluations (WO 6.4.2).

    ``as_of`` is the end date of the last tournament the player took part in as a member
    (used for the retention period, WO 4.1.1).
    """

    rating: int | None = None
    index: int | None = None
    residual: tuple[ResidualEntry, ...] = ()
    as_of: date | None = None


EMPTY_STATE = PlayerState()


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A dated rating conversion (WO Anhang 4): it runs after every tournament ending on
    ``effective_on`` and maps the rating of every stored state, the opponent ratings of
    held residual games, and (``raises_index``) raises the index by one."""

    effective_on: date
    formula: str
    raises_index: bool = True

    def apply(self, state: PlayerState) -> PlayerState:
        from ratingdb.rules.adjustments import formula

        convert = formula(self.formula)
        rating = None if state.rating is None else convert(state.rating)
        index = state.index
        if rating is not None and index is not None and self.raises_index:
            index += 1
        residual = tuple(
            ResidualEntry(r.created_by, r.seq, convert(r.opponent_rating), r.score, r.played_on)
            for r in state.residual
        )
        return PlayerState(rating, index, residual, state.as_of)


@dataclass(slots=True)
class SnapshotInput:
    """What went into one participant's evaluation (compared to detect changes)."""

    rating: int | None
    index: int | None
    rating_source: str | None
    member: bool
    birth_year: int | None
    residual: tuple[ResidualEntry, ...]
    rechenmodul: str


@dataclass(slots=True)
class Snapshot:
    """One participant's evaluation in one tournament: input and output."""

    tournament_id: int
    participant_id: int
    player_id: int | None
    input: SnapshotInput
    #: what the rules gave out (ratingdb.rules.snapshots)
    output: SnapshotOutput = field(hash=False)
    #: ``output`` as the replay's ``encode`` gave it where the rules ran (a full replay has
    #: the output's columns written as COPY text by its worker process, or by itself for
    #: what it evaluates itself: ratingdb/db/snapshot_text.py); None without one. Not part
    #: of the snapshot's value (it only saves the writer work).
    encoded: str | None = field(default=None, compare=False, repr=False)

    @property
    def stored(self) -> bool:
        return self.output.stored
