"""Membership life cycles (WO 3.4.3, 4.1.1) and residual-game validity (WO 4.1.1).

At a tournament's end date e a player is treated as a member when

* a membership covers e (``current``);
* a membership starts after e but at most ``late_member_years`` later (``late``: a new
  member's earlier tournaments count for them, WO 3.4.3);
* the last membership ended before e but at most ``retention_years`` earlier (``former``:
  the rating keeps being updated during the retention period, WO 4.1.1).

Otherwise the player is a textual participant (``none``): nothing is stored, and a rating
held from before is dropped for good once the player has been textual (the WO's data are
deleted after the retention period).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Literal

from ratingdb.dates import add_years
from ratingdb.engine.model import Membership

Status = Literal["current", "late", "former", "none"]
_ONE_DAY = timedelta(days=1)


def membership_status(
    memberships: Sequence[Membership], at: date, retention_years: int, late_years: int
) -> Status:
    if len(memberships) == 1:  # the common case, without generators
        start, end = memberships[0].valid_from, memberships[0].valid_to
        if start <= at and (end is None or at <= end):
            return "current"
        if start > at and at >= add_years(start, -late_years):
            return "late"
        if end is not None and end < at and at <= add_years(end, retention_years):
            return "former"
        return "none"
    if not memberships:
        return "none"
    if any(m.valid_from <= at and (m.valid_to is None or at <= m.valid_to) for m in memberships):
        return "current"
    if any(m.valid_from > at and at >= add_years(m.valid_from, -late_years) for m in memberships):
        return "late"
    ended = [m.valid_to for m in memberships if m.valid_to is not None and m.valid_to < at]
    if ended and at <= add_years(max(ended), retention_years):
        return "former"
    return "none"


def textual_between(
    memberships: Sequence[Membership],
    since: date,
    until: date,
    retention_years: int,
    late_years: int,
) -> bool:
    """Was the player textual at some day in (since, until]?

    The covered days are the memberships widened by the late-joining window before and the
    retention period after; any uncovered day in the interval means the data were dropped.
    """
    if len(memberships) == 1:  # the common case, without the spans
        m = memberships[0]
        day = since + _ONE_DAY
        if day > until:
            return False
        if add_years(m.valid_from, -late_years) > day:
            return True
        # covered from ``day`` to the retention's end: textual after it, if that is before
        # ``until`` (an end before ``day`` is before ``until`` too)
        return m.valid_to is not None and add_years(m.valid_to, retention_years) < until
    spans = [
        (
            add_years(m.valid_from, -late_years),
            date.max if m.valid_to is None else add_years(m.valid_to, retention_years),
        )
        for m in memberships
    ]
    if len(spans) > 1:
        spans.sort()
    day = since + _ONE_DAY
    for start, end in spans:
        if day > until:
            return False
        if start > day:
            return True
        if end >= day:
            day = end + _ONE_DAY if end < date.max else date.max
    return day <= until
