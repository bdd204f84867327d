"""The full replay streamed through PostgreSQL in bounded memory (issue 24, items 2 and 3).

A full replay (``ratingdb recalc --full``, or the ``full`` change point a bulk load leaves)
does not load the history. In its compute phase (ratingdb/db/recalc.py: one ``REPEATABLE
READ`` read-only transaction on the run's connection) it

1. reads the tournaments in evaluation order (WO 2.2.3) in chunks of :data:`CHUNK`, each
   with its participants and games, in a *reader thread* one chunk ahead of the replay;
2. replays them with :func:`ratingdb.engine.stream.stream_full_replay`, which keeps only
   the players' states (and the players' records, the Rechenmodul timeline, the
   adjustments);
3. sends each chunk's snapshots, the residual games they create and the tournaments'
   codes with ``COPY`` into temporary tables of the run's connection (:func:`create_stage`;
   a read-only transaction may write temporary tables), in a *writer thread* while the
   replay goes on.

psycopg releases the GIL while it waits for the server, so the server reads and writes on
the second core while the rules compute (ratingdb/db/overlap.py). The write phase — one
short transaction holding the write lock exclusively, as for every run — moves the staged
rows into ``rating_snapshots`` and ``residual_games`` with ``INSERT … SELECT``
(:func:`write_staged`), leaving out the tournaments edited while the run computed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import psycopg
from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from ratingdb.db.collector import ChunkCollector
from ratingdb.db.overlap import Drain, Prefetch
from ratingdb.db.store import (
    RESIDUAL_COLUMNS,
    SNAPSHOT_COLUMNS,
    clear_snapshots,
    copy_rows,
    driver,
    games_by_tournament,
    load_adjustments,
    load_players,
    load_timeline,
    order_rows,
    participants_by_tournament,
    refresh_statistics,
    relink_consumed,
    residual_rows,
    snapshot_rows,
    write_problems,
)
from ratingdb.engine.model import EngineTournament, Snapshot
from ratingdb.engine.order import KEY_ABOVE, OrderKey
from ratingdb.engine.parallel import MIN_TOURNAMENTS, worker_count, worker_pool
from ratingdb.engine.problems import EvaluationProblem
from ratingdb.engine.stream import stream_full_replay
from ratingdb.engine.timeline import Timeline

#: tournaments per chunk read (and per batch written): about 30,000 games of the synthetic
#: federation, a few MB in memory
CHUNK = 500
#: the staged snapshots, residual games and tournaments (temporary tables of the run)
STAGE_SNAPSHOTS = "pg_temp.run_snapshots"
STAGE_RESIDUAL = "pg_temp.run_residual"
STAGE_TOURNAMENTS = "pg_temp.run_tournaments"
_STAGE = f"{STAGE_SNAPSHOTS}, {STAGE_RESIDUAL}, {STAGE_TOURNAMENTS}"


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
    conn.execute(text("CREATE TEMP TABLE run_tournaments (id bigint, code text)"))
    conn.commit()


def drop_stage(conn: Connection) -> None:
    """Drop the temporary tables (a pooled connection must not keep them)."""
    conn.execute(text(f"DROP TABLE IF EXISTS {_STAGE}"))
    conn.commit()


def tournament_chunks(
    raw: psycopg.Connection[Any], size: int = CHUNK
) -> Iterator[list[EngineTournament]]:
    """The rated tournaments in evaluation order, ``size`` at a time, each with its
    participants (start-rank order, with names as the rules see them) and games (round and
    board order): what :func:`ratingdb.db.store.load_tournaments` gives, in pieces."""
    after: OrderKey | None = None
    while True:
        where, params = ("", {}) if after is None else (f" AND {KEY_ABOVE}", after.sql_params())
        rows = order_rows(raw, where, params, limit=size)
        if not rows:
            return
        ids = {"ids": [row[0] for row in rows]}
        parts = participants_by_tournament(
            raw, " WHERE pa.tournament_id = ANY(:ids)", ids, names=True
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
    copy_rows(raw, f"{STAGE_TOURNAMENTS} (id, code)", [(tid, code) for tid, code, _, _ in batch])
    copy_rows(
        raw,
        f"{STAGE_SNAPSHOTS} ({SNAPSHOT_COLUMNS})",
        [row for _, _, _, snaps in batch for row in snapshot_rows(snaps, modul_ids)],
    )
    copy_rows(
        raw,
        f"{STAGE_RESIDUAL} ({RESIDUAL_COLUMNS})",
        [row for tid, _, end, snaps in batch for row in residual_rows(tid, end, snaps, timeline)],
    )


@dataclass
class Staged:
    """A streamed full replay, computed and staged: tournaments evaluated, snapshots
    staged, and the tournaments whose players had to be struck."""

    evaluated: int
    snapshots: int
    problems: dict[int, EvaluationProblem] = field(default_factory=dict)


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
        workers = worker_count() if rated >= MIN_TOURNAMENTS else 0
    raw = driver(session)
    timeline, modul_ids = load_timeline(session)
    players = load_players(session)
    adjustments = load_adjustments(session)
    staged = Staged(0, 0)
    batch: list[Finished] = []

    def write(done: list[Finished]) -> None:
        _stage(raw, done, modul_ids, timeline)

    # from here on only the two threads use the connection (psycopg serialises them); the
    # main thread computes; the cyclic collector runs every few chunks
    # (ratingdb/db/collector.py; the worker's batches leave no cycles behind)
    with (
        worker_pool(workers) as pool,
        ChunkCollector() as collector,
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
                batch.append((t.id, t.code, t.end, snaps))
                staged.snapshots += len(snaps)
                if len(batch) >= chunk:
                    writer.put(batch)
                    batch = []

        report = stream_full_replay(
            tournaments(), players, timeline, adjustments, emit, progress, pool
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


def write_staged(
    session: Session, problems: Iterable[EvaluationProblem], deferred: Collection[int]
) -> int:
    """Replace every snapshot, residual game and evaluation problem with the staged ones,
    except those of the ``deferred`` tournaments (edited while the run computed); returns
    the snapshots written."""
    conn = session.connection()
    skip = {"deferred": sorted(deferred)}
    clear_snapshots(session, None)
    write_problems(session, problems, None)
    written = conn.execute(
        text(
            f"INSERT INTO rating_snapshots ({SNAPSHOT_COLUMNS}) SELECT {SNAPSHOT_COLUMNS} "
            f"FROM {STAGE_SNAPSHOTS} WHERE tournament_id <> ALL(CAST(:deferred AS bigint[]))"
        ),
        skip,
    ).rowcount
    conn.execute(
        text(
            f"INSERT INTO residual_games ({RESIDUAL_COLUMNS}) SELECT {RESIDUAL_COLUMNS} "
            f"FROM {STAGE_RESIDUAL} WHERE created_by_id <> ALL(CAST(:deferred AS bigint[]))"
        ),
        skip,
    )
    relink_consumed(session, None)
    refresh_statistics(session)
    return int(written)
