"""Exact change reports: which players a recalculation run (Berechnungslauf, WO 3.7) changes.

The one definition behind the run record (``recalc_runs.changes``), ``ratingdb recalc
[--dry-run]``, ``ratingdb runs`` and the what-if: a player *changed* when their current DWZ
(rating and index of their last stored evaluation, WO 6.4.2) or any of their stored
evaluations (the values ``ratingdb export evaluations`` shows, the name excepted) differs
between the *published* state, the one the last run left, and the state after the run.

Deleting or correcting a tournament removes its snapshots at once
(ratingdb/services/submissions.py), before the run that replays the change;
:func:`keep_removed` keeps what the report needs of them in ``removed_snapshots`` so that the
published state still holds them: a deleted tournament's players are reported, and so is every
player whose later state moved. The next successful run drops them (a dry run or a what-if
rolls back and leaves them).

The comparison is in bulk: :func:`before_run` reads, in a few queries inside the run's
transaction, the current DWZ of every player who can change (those in the re-evaluated
tournaments, old and new, and in removed snapshots) and a multiset hash of all their
evaluations; :func:`after_run` reads the same after the snapshots are written and compares.
The hashes cover a player's whole history, so two runs' states of a player compare too (the
what-if compares the next run with and without a change, ratingdb/services/whatif.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.evaluation_columns import VALUES_ROW
from ratingdb.db.store import driver
from ratingdb.engine.model import Snapshot
from ratingdb.engine.order import ORDER_DESC
from ratingdb.i18n import _
from ratingdb.names import full_name

#: a snapshot's exported values hashed to a signed 64-bit integer (SQL over ``s``, ``t``)
FINGERPRINT = f"('x' || left(md5({VALUES_ROW}::text), 16))::bit(64)::bigint"
#: how a missing rating is shown
NONE = "–"

Key = tuple[date, date, str, datetime, int]


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's current DWZ (``rating``, ``index``: the last stored evaluation; None
    without one) and ``evaluations``: how many of their evaluations the compared
    tournaments hold and the sum of their fingerprints modulo 2**64 (equal multisets give
    equal pairs; a different evaluation a different pair, up to a hash collision)."""

    rating: int | None = None
    index: int | None = None
    evaluations: tuple[int, int] = (0, 0)

    @property
    def dwz(self) -> str:
        """``1742-31`` (DWZ and index, as the DSB writes them), ``1742``, or ``–``."""
        if self.rating is None:
            return NONE
        return str(self.rating) if self.index is None else f"{self.rating}-{self.index}"


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One changed player: the published state (``old``) and the state after the run."""

    player_id: int
    name: str
    old: PlayerState
    new: PlayerState

    @property
    def before(self) -> int | None:
        return self.old.rating

    @property
    def after(self) -> int | None:
        return self.new.rating

    @property
    def delta(self) -> int | None:
        """New minus old rating; None when either has none (a first rating)."""
        if self.old.rating is None or self.new.rating is None:
            return None
        return self.new.rating - self.old.rating

    @property
    def dwz_changed(self) -> bool:
        return (self.old.rating, self.old.index) != (self.new.rating, self.new.index)

    @property
    def evaluations_changed(self) -> bool:
        return self.old.evaluations != self.new.evaluations

    def line(self) -> str:
        """``Meier, Anna (17): 1742-31 → 1753-32 (+11)``, in the language in force; where the
        current DWZ stayed and only an evaluation changed, the note says which case it is:
        a player still without a DWZ whose residual games were stored (WO 4.1.1), or an
        earlier evaluation of a rated player that changed."""
        if self.delta:
            note = f" ({self.delta:+d})"
        elif self.dwz_changed:
            note = ""
        elif self.new.rating is None:
            note = " (" + _("no DWZ yet, residual games stored") + ")"
        else:
            note = " (" + _("current DWZ unchanged, an earlier evaluation changed") + ")"
        return f"{self.name} ({self.player_id}): {self.old.dwz} → {self.new.dwz}{note}"

    def record(self) -> list[Any]:
        """The run record's entry (``recalc_runs.changes``)."""
        return [
            self.player_id,
            self.old.rating,
            self.old.index,
            self.new.rating,
            self.new.index,
            self.evaluations_changed,
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "rating_before": self.old.rating,
            "index_before": self.old.index,
            "rating_after": self.new.rating,
            "index_after": self.new.index,
            "delta": self.delta,
            "evaluations_changed": self.evaluations_changed,
        }


@dataclass(frozen=True, slots=True)
class Published:
    """The published state of the players a run can change (:func:`before_run`);
    ``every_player``: of everyone with an evaluation (a full replay)."""

    states: dict[int, PlayerState]
    every_player: bool
    removed_ids: tuple[int, ...]


def keep_removed(session: Session, tournament_id: int) -> None:
    """Keep the evaluations of tournament ``tournament_id`` for the next run's report; call
    before an edit deletes its snapshots (deleting or correcting the tournament)."""
    session.execute(
        text(
            "INSERT INTO removed_snapshots (player_id, tournament_id, end_date, start_date, "
            "vkz, processed_at, stored, rating_new, index_new, fingerprint) "
            "SELECT s.player_id, t.id, t.end_date, t.start_date, t.vkz, t.processed_at, "
            f"s.stored, s.rating_new, s.index_new, {FINGERPRINT} "
            "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            "WHERE s.tournament_id = :t AND s.player_id IS NOT NULL"
        ),
        {"t": tournament_id},
    )


def before_run(
    session: Session,
    tournaments: Iterable[int] | None,
    players: Iterable[int],
    *,
    deferred: Iterable[int] = (),
) -> Published:
    """The published state of every player the run can change, read before it writes: those
    in the snapshots of the tournaments it rewrites (``None``: all, a full replay), in the
    removed snapshots, and ``players`` (those in the run's new snapshots). The removed
    snapshots of ``deferred`` tournaments (edited while the run computed, left to the next
    run: ratingdb/db/recalc.py) stay out and are kept for the next run's report."""
    removed = session.execute(
        text(
            "SELECT id, player_id, end_date, start_date, vkz, processed_at, tournament_id, "
            "stored, rating_new, index_new, fingerprint FROM removed_snapshots "
            "WHERE tournament_id <> ALL(:deferred)"
        ),
        {"deferred": sorted(set(deferred))},
    ).all()
    pids = {r.player_id for r in removed} | set(players)
    if tournaments is not None:
        pids |= set(
            session.execute(
                text(
                    "SELECT DISTINCT player_id FROM rating_snapshots "
                    "WHERE tournament_id = ANY(:tids) AND player_id IS NOT NULL"
                ),
                {"tids": sorted(set(tournaments))},
            ).scalars()
        )
    every = tournaments is None
    digests = _digests(session, None if every else pids)
    latest: dict[int, tuple[Key, int | None, int | None]] = {}
    for r in removed:
        digests[r.player_id] = _add(digests.get(r.player_id, (0, 0)), r.fingerprint)
        key = (r.end_date, r.start_date, r.vkz, r.processed_at, r.tournament_id)
        if r.stored and (r.player_id not in latest or key > latest[r.player_id][0]):
            latest[r.player_id] = (key, r.rating_new, r.index_new)
    pids |= set(digests)
    current = _current(session, None if every else pids)
    states = {}
    for pid in pids:
        found = [x for x in (current.get(pid), latest.get(pid)) if x]
        last = max(found, key=lambda x: x[0], default=None)
        rating, index = (None, None) if last is None else last[1:]
        states[pid] = PlayerState(rating, index, digests.get(pid, (0, 0)))
    return Published(states, every, tuple(r.id for r in removed))


def after_run(
    session: Session, published: Published, latest: Mapping[int, Latest] | None = None
) -> list[RatingChange]:
    """Every player whose state after the run differs from the published one, by player id;
    drops the removed snapshots the run has now accounted for. ``latest``: for the first
    replay of a history, each evaluated player's rating and index of their last stored
    snapshot as the replay wrote them (:func:`latest_of`), so that they are not read
    back."""
    pids = None if published.every_player else set(published.states)
    if is_first_run(published):
        drop_removed(session, published)
        return _first_run_changes(session, latest)
    digests = _digests(session, pids)
    current = _current(session, pids)
    changed: dict[int, tuple[PlayerState, PlayerState]] = {}
    for pid in published.states.keys() | digests.keys():
        _, rating, index = current.get(pid, (None, None, None))
        new = PlayerState(rating, index, digests.get(pid, (0, 0)))
        old = published.states.get(pid, PlayerState())
        if new != old:
            changed[pid] = (old, new)
    drop_removed(session, published)
    names = names_of(session, changed)
    return [RatingChange(pid, names.get(pid, ""), *changed[pid]) for pid in sorted(changed)]


def from_record(
    entries: Sequence[Sequence[Any]], names: dict[int, str] | None = None
) -> list[RatingChange]:
    """A run record's changes (:meth:`RatingChange.record`) back as :class:`RatingChange`;
    the evaluation hashes are not kept, only whether they changed."""
    out = []
    for pid, old_rating, old_index, new_rating, new_index, evaluations in entries:
        old = PlayerState(old_rating, old_index)
        new = PlayerState(new_rating, new_index, (1, 0) if evaluations else (0, 0))
        out.append(RatingChange(pid, (names or {}).get(pid, ""), old, new))
    return out


def names_of(session: Session, player_ids: Iterable[int]) -> dict[int, str]:
    """``Surname, Given`` of the given players, read through the driver; more than
    :data:`MANY_NAMES` in one pass over every player (a first replay names 209,173 of
    250,000: 0.84 s through SQLAlchemy's rows and the look-up of the id list, 0.30 s so)."""
    wanted = set(player_ids)
    if not wanted:
        return {}
    with driver(session).cursor() as cur:
        if len(wanted) > MANY_NAMES:  # most of the players: everyone's, in one scan
            cur.execute("SELECT id, surname, given_name FROM players")
        else:
            cur.execute(
                "SELECT id, surname, given_name FROM players WHERE id = ANY(%s)", [sorted(wanted)]
            )
        rows = cur.fetchall()
    return {pid: full_name(surname, given) for pid, surname, given in rows if pid in wanted}


#: beyond this many players :func:`names_of` reads every player's name
MANY_NAMES = 5_000


def is_first_run(published: Published) -> bool:
    """Whether :func:`after_run` reports ``published`` as the first replay of a history
    (nobody had an evaluation, none was removed): everyone evaluated now changed."""
    return published.every_player and not published.states


def first_run_beside(
    session: Session, published: Published, latest: Mapping[int, Latest] | None
) -> Callable[[], list[RatingChange]] | None:
    """:func:`after_run` of the first replay of a history, for a caller that writes the
    rows meanwhile: reads the names and drops the removed snapshots now (the ids
    :func:`before_run` found; a first replay removes none), and returns what makes the
    report without the database (in another thread, while the rows are written). None
    where :func:`after_run` must run after the write (not a first replay, or no
    ``latest``)."""
    if latest is None or not is_first_run(published):
        return None
    names = names_of(session, latest)
    drop_removed(session, published)
    return partial(first_run_changes, latest, names)


def first_run_changes(latest: Mapping[int, Latest], names: Mapping[int, str]) -> list[RatingChange]:
    """:func:`after_run` of the first replay of a history from what the replay wrote
    (``latest``, :func:`latest_of`) and the players' ``names`` (:func:`names_of`): no
    database needed, so it can be made while the rows are written."""
    none = PlayerState()
    states: dict[Latest, PlayerState] = {}  # shared: many players end on the same DWZ
    out = []
    for pid in sorted(latest):
        last = latest[pid]
        state = states.get(last)
        if state is None:
            state = states[last] = PlayerState(*last, (1, 0))
        out.append(RatingChange(pid, names.get(pid, ""), none, state))
    return out


def records_json(changes: Iterable[RatingChange]) -> str:
    """The run record's ``changes`` (:meth:`RatingChange.record` of each) as JSON."""
    return json.dumps([c.record() for c in changes])


def _add(digest: tuple[int, int], fingerprint: int) -> tuple[int, int]:
    return digest[0] + 1, (digest[1] + fingerprint) % 2**64


def drop_removed(session: Session, published: Published) -> None:
    """Drop the removed snapshots ``published`` holds: the run has accounted for them."""
    if published.removed_ids:
        session.execute(
            text("DELETE FROM removed_snapshots WHERE id = ANY(:ids)"),
            {"ids": list(published.removed_ids)},
        )


#: a player's rating and index after their last stored snapshot (None, None: no stored
#: snapshot, e.g. only as a guest)
Latest = tuple[int | None, int | None]
NO_LATEST: Latest = (None, None)


def latest_of(snapshots: Iterable[Snapshot], into: dict[int, Latest]) -> None:
    """Record in ``into`` each database player's rating and index after ``snapshots``
    (one tournament's, given in the evaluation order, WO 2.2.3): what
    :func:`_first_run_changes` would read back as the player's current DWZ."""
    for s in snapshots:
        pid = s.player_id
        if pid is None:
            continue
        o = s.output
        if o.stored:
            into[pid] = (o.rating_new, o.index_new)
        elif pid not in into:
            into[pid] = NO_LATEST


def _first_run_changes(
    session: Session, latest: Mapping[int, Latest] | None = None
) -> list[RatingChange]:
    """The first replay of a history: nobody had an evaluation, so everyone who has one
    now changed, whatever its fingerprint (only compared with "none"): each with the
    current DWZ and the name, in one query, without hashing every snapshot (7 s of a
    250,000-player replay) or building the order keys the comparison needs otherwise.
    With ``latest`` (what the replay wrote, :func:`latest_of`) only the names are read
    (the query's sort of every snapshot: 2.3 s at 250,000 players)."""
    if latest is not None:
        return first_run_changes(latest, names_of(session, latest))
    rows = session.execute(
        text(
            "SELECT e.player_id, p.surname, p.given_name, c.rating_new, c.index_new "
            "FROM (SELECT DISTINCT player_id FROM rating_snapshots "
            "WHERE player_id IS NOT NULL) e "
            "LEFT JOIN players p ON p.id = e.player_id "
            "LEFT JOIN (SELECT DISTINCT ON (s.player_id) s.player_id, s.rating_new, "
            "s.index_new FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            f"WHERE s.stored ORDER BY s.player_id, {ORDER_DESC}) c "
            "ON c.player_id = e.player_id ORDER BY e.player_id"
        )
    )
    return [
        RatingChange(
            pid,
            full_name(surname, given),
            PlayerState(),
            PlayerState(rating, index, (1, 0)),
        )
        for pid, surname, given, rating, index in rows
    ]


def _digests(session: Session, players: set[int] | None) -> dict[int, tuple[int, int]]:
    """Per player: count and fingerprint sum (mod 2**64) of all their snapshots (of the
    given players; None: of everyone)."""
    if players is not None and not players:
        return {}
    only = "" if players is None else " AND s.player_id = ANY(:ids)"
    rows = session.execute(
        text(
            f"SELECT s.player_id, count(*) AS n, sum({FINGERPRINT}::numeric) AS total "
            "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            f"WHERE s.player_id IS NOT NULL{only} GROUP BY s.player_id"
        ),
        {"ids": sorted(players or ())},
    ).all()
    return {r.player_id: (r.n, int(r.total) % 2**64) for r in rows}


def _current(
    session: Session, players: set[int] | None
) -> dict[int, tuple[Key, int | None, int | None]]:
    """Per player: order key, rating and index of their last stored snapshot (of the given
    players; None: of everyone)."""
    if players is not None and not players:
        return {}
    only = "" if players is None else " AND s.player_id = ANY(:ids)"
    rows = session.execute(
        text(
            "SELECT DISTINCT ON (s.player_id) s.player_id, s.rating_new, s.index_new, "
            "t.end_date, t.start_date, t.vkz, t.processed_at, t.id "
            "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            f"WHERE s.stored{only} ORDER BY s.player_id, {ORDER_DESC}"
        ),
        {"ids": sorted(players or ())},
    ).all()
    return {
        r.player_id: ((r.end_date, r.start_date, r.vkz, r.processed_at, r.id), r.rating_new,
                      r.index_new)
        for r in rows
    }  # fmt: skip
