"""The errors a user sees: one hierarchy for the core and every front end.

Each class names a *reason*, not a front end; ``str(err)`` is the one line a user reads.
The shell maps each class once (:mod:`ratingdb.services.outcomes`): the command line to an
exit code, the web to an HTTP status. Nothing here knows either.

* :class:`InputError`: the input is wrong (a file, a document, an option), with its place;
  :class:`Refused` is input only the database's constraints reject;
* :class:`NotFound`: a named thing (tournament, player, Rechenmodul) does not exist;
* :class:`Forbidden` / :class:`Unauthenticated`: the user may not do this / is unknown;
* :class:`Busy`: another recalculation run holds the lock; try again later;
* :class:`Unavailable`: the database cannot be used (unreachable, bad URL, not migrated);
* :class:`Failed`: an operation stopped for a reason that is not the user's (a recalculation
  run that failed, the database server going away during it); nothing was changed;
* :class:`RulesError`: the rules cannot evaluate a tournament; :class:`ConvergenceError`:
  an iteration of the rules did not converge (WO Anhang 1.1.3).

A front end adds context (the file name, the tournament) with :meth:`RatingdbError.
with_context`, which keeps the class.
"""

from __future__ import annotations

from typing import Self


class RatingdbError(Exception):
    """Base of every error with a message meant for the user."""

    def with_context(self, prefix: str) -> Self:
        """The same error (same class and attributes) with ``prefix: `` before its message."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.args = (f"{prefix}: {self}",)
        return new


class InputError(RatingdbError):
    """Bad input. ``location`` is a JSON path like ``$.games[3].result``, ``line 3``, a
    ``file:line:column`` or an option name; an empty location leaves only the message."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.message = message

    def with_context(self, prefix: str) -> Self:
        new = super().with_context(prefix)
        new.location = f"{prefix}: {self.location}" if self.location else prefix
        return new


class Refused(InputError):
    """Input a database constraint rejected (nothing was written); ``reason`` is the
    database's first line."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(where, f"refused by the database, nothing written: {reason}")
        self.reason = reason


class NotFound(RatingdbError, LookupError):
    """A named thing does not exist (a ``LookupError``, so older ``except`` clauses hold)."""


class Forbidden(RatingdbError):
    """The user is known but may not do this."""


class Unauthenticated(RatingdbError):
    """No valid credentials."""


class Busy(RatingdbError):
    """The resource is in use (a recalculation run); the same request later may succeed."""


class Unavailable(RatingdbError):
    """The database cannot be used: unreachable, a bad URL, a failed or missing migration."""


class Failed(RatingdbError):
    """An operation stopped for a reason other than the user's input (a recalculation run
    that failed, the database server gone during it); nothing was changed."""


class RulesError(RatingdbError):
    """A tournament cannot be evaluated under the rules (not an input-format problem)."""


class ConvergenceError(RulesError):
    """An iteration did not converge (WO Anhang 1.1.3): never loop forever."""

    def __init__(self, message: str, players: list[str]) -> None:
        super().__init__(message)
        self.players = players
