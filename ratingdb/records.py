"""Many objects of a plain slots dataclass at once, from tuples of their field values.

A full replay makes millions of :class:`~ratingdb.rules.model.GameInput` and
:class:`~ratingdb.rules.snapshots.SnapshotOutput` objects from rows: the games read from
the database, the games of every task its worker process rebuilds, the outputs the worker
sends back. Their ``__init__`` only stores its arguments, so :class:`Maker` stores the
values into the slots directly (``ratingdb/_records.c``, built by setup.py like the rules'
extensions): 34 ns a game against 144 ns, 58 ns an output against
245 ns. The objects are the ones ``cls(*values)`` makes (``tests/test_records.py``);
without the extension :class:`Maker` calls exactly that. :meth:`Maker.values` reads the
slots back as tuples, what crosses between the replay and its worker process.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Generic, TypeVar

compiled: ModuleType | None
try:
    from ratingdb import _records as compiled
except ImportError:  # pragma: no cover - an install without a C compiler
    compiled = None

T = TypeVar("T")


class Maker(Generic[T]):
    """Objects of ``cls`` from rows holding its fields' values in order (from ``start``
    on in each row, exactly as many). ``cls`` must be a dataclass with slots whose
    ``__init__`` does nothing else: every field an argument, no ``__post_init__``, no
    ``__new__`` of its own (a TypeError otherwise)."""

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
        self.cls = cls
        self.start = start
        self._names = names
        self._offsets: tuple[int, ...] | None = (
            None if compiled is None else compiled.layout(cls, names)
        )

    def many(self, rows: Sequence[tuple[Any, ...]], same: dict[str, str] | None = None) -> list[T]:
        """One object a row. With ``same``, every string value is the one equal string
        ``same`` holds (added where it holds none): the objects of one read share their
        strings (a game's players and result: pickle writes a shared string once)."""
        if self._offsets is not None and compiled is not None:
            return compiled.build(self.cls, self._offsets, rows, self.start, same)  # type: ignore[no-any-return]
        cls, start, end = self.cls, self.start, self.start + len(self._names)
        for row in rows:
            if len(row) != end:
                raise TypeError(f"build: a row is not a tuple of {end} values")
        if same is None:
            return [cls(*row[start:end]) for row in rows]
        shared = same.setdefault
        return [
            cls(*[shared(v, v) if type(v) is str else v for v in row[start:end]]) for row in rows
        ]

    def values(self, objects: Sequence[T]) -> list[tuple[Any, ...]]:
        """The inverse of :meth:`many`: each object's field values as a tuple, in the
        fields' order (what ``attrgetter`` of the fields' names gives for two or more; an
        object of another class: TypeError where the extension is built)."""
        if self._offsets is not None and compiled is not None:
            found: list[tuple[Any, ...]] = compiled.values(self.cls, self._offsets, objects)
            return found
        names = self._names
        return [tuple([getattr(o, name) for name in names]) for o in objects]
