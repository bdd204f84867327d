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

Ranges of the values themselves (ratings, indexes, dates) are the readers' business.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ratingdb.errors import InputError
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
    for key, _ in pairs:
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
        return _Refused(f"the number {text[:12]}… has {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(f"the number {text[:20]} is out of range")
    return value


def _constant(text: str) -> _Refused:
    return _Refused(f"{text} is not a JSON value")


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
                raise InputError(path, f"the string holds {bad}")
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            raise InputError(path, f"nested deeper than {max_depth} levels")
        if isinstance(node, list):
            stack.extend((item, f"{path}[{k}]", depth + 1) for k, item in enumerate(node))
            continue
        if isinstance(node, _Duplicate):
            raise InputError(_key(path, node.duplicate), "the key is given twice")
        for key, item in node.items():
            bad = unsafe_character(key)
            if bad:
                raise InputError(path, f"a key holds {bad}")
            stack.append((item, _key(path, key), depth + 1))


def load_json(text: str, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS) -> Any:
    """The JSON value of ``text`` within the limits above; an :class:`InputError` naming the
    line/column (syntax) or the JSON path (limits) otherwise.

    >>> load_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> load_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ratingdb.errors.InputError: $.a: the key is given twice
    """
    if len(text) > max_chars:
        raise InputError("$", f"the document has {len(text)} characters (at most {max_chars})")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_int,
            parse_float=_float,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as err:
        raise JsonSyntaxError(
            f"line {err.lineno}, column {err.colno}", f"malformed JSON: {err.msg}"
        ) from None
    except RecursionError:
        raise InputError("$", f"nested deeper than {max_depth} levels") from None
    _walk(value, max_depth)
    return value
