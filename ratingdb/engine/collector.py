"""CPython's cyclic garbage collector during a streamed full replay.

The automatic collector runs after every 700 new container objects: it scans the young
objects, every tenth time the middle generation too, and now and then every object the
process holds. A streamed replay (ratingdb/db/stream.py) makes millions of objects —
games, participants, inputs, snapshots, rows — that live for a chunk, long enough to be
promoted to the oldest generation, so the full scans come often and grow with everything
alive. Measured on the 60,000-player, 17-year federation: 25 s of a 152 s run went to the
collector, all of it holding the GIL that the rules, the reader and the writer share.

Reference counting frees almost everything a replay makes; cyclic garbage is rare (a
reference cycle inside the rules' objects, say). So while a :class:`ChunkCollector` is
entered the automatic collector is off, the objects that existed before (modules, the
players' records, the timeline) are frozen out of every scan (:func:`gc.freeze`), and the
replay calls :meth:`ChunkCollector.chunk_done` after each chunk: every :data:`EVERY`
chunks the objects made since the last collection are collected, and those still alive
(the players' states, the chunks in flight) are frozen too, so that a collection scans
one stretch of the replay, not everything the replay holds. Cyclic garbage cannot pile up
beyond one stretch, and what was frozen is still freed by reference counting when it dies
(a cycle alive at a collection and dropped later waits for the collector after the run).
Leaving the collector (also on an error) unfreezes everything and restores it as it was.

The look-ahead of the worker process holds no reference
cycles either: its entries are freed by reference counting once applied
(``tests/test_engine_parallel.py``); an earlier version's batches and entries referred to
each other and piled up with the collector paused (402 MB at 60,000 players instead of
264 MB).
"""

from __future__ import annotations

import gc
from types import TracebackType

#: chunks between two collections (a chunk: ratingdb.db.stream.CHUNK tournaments). A
#: collection costs what is alive and not yet frozen, most of it the players' states made
#: since the last one, so fewer collections cost less in all: at 250,000 players every 16
#: chunks 9 collections of 315,000–436,000 objects took 2.4 s (0.2–0.33 s each), every 64
#: chunks 2 of about 600,000 took 0.87 s, peak memory 368 → 374 MB; none found any cyclic
#: garbage
EVERY = 64


class ChunkCollector:
    """The cyclic collector run every few chunks instead of every 700 allocations."""

    def __init__(self, every: int | None = None, *, paused: bool = True) -> None:
        self._every = max(every or EVERY, 1)
        self._paused = paused
        self._chunks = 0
        self._was_enabled = True

    def __enter__(self) -> ChunkCollector:
        if self._paused:
            self._was_enabled = gc.isenabled()
            gc.disable()
            gc.freeze()
        return self

    def keep(self) -> None:
        """What is alive now lives as long as the replay (the players' records, loaded
        before the first chunk): frozen, never scanned by a collection."""
        if self._paused:
            gc.freeze()

    def chunk_done(self) -> None:
        """Called after each chunk: every ``every`` chunks, collect what was made since the
        last collection and freeze what of it is alive."""
        self._chunks += 1
        if self._paused and self._chunks % self._every == 0:
            gc.collect()
            gc.freeze()

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._paused:
            gc.unfreeze()
            if self._was_enabled:
                gc.enable()
