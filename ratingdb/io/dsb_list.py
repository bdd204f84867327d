"""The DSB member list (``spieler.csv``): parsing with validation.

The federation publishes its members as CSV in windows-1252 with a header row. Two layouts
are in use (both are accepted; columns are found by name, so their order does not matter):

* ``ZPS,Mgl-Nr,Status,Spielername,Geschlecht,Spielberechtigung,Geburtsjahr,
  Letzte-Auswertung,DWZ,Index,FIDE-Elo,FIDE-Titel,FIDE-ID,FIDE-Land``
* the same with a leading ``ID`` (the DSB person id) and ``VKZ`` for ``ZPS``.

``Spielername`` is "Surname,Given name"; ``Status`` A (active) or P (passive);
``Geschlecht`` M, W or D; ``DWZ``/``Index`` the current rating and index (empty or 0 when the
player has none). Aliases accepted in the header: ``Mitgliedsnummer`` for ``Mgl-Nr``,
``Name`` for ``Spielername``, ``FIDE-Elozahl`` for ``FIDE-Elo``.

Every problem is an :class:`InputError` naming ``file:line`` and the column.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from ratingdb.io.errors import InputError
from ratingdb.io.trf import decode

REQUIRED = ("vkz", "member_number", "name")
_ALIASES = {
    "id": "dsb_id",
    "zps": "vkz",
    "vkz": "vkz",
    "mgl-nr": "member_number",
    "mitgliedsnummer": "member_number",
    "status": "status",
    "spielername": "name",
    "name": "name",
    "geschlecht": "sex",
    "spielberechtigung": "eligibility",
    "geburtsjahr": "birth_year",
    "letzte-auswertung": "last_evaluation",
    "dwz": "dwz",
    "index": "index",
    "fide-elo": "fide_rating",
    "fide-elozahl": "fide_rating",
    "fide-titel": "fide_title",
    "fide-id": "fide_id",
    "fide-land": "fide_federation",
}
_VKZ = re.compile(r"^[0-9A-Za-z]{1,10}$")


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


def parse_list(data: bytes, source: str, encoding: str = "cp1252") -> list[ListRow]:
    """All rows of a member list; raises :class:`InputError` at the first bad one."""
    _check_encoding(data, source, encoding)
    text = decode(data, source, encoding)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(source, "the file is empty") from None
    except csv.Error as err:
        raise InputError(f"{source}:1", f"not a CSV header: {err}") from None
    columns: dict[str, int] = {}
    for k, name in enumerate(header):
        key = _ALIASES.get(name.strip().lstrip("\ufeff").lower())
        if key is not None and key not in columns:
            columns[key] = k
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise InputError(
            f"{source}:1", f"header lacks the column(s) {', '.join(missing)} (got {header})"
        )
    rows = []
    seen: dict[tuple[str, str], int] = {}
    while True:
        start = reader.line_num + 1
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as err:  # e.g. a quote that is never closed
            raise InputError(f"{source}:{start}", f"malformed CSV record: {err}") from None
        line = start  # where the record begins (a quoted field may span lines)
        if not any(cell.strip() for cell in raw):
            continue
        if len(raw) != len(header):
            spans = (
                f" (the record runs to line {reader.line_num}: a quote not closed?)"
                if reader.line_num != start
                else ""
            )
            raise InputError(
                f"{source}:{line}", f"{len(raw)} fields, the header has {len(header)}{spans}"
            )
        row = _row(raw, columns, f"{source}:{line}", line)
        member = (row.vkz, row.member_number)
        if member in seen:
            raise InputError(
                f"{source}:{line}",
                f"member {row.vkz}-{row.member_number} is listed twice (also line {seen[member]})",
            )
        seen[member] = line
        rows.append(row)
    return rows


def _check_encoding(data: bytes, source: str, encoding: str) -> None:
    """UTF-8 read as windows-1252 decodes without error into wrong names: refuse it."""
    if encoding.replace("-", "").lower() in ("utf8", "utf8sig") or data.isascii():
        return
    if data.startswith(b"\xef\xbb\xbf"):
        raise InputError(
            source,
            "the file starts with a UTF-8 byte order mark: it is UTF-8, give --encoding utf-8",
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # not UTF-8: the declared single-byte encoding stands
    raise InputError(
        source,
        f"the file is valid UTF-8 with non-ASCII letters, not {encoding}: give --encoding utf-8",
    )


def _delimiter(text: str) -> str:
    first = text.split("\n", 1)[0]
    return ";" if first.count(";") > first.count(",") else ","


def _row(raw: list[str], columns: dict[str, int], where: str, line: int) -> ListRow:
    def get(key: str) -> str:
        k = columns.get(key)
        return "" if k is None else raw[k].strip()

    def number(key: str, label: str, low: int, high: int) -> int | None:
        value = get(key)
        if value in ("", "0"):
            return None
        if not (value.isascii() and value.isdigit()) or not low <= int(value) <= high:
            raise InputError(f"{where}", f"column {label}: expected {low}..{high}, got {value!r}")
        return int(value)

    vkz = get("vkz")
    if not _VKZ.match(vkz):
        raise InputError(where, f"column ZPS: a VKZ has 1 to 10 letters or digits, got {vkz!r}")
    member_number = get("member_number")
    if not (member_number.isascii() and member_number.isdigit()) or len(member_number) > 10:
        raise InputError(where, f"column Mgl-Nr: expected a member number, got {member_number!r}")
    status = get("status").upper()
    if status not in ("", "A", "P"):
        raise InputError(where, f"column Status: expected A or P, got {status!r}")
    name = get("name")
    surname, _, given = name.partition(",")
    if not surname.strip():
        raise InputError(where, f"column Spielername: expected 'Surname,Given name', got {name!r}")
    sex = get("sex").upper()
    if sex not in ("", "M", "W", "F", "D"):
        raise InputError(where, f"column Geschlecht: expected M, W or D, got {sex!r}")
    dsb_id = get("dsb_id") or None
    if dsb_id is not None and not re.fullmatch(r"[0-9A-Za-z-]{1,20}", dsb_id):
        raise InputError(where, f"column ID: not a DSB id: {dsb_id!r}")
    dwz = number("dwz", "DWZ", 1, 4000)
    index = number("index", "Index", 1, 9999)
    if index is not None and dwz is None:
        raise InputError(where, f"column Index: index {index} without a DWZ")
    federation = get("fide_federation")
    if federation and not re.fullmatch(r"[A-Za-z]{3}", federation):
        raise InputError(where, f"column FIDE-Land: expected a 3-letter code, got {federation!r}")
    return ListRow(
        line=line,
        dsb_id=dsb_id,
        vkz=vkz,
        member_number=member_number,
        passive=status == "P",
        surname=surname.strip()[:100],
        given_name=given.strip()[:100],
        sex={"M": "m", "W": "f", "F": "f", "D": "d"}.get(sex),
        birth_year=number("birth_year", "Geburtsjahr", 1850, 2200),
        dwz=dwz,
        index=index,
        fide_rating=number("fide_rating", "FIDE-Elo", 1, 4000),
        fide_title=get("fide_title")[:3],
        fide_id=number("fide_id", "FIDE-ID", 1, 10**11),
        fide_federation=federation.upper(),
    )
