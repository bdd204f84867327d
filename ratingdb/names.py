"""A player's name as the federation's files write it: ``Surname, Given name`` (WO 6.5.2).

The database keeps surname and given name apart; every page, report and export joins them
here, so a player without a given name reads ``Surname`` and a surname that is itself only
punctuation (it happens in hand-typed files) is not lost.
"""

from __future__ import annotations


def full_name(surname: str | None, given_name: str | None) -> str:
    """``Surname, Given``; either part alone when the other is empty.

    >>> full_name("Meier", "Anna"), full_name("Meier", ""), full_name(",", None)
    ('Meier, Anna', 'Meier', ',')
    """
    parts = [s.strip() for s in (surname or "", given_name or "") if s and s.strip()]
    return ", ".join(parts)
