"""The one reader of whole numbers written as text in a file: TRF columns, SWT fields, SWI
columns, the elements of both XML formats, the cells of the member lists.

A number is ASCII digits ``0-9`` and nothing else: no sign, no exponent, no decimal point,
no blank inside, no other script's digits (``١٨٠٠``, full-width ``１８００``, superscript
``²``, which Python's ``int()`` and ``str.isdigit`` would take or half take); it lies within
the plausible :class:`~ratingdb.plausibility.Range` of what it is (a rating 1..4000, a FIDE
id of at most ten digits, ...). Each failure is one :class:`NotANumber` whose message the
reader puts at its place (``file:line:column``, an element path, a byte offset), next to
the file's other problems; nothing here raises anything else for any text.

The messages are in the language in force (German by default, :mod:`ratingdb.i18n`):

>>> from ratingdb.i18n import use
>>> from ratingdb.plausibility import RATING
>>> whole_number("1800", RATING)
1800
>>> with use("en"):
...     whole_number("１８００", RATING, "FIDE rating")
Traceback (most recent call last):
ratingdb.io.numbers.NotANumber: FIDE rating is not a number: '１８００' (only the digits 0-9 count)
>>> whole_number("1" + "0" * 30, RATING)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ratingdb.io.numbers.NotANumber: Wertungszahl 1000000000000… (31 Ziffern) ist nicht plausibel (1...
>>> with use("en"):
...     whole_number("10000", RATING)
Traceback (most recent call last):
ratingdb.io.numbers.NotANumber: rating 10000 is not plausible (1..4000)
>>> optional_number("0000", RATING) is None
True
"""

from __future__ import annotations

import re

from ratingdb.i18n import _
from ratingdb.plausibility import Range

_DIGITS = re.compile(r"[0-9]+", re.ASCII)
#: how much of a bad value a message shows
_SHOWN = 20


class NotANumber(ValueError):
    """A text that is not a plausible number of its kind; ``str()`` is the user's message
    (without the place: the reader adds it)."""


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _why(text: str) -> str:
    if any(not c.isascii() and c.isnumeric() for c in text):
        return " " + _("(only the digits 0-9 count)")
    if text[:1] in ("+", "-") and _DIGITS.fullmatch(text[1:]):
        return " " + _("(no sign)")
    if re.fullmatch(r"[0-9]*[.,eE][0-9.,eE+-]*", text, re.ASCII):
        return " " + _("(a whole number: no decimal point, no exponent)")
    return ""


def whole_number(text: str, limits: Range, what: str | None = None) -> int:
    """``text`` (blanks around it ignored) as a whole number within ``limits``; ``what``
    names it in the message (default: the range's name; English, marked with ``N_`` and
    translated here). Raises :class:`NotANumber` with a message in the language in force.

    >>> from ratingdb.i18n import use
    >>> from ratingdb.plausibility import ROUND
    >>> with use("en"):
    ...     whole_number("-3", ROUND)
    Traceback (most recent call last):
    ratingdb.io.numbers.NotANumber: round is not a number: '-3' (no sign)
    >>> whole_number("1e3", ROUND)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ratingdb.io.numbers.NotANumber: Runde ist keine Zahl: '1e3' (eine ganze Zahl: ...)
    """
    name = _(what or limits.what)
    value = text.strip()
    span = {"low": limits.low, "high": limits.high}
    if not _DIGITS.fullmatch(value):
        if not value:
            raise NotANumber(
                _("%(name)s is missing (a number %(low)d..%(high)d)") % {"name": name, **span}
            )
        raise NotANumber(
            _("%(name)s is not a number: %(value)r") % {"name": name, "value": _shown(value)}
            + _why(value)
        )
    significant = value.lstrip("0") or "0"
    if len(significant) > _SHOWN:  # never int() of a thousand digits
        raise NotANumber(
            _("%(name)s %(start)s… (%(digits)d digits) is not plausible (%(low)d..%(high)d)")
            % {"name": name, "start": significant[:13], "digits": len(significant), **span}
        )
    number = int(significant)
    if not limits.low <= number <= limits.high:
        raise NotANumber(
            _("%(name)s %(number)d is not plausible (%(low)d..%(high)d)")
            % {"name": name, "number": number, **span}
        )
    return number


def optional_number(text: str, limits: Range, what: str | None = None) -> int | None:
    """:func:`whole_number`, except that an empty field or zeros only (``0000``: how TRF and
    SwissChess write "no rating", "no FIDE id") are None."""
    value = text.strip()
    if not value or (_DIGITS.fullmatch(value) and not value.strip("0")):
        return None
    return whole_number(value, limits, what)
