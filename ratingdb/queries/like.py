"""Prefixes and parts of names matched with SQL ``LIKE``, character for character."""

from __future__ import annotations


def like_escape(value: str) -> str:
    """``value`` matched as itself by ``LIKE`` (PostgreSQL's escape character is the
    backslash): ``_`` and ``%`` in a VKZ prefix or a name are no wildcards.

    >>> like_escape("C0_1%")
    'C0\\\\_1\\\\%'
    """
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
