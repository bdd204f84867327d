"""Characters no stored text may hold, whatever the input format.

PostgreSQL's text columns refuse NUL (``\\x00``), and a lone UTF-16 surrogate
(``\\ud800``, which JSON's ``\\u`` escapes and Python's ``surrogateescape`` can produce)
cannot be encoded as UTF-8 at all: both would fail deep inside a write. Every reader
checks its strings here and refuses them with the place.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import Any

from ratingdb.errors import InputError
from ratingdb.i18n import _

_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def unsafe_character(text: str) -> str | None:
    """A description of the first character of ``text`` no stored text may hold, or None.

    >>> from ratingdb.i18n import use
    >>> with use("en"):
    ...     [unsafe_character(t) for t in ("Meier, Anna", "a\\x00b", "\\ud800")]
    [None, 'a NUL character at position 2', 'a lone surrogate \\\\ud800 at position 1']
    >>> with use("de"):
    ...     unsafe_character("a\\x00b")
    'ein NUL-Zeichen an Stelle 2'
    """
    m = _UNSAFE.search(text)
    if m is None:
        return None
    return _("%(what)s at position %(at)d") % {"what": _describe(m.group()), "at": m.start() + 1}


def unsafe_place(text: str) -> tuple[int, int, str] | None:
    """(line, column, description) of the first character no stored text may hold, or None.

    >>> from ratingdb.i18n import use
    >>> with use("en"):
    ...     unsafe_place("ok\\nab\\x00")
    (2, 3, 'a NUL character')
    """
    m = _UNSAFE.search(text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return line, column, _describe(m.group())


def _describe(char: str) -> str:
    if char == "\x00":
        return _("a NUL character")
    return _("a lone surrogate %(escape)s") % {"escape": f"\\u{ord(char):04x}"}


def check_text(text: str, where: str) -> str:
    """``text`` unchanged, or an :class:`InputError` at ``where`` naming the bad character."""
    bad = unsafe_character(text)
    if bad:
        raise InputError(where, _("the text holds %(what)s") % {"what": bad})
    return text


def check_strings(value: Any, where: str) -> None:
    """Every string inside ``value`` (dataclasses, lists, tuples, dicts, nested) through
    :func:`check_text`: the read model of a binary or XML file, whose texts come from bytes
    no decoder checked."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            check_text(node, where)
        elif isinstance(node, list | tuple | set):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in fields(node))
