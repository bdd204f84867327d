"""Age selections of rating lists and top lists, as birth-year bounds.

A player's age in a year is that year minus the birth year (WO 3.5.2.2, the age used by
the rules). The selections:

* the WO's age classes: ``youth`` (``Jgd``) up to 20, ``junior`` (``Jun``) 21 to 25,
  ``adult`` (``Erw``) older (players without birth year count as adults);
* DeWIS's ranges (its ``bestOfFederation`` took ``alter_von`` and ``alter_bis``, both
  inclusive, and club sites asked for ``U20`` as 0 to 20 and ``Ü60`` as 60 to 120):
  ``U<n>`` is age 0 to n (U20 is the WO's youth), ``Ü<n>`` (also ``UE<n>``, ``S<n>``,
  ``<n>+``) is age n or more.

>>> birth_years("U18", 2026)
(2008, None)
>>> birth_years("Ü60", 2026)
(None, 1966)
>>> birth_years("junior", 2026)
(2001, 2005)
"""

from __future__ import annotations

import re

from ratingdb.i18n import N_, _

#: the youth and senior ranges DeWIS's top lists offered, in the order of the forms
PRESETS = ("U8", "U10", "U12", "U14", "U16", "U18", "U20", "U25", "Ü50", "Ü60", "Ü65", "Ü75")

#: the display's German marks and words for the age classes, accepted as selections too
AGE_CLASS_WORDS = {
    "jgd": "youth", "jugend": "youth", "jugendliche": "youth",
    "jun": "junior", "junioren": "junior",
    "erw": "adult", "erwachsene": "adult",
}  # fmt: skip

_UNDER = re.compile(r"[Uu]([0-9]{1,3})")
_OVER = re.compile(r"(?:[ÜüSs]|[Uu][Ee])([0-9]{1,3})|([0-9]{1,3})\+")
#: the age classes in English (the words of :data:`AGE_CLASS_WORDS` are their German names)
AGE_CLASSES = ("youth", "junior", "adult")


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


#: every selection :func:`birth_years` reads (after ``strip()``), as a regular expression:
#: the API declares it on its age parameters, so the schema names exactly what is accepted
SELECTIONS = "|".join(
    [*(_any_case(w) for w in (*AGE_CLASSES, *AGE_CLASS_WORDS)), _UNDER.pattern, _OVER.pattern]
)

UNKNOWN = N_("unknown age class %(value)r (youth/Jgd, junior/Jun, adult/Erw, U<n> or Ü<n>)")


def birth_years(selection: str, year: int) -> tuple[int | None, int | None] | None:
    """The birth years (from, to; None: open) of ``selection`` in ``year``; ``None`` for
    ``adult``, which also takes players without birth year (:func:`age_condition`).
    ValueError for a selection that is none of the above."""
    word = selection.strip().lower()  # the words in any case, German or English
    key = AGE_CLASS_WORDS.get(word, word if word in AGE_CLASSES else selection.strip())
    if key == "youth":
        return (year - 20, None)
    if key == "junior":
        return (year - 25, year - 21)
    if key == "adult":
        return None
    under = _UNDER.fullmatch(key)
    if under:
        return (year - int(under[1]), None)
    over = _OVER.fullmatch(key)
    if over:
        return (None, year - int(over[1] or over[2]))
    raise ValueError(_(UNKNOWN) % {"value": selection})


def age_condition(selection: str | None, year: int, column: str = "p.birth_year") -> str:
    """An SQL condition (`` AND ...``, empty for no selection) on ``column`` for
    ``selection`` in ``year``; the bounds are numbers computed here, never the text."""
    if selection is None:
        return ""
    bounds = birth_years(selection, year)
    if bounds is None:  # adult: older than 25, or no birth year known
        return f" AND ({column} IS NULL OR {column} < {year - 25})"
    return birth_year_condition(*bounds, column=column)


def birth_year_condition(
    born_from: int | None, born_to: int | None, column: str = "p.birth_year"
) -> str:
    """`` AND ...`` on ``column`` between the birth years (inclusive, None: open)."""
    parts = []
    if born_from is not None:
        parts.append(f" AND {column} >= {int(born_from)}")
    if born_to is not None:
        parts.append(f" AND {column} <= {int(born_to)}")
    return "".join(parts)
