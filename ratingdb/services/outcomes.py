"""The one table from error class to what a front end does with it: the command line's
exit code and the web's HTTP status (docs/DESIGN.md, "Errors").

:func:`as_error` first turns the few foreign exceptions that carry a user's problem into
the hierarchy of :mod:`ratingdb.errors`: a ``LookupError`` raised by a query (not a
``KeyError``/``IndexError``: those are programming errors) is :class:`NotFound`, a database
constraint violation is :class:`Refused`. :func:`outcome` then finds the entry of the
nearest class in the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ratingdb.errors import (
    Busy,
    Forbidden,
    InputError,
    NotFound,
    RatingdbError,
    Refused,
    Unauthenticated,
    Unavailable,
)
from ratingdb.rules.errors import RulesError

#: exit code of a bad input (and of every error without its own code)
EXIT_INPUT = 2
#: exit code of a recalculation that could not start because another one runs
EXIT_BUSY = 3


@dataclass(frozen=True, slots=True)
class Outcome:
    """``exit_code`` for the command line, ``status`` for the web, ``summary`` the web's
    headline (None: the error's own message)."""

    exit_code: int
    status: int
    summary: str | None = None


OUTCOMES: dict[type[RatingdbError], Outcome] = {
    InputError: Outcome(EXIT_INPUT, 422, "invalid input, nothing written"),
    Refused: Outcome(EXIT_INPUT, 422, "refused by the database, nothing written"),
    RulesError: Outcome(EXIT_INPUT, 422, "the evaluation failed"),
    NotFound: Outcome(EXIT_INPUT, 404),
    Forbidden: Outcome(EXIT_INPUT, 403),
    Unauthenticated: Outcome(EXIT_INPUT, 401),
    Busy: Outcome(EXIT_BUSY, 409),
    Unavailable: Outcome(EXIT_INPUT, 503),
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


def as_error(err: BaseException) -> RatingdbError | None:
    """``err`` in the hierarchy, or None for an exception that is a programming error."""
    if isinstance(err, RatingdbError):
        return err
    if isinstance(err, LookupError) and not isinstance(err, KeyError | IndexError):
        return NotFound(str(err.args[0]) if err.args else "not found")
    if is_refusal(err):
        return Refused("", refusal_reason(err))
    return None
