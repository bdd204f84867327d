#!/usr/bin/env python3
"""The Python CPU of the streamed full replay's reader and writer, apart from the rules.

On the configured database (``RATINGDB_HOME`` or ``DATABASE_URL``), after a full replay:

* **read**: every rated tournament in evaluation order, in the chunks the reader thread
  fetches (``ratingdb.db.stream.tournament_chunks``: participants and games as the rules
  take them), inside one ``REPEATABLE READ`` transaction as a run does;
* **write**: every stored snapshot, as the writer thread stages them
  (``ratingdb.db.stream._stage``: snapshot rows with their JSON, the residual games they
  create, ``COPY`` into the run's temporary tables), rolled back.

Both run in this one thread, so the CPU seconds are the Python work that competes with the
rules for the GIL in a real run (the server's work is in its own process):

    RATINGDB_HOME=/tmp/fed python scripts/bench_stream_io.py
"""

from __future__ import annotations

import time

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db import store, stream
from ratingdb.engine.collector import ChunkCollector
from ratingdb.services.database import open_engine


def main() -> None:
    engine = open_engine()
    with engine.connect() as conn:
        tx = conn.begin()
        conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"))
        raw = store.driver(Session(bind=conn))
        cpu, wall = time.process_time(), time.perf_counter()
        tournaments = games = 0
        with ChunkCollector() as collector:
            for chunk in stream.tournament_chunks(raw):
                tournaments += len(chunk)
                games += sum(len(t.games) for t in chunk)
                collector.chunk_done()
        print(
            f"read:  {tournaments} tournaments, {games} games: "
            f"{time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.2f} s wall"
        )
        tx.rollback()

        stream.create_stage(conn)
        session = Session(bind=conn)
        timeline, modul_ids = store.load_timeline(session)
        keys = {v: k for k, v in modul_ids.items()}
        snapshots = store.load_snapshots(session, keys)
        batch = [
            (t.id, t.code, t.end, list(snapshots[t.id].values()))
            for t in store.order_stubs(store.driver(session))
            if t.id in snapshots
        ]
        del snapshots
        count = sum(len(b[3]) for b in batch)
        cpu, wall = time.process_time(), time.perf_counter()
        with ChunkCollector() as collector:
            for at in range(0, len(batch), stream.CHUNK):
                stream._stage(
                    store.driver(session), batch[at : at + stream.CHUNK], modul_ids, timeline
                )
                collector.chunk_done()
        print(
            f"write: {count} snapshots: "
            f"{time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.2f} s wall"
        )
        conn.rollback()
        stream.drop_stage(conn)


if __name__ == "__main__":
    main()
