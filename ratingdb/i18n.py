"""The language of pages, PDFs, CSV headers and CLI tables: German (the default) or English.

gettext catalogs maintained with Babel (docs/i18n.md): the messages are English in the code
(``_("Player")``), ``ratingdb/locale/de/LC_MESSAGES/ratingdb.po`` translates them into the
words of the Wertungsordnung, ``en`` keeps them. The wheel carries the compiled ``.mo``
files (``setup.py`` compiles them at build time); a source checkout or an editable install
compiles the ``.po`` in memory on first use.

The language in force is a context variable: the web sets it per request
(:mod:`ratingdb.web.language`: ``?lang=``, the ``lang`` cookie, ``Accept-Language``), the
CLI once per call (``--lang`` or ``RATINGDB_LANG``). :func:`gettext` (alias ``_``) reads it at
call time, so a table's column names are translated where the table is built; module-level
names are marked with :func:`N_` and translated when used.
"""

from __future__ import annotations

import gettext as _gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import date
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path

LANGUAGES = ("de", "en")
DEFAULT = "de"
#: the names of the languages in their own language (the switch on the pages)
NAMES = {"de": "Deutsch", "en": "English"}
DOMAIN = "ratingdb"
LOCALE_DIR = Path(__file__).parent / "locale"

_current: ContextVar[str] = ContextVar("ratingdb_language", default=DEFAULT)


def language() -> str:
    """The language in force (``de`` or ``en``)."""
    return _current.get()


def set_language(lang: str) -> Token[str]:
    """Make ``lang`` (one of :data:`LANGUAGES`) the language of this context."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r} (one of {', '.join(LANGUAGES)})")
    return _current.set(lang)


def reset_language(token: Token[str]) -> None:
    _current.reset(token)


@contextmanager
def use(lang: str) -> Iterator[None]:
    """``with use("en"): ...``: another language for a block."""
    token = set_language(lang)
    try:
        yield
    finally:
        _current.reset(token)


def normalise(value: str | None) -> str | None:
    """The supported language a tag or locale names, else None.

    >>> normalise("en-GB"), normalise("de_DE.UTF-8"), normalise("EN"), normalise("fr")
    ('en', 'de', 'en', None)
    """
    if not value:
        return None
    base = value.strip().replace("_", "-").split("-")[0].split(".")[0].lower()
    return base if base in LANGUAGES else None


def negotiate(accept_language: str | None) -> str:
    """The best supported language of an ``Accept-Language`` header (RFC 9110 12.5.4: the
    highest q, the earlier on a tie), :data:`DEFAULT` when none is acceptable.

    >>> negotiate("en-US,en;q=0.9,de;q=0.8"), negotiate("fr, de;q=0.5"), negotiate("fr")
    ('en', 'de', 'de')
    >>> negotiate("de;q=0.4, en;q=0.7"), negotiate(None), negotiate("en;q=0")
    ('en', 'de', 'de')
    """
    best: tuple[float, int, str] | None = None
    for position, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.partition(";")
        lang = normalise(tag)
        if lang is None:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0 and (best is None or q > best[0]):
            best = (q, position, lang)
    return DEFAULT if best is None else best[2]


def compile_catalog(po: Path, lang: str) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file (Babel; fuzzy entries left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


@cache
def translations(lang: str) -> _gettext.GNUTranslations:
    """The catalog of ``lang``: the compiled ``.mo`` (wheel) unless the ``.po`` beside it is
    newer or it is missing (source checkout), then the ``.po`` compiled in memory."""
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    mo, po = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        data = mo.read_bytes()
    elif po.exists():
        data = compile_catalog(po, lang)
    else:
        raise RuntimeError(f"no message catalog for language {lang!r} in {folder}")
    return _gettext.GNUTranslations(io.BytesIO(data))


def gettext(message: str) -> str:
    """``message`` in the language in force."""
    return translations(language()).gettext(message)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in a context (``pgettext("month", "May")``)."""
    return translations(language()).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(language()).npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it now (module-level names)."""
    return message


# -- numbers, dates and CSV by the language (docs/i18n.md "Numbers and dates") ----------------

#: the CSV separator of each language: a German spreadsheet reads ``;`` (the comma is its
#: decimal mark), an English one ``,``
CSV_DELIMITER = {"de": ";", "en": ","}


def decimal(value: int | float | Decimal | Fraction, places: int | None = None) -> str:
    """A number with the language's decimal mark (Babel's locale data; no grouping, so that
    a rating stays ``2245``): ``places`` rounds half-up (WO) to that many decimals and
    always writes them (``2,5``, ``5,990``); without ``places`` a whole number is written
    without decimals, a Decimal with the places it has, a fraction with 3.

    >>> with use("de"): decimal(2.5, 1), decimal(Decimal("5.99"), 3), decimal(-0.25, 1)
    ('2,5', '5,990', '-0,3')
    >>> with use("en"): decimal(2.5, 1), decimal(Fraction(7, 3), 3), decimal(2245)
    ('2.5', '2.333', '2245')
    """
    from babel.numbers import format_decimal

    from ratingdb.rules.rounding import decimal_half_up

    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    if isinstance(value, int) and places is None:
        return str(value)
    if places is not None:
        exact = Fraction(Decimal(str(value))) if isinstance(value, float) else Fraction(value)
        number = decimal_half_up(exact, places)
    elif isinstance(value, Fraction):  # a fraction without places: at most 3 (the WO's W_e)
        number = decimal_half_up(value, 3)
    else:
        number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    shown = places if places is not None else max(0, -int(number.as_tuple().exponent))
    pattern = "0." + "0" * shown if shown else "0"
    return str(format_decimal(number, format=pattern, locale=language()))


def number_text(value: str) -> str:
    """A number kept as a file's text (a team's ``2.0`` match points) written as
    :func:`decimal` writes it, with the places it has; any other text as it is.

    >>> with use("de"): number_text("1.5"), number_text("2"), number_text("ZPB")
    ('1,5', '2', 'ZPB')
    """
    try:
        number = Decimal(value.strip())
    except (ArithmeticError, ValueError):
        return value
    return decimal(number) if number.is_finite() else value


def date_text(value: date | str) -> str:
    """A date in the language's form: German ``01.12.2026`` (Babel, ``dd.MM.yyyy``), English
    ISO 8601 ``2026-12-01`` (unambiguous for readers on both sides of the Atlantic).

    >>> with use("de"): date_text(date(2026, 12, 1))
    '01.12.2026'
    >>> with use("en"): date_text(date(2026, 12, 1))
    '2026-12-01'
    """
    if isinstance(value, str):
        value = date.fromisoformat(value)
    if language() == "en":
        return value.isoformat()
    from babel.dates import format_date

    return str(format_date(value, "dd.MM.yyyy", locale=language()))


def csv_delimiter() -> str:
    """The CSV separator of the language in force (:data:`CSV_DELIMITER`)."""
    return CSV_DELIMITER[language()]
