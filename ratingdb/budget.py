"""What reading one file may cost: at most :data:`MAX_PROBLEMS` problems kept, at most
:data:`SECONDS` of the server's CPU time (docs/web.md, "Request bodies").

A file with 100,000 faults was read to its end, each fault kept, and the schema check of a
TournamentReport spent seconds on every thousand of them: 40,000 faulty attributes took
151 s and an answer of 6.3 MB. Now every reader collects its problems in a
:class:`Problems` list, which keeps the first :data:`MAX_PROBLEMS` and only counts the rest
(``more``, reported as one "and N more problems" line in the user's language); a check that
is expensive per problem (the XSD's) stops when the list is full. And a reader run inside
:func:`reading` checks its time budget as it goes (:func:`check`: every line, record or
problem): past it, :class:`TooSlow` names the file and says that it took too long, an
:class:`~ratingdb.errors.InputError` (422 on the web, nothing written).

The budget is CPU time of the reading thread (``time.thread_time``), not wall time: a file
read while the server answers many pages at once is not refused because the pages took the
CPU, and a file that costs more than the budget is refused however idle the server is.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from ratingdb.errors import InputError
from ratingdb.i18n import _, ngettext

T = TypeVar("T")
#: the most problems of one file that are kept (and shown); the rest are counted
MAX_PROBLEMS = 100
#: the CPU seconds reading one uploaded file may take (a valid 20 MiB TRF file takes
#: about 5 s on a busy two-core machine; its 100,000 faults, about 3 s)
SECONDS = 10


class TooSlow(InputError):
    """Reading a file took more than its budget of CPU time (:func:`reading`)."""

    def __init__(self, source: str, seconds: float) -> None:
        super().__init__(
            source,
            _(
                "reading the file took more than %(seconds)d seconds of the server's time: "
                "it is too large or has too many faults; nothing was written"
            )
            % {"seconds": seconds},
        )
        self.seconds = seconds


#: (the thread time at which the budget ends, the file, the budget) of the reading in force
_budget: ContextVar[tuple[float, str, float] | None] = ContextVar("ratingdb_budget", default=None)


@contextmanager
def reading(source: str, seconds: float | None = None) -> Iterator[None]:
    """Within the block, :func:`check` raises :class:`TooSlow` for ``source`` once the
    current thread has spent ``seconds`` (default :data:`SECONDS`) of CPU time in it."""
    seconds = SECONDS if seconds is None else seconds
    token = _budget.set((time.thread_time() + seconds, source, seconds))
    try:
        with _alarm(source, seconds):
            yield
    finally:
        _budget.reset(token)


@contextmanager
def _alarm(source: str, seconds: float) -> Iterator[None]:
    """In a main thread (the worker process of ``ratingdb serve``): a timer of the process's
    CPU time (``ITIMER_VIRTUAL``) that raises :class:`TooSlow` wherever the reading is, in
    a library without checks of its own too (the schema check of a TournamentReport);
    elsewhere nothing (signals reach only the main thread), the readers' checks remain."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise TooSlow(source, seconds)

    before = signal.signal(signal.SIGVTALRM, expired)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, before)


def within(source: str, read: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``read(*args, **kwargs)`` inside :func:`reading` for ``source``."""
    with reading(source):
        return read(*args, **kwargs)


def check() -> None:
    """Raise :class:`TooSlow` when the reading in force has used up its budget (nothing
    outside :func:`reading`)."""
    budget = _budget.get()
    if budget is not None and time.thread_time() > budget[0]:
        raise TooSlow(budget[1], budget[2])


class Problems(list[tuple[str, str]]):
    """A reader's ``(location, message)`` problems: the first :data:`MAX_PROBLEMS` are
    kept, the rest counted in ``more``; every one added checks the time budget."""

    def __init__(self) -> None:
        super().__init__()
        self.more = 0

    @property
    def found(self) -> int:
        """Every problem found, the counted ones too."""
        return len(self) + self.more

    @property
    def full(self) -> bool:
        return len(self) >= MAX_PROBLEMS

    def append(self, problem: tuple[str, str]) -> None:
        check()
        if self.full:
            self.more += 1
        else:
            super().append(problem)


def more_of(problems: list[tuple[str, str]]) -> int:
    """The problems counted beyond those kept (0 for a plain list)."""
    return int(getattr(problems, "more", 0))


def more_line(more: int) -> list[str]:
    """``["and N more problems"]`` in the language in force, or ``[]`` for none."""
    if not more:
        return []
    return [ngettext("and %(num)d more problem", "and %(num)d more problems", more) % {"num": more}]


def stopped_after(found: int) -> str:
    """The last problem of a check that stops at the limit (the XSD's: each problem costs
    it milliseconds), in the language in force."""
    return _("the check stopped after %(num)d problems; the file may have more") % {"num": found}
