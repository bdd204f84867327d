"""Plausibility bounds of input data: what a rating officer's file or request may say before
anything is written (docs/database.md, "Plausibility bounds").

The bounds are :class:`ratingdb.settings.Bounds` (environment variables, validated once):

* every date of a tournament, membership, adjustment or rating list lies on or after
  ``earliest`` (default 1950-01-01, before the first DWZ);
* a tournament ends on or before today: the WO evaluates played tournaments (WO 3.7,
  6.2: "nach Turnierende"), and a date typed as 2062 for 2026 would otherwise sit at the
  end of the evaluation order until that year;
* other dates (a list date, an adjustment, a membership) lie at most ``days_ahead`` days
  after today (default 400: a year's planning plus the one-year window of WO 6.2).

Each check raises :class:`~ratingdb.errors.InputError` naming the place, so the command
line ends with one line and exit code 2 and the web answers 422.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ratingdb.errors import InputError
from ratingdb.settings import Bounds, Settings


def bounds() -> Bounds:
    """The configured bounds."""
    return Settings.from_env().bounds


def today() -> date:
    """The day the bounds count from: ``RATINGDB_TODAY`` or the clock's."""
    return bounds().today or date.today()


def latest(today: date, limits: Bounds | None = None) -> date:
    """The last date a list, an adjustment or a membership may carry."""
    limits = limits or bounds()
    return min(today + timedelta(days=limits.days_ahead), date.max - timedelta(days=1))


def check_date(
    day: date, where: str, *, today: date | None = None, limits: Bounds | None = None
) -> date:
    """``day`` unchanged if it lies from ``earliest`` to ``today + days_ahead`` (``today``:
    default :func:`today`).

    >>> limits = Bounds()
    >>> check_date(date(2026, 1, 1), "--date", today=date(2026, 11, 25), limits=limits)
    datetime.date(2026, 1, 1)
    >>> check_date(date(9999, 12, 31), "d", today=date(2026, 11, 25), limits=limits)
    Traceback (most recent call last):
    ratingdb.errors.InputError: d: 9999-12-31 is not plausible (from 1950-01-01 to 2027-12-30)
    """
    limits = limits or bounds()
    last = latest(today or limits.today or date.today(), limits)
    if not limits.earliest <= day <= last:
        raise InputError(where, f"{day} is not plausible (from {limits.earliest} to {last})")
    return day


def check_tournament_dates(
    start: date, end: date, where: str, *, today: date | None = None, limits: Bounds | None = None
) -> None:
    """A tournament starts on or after ``earliest`` and ends on or before ``today`` (default
    :func:`today`; ``where`` names the tournament object, e.g. ``$.tournament``, or a file)."""
    limits = limits or bounds()
    today = today or limits.today or date.today()
    if start < limits.earliest:
        raise InputError(
            f"{where}.start" if where.startswith("$") else where,
            f"start {start} is before {limits.earliest}, the earliest plausible date",
        )
    if end > today:
        raise InputError(
            f"{where}.end" if where.startswith("$") else where,
            f"end {end} is after today ({today}): a tournament is submitted once it has ended",
        )


# -- the plausible values of the numbers a file or document carries ---------------------------
@dataclass(frozen=True, slots=True)
class Range:
    """The plausible values of one kind of whole number, the same in every input format
    (TRF, SWT, SWI, both XML formats, JSON, the member lists): read through
    :func:`ratingdb.io.numbers.whole_number`."""

    what: str
    low: int
    high: int


#: a DWZ, a FIDE or national rating: no rating system goes anywhere near 4000
RATING = Range("rating", 1, 4000)
#: the DWZ index counts evaluations (WO 2.2.4); the DSB's lists show at most three digits
INDEX = Range("index", 0, 999)
#: a round number, or the number of rounds (TRF's round columns stop far earlier)
ROUND = Range("round", 1, 9999)
#: a participant's number in a file (TRF start rank: four columns; XML, SWI, SWT numbers)
START_RANK = Range("start rank", 1, 9999)
#: a FIDE id: at most ten digits (FIDE's ids have nine today)
FIDE_ID = Range("FIDE id", 1, 9_999_999_999)
#: a member's number in his club (the member lists allow ten digits)
MEMBER_NUMBER = Range("member number", 1, 9_999_999_999)
#: a birth year (``players.birth_year``'s check constraint)
BIRTH_YEAR = Range("birth year", 1850, 2200)
#: a number of players in a header record (TRF ``062``/``072``)
PLAYER_COUNT = Range("number of players", 0, 9999)
