"""Cells of a CSV that a spreadsheet must not run as a formula (OWASP "CSV injection").

A spreadsheet opening a CSV reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and,
in some programs, a tab or a carriage return before one of them) as a formula:
``=HYPERLINK("http://…";"klick")`` in a submitted player's name would become a link in the
rating list an officer downloads. Every CSV ratingdb writes passes the text cells of its rows
through :func:`neutralise` (:func:`ratingdb.queries.documents.to_csv` for the evaluations, rating
lists, top lists and Karteikarten; ``ratingdb export evaluations``; the DSB's
``spieler.csv``/``vereine.csv``), which puts an apostrophe before such a cell, as the OWASP
guidance describes: the spreadsheet shows the text as it is (the name stays readable), and
a program reading the file sees the apostrophe.

A cell that is a plain number (``-12``, ``+5``, ``-0.5``) is left as it is: a spreadsheet
reads it as that number, never as a formula, so a negative rating change stays a number;
so is a lone ``-`` (the DSB's member lists write it for "no eligibility"), which a
spreadsheet shows as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: the first characters that make a spreadsheet read a cell as a formula (OWASP)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: cells left as they are: plain numbers, and a lone sign (the DSB's "-" for "none")
_NUMBER = re.compile(r"[+-]?\d+([.,]\d+)?|[+-]")


def neutralise(value: str) -> str:
    """``value`` as a spreadsheet reads it as text: an apostrophe before a cell that would
    start a formula; numbers and other cells unchanged.

    >>> neutralise('=HYPERLINK("http://x";"klick"), Eve')
    '\\'=HYPERLINK("http://x";"klick"), Eve'
    >>> neutralise("-12"), neutralise("-1+1"), neutralise("Meyer, Anna")
    ('-12', "'-1+1", 'Meyer, Anna')
    """
    if value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def neutral(value: Any) -> Any:
    """A cell of any type: text neutralised, numbers, dates and empty cells unchanged."""
    return neutralise(value) if isinstance(value, str) else value


def neutral_row(row: Iterable[Any]) -> list[Any]:
    return [neutral(v) for v in row]
