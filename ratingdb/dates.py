"""Calendar arithmetic shared by the rules, the engine, the store and the web.

WO 4.1.1 counts residual-game validity and the retention period in whole years; WO 6.2
allows corrections "innerhalb eines Jahres". Both need "the same day, ``n`` years later",
with Feb 29 moved to Mar 1 in a year without it.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache


@lru_cache(maxsize=65536)
def add_years(day: date, years: int) -> date:
    """``day`` moved by whole years; Feb 29 becomes Mar 1 in a non-leap target year.
    Remembered (a full replay asks for the same few thousand tournament dates millions of
    times: 0.1 µs against 0.5 µs).

    >>> add_years(date(2024, 2, 29), 2), add_years(date(2025, 6, 30), -1)
    (datetime.date(2026, 3, 1), datetime.date(2024, 6, 30))
    """
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return date(day.year + years, 3, 1)


def residual_valid(created: date, tournament_end: date, years: int) -> bool:
    """WO 4.1.1: a residual game dated ``created`` counts for a tournament ending
    ``tournament_end`` iff that is before the anniversary ``years`` later (the period
    starts on ``created``, so the anniversary itself is already expired).

    >>> residual_valid(date(2024, 6, 30), date(2026, 6, 29), 2)
    True
    >>> residual_valid(date(2024, 6, 30), date(2026, 6, 30), 2)
    False
    """
    return tournament_end < add_years(created, years)
