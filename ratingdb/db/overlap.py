"""Reading ahead and writing behind in threads, so that database I/O overlaps computation.

psycopg releases the GIL while it waits for the server, and the server works in its own
process: a thread that fetches the next chunk, or sends finished rows with COPY, lets the
server use the machine's second core while the replay computes in the main thread. Both
helpers keep at most ``depth`` items in flight (bounded memory), hand an error of the thread
to the main thread, and stop their thread when closed (also when the main thread fails).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")

_END = object()
#: how often a blocked thread looks whether it was told to stop (seconds)
_POLL = 0.1


class _Worker:
    """A daemon thread with a bounded queue, a stop flag and the error it ended with."""

    def __init__(self, depth: int, name: str) -> None:
        self._queue: queue.Queue[object] = queue.Queue(maxsize=max(depth, 1))
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._guarded, name=name, daemon=True)

    def _guarded(self) -> None:
        try:
            self._work()
        except BaseException as err:  # handed to the main thread
            self._error = err
        finally:
            self._finish()

    def _work(self) -> None:
        raise NotImplementedError

    def _finish(self) -> None:
        """Called in the thread when it ends."""

    def _put(self, item: object) -> bool:
        """Put ``item`` unless told to stop; False when stopped."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Tell the thread to stop and wait for it (it finishes the statement it runs)."""
        self._stop.set()
        while self._thread.is_alive():
            try:  # unblock a thread waiting to put
                while True:
                    self._queue.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(_POLL)


class Prefetch(_Worker, Generic[T]):
    """Iterate over ``produce()`` while a thread computes the next items ahead (at most
    ``depth``). Use as a context manager: leaving it stops the thread."""

    def __init__(self, produce: Callable[[], Iterator[T]], depth: int = 2) -> None:
        super().__init__(depth, "ratingdb-prefetch")
        self._produce = produce
        self._thread.start()

    def _work(self) -> None:
        for item in self._produce():
            if not self._put(item):
                return

    def _finish(self) -> None:
        self._put(_END)

    def __iter__(self) -> Iterator[T]:
        while True:
            item = self._queue.get()
            if item is _END:
                self._thread.join()
                self._raise()
                return
            yield item  # type: ignore[misc]

    def __enter__(self) -> Prefetch[T]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class Drain(_Worker, Generic[T]):
    """Hand items to ``consume`` in a thread (at most ``depth`` waiting). :meth:`close`
    waits until all are consumed and raises the thread's error; leaving the context
    manager with an error stops the thread without waiting."""

    def __init__(self, consume: Callable[[T], None], depth: int = 2) -> None:
        super().__init__(depth, "ratingdb-drain")
        self._consume = consume
        self._thread.start()

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=_POLL)
            except queue.Empty:
                if self._stop.is_set():
                    return
                continue
            if item is _END:
                return
            self._consume(item)  # type: ignore[arg-type]

    def put(self, item: T) -> None:
        """Queue ``item``; raises the thread's error if it failed."""
        while self._thread.is_alive():
            try:
                self._queue.put(item, timeout=_POLL)
                return
            except queue.Full:
                continue
        self._raise()
        raise RuntimeError("the writer thread ended early")

    def close(self) -> None:
        """Wait until everything queued is consumed; raise the thread's error."""
        if self._thread.is_alive():
            self.put(_END)  # type: ignore[arg-type]
            self._thread.join()
        self._raise()

    def __enter__(self) -> Drain[T]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
