"""The cyclic collector during a streamed replay (ratingdb/engine/collector.py): off between
chunks, cyclic garbage collected every few chunks, everything restored afterwards."""

from __future__ import annotations

import gc
import weakref

import pytest

from ratingdb.engine.collector import ChunkCollector


class Node:
    """A cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_off_inside_and_collects_every_few_chunks():
    assert gc.isenabled()
    with ChunkCollector(every=3) as collector:
        assert not gc.isenabled() and gc.get_freeze_count() > 0
        garbage = Node()
        gone = weakref.ref(garbage)
        del garbage
        for _ in range(700 * 20):  # what would trigger automatic collections
            Node.__new__(Node)
        collector.chunk_done()
        collector.chunk_done()
        assert gone() is not None  # no collection yet: the collector is off
        frozen = gc.get_freeze_count()
        alive = [Node() for _ in range(100)]
        collector.chunk_done()
        assert gone() is None  # the third chunk collected it
        # what is alive is frozen: the next collection scans only what is made after
        assert gc.get_freeze_count() >= frozen + len(alive)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_an_error_inside_restores_the_collector():
    with pytest.raises(RuntimeError), ChunkCollector():
        raise RuntimeError("reader failed")
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with ChunkCollector():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_collector_not_paused_changes_nothing():
    """With the replay's worker process the automatic collector stays on (its batches are
    cyclic garbage)."""
    with ChunkCollector(every=1, paused=False) as collector:
        assert gc.isenabled() and gc.get_freeze_count() == 0
        collector.chunk_done()
        assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_what_lives_as_long_as_the_replay_is_frozen_at_once():
    """:meth:`ChunkCollector.keep` freezes what is alive (never scanned again); outside a
    paused collector it changes nothing."""
    with ChunkCollector() as collector:
        before = gc.get_freeze_count()
        records = [Node() for _ in range(1000)]
        collector.keep()
        assert gc.get_freeze_count() >= before + len(records)
    assert gc.get_freeze_count() == 0
    with ChunkCollector(paused=False) as idle:
        idle.keep()
        assert gc.get_freeze_count() == 0
