"""Many objects of a plain slots dataclass at once, from tuples of their field values.

A full replay makes millions of :class:`~ratingdb.rules.model.GameInput` and
:class:`~ratingdb.rules.snapshots.SnapshotOutput` objects from rows: the games read from
the database, the games of every task its worker process rebuilds, the outputs the worker
sends back. :class:`Maker` makes them as ``cls(*values)`` and reads them back as tuples of
their field values (:meth:`Maker.values`, what crosses between the replay and its worker
process); the strings of one read can be shared (``same``), so that pickle writes each
once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import starmap
from operator import attrgetter
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Maker(Generic[T]):
    """Objects of ``cls`` from rows holding its fields' values in order (from ``start``
    on in each row, exactly as many). ``cls`` must be a dataclass with slots whose
    ``__init__`` does nothing else: every field an argument, no ``__post_init__``, no
    ``__new__`` of its own (a TypeError otherwise), so that an object read back by
    :meth:`values` and made again by :meth:`many` is the same."""

    def __init__(self, cls: type[T], start: int = 0) -> None:
        if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
            raise TypeError(f"{cls.__name__} is not a dataclass with slots")
        names = tuple(f.name for f in dataclasses.fields(cls))
        if (
            not all(f.init for f in dataclasses.fields(cls))
            or hasattr(cls, "__post_init__")
            or cls.__new__ is not object.__new__
        ):
            raise TypeError(f"{cls.__name__}.__init__ does more than store its fields")
        if len(names) < 2:
            raise TypeError(f"{cls.__name__} has fewer than two fields")
        self.cls = cls
        self.start = start
        self._names = names
        #: an object's field values as a tuple (two or more names: attrgetter gives a tuple)
        self._values = attrgetter(*names)

    def many(self, rows: Sequence[tuple[Any, ...]], same: dict[str, str] | None = None) -> list[T]:
        """One object a row (a TypeError for a row that does not hold exactly the fields'
        values from ``start`` on). With ``same``, every string value is the one equal
        string ``same`` holds (added where it holds none): the objects of one read share
        their strings (a game's players and result: pickle writes a shared string once)."""
        if not rows:
            return []
        cls, start, width = self.cls, self.start, self.start + len(self._names)
        if set(map(len, rows)) != {width}:
            raise TypeError(f"build: a row is not a tuple of {width} values")
        if same is None and start == 0:
            return list(starmap(cls, rows))
        columns: Sequence[Sequence[Any]] = list(zip(*rows, strict=True))[start:]
        if same is not None:  # a column of strings only: each value the one equal string
            shared = same.setdefault
            columns = [
                list(map(shared, column, column)) if set(map(type, column)) == {str} else column
                for column in columns
            ]
        return list(map(cls, *columns))

    def values(self, objects: Sequence[T]) -> list[tuple[Any, ...]]:
        """The inverse of :meth:`many`: each object's field values as a tuple, in the
        fields' order."""
        return list(map(self._values, objects))
