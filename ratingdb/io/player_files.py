"""Player files for pairing programs ("Hintergrunddateien"): the layouts of the DSB's own
downloads, written from a rating list. Pure: rows in, bytes out (encoding and line ends
included). Sources and the programs that read each layout: ``docs/data-exchange.md``.

* ``spieler.csv`` / ``vereine.csv`` of the DSB's ``LV-x-csv.zip`` (nu/Wertungsportal):
  header row, ``,``-separated, windows-1252, CRLF, one row per membership, sorted by DWZ
  descending and players without DWZ last. :data:`SPIELER_CSV_COLUMNS` is the header as
  published since 2026-09-10 (17 columns, then three appended); :data:`SPIELER_CSV_17`
  the 17 columns before.
* ``SPIELER.TXT`` / ``VEREINE.TXT`` of ``LV-x-dos.zip`` (the DeWIS server's DOS layout): no
  header, ``|``-separated, no quotes, CP850, CRLF after every line, 14 fields, DWZ and index
  in one field (``1802-45``, ``0-0`` without a DWZ).
* SwissChess's participant import (*Datenaustausch*): a JSON object ``{"player": [...]}``
  with the keys of :data:`SWISSCHESS_KEYS`, every value a string.

The column lists are the one definition in ratingdb of these layouts; a reader of the same
files may import them.
"""

from __future__ import annotations

import io
import json
import unicodedata
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ratingdb.csv_cells import neutralise
from ratingdb.i18n import _

SPIELER_CSV_17 = (
    "ID", "ZPS", "Mitgliedsnummer", "Status", "Name,Vorname", "Geschlecht",
    "Spielberechtigung", "Geburtsjahr", "Letzte Auswertung", "DWZ", "Index", "FIDE-Elozahl",
    "FIDE-Titel", "FIDE-ID", "FIDE-Land", "Vorname", "Nachname",
)  # fmt: skip
SPIELER_CSV_COLUMNS = (
    *SPIELER_CSV_17,
    "FIDE-Frauentitel",
    "FIDE-Elozahl-Schnellschach",
    "FIDE-Elozahl-Blitz",
)
VEREINE_CSV_COLUMNS = ("ZPS-Nummer", "Landesverband", "UebergeordneterVerband", "Vereinsname")
SPIELER_TXT_FIELDS = (
    "ID", "ZPS", "Mitgliedsnummer", "Status", "Name,Vorname", "Geschlecht",
    "Spielberechtigung", "Geburtsjahr", "Letzte Auswertung", "DWZ-Index", "FIDE-Elozahl",
    "FIDE-Titel", "FIDE-ID", "FIDE-Land",
)  # fmt: skip
SWISSCHESS_KEYS = (
    "lastname", "teamname", "fed", "rtg_fid", "rtg_nat", "title", "birth", "nat_id",
    "fide_id", "player_id", "sex", "select", "zps_fed", "zps_team", "zps_play",
    "info_play_1", "info_play_2", "info_play_3", "info_play_4",
)  # fmt: skip
WOMEN_TITLES = frozenset({"WGM", "WIM", "WFM", "WCM"})
_SEX = {"m": "M", "f": "W", "d": "D"}
# characters outside windows-1252 / CP850 that have a plain ASCII stand-in
_ASCII = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u00b4": "'", "\u201c": '"', "\u201d": '"',
    "\u201e": '"', "\u2013": "-", "\u2014": "-", "\u2026": "...", "\u20ac": "EUR",
    "\u0152": "OE", "\u0153": "oe", "\u00c6": "AE", "\u00e6": "ae", "\u0110": "D",
    "\u0111": "d", "\u0141": "L", "\u0142": "l", "\u00d8": "O", "\u00f8": "o",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlayerFileRow:
    """One membership of a player as the player files know it."""

    dsb_id: str | None
    vkz: str
    member_number: str | None
    passive: bool
    #: ``Spielberechtigung`` as the member list gave it ("" when unknown)
    eligibility: str
    surname: str
    given_name: str
    sex: str | None  # m, f, d
    birth_year: int | None
    last_evaluation: date | None
    dwz: int | None
    index: int | None
    fide_rating: int | None
    fide_title: str | None
    fide_id: int | None
    fide_federation: str | None
    club: str


@dataclass(frozen=True, slots=True)
class ClubRow:
    vkz: str
    parent: str | None
    name: str


def from_list(rows: Iterable[Mapping[str, Any]]) -> list[PlayerFileRow]:
    """Rows of ``rating_list_rows(..., memberships=True)`` as :class:`PlayerFileRow`."""
    return [
        PlayerFileRow(
            dsb_id=r["dsb_id"],
            vkz=r["vkz"],
            member_number=r["member_number"],
            passive=r["passive"],
            eligibility=r.get("eligibility") or "",
            surname=r["surname"],
            given_name=r["given_name"],
            sex=r["sex"],
            birth_year=r["birth_year"],
            last_evaluation=r["last_evaluation"],
            dwz=r["rating"],
            index=r["index"],
            fide_rating=r["fide_rating"],
            fide_title=r.get("fide_title"),
            fide_id=r["fide_id"],
            fide_federation=r["fide_federation"],
            club=r["club"],
        )
        for r in rows
    ]


def clubs_of(rows: Iterable[Mapping[str, Any]]) -> list[ClubRow]:
    """The clubs of the list rows, each once, by VKZ."""
    clubs = {r["vkz"]: ClubRow(r["vkz"], r.get("club_parent"), r["club"]) for r in rows}
    return [clubs[k] for k in sorted(clubs)]


def encode(value: str, codec: str) -> bytes:
    """``value`` in a single-byte code page; a character the code page lacks becomes its
    ASCII stand-in (``’`` → ``'``, ``š`` → ``s``) or ``?``."""
    out = bytearray()
    for ch in value:
        try:
            out += ch.encode(codec)
            continue
        except UnicodeEncodeError:
            pass
        if ch in _ASCII:
            out += _ASCII[ch].encode("ascii")
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        try:
            out += base.encode(codec) if base else b"?"
        except UnicodeEncodeError:
            out += b"?"
    return bytes(out)


def evaluation_week(day: date | None) -> str:
    """``JJJJWW``: ISO year and week of a date (the DSB's "Letzte Auswertung")."""
    if day is None:
        return ""
    year, week, _day = day.isocalendar()
    return f"{year}{week:02d}"


def _n(value: int | None) -> str:
    return "" if value is None else str(value)


def _name(row: PlayerFileRow) -> str:
    return f"{row.surname},{row.given_name}"


def _csv_field(value: str) -> str:
    value = neutralise(value)  # a name that a spreadsheet would run as a formula
    # nu quotes a field with a comma, a quote, a blank or a line break (header:
    # "Name,Vorname", "Letzte Auswertung"); every other field stands bare
    if any(c in value for c in ',"\r\n\t '):
        return '"' + value.replace('"', '""') + '"'
    return value


def _csv(records: Iterable[Sequence[str]]) -> bytes:
    text = "".join(",".join(_csv_field(v) for v in rec) + "\r\n" for rec in records)
    return encode(text, "cp1252")


def _title(row: PlayerFileRow) -> tuple[str, str]:
    """(FIDE-Titel, FIDE-Frauentitel): a women's title stands in both."""
    title = (row.fide_title or "").upper()
    return title, title if title in WOMEN_TITLES else ""


def spieler_csv(
    rows: Iterable[PlayerFileRow], columns: Sequence[str] = SPIELER_CSV_COLUMNS
) -> bytes:
    """The DSB's ``spieler.csv``; ``columns``: :data:`SPIELER_CSV_COLUMNS` or the older
    :data:`SPIELER_CSV_17`."""
    records: list[Sequence[str]] = [list(columns)]
    for r in rows:
        title, women = _title(r)
        full = (
            r.dsb_id or "", r.vkz, r.member_number or "", "P" if r.passive else "A",
            _name(r), _SEX.get(r.sex or "", ""), r.eligibility, _n(r.birth_year),
            evaluation_week(r.last_evaluation), _n(r.dwz), _n(r.index if r.dwz else None),
            _n(r.fide_rating), title, _n(r.fide_id), r.fide_federation or "", r.given_name,
            r.surname, women, "", "",
        )  # fmt: skip
        records.append(full[: len(columns)])
    return _csv(records)


def vereine_csv(clubs: Iterable[ClubRow]) -> bytes:
    """The DSB's ``vereine.csv``: VKZ, Landesverband (the VKZ's first character), the
    parent organisation's VKZ, name."""
    return _csv(
        [list(VEREINE_CSV_COLUMNS)] + [[c.vkz, c.vkz[:1], c.parent or "", c.name] for c in clubs]
    )


def _txt_field(value: str) -> str:
    for bad, good in (("|", "/"), ("\r\n", " "), ("\r", " "), ("\n", " "), ("\t", " ")):
        value = value.replace(bad, good)
    return value.strip()


def _txt(records: Iterable[Sequence[str]]) -> bytes:
    text = "".join("|".join(_txt_field(v) for v in rec) + "\r\n" for rec in records)
    return encode(text, "cp850")


def spieler_txt(rows: Iterable[PlayerFileRow]) -> bytes:
    """The DOS ``SPIELER.TXT`` (the DeWIS server's ``LV-x-dos.zip``)."""
    records = []
    for r in rows:
        dwz_index = f"{r.dwz}-{r.index or 0}" if r.dwz else "0-0"
        record = (
            r.dsb_id or "", r.vkz, r.member_number or "", "P" if r.passive else "A",
            _name(r), _SEX.get(r.sex or "", ""), r.eligibility, _n(r.birth_year),
            evaluation_week(r.last_evaluation), dwz_index,
            _n(r.fide_rating), _title(r)[0], _n(r.fide_id), r.fide_federation or "",
        )  # fmt: skip
        records.append(record)
    return _txt(records)


def vereine_txt(clubs: Iterable[ClubRow]) -> bytes:
    """The DOS ``VEREINE.TXT``: VKZ|Landesverband|parent VKZ|name."""
    return _txt((c.vkz, c.vkz[:1], c.parent or "", c.name) for c in clubs)


def swisschess_json(rows: Iterable[PlayerFileRow]) -> bytes:
    """SwissChess's participant import: ``{"player": [...]}`` in UTF-8, every value a
    string, empty when unknown."""
    players = []
    for r in rows:
        values = {
            "lastname": _name(r),
            "teamname": r.club,
            "fed": r.fide_federation or "",
            "rtg_fid": _n(r.fide_rating),
            "rtg_nat": _n(r.dwz),
            "title": _title(r)[0],
            "birth": _n(r.birth_year),
            "fide_id": _n(r.fide_id),
            "sex": _SEX.get(r.sex or "", ""),
            "zps_team": r.vkz,
            "zps_play": r.member_number or "",
        }
        players.append({k: values.get(k, "") for k in SWISSCHESS_KEYS})
    return (json.dumps({"player": players}, ensure_ascii=False, indent=2) + "\n").encode()


#: the dates a ZIP entry can carry (its MS-DOS timestamp counts years from 1980 in 7 bits)
ZIP_FIRST_DAY, ZIP_LAST_DAY = date(1980, 1, 1), date(2107, 12, 31)


def zipped(files: Sequence[tuple[str, bytes]], day: date) -> bytes:
    """The files in one ZIP archive, each dated ``day`` (the same bytes every time); a day
    outside the format's range (a list dated before 1980) is dated at its nearest end."""
    day = min(max(day, ZIP_FIRST_DAY), ZIP_LAST_DAY)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(day.year, day.month, day.day, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


FORMATS = ("dsb-csv", "dsb-csv-zip", "spieler-txt", "dos-zip", "swisschess-json")


def write(fmt: str, rows: Sequence[Mapping[str, Any]], day: date) -> bytes:
    """Rows of ``rating_list_rows(..., memberships=True)`` in one of :data:`FORMATS`."""
    players = from_list(rows)
    if fmt == "dsb-csv":
        return spieler_csv(players)
    if fmt == "dsb-csv-zip":
        clubs = vereine_csv(clubs_of(rows))
        return zipped([("spieler.csv", spieler_csv(players)), ("vereine.csv", clubs)], day)
    if fmt == "spieler-txt":
        return spieler_txt(players)
    if fmt == "dos-zip":
        clubs = vereine_txt(clubs_of(rows))
        return zipped([("SPIELER.TXT", spieler_txt(players)), ("VEREINE.TXT", clubs)], day)
    if fmt == "swisschess-json":
        return swisschess_json(players)
    unknown = _("unknown player file format %(format)r (one of %(formats)s)")
    raise ValueError(unknown % {"format": fmt, "formats": ", ".join(FORMATS)})
