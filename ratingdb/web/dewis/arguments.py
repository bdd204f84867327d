"""The positional arguments of a call as the values an operation takes, or a fault.

PHP sends what the website's code holds: an id read from a URL comes as ``xsd:string``, a
limit computed as ``xsd:int``, a parameter the form left empty as ``xsi:nil`` or ``""``.
So a number is taken from an int or a string of digits, a text from a string (or a number:
a ZPS typed as ``22076``), an absent or empty one is the default where the operation has
one; anything else (a struct, an array, a boolean for a number, text for a number, a value
out of its range) is the operation's fault for that argument.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from ratingdb.web.dewis.envelope import Compound, Value
from ratingdb.web.dewis.faults import DewisFault


def _given(args: Sequence[Value], i: int) -> Value:
    return args[i] if i < len(args) else None


def text(
    args: Sequence[Value], i: int, fault: str, *, default: str | None = "", max_length: int = 100
) -> str:
    """Argument ``i`` as a text (stripped): ``default`` when absent or empty (a fault when
    ``default`` is None), a fault when it is no text or longer than ``max_length``."""
    value = _given(args, i)
    if isinstance(value, (bool, Compound, float)):
        raise DewisFault(fault)
    found = "" if value is None else str(value).strip()
    if not found:
        if default is None:
            raise DewisFault(fault)
        return default
    if len(found) > max_length:
        raise DewisFault(fault)
    return found


def integer(
    args: Sequence[Value],
    i: int,
    fault: str,
    *,
    default: int | None = None,
    low: int = 0,
    high: int = 2**31 - 1,
) -> int:
    """Argument ``i`` as a whole number in ``low``..``high``: ``default`` when absent or
    empty (a fault when ``default`` is None)."""
    value = _given(args, i)
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is None:
            raise DewisFault(fault)
        return default
    number: int
    if isinstance(value, (bool, Compound)):
        raise DewisFault(fault)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise DewisFault(fault)
        number = int(value)
    else:
        digits = value.strip()
        if not (digits.isascii() and digits.lstrip("-").isdigit()) or len(digits) > 12:
            raise DewisFault(fault)
        number = int(digits)
    if not low <= number <= high:
        raise DewisFault(fault)
    return number


def flag(args: Sequence[Value], i: int, *, default: bool) -> bool:
    """Argument ``i`` as true/false (``true``, ``1``, a non-empty text but ``0``/``false``)."""
    value = _given(args, i)
    if value is None or isinstance(value, Compound):
        return default
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false")
    return bool(value)


def day(args: Sequence[Value], i: int, fault: str) -> date:
    """Argument ``i`` as a date ``YYYY-MM-DD`` (a time after it is ignored: ISO date-times
    of clients that send a ``Date``)."""
    value = _given(args, i)
    if not isinstance(value, str):
        raise DewisFault(fault)
    found = value.strip()[:10]
    try:
        return date.fromisoformat(found)
    except ValueError:
        raise DewisFault(fault) from None
