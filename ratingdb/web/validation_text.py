"""The messages of a request the parameter checks refuse (FastAPI/pydantic's 422), in the
language of the request (docs/i18n.md): pydantic writes them in English
(``String should have at most 10 characters``); each error's ``type`` and ``ctx`` give the
message of the catalog. A type not listed keeps pydantic's own text."""

from __future__ import annotations

from typing import Any

from ratingdb.i18n import N_, gettext

#: pydantic's error types and their messages (``%(name)s``: a value of the error's ctx)
MESSAGES = {
    "missing": N_("a value is required"),
    "string_too_long": N_("at most %(max_length)s characters"),
    "string_too_short": N_("at least %(min_length)s characters"),
    "string_pattern_mismatch": N_("not an accepted value (%(pattern)s)"),
    "int_parsing": N_("a whole number is required"),
    "int_type": N_("a whole number is required"),
    "float_parsing": N_("a number is required"),
    "bool_parsing": N_("yes or no (true/false) is required"),
    "date_parsing": N_("a date YYYY-MM-DD is required"),
    "date_from_datetime_parsing": N_("a date YYYY-MM-DD is required"),
    "greater_than_equal": N_("at least %(ge)s"),
    "greater_than": N_("greater than %(gt)s"),
    "less_than_equal": N_("at most %(le)s"),
    "less_than": N_("less than %(lt)s"),
    "literal_error": N_("one of %(expected)s"),
    "enum": N_("one of %(expected)s"),
}

#: a pattern longer than this is not repeated in the message (the parameter's description
#: in the OpenAPI document says what it takes)
LONGEST_PATTERN = 40
LONG_PATTERN = N_("not an accepted value")


def message(error: dict[str, Any]) -> str:
    """One pydantic error's message in the language in force.

    >>> from ratingdb.i18n import use
    >>> e = {"type": "string_too_long", "msg": "String should have at most 10 characters",
    ...      "ctx": {"max_length": 10}}
    >>> with use("de"): message(e)
    'höchstens 10 Zeichen'
    >>> with use("en"): message(e)
    'at most 10 characters'
    >>> message({"type": "something_new", "msg": "Some text"})
    'Some text'
    >>> with use("de"): message({"type": "string_pattern_mismatch", "ctx": {"pattern": "x" * 41}})
    'kein zulässiger Wert'
    """
    text = MESSAGES.get(str(error.get("type", "")))
    if text is None:
        return str(error.get("msg", ""))
    if len(str((error.get("ctx") or {}).get("pattern", ""))) > LONGEST_PATTERN:
        return gettext(LONG_PATTERN)  # the schema names the values (an age class's spellings)
    try:
        return gettext(text) % {k: str(v) for k, v in (error.get("ctx") or {}).items()}
    except (KeyError, TypeError, ValueError):
        return str(error.get("msg", ""))
