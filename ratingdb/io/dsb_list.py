"""The DSB member list (``spieler.csv``) in every published layout: parsing with validation.

Columns are found by their header, so order and extra columns do not matter; headers are
compared without case, blanks, hyphens, dots and quotes. Layouts seen (all accepted):

* the Wertungsportal today (``LV-0-csv.zip``): ``ID,ZPS,Mitgliedsnummer,Status,"Name,Vorname",
  Geschlecht,Spielberechtigung,Geburtsjahr,"Letzte Auswertung",DWZ,Index,FIDE-Elozahl,
  FIDE-Titel,FIDE-ID,FIDE-Land,Vorname,Nachname`` (sometimes followed by
  ``FIDE-Frauentitel,FIDE-Elozahl-Schnellschach,FIDE-Elozahl-Blitz``), ids like
  ``NU4005017``, one row per membership;
* ``ID,VKZ,Mgl-Nr,Status,Spielername,…,Letzte-Auswertung,DWZ,Index,FIDE-Elo,…``;
* the oldest, without ``ID``: ``ZPS,Mgl-Nr,Status,Spielername,…`` (quoted or not);
* ratingdb's own rating list (``ratingdb export list --format csv``):
  ``#,Name,VKZ,Verein,Mgl-Nr,Jahrgang,Geschlecht,DWZ,Index,FIDE-ID,Spieler-ID`` (German),
  ``#,Name,VKZ,Club,Member no.,Born,Sex,DWZ,Index,FIDE ID,Player ID`` (English; older forms
  with ``Mgl-Nr`` or without ``Club``).

The name is ``Nachname``/``Vorname`` when the file has them, else ``Surname,Given name``
from the name column; a third part (``Meier,Hans,Dr.``: an academic title) is not part of
the given name and is dropped. ``Status`` A (active) or P (passive); ``Geschlecht`` M, W or D;
``DWZ``/``Index`` empty or 0 when the player has none; ``Letzte Auswertung`` the year and week
of the player's last evaluation (``202436``: week 36 of 2024), read as the Sunday of that ISO
week; ``Spielberechtigung`` is kept (``eligibility``); member numbers are compared without
leading zeros (older lists write ``0017``).

Every problem of the file is reported at once (at most :data:`MAX_PROBLEMS`), each as
``file:line`` with the column named by the file's own header, in the language in force
(:mod:`ratingdb.i18n`, German by default: ``Spalte Status: A oder P erwartet, nicht 'Q'``).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date

from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, ngettext
from ratingdb.io.numbers import NotANumber, optional_number
from ratingdb.io.trf import decode
from ratingdb.names import control_character, describe_control
from ratingdb.plausibility import BIRTH_YEAR, FIDE_ID, INDEX, RATING, Range

MAX_PROBLEMS = 50
#: normalised header -> field
_ALIASES = {
    "id": "dsb_id",
    "pkz": "dsb_id",
    "zps": "vkz",
    "vkz": "vkz",
    "mglnr": "member_number",
    "mitgliedsnummer": "member_number",
    "mitgliedsnr": "member_number",
    "memberno": "member_number",  # ratingdb's own list in English
    "status": "status",
    "spielername": "name",
    "name": "name",
    "namevorname": "name",
    "nachname": "surname",
    "vorname": "given_name",
    "geschlecht": "sex",
    "sex": "sex",
    "spielberechtigung": "eligibility",
    "geburtsjahr": "birth_year",
    "born": "birth_year",
    "jahrgang": "birth_year",  # ratingdb's own list in German (docs/i18n.md)
    "letzteauswertung": "last_evaluation",
    "dwz": "dwz",
    "index": "index",
    "fideelo": "fide_rating",
    "fideelozahl": "fide_rating",
    "fidetitel": "fide_title",
    "fidefrauentitel": "fide_women_title",
    "fideid": "fide_id",
    "fideland": "fide_federation",
}
#: the headers a user can give for a required field (for the message when none is there)
_REQUIRED = {
    "vkz": ("ZPS", "VKZ"),
    "member_number": ("Mitgliedsnummer", "Mgl-Nr"),
    "name": ("Spielername", "Name", '"Name,Vorname"', "Nachname + Vorname"),
}
_VKZ = re.compile(r"^[0-9A-Za-z]{1,10}$")
#: the last problem of a file that has more than :data:`MAX_PROBLEMS`
STOPPED = N_("... stopped after this many problems")
#: the message of a VKZ that is not one (``%(vkz)r``), the member and the club lists'
BAD_VKZ = N_("a VKZ has 1 to 10 letters or digits, got %(vkz)r")
#: a file that has no rows at all
EMPTY = N_("the file is empty")


@dataclass(frozen=True, slots=True)
class ListRow:
    line: int
    dsb_id: str | None
    vkz: str
    member_number: str
    passive: bool
    surname: str
    given_name: str
    sex: str | None  # m, f, d
    birth_year: int | None
    dwz: int | None
    index: int | None
    fide_rating: int | None
    fide_title: str
    fide_id: int | None
    fide_federation: str
    #: the Sunday of the week of the player's last evaluation (``Letzte Auswertung``)
    last_evaluation: date | None = None
    #: ``Spielberechtigung`` as listed (D, A, E, G, -: German, foreign, …)
    eligibility: str = ""


def normalise(header: str) -> str:
    """A header cell compared without case, blanks, hyphens, dots, quotes and BOM."""
    return re.sub(r"[\s\-_.\"',\ufeff]+", "", header.lower())


class ListError(InputError):
    """One or more problems of a list file; ``problems`` holds ``(location, message)``."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(problems[0][0], problems[0][1])
        self.problems = problems
        self.args = ("\n".join(f"{where}: {what}" for where, what in problems),)

    def __str__(self) -> str:
        return str(self.args[0])


def csv_reason(err: csv.Error) -> str:
    """Why Python's CSV reader stopped, in the language in force where the reason is one a
    list meets (a field beyond the reader's limit), else the reader's own English."""
    m = re.fullmatch(r"field larger than field limit \(([0-9]+)\)", str(err))
    if m is not None:
        return _("a field is longer than %(limit)d characters") % {"limit": int(m.group(1))}
    return str(err)


def read_csv(
    data: bytes, source: str, encoding: str
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header row and the records (with the line each begins on) of a CSV list; ``;``
    or ``,`` separated. Raises :class:`InputError` for an empty file or broken quoting."""
    check_encoding(data, source, encoding)
    text = decode(data, source, encoding)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(source, _(EMPTY)) from None
    except csv.Error as err:
        raise InputError(
            f"{source}:1", _("not a CSV header: %(error)s") % {"error": csv_reason(err)}
        ) from None
    records: list[tuple[int, list[str]]] = []
    while True:
        start = reader.line_num + 1
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as err:  # e.g. a quote that is never closed
            raise InputError(
                f"{source}:{start}",
                _("malformed CSV record: %(error)s") % {"error": csv_reason(err)},
            ) from None
        if not any(cell.strip() for cell in raw):
            continue
        if len(raw) != len(header):
            counts = {"fields": len(raw), "header": len(header), "line": reader.line_num}
            if reader.line_num != start:
                message = ngettext(
                    "%(fields)d field, the header has %(header)d (the record runs to line "
                    "%(line)d: a quote not closed?)",
                    "%(fields)d fields, the header has %(header)d (the record runs to line "
                    "%(line)d: a quote not closed?)",
                    len(raw),
                )
            else:
                message = ngettext(
                    "%(fields)d field, the header has %(header)d",
                    "%(fields)d fields, the header has %(header)d",
                    len(raw),
                )
            raise InputError(f"{source}:{start}", message % counts)
        records.append((start, raw))
    return header, records


def parse_list(data: bytes, source: str, encoding: str = "cp1252") -> list[ListRow]:
    """All rows of a member list; raises :class:`ListError` with every problem at once."""
    header, records = read_csv(data, source, encoding)
    columns: dict[str, int] = {}
    labels: dict[str, str] = {}
    for k, name in enumerate(header):
        key = _ALIASES.get(normalise(name))
        if key is not None and key not in columns:
            columns[key] = k
            labels[key] = name.strip().lstrip("\ufeff")
    if "name" not in columns and "surname" in columns:
        columns["name"], labels["name"] = columns["surname"], labels["surname"]
    missing = [key for key in _REQUIRED if key not in columns]
    if missing:
        either = " " + _("or") + " "
        wanted = "; ".join(either.join(_REQUIRED[k]) for k in missing)
        raise InputError(
            f"{source}:1",
            _("the header has no column for %(wanted)s (the file's header: %(header)s)")
            % {"wanted": wanted, "header": ", ".join(header)},
        )
    rows = []
    problems: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, raw in records:
        try:
            row = _row(raw, columns, labels, line)
        except _Bad as err:
            problems.append((f"{source}:{line}", str(err)))
            if len(problems) >= MAX_PROBLEMS:
                problems.append((source, _(STOPPED)))
                break
            continue
        member = (row.vkz, row.member_number)
        if member in seen:
            twice = _("member %(vkz)s-%(member)s is listed twice (also line %(line)d)") % {
                "vkz": row.vkz, "member": row.member_number, "line": seen[member]
            }  # fmt: skip
            problems.append((f"{source}:{line}", twice))
            continue
        seen[member] = line
        rows.append(row)
    if problems:
        raise ListError(problems)
    return rows


class _Bad(Exception):
    """A cell that cannot be read; the message is the user's."""


def name_holds(char: str) -> str:
    """Why a name with a control character (:func:`ratingdb.names.control_character`) is
    refused, in the language in force (:func:`ratingdb.names.describe_control`)."""
    return _("the name holds %(what)s") % {"what": describe_control(char)}


def check_encoding(data: bytes, source: str, encoding: str) -> None:
    """UTF-8 read as windows-1252 decodes without error into wrong names: refuse it."""
    if encoding.replace("-", "").lower() in ("utf8", "utf8sig") or data.isascii():
        return
    if data.startswith(b"\xef\xbb\xbf"):
        raise InputError(
            source,
            _("the file starts with a UTF-8 byte order mark: it is UTF-8, give --encoding utf-8"),
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # not UTF-8: the declared single-byte encoding stands
    raise InputError(
        source,
        _("the file is valid UTF-8 with non-ASCII letters, not %(encoding)s: give --encoding utf-8")
        % {"encoding": encoding},
    )


def _delimiter(text: str) -> str:
    first = text.split("\n", 1)[0]
    return ";" if first.count(";") > first.count(",") else ","


def week_date(value: str) -> date | None:
    """``Letzte Auswertung`` (``YYYYWW``, also ``YYYY-WW`` or ``YYYY/WW``) as the Sunday of
    that ISO week; empty or 0 is None."""
    text = value.strip()
    if text in ("", "0"):
        return None
    m = re.fullmatch(r"([0-9]{4})[-/ ]?([0-9]{2})", text)
    if m is None:
        raise ValueError(_("expected year and week (YYYYWW), got %(value)r") % {"value": value})
    try:
        return date.fromisocalendar(int(m.group(1)), int(m.group(2)), 7)
    except ValueError:
        raise ValueError(
            _("week %(week)d of %(year)s does not exist")
            % {"week": int(m.group(2)), "year": m.group(1)}
        ) from None


def _row(raw: list[str], columns: dict[str, int], labels: dict[str, str], line: int) -> ListRow:
    def get(key: str) -> str:
        k = columns.get(key)
        return "" if k is None else raw[k].strip()

    def bad(key: str, message: str) -> _Bad:
        return _Bad(
            _("column %(column)s: %(message)s")
            % {"column": labels.get(key, key), "message": message}
        )

    def number(key: str, limits: Range) -> int | None:
        try:
            return optional_number(get(key), limits, labels.get(key, key))
        except NotANumber as err:
            raise bad(key, str(err)) from None

    vkz = get("vkz")
    if not _VKZ.match(vkz):
        raise bad("vkz", _(BAD_VKZ) % {"vkz": vkz})
    member_number = get("member_number")
    if not (member_number.isascii() and member_number.isdigit()) or len(member_number) > 10:
        raise bad(
            "member_number", _("expected a member number, got %(value)r") % {"value": member_number}
        )
    member_number = str(int(member_number))  # older lists pad with zeros: 0017 is 17
    status = get("status").upper()
    if status not in ("", "A", "P"):
        raise bad("status", _("expected A or P, got %(value)r") % {"value": status})
    surname, given = get("surname"), get("given_name")
    if not surname:
        name = get("name")
        parts = [x.strip() for x in name.split(",")]
        surname, given = parts[0], parts[1] if len(parts) > 1 else ""
        if not surname:
            raise bad("name", _("expected 'Surname,Given name', got %(value)r") % {"value": name})
    for key, text in (("surname", surname), ("given_name", given)):
        if (char := control_character(text)) is not None:  # as a submission's names
            raise bad(key if key in columns else "name", name_holds(char))
    sex = get("sex").upper()
    if sex not in ("", "M", "W", "F", "D"):
        raise bad("sex", _("expected M, W or D, got %(value)r") % {"value": sex})
    dsb_id = get("dsb_id") or None
    if dsb_id is not None and not re.fullmatch(r"[0-9A-Za-z-]{1,20}", dsb_id):
        raise bad("dsb_id", _("not a DSB id: %(value)r") % {"value": dsb_id})
    dwz = number("dwz", RATING)
    index = number("index", INDEX)
    if index is not None and dwz is None:
        raise bad("index", _("index %(index)d without a DWZ") % {"index": index})
    federation = get("fide_federation")
    if federation and not re.fullmatch(r"[A-Za-z]{3}", federation):
        raise bad(
            "fide_federation", _("expected a 3-letter code, got %(value)r") % {"value": federation}
        )
    try:
        last = week_date(get("last_evaluation"))
    except ValueError as err:
        raise bad("last_evaluation", str(err)) from None
    return ListRow(
        line=line,
        dsb_id=dsb_id,
        vkz=vkz,
        member_number=member_number,
        passive=status == "P",
        surname=surname[:100],
        given_name=given[:100],
        sex={"M": "m", "W": "f", "F": "f", "D": "d"}.get(sex),
        birth_year=number("birth_year", BIRTH_YEAR),
        dwz=dwz,
        index=index,
        fide_rating=number("fide_rating", RATING),
        fide_title=(get("fide_title") or get("fide_women_title"))[:3],
        fide_id=number("fide_id", FIDE_ID),
        fide_federation=federation.upper(),
        last_evaluation=last,
        eligibility=get("eligibility")[:5],
    )
