"""The DSB's club and federation lists (``vereine.csv``, ``verbaende.csv``): parsing.

Layouts (columns found by header; a file without a header row is read in this order):

* ``vereine.csv`` today: ``ZPS-Nummer,Landesverband,UebergeordneterVerband,Vereinsname``;
  older downloads: ``ZPS,LV,Verband,Vereinname``;
* ``verbaende.csv`` today: ``Verbandnummer,Landesverband,UebergeordneterVerband,
  Verbandname``; older: ``Verband,LV,Uebergeordnet,Verbandname``.

``UebergeordneterVerband`` is the VKZ of the level above (``000``: the DSB itself). Every
problem of a file is reported at once, each as ``file:line`` with the file's own header, in
the language in force (:mod:`ratingdb.i18n`: ``Spalte Vereinsname: der Name ist leer``).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, ngettext, pgettext
from ratingdb.io.dsb_list import (
    BAD_VKZ,
    EMPTY,
    MAX_PROBLEMS,
    STOPPED,
    ListError,
    check_encoding,
    name_holds,
    normalise,
)
from ratingdb.io.trf import decode
from ratingdb.names import control_character

_ALIASES = {
    "zpsnummer": "code",
    "zps": "code",
    "verbandnummer": "code",
    "verband": "code",  # older verbaende.csv: the level's own number (vereine: the parent)
    "landesverband": "state",
    "lv": "state",
    "uebergeordneterverband": "parent",
    "übergeordneterverband": "parent",
    "uebergeordnet": "parent",
    "vereinsname": "name",
    "vereinname": "name",
    "verbandname": "name",
    "name": "name",
}
#: without a header row: code, Landesverband, parent, name
_ORDER = ("code", "state", "parent", "name")
_VKZ = re.compile(r"^[0-9A-Za-z]{1,10}$")


@dataclass(frozen=True, slots=True)
class OrgRow:
    """One club or federation level of a list."""

    line: int
    code: str  # the VKZ (ZPS of a club, number of a federation level)
    state: str  # Landesverband
    parent: str  # VKZ of the level above; "" or "000" at the top
    name: str


def parse_orgs(data: bytes, source: str, encoding: str = "cp1252", *, clubs: bool) -> list[OrgRow]:
    """The rows of ``vereine.csv`` (``clubs``) or ``verbaende.csv``; raises
    :class:`~ratingdb.io.dsb_list.ListError` with every problem at once."""
    check_encoding(data, source, encoding)
    text = decode(data, source, encoding)
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    if not rows:
        raise InputError(source, _(EMPTY))
    header = [normalise(c) for c in rows[0]]
    # a file without a header: its columns named by what they hold
    named = (
        pgettext("list column", "code"),
        "Landesverband",
        pgettext("list column", "parent"),
        pgettext("list column", "name"),
    )
    labels = dict(zip(_ORDER, named, strict=True))
    if any(h in _ALIASES for h in header):
        columns: dict[str, int] = {}
        for k, h in enumerate(header):
            key = _ALIASES.get(h)
            if clubs and h == "verband":
                key = "parent"  # ZPS,LV,Verband,Vereinname: Verband is the level above
            if key is not None and key not in columns:
                columns[key] = k
                labels[key] = rows[0][k].strip().lstrip("\ufeff")
        missing = [k for k in ("code", "name") if k not in columns]
        if missing:
            raise InputError(f"{source}:1", _no_column(missing, clubs, rows[0]))
        body = list(enumerate(rows[1:], start=2))
        width = len(rows[0])
    else:  # no header row
        columns = {key: k for k, key in enumerate(_ORDER)}
        body = list(enumerate(rows, start=1))
        width = len(_ORDER)
    out: list[OrgRow] = []
    problems: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for line, raw in body:
        if not any(c.strip() for c in raw):
            continue
        where = f"{source}:{line}"
        if len(raw) < width:
            few = ngettext(
                "%(fields)d field, expected %(width)d",
                "%(fields)d fields, expected %(width)d",
                len(raw),
            )
            problems.append((where, few % {"fields": len(raw), "width": width}))
            continue

        def get(key: str, raw: list[str] = raw) -> str:
            k = columns.get(key)
            return "" if k is None else raw[k].strip()

        code, parent, name = get("code"), get("parent"), get("name")

        def column(key: str, message: str) -> str:
            return _("column %(column)s: %(message)s") % {"column": labels[key], "message": message}

        if not _VKZ.match(code):
            problems.append((where, column("code", _(BAD_VKZ) % {"vkz": code})))
        elif parent and not _VKZ.match(parent):
            problems.append((where, column("parent", _(BAD_VKZ) % {"vkz": parent})))
        elif not name:
            problems.append((where, column("name", _("the name is empty"))))
        elif (char := control_character(name)) is not None:
            problems.append((where, column("name", name_holds(char))))
        elif code in seen:
            twice = _("%(vkz)s is listed twice (also line %(line)d)")
            problems.append((where, twice % {"vkz": code, "line": seen[code]}))
        else:
            seen[code] = line
            out.append(OrgRow(line, code, get("state"), parent, name[:200]))
        if len(problems) >= MAX_PROBLEMS:
            problems.append((source, _(STOPPED)))
            break
    if problems:
        raise ListError(problems)
    return out


#: the refusal of a header without the column of the code or the name, by list (clubs or
#: not) and what is missing: whole sentences, as the words differ in German
_NO_COLUMN = {
    (True, ("code",)): N_("the header has no column for the code of a club"),
    (True, ("name",)): N_("the header has no column for the name of a club"),
    (True, ("code", "name")): N_("the header has no column for the code and the name of a club"),
    (False, ("code",)): N_("the header has no column for the code of a federation level"),
    (False, ("name",)): N_("the header has no column for the name of a federation level"),
    (False, ("code", "name")): N_(
        "the header has no column for the code and the name of a federation level"
    ),
}


def _no_column(missing: list[str], clubs: bool, header: list[str]) -> str:
    """Why a header is refused, in the language in force."""
    return _("%(problem)s (the file's header: %(header)s)") % {
        "problem": _(_NO_COLUMN[clubs, tuple(missing)]),
        "header": ", ".join(header),
    }
