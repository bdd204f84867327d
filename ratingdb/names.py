"""A player's name as the federation's files write it: ``Surname, Given name`` (WO 6.5.2).

The database keeps surname and given name apart; every page, report and export joins them
here, so a player without a given name reads ``Surname`` and a surname that is itself only
punctuation (it happens in hand-typed files) is not lost.
"""

from __future__ import annotations

from ratingdb.i18n import _


def full_name(surname: str | None, given_name: str | None) -> str:
    """``Surname, Given``; either part alone when the other is empty.

    >>> full_name("Meier", "Anna"), full_name("Meier", ""), full_name(",", None)
    ('Meier, Anna', 'Meier', ',')
    """
    parts = [s.strip() for s in (surname or "", given_name or "") if s and s.strip()]
    return ", ".join(parts)


#: Unicode's bidirectional controls (LRM, RLM, the embeddings and overrides U+202A–U+202E,
#: the isolates U+2066–U+2069): invisible, they reorder what follows them on every page,
#: list and terminal that shows the text ("Trojan Source")
BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def control_character(text: str) -> str | None:
    """The first control character of ``text`` (C0, DEL, C1: a line break, a tab, an
    escape sequence that recolours a terminal; a bidirectional control), or None.

    >>> control_character("Meier, Anna"), control_character("Gast\\u202eX")
    (None, '\\u202e')
    """
    return next((c for c in text if c < " " or "\x7f" <= c <= "\x9f" or c in BIDI_CONTROLS), None)


def describe_control(char: str) -> str:
    """``the control character '\\n'`` or ``the bidirectional control character
    '\\u202e'`` (its escape: the character itself is invisible)."""
    if char in BIDI_CONTROLS:
        return _("the bidirectional control character %(char)r") % {"char": char}
    return _("the control character %(char)r") % {"char": char}
