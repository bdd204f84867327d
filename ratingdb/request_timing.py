"""The time a request spends in the database, and in how many round trips (the ``db``
figure of the web's ``Server-Timing`` header, :mod:`ratingdb.web.timing`).

A request sets :data:`current` to its :class:`Timing`; every read of :mod:`ratingdb.db.store`
through the driver (:func:`charged`) and every statement sent through SQLAlchemy (the
engine's events, :func:`ratingdb.web.timing.count_statements`) adds its time and one round
trip. Outside a request (the CLI, a run) nothing is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(slots=True)
class Timing:
    """The seconds of one request so far, and its round trips to the database."""

    queue: float = 0.0
    work: float = 0.0
    db: float = 0.0
    cpu: float = 0.0
    trips: int = 0
    #: waiting for the data version of the page cache (:mod:`ratingdb.web.page_cache`)
    version: float = 0.0


#: the timing of the request being answered (a thread sees its request's: the context is
#: copied into the thread, the object is shared)
current: ContextVar[Timing | None] = ContextVar("ratingdb_timing", default=None)


@contextmanager
def charged() -> Iterator[None]:
    """One round trip to the database: its time added to the request's ``db`` figure."""
    timing = current.get()
    if timing is None:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        timing.db += time.perf_counter() - started
        timing.trips += 1
