"""The full replay streamed through PostgreSQL in bounded memory.

A full replay (``ratingdb recalc --full``, or the ``full`` change point a bulk load leaves)
does not load the history. In its compute phase (ratingdb/db/recalc.py: one ``REPEATABLE
READ`` read-only transaction on the run's connection) it

1. reads the tournaments in evaluation order (WO 2.2.3) in chunks of :data:`CHUNK`, each
   with its participants and games, in a *reader thread* one chunk ahead of the replay;
2. replays them with :func:`ratingdb.engine.stream.stream_full_replay`, which keeps only
   the players' states (and the players' records, the Rechenmodul timeline, the
   adjustments);
3. sends each chunk's snapshots, the residual games they create and consume and the
   tournaments' codes with ``COPY`` into temporary tables of the run's connection
   (:func:`create_stage`; a read-only transaction may write temporary tables), in a
   *writer thread* while the replay goes on.

psycopg releases the GIL while it waits for the server, so the server reads and writes on
the second core while the rules compute (ratingdb/db/overlap.py). The write phase — one
short transaction holding the write lock exclusively, as for every run — moves the staged
rows into ``rating_snapshots`` and ``residual_games`` with ``INSERT … SELECT`` and links
the consumed residual games (:func:`write_staged`), leaving out the tournaments edited
while the run computed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import psycopg
from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from ratingdb.db.change_report import Latest, latest_of
from ratingdb.db.overlap import Drain, Prefetch
from ratingdb.db.rebuild import built_after
from ratingdb.db.snapshot_text import (
    SNAPSHOT_COLUMNS,
    copy_snapshots,
    output_text,
)
from ratingdb.db.store import (
    RESIDUAL_COLUMNS,
    consumed_rows,
    copy_rows,
    driver,
    games_by_tournament,
    load_adjustments,
    load_players,
    load_timeline,
    order_rows,
    participants_by_tournament,
    refresh_statistics,
    residual_rows,
    snapshot_columns,
    write_problems,
)
from ratingdb.engine.collector import ChunkCollector
from ratingdb.engine.model import EngineTournament, Snapshot
from ratingdb.engine.order import KEY_ABOVE, OrderKey
from ratingdb.engine.parallel import MIN_TOURNAMENTS, worker_count, worker_pool
from ratingdb.engine.problems import EvaluationProblem
from ratingdb.engine.stream import stream_full_replay
from ratingdb.engine.timeline import Timeline
from ratingdb.settings import Settings

#: tournaments per chunk read (and per batch written): about 30,000 games of the synthetic
#: federation, a few MB in memory
CHUNK = 500
#: the staged snapshots, residual games and tournaments (temporary tables of the run)
STAGE_SNAPSHOTS = "pg_temp.run_snapshots"
STAGE_RESIDUAL = "pg_temp.run_residual"
STAGE_TOURNAMENTS = "pg_temp.run_tournaments"
#: ... and the residual games the staged first ratings consume
#: (:func:`ratingdb.db.store.consumed_rows`)
STAGE_CONSUMED = "pg_temp.run_consumed"
_STAGE = f"{STAGE_SNAPSHOTS}, {STAGE_RESIDUAL}, {STAGE_TOURNAMENTS}, {STAGE_CONSUMED}"


def create_stage(conn: Connection) -> None:
    """Create the (empty) temporary tables a streamed replay writes into, and commit: the
    compute transaction is read only, so it can fill them but not create them."""
    conn.execute(text(f"DROP TABLE IF EXISTS {_STAGE}"))
    conn.execute(
        text(
            f"CREATE TEMP TABLE run_snapshots AS SELECT {SNAPSHOT_COLUMNS} "
            "FROM rating_snapshots WITH NO DATA"
        )
    )
    conn.execute(
        text(
            f"CREATE TEMP TABLE run_residual AS SELECT {RESIDUAL_COLUMNS} "
            "FROM residual_games WITH NO DATA"
        )
    )
    conn.execute(text("CREATE TEMP TABLE run_tournaments (id bigint, code text, snapshots int)"))
    conn.execute(
        text(
            "CREATE TEMP TABLE run_consumed "
            "(owner_id bigint, created_by_id bigint, seq int, tournament_id bigint)"
        )
    )
    conn.commit()


def drop_stage(conn: Connection) -> None:
    """Drop the temporary tables (a pooled connection must not keep them)."""
    conn.execute(text(f"DROP TABLE IF EXISTS {_STAGE}"))
    conn.commit()


def nothing_stored(conn: Connection) -> bool:
    """No snapshot is stored yet: the first replay of a loaded history (its stream records
    the change report's values, :class:`Staged`; its write compares nothing,
    :func:`stage_changes`)."""
    return not conn.execute(text("SELECT EXISTS (SELECT 1 FROM rating_snapshots)")).scalar_one()


def tournament_chunks(
    raw: psycopg.Connection[Any], size: int = CHUNK
) -> Iterator[list[EngineTournament]]:
    """The rated tournaments in evaluation order, ``size`` at a time, each with its
    participants (start-rank order) and games (round and board order): what
    :func:`ratingdb.db.store.load_tournaments` gives, in pieces, but without the players'
    names (no rule and no snapshot uses a name: the struck players of an evaluation
    problem are named by their ids). With them, each chunk's participants were joined to
    every player (a parallel hash join over the whole ``players`` table: 25 ms a chunk
    against 3 ms at 250,000 players, 153 chunks)."""
    after: OrderKey | None = None
    while True:
        where, params = ("", {}) if after is None else (f" AND {KEY_ABOVE}", after.sql_params())
        rows = order_rows(raw, where, params, limit=size)
        if not rows:
            return
        ids = {"ids": [row[0] for row in rows]}
        parts = participants_by_tournament(
            raw, " WHERE pa.tournament_id = ANY(:ids)", ids, names=False
        )
        games = games_by_tournament(raw, " WHERE tournament_id = ANY(:ids)", ids)
        chunk = [
            EngineTournament(
                *row, participants=tuple(parts.get(row[0], ())), games=tuple(games.get(row[0], ()))
            )
            for row in rows
        ]
        yield chunk
        after = chunk[-1].order_key


#: one evaluated tournament on its way to the stage: id, code, end date, snapshots
Finished = tuple[int, str, date, list[Snapshot]]


def _stage(
    raw: psycopg.Connection[Any],
    batch: list[Finished],
    modul_ids: dict[str, int],
    timeline: Timeline,
) -> None:
    """COPY one batch of evaluated tournaments into the temporary tables."""
    copy_rows(
        raw,
        f"{STAGE_TOURNAMENTS} (id, code, snapshots)",
        [(tid, code, len(snaps)) for tid, code, _, snaps in batch],
    )
    copy_snapshots(raw, STAGE_SNAPSHOTS, [s for _, _, _, snaps in batch for s in snaps], modul_ids)
    copy_rows(
        raw,
        f"{STAGE_RESIDUAL} ({RESIDUAL_COLUMNS})",
        [row for tid, _, end, snaps in batch for row in residual_rows(tid, end, snaps, timeline)],
    )
    copy_rows(
        raw,
        f"{STAGE_CONSUMED} (owner_id, created_by_id, seq, tournament_id)",
        [row for tid, _, _, snaps in batch for row in consumed_rows(tid, snaps)],
    )


@dataclass
class Staged:
    """A streamed full replay, computed and staged: tournaments evaluated, snapshots
    staged, and the tournaments whose players had to be struck."""

    evaluated: int
    snapshots: int
    problems: dict[int, EvaluationProblem] = field(default_factory=dict)
    #: the first replay of a history (nothing stored when it started): each evaluated
    #: player's rating and index after their last stored snapshot, the change report's
    #: "after" (:func:`ratingdb.db.change_report.latest_of`); None otherwise
    latest: dict[int, Latest] | None = None


def stream_to_stage(
    session: Session,
    progress: Callable[[EngineTournament, int], None] | None = None,
    chunk: int | None = None,
    workers: int | None = None,
) -> Staged:
    """Replay the whole history from the beginning into the temporary tables of
    :func:`create_stage` (the session's connection, inside its transaction).
    ``progress(tournament, evaluated)`` is called before each tournament; ``chunk``:
    tournaments per read and per write (default :data:`CHUNK`); ``workers``: processes
    that evaluate tournaments side by side (ratingdb/engine/parallel.py; default: one on a
    machine with two cores, for a history of at least ``MIN_TOURNAMENTS``)."""
    chunk = chunk or CHUNK
    if workers is None:
        rated = session.execute(text("SELECT count(*) FROM tournaments WHERE rated")).scalar_one()
        configured = Settings.from_env().replay_workers
        workers = worker_count(configured) if rated >= MIN_TOURNAMENTS else 0
    raw = driver(session)
    first = nothing_stored(session.connection())
    # the worker process starts first: its imports (about a second on the other core)
    # overlap the loading of the players' records; the cyclic collector is paused from
    # here on (ratingdb/engine/collector.py): loading 250,000 players' records started 8
    # full collections of everything (0.8 s, nothing found), and those records, alive to
    # the end, are frozen once loaded
    with worker_pool(workers, output_text) as pool, ChunkCollector() as collector:
        timeline, modul_ids = load_timeline(session)
        players = load_players(session)
        adjustments = load_adjustments(session)
        collector.keep()
        staged = Staged(0, 0, latest={} if first else None)
        latest = staged.latest
        batch: list[Finished] = []

        def write(done: list[Finished]) -> None:
            _stage(raw, done, modul_ids, timeline)

        # from here on only the two threads use the connection (psycopg serialises them); the
        # main thread computes; the cyclic collector runs every few chunks (the worker's
        # batches leave no cycles behind)
        with (
            Drain(write) as writer,
            Prefetch(lambda: tournament_chunks(raw, chunk)) as chunks,
        ):

            def tournaments() -> Iterator[EngineTournament]:
                for part in chunks:
                    yield from part
                    collector.chunk_done()

            def emit(
                t: EngineTournament, snaps: list[Snapshot], problem: EvaluationProblem | None
            ) -> None:
                nonlocal batch
                if problem is not None:
                    staged.problems[t.id] = problem
                if snaps:
                    if latest is not None:
                        latest_of(snaps, latest)
                    batch.append((t.id, t.code, t.end, snaps))
                    staged.snapshots += len(snaps)
                    if len(batch) >= chunk:
                        writer.put(batch)
                        batch = []

            report = stream_full_replay(
                tournaments(), players, timeline, adjustments, emit, progress, pool, output_text
            )
            if batch:
                writer.put(batch)
            writer.close()
    staged.evaluated = report.evaluated
    return staged


def staged_codes(session: Session, ids: Iterable[int]) -> dict[int, str]:
    """The codes of staged tournaments (of one deleted while the run computed, say)."""
    rows = session.execute(
        text(f"SELECT id, code FROM {STAGE_TOURNAMENTS} WHERE id = ANY(:ids)"),
        {"ids": sorted(set(ids))},
    )
    return {r.id: r.code for r in rows}


#: the stored snapshots a full replay did not compute again to the last column (id, player)
STAGE_GONE = "pg_temp.run_gone"
#: more players than this with a changed snapshot: the change report reads everyone's
#: evaluations in one pass instead of the listed players' (ratingdb/db/change_report.py)
FEW_PLAYERS = 20_000


def stage_changes(session: Session, deferred: Collection[int]) -> set[int] | None:
    """Compare the staged snapshots with the stored ones before the write phase writes: the
    stored snapshots the replay did not compute again to the last column (or that belong
    to a ``deferred`` tournament, edited while the run computed) go to :data:`STAGE_GONE`
    (dropped at the commit); returns the players of those and of the staged snapshots
    that have no identical stored one, i.e. every player whose evaluations the write
    changes. A player outside it has the same snapshots before and after the run.

    None when nothing is stored (the first replay of a loaded history): every staged
    snapshot is new and nothing is to be removed, so nothing is compared (at 250,000
    players the statistics and the comparison took 1.1 s of the write phase)."""
    conn = session.connection()
    if nothing_stored(conn):
        conn.execute(
            text("CREATE TEMP TABLE run_gone (id bigint, player_id bigint) ON COMMIT DROP")
        )
        return None
    skip = {"deferred": sorted(deferred)}
    conn.execute(text(f"ANALYZE {STAGE_SNAPSHOTS}"))
    conn.execute(
        text(
            "CREATE TEMP TABLE run_gone ON COMMIT DROP AS SELECT s.id, s.player_id "
            f"FROM rating_snapshots s WHERE NOT EXISTS (SELECT 1 FROM {STAGE_SNAPSHOTS} x "
            "WHERE x.tournament_id = s.tournament_id AND x.participant_id = s.participant_id "
            "AND x.tournament_id <> ALL(CAST(:deferred AS bigint[])) "
            f"AND ({snapshot_columns('s')}) IS NOT DISTINCT FROM ({snapshot_columns('x')}))"
        ),
        skip,
    )
    conn.execute(text(f"ANALYZE {STAGE_GONE}"))
    players = conn.execute(
        text(
            f"SELECT player_id FROM {STAGE_GONE} WHERE player_id IS NOT NULL "
            f"UNION SELECT x.player_id FROM {STAGE_SNAPSHOTS} x "
            "WHERE x.player_id IS NOT NULL AND x.tournament_id <> ALL(CAST(:deferred AS bigint[])) "
            "AND NOT EXISTS (SELECT 1 FROM rating_snapshots s "
            "WHERE s.tournament_id = x.tournament_id AND s.participant_id = x.participant_id "
            # NOT EXISTS, not NOT IN: a hash anti-join even when every row changed (a NOT IN
            # list larger than work_mem is scanned once per row)
            f"AND NOT EXISTS (SELECT 1 FROM {STAGE_GONE} g WHERE g.id = s.id))"
        ),
        skip,
    ).scalars()
    return set(players)


#: an empty ``rating_snapshots`` receiving at least this many rows gets its indexes and
#: foreign keys built after the insert (ratingdb/db/rebuild.py)
BUILT_AFTER_ROWS = 50_000
#: the statement trigger of migration 0006 that stamps the calculation date of the
#: tournaments whose snapshots a statement inserted (WO 6.5.2.1 item 4). :func:`write_staged`
#: stamps every replayed tournament itself, so where it holds ``rating_snapshots`` alone
#: (the first replay's insert into the empty table, :func:`ratingdb.db.rebuild.built_after`)
#: the trigger is switched off for the insert: it kept a copy of every inserted row (its
#: transition table) to stamp the same tournaments (1.1–1.5 s of 1.2 million rows)
STAMP_TRIGGER = "rating_snapshots_stamp_calculations"


def write_staged(
    session: Session, problems: Iterable[EvaluationProblem], deferred: Collection[int]
) -> int:
    """Replace every snapshot, residual game and evaluation problem with the staged ones,
    except those of the ``deferred`` tournaments (edited while the run computed); returns
    the snapshots the run computed (those kept as they were included). Needs
    :func:`stage_changes` first, in the same transaction.

    A stored snapshot the replay computed again to the last column stays as it is; only
    the others are deleted, and only staged rows without a stored one are inserted. A
    nightly full replay of an unchanged history therefore rewrites nothing but the
    tournaments' calculation dates (WO 6.5.2.1 item 4), which every replayed tournament
    gets as before. The table ends the same as when every row is deleted and inserted
    again; nothing refers to a snapshot's id. When most stored rows changed (a Rechenmodul
    valid from long ago), all are deleted and the staged ones inserted without comparing:
    inserting into a table just emptied of the same rows cost more than that. Into an
    empty table (the first replay of a loaded history) many rows go with the indexes and
    foreign keys built after them (:func:`ratingdb.db.rebuild.built_after`)."""
    conn = session.connection()
    skip = {"deferred": sorted(deferred)}
    conn.execute(text("DELETE FROM residual_games WHERE created_by_id IS NOT NULL"))
    conn.execute(text("UPDATE residual_games SET consumed_by_id = NULL"))
    write_problems(session, problems, None)
    # the staged tournaments' counts, not a count of the staged snapshots (a scan of 1.2
    # million rows at 250,000 players, 0.27 s)
    gone, stored, written = conn.execute(
        text(
            f"SELECT (SELECT count(*) FROM {STAGE_GONE}), (SELECT count(*) FROM rating_snapshots), "
            f"(SELECT coalesce(sum(snapshots), 0) FROM {STAGE_TOURNAMENTS} "
            "WHERE id <> ALL(CAST(:deferred AS bigint[])))"
        ),
        skip,
    ).one()
    if 2 * gone >= stored:  # most rows changed (a new Rechenmodul): replace them all
        conn.execute(text("DELETE FROM rating_snapshots"))
        keep = ""
    else:
        conn.execute(text(f"DELETE FROM rating_snapshots s USING {STAGE_GONE} g WHERE s.id = g.id"))
        keep = (
            " AND NOT EXISTS (SELECT 1 FROM rating_snapshots s "
            "WHERE s.tournament_id = x.tournament_id AND s.participant_id = x.participant_id)"
        )
    insert = text(
        f"INSERT INTO rating_snapshots ({SNAPSHOT_COLUMNS}) SELECT {snapshot_columns('x')} "
        f"FROM {STAGE_SNAPSHOTS} x WHERE x.tournament_id <> ALL(CAST(:deferred AS bigint[]))" + keep
    )
    rebuilt = False
    if stored == 0 and written >= BUILT_AFTER_ROWS:  # the first replay of a loaded history
        with built_after(conn, "rating_snapshots", primary_key=True) as rebuilt:
            if rebuilt:  # the table is ours alone until the commit: no stamps twice
                conn.execute(text(f"ALTER TABLE rating_snapshots DISABLE TRIGGER {STAMP_TRIGGER}"))
                # empty already; emptied in this transaction, it is written without WAL
                # where the server's wal_level is minimal (the embedded server's,
                # ratingdb/db/embedded.py) and synced at the commit
                conn.execute(text("TRUNCATE rating_snapshots"))
            conn.execute(insert, skip)
            if rebuilt:
                conn.execute(text(f"ALTER TABLE rating_snapshots ENABLE TRIGGER {STAMP_TRIGGER}"))
    else:
        conn.execute(insert, skip)
    # every replayed tournament was calculated now, its snapshots rewritten or not (what
    # the insert trigger of migration 0006 does for the rows it inserts): the staged
    # tournaments are those with staged snapshots (0.9 s as the distinct tournaments of the
    # staged snapshots at 250,000 players)
    stamp = text(
        "INSERT INTO tournament_calculations (tournament_id, evaluated_at, calculated_at) "
        f"SELECT id, now(), now() FROM {STAGE_TOURNAMENTS} "
        "WHERE id <> ALL(CAST(:deferred AS bigint[])) "
        "ON CONFLICT (tournament_id) DO UPDATE SET calculated_at = excluded.calculated_at"
    )
    residual = text(
        f"INSERT INTO residual_games ({RESIDUAL_COLUMNS}) SELECT {RESIDUAL_COLUMNS} "
        f"FROM {STAGE_RESIDUAL} WHERE created_by_id <> ALL(CAST(:deferred AS bigint[]))"
    )
    if rebuilt:
        # the tables these rows refer to are locked already: their foreign keys (a lookup
        # and a row lock in ``tournaments`` per row) checked once after the insert too
        # (at 250,000 players 76,457 stamps 0.72 s, 38,776 residual games 0.56 s)
        for table, statement in (("tournament_calculations", stamp), ("residual_games", residual)):
            with built_after(conn, table):
                conn.execute(statement, skip)
    else:
        conn.execute(stamp, skip)
        conn.execute(residual, skip)
    # the table holds exactly the staged snapshots of the tournaments not deferred (the
    # deferred ones' went with STAGE_GONE): so the games they consume are the staged ones
    # (relink_consumed's scan of every snapshot's residual_in took 0.77 s at 250,000 players)
    conn.execute(
        text(
            "UPDATE residual_games r SET consumed_by_id = c.tournament_id "
            f"FROM {STAGE_CONSUMED} c WHERE r.owner_id = c.owner_id "
            "AND r.created_by_id = c.created_by_id AND r.seq = c.seq "
            "AND c.tournament_id <> ALL(CAST(:deferred AS bigint[]))"
        ),
        skip,
    )
    refresh_statistics(session)
    return int(written)
