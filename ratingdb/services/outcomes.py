"""The one table from error class to what a front end does with it: the command line's
exit code and the web's HTTP status (docs/DESIGN.md, "Errors").

:func:`as_error` first turns the few foreign exceptions that carry a user's problem into
the hierarchy of :mod:`ratingdb.errors`: a ``LookupError`` raised by a query (not a
``KeyError``/``IndexError``: those are programming errors) is :class:`NotFound`, a database
constraint violation is :class:`Refused`, a transaction the database ended because of a
concurrent one (a deadlock, a serialisation failure; the locks of
:mod:`ratingdb.db.locks` keep them away from ratingdb's own writes) is :class:`Busy`, a
lost or refused database connection is :class:`Unavailable`. :func:`outcome` then finds
the entry of the nearest class in the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ratingdb.errors import (
    Busy,
    Failed,
    Forbidden,
    InputError,
    NotFound,
    RatingdbError,
    Refused,
    RulesError,
    Unauthenticated,
    Unavailable,
)
from ratingdb.i18n import N_

#: exit code of a bad input (and of every error without its own code)
EXIT_INPUT = 2
#: exit code of a recalculation that could not start because another one runs
EXIT_BUSY = 3
#: exit code of an operation that failed for a reason other than the input (a run)
EXIT_FAILED = 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """``exit_code`` for the command line, ``status`` for the web, ``summary`` the web's
    headline (None: the error's own message; marked for the catalogs, translated where it is
    shown)."""

    exit_code: int
    status: int
    summary: str | None = None


OUTCOMES: dict[type[RatingdbError], Outcome] = {
    InputError: Outcome(EXIT_INPUT, 422, N_("invalid input, nothing written")),
    Refused: Outcome(EXIT_INPUT, 422, N_("refused by the database, nothing written")),
    RulesError: Outcome(EXIT_INPUT, 422, N_("the evaluation failed")),
    NotFound: Outcome(EXIT_INPUT, 404),
    Forbidden: Outcome(EXIT_INPUT, 403),
    Unauthenticated: Outcome(EXIT_INPUT, 401),
    Busy: Outcome(EXIT_BUSY, 409),
    Unavailable: Outcome(EXIT_INPUT, 503),
    Failed: Outcome(EXIT_FAILED, 503),
}


def outcome(error: RatingdbError) -> Outcome:
    """The table's entry for the nearest class of ``error``."""
    for cls in type(error).__mro__:
        found = OUTCOMES.get(cls)
        if found is not None:
            return found
    return Outcome(EXIT_INPUT, 422)


def refusal_reason(err: BaseException) -> str:
    """The first line of a database error (SQLAlchemy wraps psycopg's in ``orig``)."""
    orig = getattr(err, "orig", None) or err
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__


def is_refusal(err: BaseException) -> bool:
    """A constraint or value the database rejected (SQLAlchemy's or psycopg's own, as COPY
    raises them)."""
    import psycopg
    from sqlalchemy.exc import DataError, IntegrityError

    return isinstance(err, IntegrityError | DataError | psycopg.IntegrityError | psycopg.DataError)


#: what a writer reads when the database gave up on its transaction because of another one
CONFLICT = (
    "another change to the same data was made at the same moment; nothing was written, try again"
)


def is_conflict(err: BaseException) -> bool:
    """A transaction the database ended because of a concurrent one (deadlock,
    serialisation failure, lock timeout): the same request again may succeed."""
    import psycopg

    orig = getattr(err, "orig", None) or err
    return isinstance(
        orig,
        psycopg.errors.DeadlockDetected
        | psycopg.errors.SerializationFailure
        | psycopg.errors.LockNotAvailable,
    )


def is_server_gone(err: BaseException) -> bool:
    """The connection to the database server failed (lost, refused, shut down)."""
    import psycopg
    from sqlalchemy.exc import OperationalError

    return isinstance(err, OperationalError | psycopg.OperationalError) and not is_conflict(err)


def as_error(err: BaseException) -> RatingdbError | None:
    """``err`` in the hierarchy, or None for an exception that is a programming error."""
    if isinstance(err, RatingdbError):
        return err
    if is_conflict(err):
        return Busy(CONFLICT)
    if is_server_gone(err):
        return Unavailable(f"the database server is unavailable: {refusal_reason(err)}")
    if isinstance(err, LookupError) and not isinstance(err, KeyError | IndexError):
        return NotFound(str(err.args[0]) if err.args else "not found")
    if is_refusal(err):
        return Refused("", refusal_reason(err))
    return None
