"""The one reader of JSON a user gives ratingdb: files and stdin of ``evaluate``, ``tournament
add``/``correct``, ``rechenmodul add --parameters`` and ``--set``, and the officer API's bodies.

Python's ``json`` accepts more than a document should carry, so every limit is checked
here, once, and reported as one :class:`~ratingdb.errors.InputError` naming the place:

* size: at most :data:`MAX_CHARS` characters;
* nesting: at most :data:`MAX_DEPTH` levels of arrays and objects (a deeper document is
  refused before it can exhaust the interpreter's recursion limit);
* duplicate keys in one object (``json`` keeps the last silently): refused with the path;
* ``NaN``, ``Infinity`` (not JSON at all) and numbers beyond a float (``1e400``) or longer
  than :data:`MAX_INT_DIGITS` digits: refused;
* strings (values and keys) with a NUL character or a lone UTF-16 surrogate (``\\ud800``),
  which no database text column and no UTF-8 file can hold: refused with the path
  (:func:`ratingdb.safe_text.check_text`).

Ranges of the values themselves (ratings, indexes, dates) are the readers' business. The
messages are in the language in force (:mod:`ratingdb.i18n`), the place too: a syntax error
is at ``line 3, column 5`` (German ``Zeile 3, Spalte 5``), a limit at its JSON path.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _
from ratingdb.safe_text import unsafe_character

#: the largest document read (a tournament of 2,000 players is ~0.5 MB)
MAX_CHARS = 20 * 1024 * 1024
#: arrays and objects nested deeper than this are refused (documents use 4 levels)
MAX_DEPTH = 64
#: integers with more digits are refused (no count or rating has more than a few)
MAX_INT_DIGITS = 30


class _Duplicate(dict[str, Any]):
    """An object with a repeated key (kept only until :func:`_walk` reports it)."""

    duplicate: str


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    dup = _Duplicate(out)
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            dup.duplicate = key
            break
        seen.add(key)
    return dup


class JsonSyntaxError(InputError):
    """The text is not JSON at all (as opposed to JSON beyond a limit)."""


@dataclass(frozen=True, slots=True)
class _Refused:
    """A number the hooks refuse, kept in place until :func:`_walk` reports it with its
    path (raising in the hook would lose the place)."""

    problem: str


def _int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        return _Refused(
            _("the number %(start)s… has %(digits)d digits (at most %(max)d)")
            % {"start": text[:12], "digits": digits, "max": MAX_INT_DIGITS}
        )
    return int(text)


def _float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(_("the number %(number)s is out of range") % {"number": text[:20]})
    return value


def _constant(text: str) -> _Refused:
    return _Refused(_("%(text)s is not a JSON value") % {"text": text})


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _walk(value: Any, max_depth: int) -> None:
    """Depth, duplicate keys and unsafe characters, iteratively (no recursion to exhaust)."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, _Refused):
            raise InputError(path, node.problem)
        if isinstance(node, str):
            bad = unsafe_character(node)
            if bad:
                raise InputError(path, _("the string holds %(what)s") % {"what": bad})
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            raise InputError(path, _too_deep(max_depth))
        if isinstance(node, list):
            stack.extend((item, f"{path}[{k}]", depth + 1) for k, item in enumerate(node))
            continue
        if isinstance(node, _Duplicate):
            raise InputError(_key(path, node.duplicate), _("the key is given twice"))
        for key, item in node.items():
            bad = unsafe_character(key)
            if bad:
                raise InputError(path, _("a key holds %(what)s") % {"what": bad})
            stack.append((item, _key(path, key), depth + 1))


def _too_deep(max_depth: int) -> str:
    return _("nested deeper than %(depth)d levels") % {"depth": max_depth}


#: the messages of Python's JSON decoder (``JSONDecodeError.msg``, English), marked for the
#: catalog; one it does not list is shown as the decoder wrote it
_DECODER = frozenset(
    (
        N_("Expecting value"),
        N_("Expecting ',' delimiter"),
        N_("Expecting ':' delimiter"),
        N_("Expecting property name enclosed in double quotes"),
        N_("Unterminated string starting at"),
        N_("Invalid control character at"),
        N_("Invalid \\escape"),
        N_("Invalid \\uXXXX escape"),
        N_("Extra data"),
        N_("Illegal trailing comma before end of object"),
        N_("Illegal trailing comma before end of array"),
    )
)


def syntax_place(line: int, column: int) -> str:
    """Where a syntax error is, in the language in force: ``line 3, column 5``."""
    return _("line %(line)d, column %(column)d") % {"line": line, "column": column}


def load_json(text: str, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS) -> Any:
    """The JSON value of ``text`` within the limits above; an :class:`InputError` naming the
    line/column (syntax) or the JSON path (limits) otherwise.

    >>> from ratingdb.i18n import use
    >>> load_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> with use("en"):
    ...     load_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ratingdb.errors.InputError: $.a: the key is given twice
    >>> with use("de"):
    ...     load_json('{"a": 1,, "b": 2}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ratingdb.io.json_input.JsonSyntaxError: Zeile 1, Spalte 9: kein gültiges JSON: ...
    """
    if len(text) > max_chars:
        raise InputError(
            "$",
            _("the document has %(count)d characters (at most %(max)d)")
            % {"count": len(text), "max": max_chars},
        )
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_int,
            parse_float=_float,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as err:
        why = _(err.msg) if err.msg in _DECODER else err.msg
        raise JsonSyntaxError(
            syntax_place(err.lineno, err.colno), _("malformed JSON: %(why)s") % {"why": why}
        ) from None
    except RecursionError:
        raise InputError("$", _too_deep(max_depth)) from None
    _walk(value, max_depth)
    return value
