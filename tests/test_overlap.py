"""Reading ahead and writing behind in threads (ratingdb/db/overlap.py): order, bounded
queues, errors handed to the main thread, threads stopped on the way out."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from ratingdb.db.overlap import Drain, Prefetch


def _alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("ratingdb-")]


def test_prefetch_yields_everything_in_order_and_reads_at_most_depth_ahead():
    produced: list[int] = []

    def produce() -> Iterator[int]:
        for k in range(20):
            produced.append(k)
            yield k

    seen = []
    with Prefetch(produce, depth=2) as items:
        for k in items:
            time.sleep(0.005)
            # the item being consumed, two in the queue, one waiting to be put
            assert len(produced) <= k + 4
            seen.append(k)
    assert seen == list(range(20)) and not _alive()


def test_prefetch_hands_the_thread_error_on():
    def produce() -> Iterator[int]:
        yield 1
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"), Prefetch(produce) as items:
        assert list(items) == [1]
    assert not _alive()


def test_prefetch_stops_when_the_consumer_fails():
    def produce() -> Iterator[int]:
        yield from range(1_000_000)

    with pytest.raises(KeyError), Prefetch(produce, depth=2) as items:
        for k in items:
            if k == 3:
                raise KeyError(k)
    assert not _alive()


def test_drain_consumes_everything_in_order():
    got: list[int] = []
    with Drain(got.append, depth=1) as sink:
        for k in range(50):
            sink.put(k)
        sink.close()
    assert got == list(range(50)) and not _alive()


def test_drain_hands_the_thread_error_on():
    def consume(item: int) -> None:
        if item == 2:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"), Drain(consume, depth=1) as sink:
        for k in range(100):
            sink.put(k)
        sink.close()
    assert not _alive()


def test_drain_stops_without_waiting_when_the_producer_fails():
    started = threading.Event()

    def consume(item: int) -> None:
        started.set()
        time.sleep(0.01)

    with pytest.raises(RuntimeError, match="boom"), Drain(consume, depth=4) as sink:
        for k in range(4):
            sink.put(k)
        started.wait(5)
        raise RuntimeError("boom")
    assert not _alive()
