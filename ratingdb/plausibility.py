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
from ratingdb.i18n import N_, _
from ratingdb.settings import Bounds, Settings


def bounds() -> Bounds:
    """The configured bounds."""
    return Settings.from_env().bounds


def today() -> date:
    """The day the bounds count from: ``RATINGDB_TODAY`` or the clock's."""
    return bounds().today or date.today()


def latest(today: date, limits: Bounds | None = None) -> date:
    """The last date a list, an adjustment or a membership may carry.

    >>> latest(date(2026, 11, 25), Bounds()), latest(date(9999, 12, 1), Bounds())
    (datetime.date(2027, 12, 30), datetime.date(9999, 12, 30))
    """
    limits = limits or bounds()
    last = date.max - timedelta(days=1)  # the calendar's end, whatever today is
    if (last - today).days <= limits.days_ahead:
        return last
    return today + timedelta(days=limits.days_ahead)


def check_date(
    day: date, where: str, *, today: date | None = None, limits: Bounds | None = None
) -> date:
    """``day`` unchanged if it lies from ``earliest`` to ``today + days_ahead`` (``today``:
    default :func:`today`).

    >>> from ratingdb.i18n import use
    >>> limits = Bounds()
    >>> check_date(date(2026, 1, 1), "--date", today=date(2026, 11, 25), limits=limits)
    datetime.date(2026, 1, 1)
    >>> with use("en"):
    ...     check_date(date(9999, 12, 31), "d", today=date(2026, 11, 25), limits=limits)
    Traceback (most recent call last):
    ratingdb.errors.InputError: d: 9999-12-31 is not plausible (from 1950-01-01 to 2027-12-30)
    >>> check_date(date(1949, 12, 31), "d", today=date(2026, 11, 25), limits=limits)
    Traceback (most recent call last):
    ratingdb.errors.InputError: d: 1949-12-31 ist nicht plausibel (von 1950-01-01 bis 2027-12-30)
    """
    limits = limits or bounds()
    last = latest(today or limits.today or date.today(), limits)
    if not limits.earliest <= day <= last:
        raise InputError(
            where,
            _("%(day)s is not plausible (from %(earliest)s to %(last)s)")
            % {"day": day, "earliest": limits.earliest, "last": last},
        )
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
            _("start %(start)s is before %(earliest)s, the earliest plausible date")
            % {"start": start, "earliest": limits.earliest},
        )
    if end > today:
        raise InputError(
            f"{where}.end" if where.startswith("$") else where,
            _("end %(end)s is after today (%(today)s): a tournament is submitted once it has ended")
            % {"end": end, "today": today},
        )


# -- the plausible values of the numbers a file or document carries ---------------------------
@dataclass(frozen=True, slots=True)
class Range:
    """The plausible values of one kind of whole number, the same in every input format
    (TRF, SWT, SWI, both XML formats, JSON, the member lists): read through
    :func:`ratingdb.io.numbers.whole_number`; ``what`` is English, marked for the catalog and
    translated where a message names it."""

    what: str
    low: int
    high: int


#: a DWZ, a FIDE or national rating: no rating system goes anywhere near 4000
RATING = Range(N_("rating"), 1, 4000)
#: the DWZ index counts evaluations (WO 2.2.4); the DSB's lists show at most three digits
INDEX = Range(N_("index"), 0, 999)
#: a round number, or the number of rounds (TRF's round columns stop far earlier)
ROUND = Range(N_("round"), 1, 9999)
#: a participant's number in a file (TRF start rank: four columns; XML, SWI, SWT numbers)
START_RANK = Range(N_("start rank"), 1, 9999)
#: a FIDE id: at most ten digits (FIDE's ids have nine today)
FIDE_ID = Range(N_("FIDE id"), 1, 9_999_999_999)
#: a member's number in his club (the member lists allow ten digits)
MEMBER_NUMBER = Range(N_("member number"), 1, 9_999_999_999)
#: a birth year (``players.birth_year``'s check constraint)
BIRTH_YEAR = Range(N_("birth year"), 1850, 2200)
#: a number of players in a header record (TRF ``062``/``072``)
PLAYER_COUNT = Range(N_("number of players"), 0, 9999)


# -- the plausible sizes of one tournament -----------------------------------------------------
@dataclass(frozen=True, slots=True)
class SizeBound:
    """The most of one kind a single tournament plausibly has (docs/database.md, "Size
    bounds"); ``name`` is its key in the audit log."""

    name: str
    high: int


#: the largest real opens have a few thousand players in one file (all groups of a big open
#: together); 100,000 is a generated file, not a tournament
PLAYERS = SizeBound("players", 5000)
#: a Swiss has rarely more than 15 rounds, a double round robin of n players 2(n-1): 50 is a
#: double round robin of 26
ROUNDS = SizeBound("rounds", 50)
#: one game a round: as many as the rounds
GAMES_PER_PLAYER = SizeBound("games per player", 50)
#: entrants who never played (no-shows of a big open, a team's reserves who were not
#: fielded) are a few dozen; thousands are a member list, not a tournament
WITHOUT_GAME = SizeBound("players without a game", 500)
SIZE_BOUNDS = (PLAYERS, ROUNDS, GAMES_PER_PLAYER, WITHOUT_GAME)


@dataclass(frozen=True, slots=True)
class Sizes:
    """What one tournament file or submission document holds: players, the highest round
    any game, bye, result cell or round date names, the most games of one player (and who he
    is: ``busiest``), and the players who played no game."""

    players: int
    rounds: int
    most_games: int
    busiest: str
    without_game: int

    def of(self, bound: SizeBound) -> int:
        return {
            PLAYERS: self.players,
            ROUNDS: self.rounds,
            GAMES_PER_PLAYER: self.most_games,
            WITHOUT_GAME: self.without_game,
        }[bound]


@dataclass(frozen=True, slots=True)
class Above:
    """A bound a tournament goes above: which, what it holds, where."""

    bound: SizeBound
    found: int
    location: str
    message: str

    def to_dict(self) -> dict[str, object]:
        """The audit log's record of an administrator's override."""
        return {"bound": self.bound.name, "high": self.bound.high, "found": self.found}


class AboveBound(InputError):
    """A tournament larger than a size bound, submitted without an administrator's override
    (``above``: every bound it goes above; ``problems``: one located message each)."""

    def __init__(self, above: list[Above]) -> None:
        allow = _("an administrator can allow it on purpose (--allow-large; API and pages: "
                  "allow_large)")  # fmt: skip
        super().__init__(above[0].location, "; ".join(a.message for a in above) + f"; {allow}")
        self.above = above
        # the way above the bounds said once, after the first
        self.problems = [
            (a.location, f"{a.message}; {allow}" if k == 0 else a.message)
            for k, a in enumerate(above)
        ]


def _size_message(bound: SizeBound, found: int, sizes: Sizes) -> str:
    values = {"found": found, "high": bound.high, "player": sizes.busiest}
    if bound is PLAYERS:
        text = _("%(found)d players, above the bound of %(high)d players per tournament")
    elif bound is ROUNDS:
        text = _("%(found)d rounds, above the bound of %(high)d rounds per tournament")
    elif bound is GAMES_PER_PLAYER:
        text = _("%(found)d games of player %(player)s, above the bound of %(high)d games "
                 "per player")  # fmt: skip
    else:
        text = _("%(found)d players without a game, above the bound of %(high)d per tournament")
    return text % values


def check_sizes(sizes: Sizes, where: str, *, allow: bool = False) -> list[Above]:
    """The size bounds a tournament goes above (``where``: the file, or the document's JSON
    path, whose ``players`` or ``games`` the message then names); :class:`AboveBound`
    unless ``allow`` (an administrator's override: the caller records what it allowed).

    >>> small = Sizes(players=40, rounds=9, most_games=9, busiest="1", without_game=0)
    >>> check_sizes(small, "$")
    []
    >>> from dataclasses import replace
    >>> from ratingdb.i18n import use
    >>> with use("en"):
    ...     check_sizes(replace(small, players=100_000), "$")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ratingdb.plausibility.AboveBound: $.players: 100000 players, above the bound of 5000 ...
    >>> [a.to_dict() for a in check_sizes(replace(small, rounds=5000), "t.trf", allow=True)]
    [{'bound': 'rounds', 'high': 50, 'found': 5000}]
    """
    above = []
    for bound in SIZE_BOUNDS:
        found = sizes.of(bound)
        if found > bound.high:
            part = "players" if bound in (PLAYERS, WITHOUT_GAME) else "games"
            location = f"{where}.{part}" if where.startswith("$") else where
            above.append(Above(bound, found, location, _size_message(bound, found, sizes)))
    if above and not allow:
        raise AboveBound(above)
    return above
