"""SwissChess tournament files (``.SWT``, binary): reading into the neutral tournament model.

There is no published specification from the vendor. The layout used here is the one the
community has documented by inspection, in two public sources (facts only; the reader is our
own):

* the structure tables of *SWT-structure-files* (github.com/fnogatz/SWT-structure-files,
  directories ``700/`` and ``800/``: ``structure.csv``, ``general.csv``, ``player.csv``,
  ``team.csv``, ``individual-pairings.csv``, ``team-pairings.csv``, the ``*-selection.csv``
  value tables and ``field-names/de.csv``), used by fnogatz/swtparser.js and by the LGPL PHP
  parser of the Zugzwang project (github.com/schach-in/swtparser);
* the SWT import of ChessLeagueManager (github.com/ChessLeagueManager/com_clm,
  ``admin/models/swtturniertlnr.php`` and ``swtturniererg.php``): the placeholder player
  ``spielfrei``, the forfeit/bye status byte, result bytes with high bits set.

Layout (offsets from the start of the file, or of a record; integers little-endian):

* **header** – rounds (field 1) at 0x01, current round (2) at 0x03, paired rounds (3) at 0x05,
  participants (4) at 0x07–0x08, tournament mode (31: 0 Swiss, 1 round robin …) at 0x254,
  cycles (33, "Durchgänge") at 0x258, boards (34) at 0x25C, team tournament (35, 0xFF) at
  0x25E, offset of the team ids (185, normally 998) at 0x241–0x242, **file version** (9999,
  e.g. 883 for 8.83) at 0x261–0x262, number of teams (80) at 0x534; texts (NUL-terminated,
  cp1252): tournament name (65) 0x316–0x33D, place (66) 0x33F–0x366, arbiter (67)
  0x368–0x3A3, deputies (68) 0x3A5–0x3E0, start date (70) 0x41F–0x432, end date (71)
  0x434–0x447, time controls (72–74) 0x449/0x45E/0x473, heading lines (12, 18) 0xF5/0x178;
  from version 8: round dates (89, 91, …) at 0x2CC1 + 4·(round − 1), days since 1899-12-30.
* **pairing records**, 19 bytes each, from 0x3448 (13384; version 7: 0xF36 = 3894), present
  once at least one round is paired: first one per player and round (player-major, in card
  order, rounds × cycles for a round robin), then one per team and round. Player record:
  colour 0x08 (0 none, 1 white, 3 black, 2/4 white/black *spielfrei*), opponent's player id
  0x09–0x0A, result 0x0B (low two bits: 1 loss, 2 draw, 3 win, 0 none; high bits vary),
  table 0x0D–0x0E, status 0x0F (0x02/0x22 forfeit "kampflos", 0x03/0x33 not fielded,
  0x01/0x11 adjourned), board 0x12. Team record: home/away 0x08, opponent team id 0x09–0x0A.
* **player cards**, 655 bytes (version 7: 292), after the pairing records: name 0x00–0x1F,
  club 0x21–0x40, title 0x42–0x44, FIDE rating 0x46–0x49, national rating (DWZ) 0x4B–0x4E,
  federation 0x69–0x6B, birth date 0x80–0x89 (``YYYYMMDD``, ``YYYY`` or ``DD.MM.YYYY``), ZPS
  club 0x99–0x9D, ZPS member number 0x9F–0xA2, sex / inactive mark (``*``) 0xB8, placeholder
  mark ``f`` at 0xBD (CLM: the player ``spielfrei``), team number 0xC9, board 0xCB, player
  id 0xD9–0xDA, board points × 2 at 0x124 (version 7: 0xE9), FIDE id 0x144–0x14F (version 7:
  0x8B–0x92), PKZ (DSB person id) 0x151–0x15C (version 8 only).
* **team cards**, same size, after the player cards: name 0x00–0x1F, team id 0xD9–0xDA,
  team number 0xDB.

The file's size must be exactly what these counts give: a shorter file is truncated, a longer
one was written with a layout this reader does not know. Versions 7.xx and 8.xx are read
(8.83 and 8.89 tried on real files); later versions with the 8.xx layout when the size fits.

Results: played games 1-0, ½-½, 0-1 (both records must agree); forfeits (status
*kampflos*) ``+-``, ``-+``, ``--``, never rated; a record without opponent, against the
placeholder ``spielfrei`` or with a *spielfrei* colour is a bye (``U``/``H``/``Z`` in the
player's rounds, no game); a player not fielded (team) or not paired has no entry. Every
problem is collected and reported at once (:class:`SwtError`), each located by byte offset
and field name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from ratingdb.budget import Problems, more_line, more_of
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, date_text, decimal, ngettext
from ratingdb.io.numbers import NotANumber, optional_number
from ratingdb.io.trf import NationalRecord, RoundEntry, TrfGame, TrfPlayer, TrfTournament
from ratingdb.plausibility import BIRTH_YEAR, FIDE_ID, RATING, Range

FEDERATION = "GER"
VERSION_AT = 0x261
PAIRING_SIZE = 19
#: the one multi-byte unit of dates: days since this day (as in Windows' OLE dates)
EPOCH = date(1899, 12, 30)
FIDE_TITLES = frozenset({"GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"})
#: status byte 0x0F of a pairing record
FORFEIT = frozenset({0x02, 0x22})
NOT_FIELDED = frozenset({0x03, 0x33})
ADJOURNED = frozenset({0x01, 0x11})
#: colour byte 0x08
WHITE, BLACK, WHITE_BYE, BLACK_BYE = 1, 3, 2, 4
#: result byte 0x0B, low two bits -> points × 2
POINTS2 = {1: 0, 2: 1, 3: 2}
MODES = {0: "Swiss", 1: "round robin", 2: "knock-out", 3: "Scheveningen"}


@dataclass(frozen=True, slots=True)
class Layout:
    """What differs between the documented versions (SWT-structure-files 700/ and 800/)."""

    major: int
    pairings: int  # first pairing record (structure.csv start:fixtures_players)
    card: int  # length of a player or team card
    points: int  # board points × 2 in the player card (field 2030)
    fide_id: tuple[int, int]
    pkz: tuple[int, int] | None
    member: tuple[int, int]
    round_dates: bool


LAYOUTS = {
    7: Layout(7, 3894, 292, 0xE9, (0x8B, 0x92), None, (0x9F, 0xA1), False),
    8: Layout(8, 13384, 655, 0x124, (0x144, 0x14F), (0x151, 0x15C), (0x9F, 0xA2), True),
}


def _location(source: str, offset: int, what: str) -> str:
    """``file: byte N (0xHEX) field`` in the language in force (the web's error items keep
    it whole: it has no line and column)."""
    return _("%(file)s: byte %(offset)d (0x%(hex)X) %(field)s") % {
        "file": source,
        "offset": offset,
        "hex": offset,
        "field": what,
    }


def _version_text(version: int) -> str:
    return f"{version / 100:.2f}"


class SwtError(InputError):
    """One or more problems of an SWT file; ``problems`` holds ``(location, message)``,
    each location ``file: byte N (0xHEX) field``."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        self.more = more_of(problems)  # found beyond those kept (ratingdb/budget.py)
        first = problems[0]
        super().__init__(first[0], first[1])
        lines = [f"{where}: {what}" for where, what in problems]
        self.args = ("\n".join(lines + more_line(self.more)),)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class SwtRecord:
    """One pairing record of a player: ``offset`` of the record in the file."""

    round: int
    offset: int
    colour: int
    opponent: int
    result: int  # low two bits of byte 0x0B
    status: int
    board: int

    @property
    def empty(self) -> bool:
        return self.colour == 0 and self.opponent == 0 and self.result == 0


@dataclass(slots=True)
class SwtPlayer:
    index: int  # position of the card, from 0
    offset: int  # of the card
    ident: int  # player id (the number pairing records refer to)
    name: str
    club: str
    title: str
    fide_rating: int | None
    dwz: int | None
    federation: str
    birth: date | int | None
    zps: str
    member_number: str
    sex: str  # m, f or ""
    inactive: bool
    team_number: int
    board: int
    fide_id: int | None
    pkz: str
    stored_points: Decimal | None  # the card's total (board points)
    placeholder: bool  # the player "spielfrei"
    records: list[SwtRecord] = field(default_factory=list)


@dataclass(slots=True)
class SwtTeam:
    index: int
    offset: int
    ident: int
    number: int
    name: str
    opponents: dict[int, tuple[int, int]] = field(default_factory=dict)  # round -> (id, offset)
    #: round -> True when the team is the home team (its record's byte 8 is 1, away is 3)
    home: dict[int, bool] = field(default_factory=dict)


@dataclass(slots=True)
class SwtFile:
    source: str
    version: int
    rounds: int  # rounds with pairing records (rounds × cycles for a round robin)
    paired: int  # field 3
    mode: str
    team: bool
    boards: int
    name: str
    city: str
    arbiter: str
    deputies: str
    time_control: str
    start_text: str
    end_text: str
    round_dates: dict[int, date]
    players: list[SwtPlayer]
    teams: list[SwtTeam]
    warnings: list[str] = field(default_factory=list)


def looks_like_swt(data: bytes) -> bool:
    """Binary content (a NUL byte in the first 4 KiB, not UTF-16 text): SwissChess files are
    the only binary tournament files read; :func:`parse` then says precisely what is wrong."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return b"\x00" in data[:4096]


def _decoder(encoding: str | None):  # type: ignore[no-untyped-def]
    enc = encoding or "cp1252"

    def text(raw: bytes) -> str:
        raw = raw.split(b"\x00", 1)[0]
        try:
            return raw.decode(enc).strip()
        except UnicodeDecodeError:  # the five bytes cp1252 leaves undefined
            return raw.decode("latin-1").strip()

    return text


def parse(data: bytes, source: str = "<swt>", encoding: str | None = None) -> SwtFile:
    """Read the header, pairing records, player and team cards; raises :class:`SwtError`
    with every problem (a truncated file, an unknown version, a size that does not fit the
    layout, a field that is not what its place says)."""
    try:
        "".encode(encoding or "cp1252")
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise InputError(
            source, _("unknown encoding %(encoding)r") % {"encoding": encoding}
        ) from None
    problems = Problems()

    def fail(offset: int, what: str, message: str) -> None:
        problems.append((_location(source, offset, what), message))

    size = len(data)
    if size < VERSION_AT + 2:
        fail(
            size,
            _("file version (field 9999)"),
            ngettext(
                "the file ends after %(num)d byte, before the version field at 0x261: "
                "truncated, or not a SwissChess file",
                "the file ends after %(num)d bytes, before the version field at 0x261: "
                "truncated, or not a SwissChess file",
                size,
            )
            % {"num": size},
        )
        raise SwtError(source, problems)
    version = int.from_bytes(data[VERSION_AT : VERSION_AT + 2], "little")
    major = version // 100
    if major < 7 or major > 19:
        fail(
            VERSION_AT,
            _("file version (field 9999)"),
            _(
                "reads %(version)d: not a SwissChess file of a known version (7.00 and "
                "later; a binary file that is not an SWT?)"
            )
            % {"version": version},
        )
        raise SwtError(source, problems)
    layout = LAYOUTS.get(major, LAYOUTS[8])
    warnings: list[str] = []
    if major > 8:
        warnings.append(
            _(
                "SwissChess file version %(version)s was not tried; read with the layout of "
                "8.xx because the file's size fits it"
            )
            % {"version": _version_text(version)}
        )
    if size < layout.pairings:
        fail(
            size,
            _("header"),
            ngettext(
                "the file ends after %(num)d byte; the header of version %(version)s has "
                "%(header)d: truncated",
                "the file ends after %(num)d bytes; the header of version %(version)s has "
                "%(header)d: truncated",
                size,
            )
            % {"num": size, "version": _version_text(version), "header": layout.pairings},
        )
        raise SwtError(source, problems)
    u8 = data.__getitem__

    def u16(offset: int) -> int:
        return int.from_bytes(data[offset : offset + 2], "little")

    text = _decoder(encoding)
    rounds, paired, n_players = u8(0x01), u8(0x05), u16(0x07)
    mode_code, cycles, boards = u8(0x254), u8(0x258), u8(0x25C)
    team = u8(0x25E) == 0xFF
    n_teams = u8(0x534) if team else 0
    stored_rounds = rounds * max(cycles, 1) if mode_code == 1 else rounds
    has_pairings = paired > 0 or u8(0x03) > 0
    records = (n_players + n_teams) * stored_rounds if has_pairings else 0
    expected = layout.pairings + records * PAIRING_SIZE + (n_players + n_teams) * layout.card
    counts = _("%(players)s, %(teams)s, %(rounds)s, version %(version)s") % {
        "players": ngettext("%(num)d player", "%(num)d players", n_players) % {"num": n_players},
        "teams": ngettext("%(num)d team", "%(num)d teams", n_teams) % {"num": n_teams},
        "rounds": ngettext("%(num)d round", "%(num)d rounds", stored_rounds)
        % {"num": stored_rounds},
        "version": _version_text(version),
    }
    if size < expected:
        fail(
            size,
            _("end of file"),
            _("truncated: %(counts)s need %(expected)d bytes, the file has %(size)d")
            % {"counts": counts, "expected": expected, "size": size},
        )
        raise SwtError(source, problems)
    if size > expected:
        fail(
            expected,
            _("end of file"),
            ngettext(
                "%(num)d byte more than %(counts)s need (%(expected)d): not the layout this "
                "reader knows for that version",
                "%(num)d bytes more than %(counts)s need (%(expected)d): not the layout this "
                "reader knows for that version",
                size - expected,
            )
            % {"num": size - expected, "counts": counts, "expected": expected},
        )
        raise SwtError(source, problems)
    if n_players < 2:
        fail(
            0x07,
            _("participants (field 4)"),
            ngettext(
                "%(num)d participant; at least 2 needed",
                "%(num)d participants; at least 2 needed",
                n_players,
            )
            % {"num": n_players},
        )
    round_dates: dict[int, date] = {}
    if layout.round_dates:
        for r in range(1, min(stored_rounds, 40) + 1):
            at = 0x2CC1 + 4 * (r - 1)
            days = u16(at)
            if days:
                round_dates[r] = EPOCH + timedelta(days=days)
    cards = layout.pairings + records * PAIRING_SIZE
    players = [
        _player(data, k, cards + k * layout.card, layout, text, fail, warnings)
        for k in range(n_players)
    ]
    ids: dict[int, SwtPlayer] = {}
    for p in players:
        if p.ident in ids:
            fail(
                p.offset + 0xD9,
                _("player id of card %(card)d (field 2020)") % {"card": p.index + 1},
                _("id %(id)d is also card %(card)d's")
                % {"id": p.ident, "card": ids[p.ident].index + 1},
            )
        ids[p.ident] = p
    if has_pairings:
        for p in players:
            for r in range(stored_rounds):
                at = layout.pairings + (p.index * stored_rounds + r) * PAIRING_SIZE
                rec = data[at : at + PAIRING_SIZE]
                p.records.append(
                    SwtRecord(
                        r + 1,
                        at,
                        rec[0x08],
                        int.from_bytes(rec[0x09:0x0B], "little"),
                        rec[0x0B] & 3,
                        rec[0x0F],
                        rec[0x12],
                    )
                )
    teams: list[SwtTeam] = []
    team_cards = cards + n_players * layout.card
    team_pairings = layout.pairings + n_players * stored_rounds * PAIRING_SIZE
    for k in range(n_teams):
        at = team_cards + k * layout.card
        t = SwtTeam(k, at, u16(at + 0xD9), u8(at + 0xDB), text(data[at : at + 0x20]))
        if has_pairings:
            for r in range(stored_rounds):
                rec_at = team_pairings + (k * stored_rounds + r) * PAIRING_SIZE
                if u8(rec_at + 0x08):
                    t.opponents[r + 1] = (u16(rec_at + 0x09), rec_at)
                    t.home[r + 1] = u8(rec_at + 0x08) == 1
        teams.append(t)
    if problems:
        raise SwtError(source, problems)
    tc = " / ".join(
        x for x in (text(data[0x449:0x45D]), text(data[0x45E:0x472]), text(data[0x473:0x488])) if x
    )
    name = text(data[0x316:0x33E]) or " ".join(
        x for x in (text(data[0xF5:0x131]), text(data[0x178:0x1B5])) if x
    )
    return SwtFile(
        source=source,
        version=version,
        rounds=stored_rounds,
        paired=paired,
        mode=MODES.get(mode_code, f"mode {mode_code}"),
        team=team,
        boards=boards,
        name=name,
        city=text(data[0x33F:0x367]),
        arbiter=text(data[0x368:0x3A4]),
        deputies=text(data[0x3A5:0x3E1]),
        time_control=tc,
        start_text=text(data[0x41F:0x433]),
        end_text=text(data[0x434:0x448]),
        round_dates=round_dates,
        players=players,
        teams=teams,
        warnings=warnings,
    )


_BIRTH_FORMS = (
    (re.compile(r"^([0-9]{4})([0-9]{2})([0-9]{2})$"), (1, 2, 3)),
    (re.compile(r"^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})$"), (3, 2, 1)),
    (re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$"), (1, 2, 3)),
)


def _player(data, k, at, layout, text, fail, warnings) -> SwtPlayer:  # type: ignore[no-untyped-def]
    """One player card (SWT-structure-files player.csv; CLM swtturniertlnr.php)."""
    card = data[at : at + layout.card]

    def number(lo: int, hi: int, limits: Range, what: str, field_number: int) -> int | None:
        """``what`` marked with ``N_`` (numbers.py translates it in its message)."""
        try:
            return optional_number(text(card[lo : hi + 1]), limits, what)
        except NotANumber as err:
            where = _("%(field)s (field %(number)d) of card %(card)d") % {
                "field": _(what),
                "number": field_number,
                "card": k + 1,
            }
            fail(at + lo, where, str(err))
            return None

    name = text(card[0x00:0x20])
    placeholder = card[0xBD] == ord("f") or name.lower() == "spielfrei"
    if not name and not placeholder:
        fail(
            at,
            _("name of card %(card)d (field 2000)") % {"card": k + 1},
            _("the player has no name"),
        )
    mark = chr(card[0xB8])
    title = text(card[0x42:0x45]).upper()
    birth_text = text(card[0x80:0x8A])
    birth: date | int | None = None
    if re.fullmatch(r"[0-9]{4}", birth_text):
        birth = int(birth_text) or None
    elif birth_text:
        for pattern, (y, m, d) in _BIRTH_FORMS:
            hit = pattern.match(birth_text)
            if hit:
                try:
                    birth = date(int(hit.group(y)), int(hit.group(m)), int(hit.group(d)))
                except ValueError:
                    birth = int(hit.group(y)) or None
                break
        else:
            warnings.append(
                _(
                    "byte %(offset)d (0x%(hex)X) birth date of card %(card)d (%(name)s): "
                    "%(value)r is not a date; ignored"
                )
                % {
                    "offset": at + 0x80,
                    "hex": at + 0x80,
                    "card": k + 1,
                    "name": name,
                    "value": birth_text,
                }
            )
    year = birth.year if isinstance(birth, date) else birth
    if year is not None and not BIRTH_YEAR.low <= year <= BIRTH_YEAR.high:
        warnings.append(
            _(
                "byte %(offset)d (0x%(hex)X) birth date of card %(card)d (%(name)s): birth "
                "year %(year)d is not plausible (%(low)d..%(high)d); left empty"
            )
            % {
                "offset": at + 0x80,
                "hex": at + 0x80,
                "card": k + 1,
                "name": name,
                "year": year,
                "low": BIRTH_YEAR.low,
                "high": BIRTH_YEAR.high,
            }
        )
        birth = None
    pkz = text(card[layout.pkz[0] : layout.pkz[1] + 1]) if layout.pkz else ""
    return SwtPlayer(
        index=k,
        offset=at,
        ident=int.from_bytes(card[0xD9:0xDB], "little"),
        name=name,
        club=text(card[0x21:0x41]),
        title=title if title in FIDE_TITLES else "",
        fide_rating=number(0x46, 0x49, RATING, N_("FIDE rating"), 2003),
        dwz=number(0x4B, 0x4E, RATING, N_("national rating"), 2004),
        federation=text(card[0x69:0x6C]).upper(),
        birth=birth,
        zps=text(card[0x99:0x9E]),
        member_number=text(card[layout.member[0] : layout.member[1] + 1]),
        sex={"m": "m", "w": "f", "f": "f"}.get(mark.lower(), ""),
        inactive=mark == "*",
        team_number=card[0xC9],
        board=card[0xCB],
        fide_id=number(layout.fide_id[0], layout.fide_id[1], FIDE_ID, N_("FIDE id"), 2033),
        pkz=pkz if pkz.strip("0") else "",
        stored_points=Decimal(card[layout.points]) / 2,
        placeholder=placeholder,
    )


# -- dates -----------------------------------------------------------------------------------
_DATE = re.compile(r"^([0-9]{1,2})\.\s*([0-9]{1,2})\.\s*([0-9]{2}|[0-9]{4})$")
_ISO = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$")


def parse_date(value: str) -> date:
    """``d.m.yyyy``, ``d.m.yy`` or ``yyyy-mm-dd`` (what SwissChess's date fields hold)."""
    m = _DATE.match(value.strip())
    if m:
        year = int(m.group(3))
        if year < 100:
            year += 2000 if year < 70 else 1900
        return date(year, int(m.group(2)), int(m.group(1)))
    m = _ISO.match(value.strip())
    if m:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    raise ValueError(_("%(value)r is not a date (d.m.yyyy)") % {"value": value})


# -- to the neutral tournament model ---------------------------------------------------------


def to_tournament(
    swt: SwtFile, *, start: date | None = None, end: date | None = None
) -> TrfTournament:
    """The tournament model the TRF import uses: players (placeholders left out), games
    checked from both records, byes and forfeits as in the module docstring. ``start`` and
    ``end`` replace the file's dates (a file may have none). Raises :class:`SwtError` with
    every problem."""
    src = swt.source
    problems = Problems()

    def fail(offset: int, what: str, message: str) -> None:
        problems.append((_location(src, offset, what), message))

    start, end = _dates(swt, start, end, fail)
    by_id = {p.ident: p for p in swt.players}
    games, entries = _games(swt, by_id, fail)
    if not problems and not entries:
        fail(0x05, _("paired rounds (field 3)"), _("no round is paired: nothing to import"))
    team_of = {t.number: t for t in swt.teams}
    if swt.team:
        _check_teams(swt, games, by_id, team_of, fail)
    if problems:
        raise SwtError(src, problems)
    assert start is not None and end is not None
    rank = {p.ident: k for k, p in enumerate((p for p in swt.players if not p.placeholder), 1)}
    computed: dict[int, Decimal] = {}
    players: list[TrfPlayer] = []
    for p in swt.players:
        if p.placeholder:
            continue
        rounds = []
        for e in sorted(entries.get(p.ident, []), key=lambda e: e.round):
            opponent = rank.get(e.opponent, 0)
            rounds.append(RoundEntry(e.round, opponent, e.colour, e.code, e.column))
        points = sum((_POINTS[e.code] for e in rounds), Decimal(0))
        computed[p.ident] = points
        tp = TrfPlayer(
            start_rank=rank[p.ident],
            sex=p.sex,
            title=p.title,
            name=p.name,
            rating=p.fide_rating,
            federation=p.federation,
            fide_id=p.fide_id,
            birth=p.birth,
            points=p.stored_points,
            rank=None,
            rounds=rounds,
            line=p.offset,
        )
        key = p.pkz or (f"{p.zps}-{p.member_number}" if p.zps and p.member_number else "")
        if key or p.dwz:
            tp.national[FEDERATION] = NationalRecord(
                FEDERATION, tp.start_rank, p.dwz, "", key, p.name, p.birth, p.offset
            )
        players.append(tp)
    differ = [
        _("%(name)s (%(card)s on the card, %(records)s from the pairings)")
        % {"name": p.name, "card": _text(p.stored_points), "records": _text(computed[p.ident])}
        for p in swt.players
        if not p.placeholder and p.stored_points != computed[p.ident]
    ]
    warnings = list(swt.warnings)
    if differ:
        warnings.append(
            ngettext(
                "the card total of %(num)d player differs from the pairing records (the "
                "records are imported): %(players)s",
                "the card totals of %(num)d players differ from the pairing records (the "
                "records are imported): %(players)s",
                len(differ),
            )
            % {"num": len(differ), "players": "; ".join(differ)}
        )
    unpaired = [
        r
        for r in range(1, swt.rounds + 1)
        if not any(r in {e.round for e in entries.get(p.ident, [])} for p in swt.players)
    ]
    if unpaired and len(unpaired) < swt.rounds:
        warnings.append(
            ngettext(
                "round %(rounds)s not paired: nothing to import",
                "rounds %(rounds)s not paired: nothing to import",
                len(unpaired),
            )
            % {"rounds": ", ".join(map(str, unpaired))}
        )
    out_games = [
        TrfGame(g.round, rank[g.white], rank[g.black], g.result)
        for g in games
        if g.white in rank and g.black in rank
    ]
    return TrfTournament(
        source=src,
        name=swt.name or Path(src).stem,
        start=start,
        end=end,
        city=swt.city,
        type=f"{'team ' if swt.team else ''}{swt.mode}",
        arbiter=swt.arbiter,
        time_control=swt.time_control,
        round_dates=[swt.round_dates[r] for r in sorted(swt.round_dates)],
        players=players,
        games=out_games,
        team=swt.team,
        records=team_records(swt, players, rank) if swt.team else [],
        other={
            "swt_version": str(swt.version),
            **({"deputies": swt.deputies} if swt.deputies else {}),
        },
        warnings=warnings,
    )


def team_records(swt: SwtFile, players: list[TrfPlayer], rank: dict[int, int]) -> list[str]:
    """A team tournament's teams as TRF-2026 records: one ``310`` per team (pairing number,
    name, match and game points, its players' start ranks in board order) and one ``802``
    per team (its opponent, home ``w``/away ``b`` and game points in each round; a round
    without an opponent is ``ZPB``). Match points 2 for a won match, 1 for a drawn one (the
    TRF-2026 default of ``362``)."""
    by_rank = {p.start_rank: p for p in players}
    members: dict[int, list[SwtPlayer]] = {}
    for p in swt.players:
        if not p.placeholder and p.ident in rank:
            members.setdefault(p.team_number, []).append(p)
    number_of = {t.ident: t.number for t in swt.teams}
    team_of_rank = {rank[p.ident]: p.team_number for ps in members.values() for p in ps}

    def game_points(team: SwtTeam, rnd: int) -> Decimal:
        total = Decimal(0)
        for p in members.get(team.number, []):
            for e in by_rank[rank[p.ident]].rounds:
                if e.round == rnd and e.opponent and team_of_rank.get(e.opponent) != team.number:
                    total += e.points
        return total

    rows = []
    for team in sorted(swt.teams, key=lambda t: t.number):
        per_round: list[tuple[str, str, Decimal | None]] = []
        match = games = Decimal(0)
        for rnd in range(1, swt.rounds + 1):
            opponent = team.opponents.get(rnd)
            if opponent is None or opponent[0] not in number_of:
                per_round.append(("ZPB", "", None))
                continue
            other = next(t for t in swt.teams if t.ident == opponent[0])
            mine, theirs = game_points(team, rnd), game_points(other, rnd)
            match += 2 if mine > theirs else 1 if mine == theirs else 0
            games += mine
            per_round.append((f"{other.number:3d}", "w" if team.home.get(rnd) else "b", mine))
        boards = sorted(members.get(team.number, []), key=lambda p: (p.board, rank[p.ident]))
        rows.append(
            _columns([(1, "310"), (5, f"{team.number:3d}"), (9, team.name[:32]),
                      (55, f"{match:6.1f}"), (62, f"{games:6.1f}")]
                     + [(74 + 5 * k, f"{rank[p.ident]:4d}") for k, p in enumerate(boards)])
        )  # fmt: skip
        rows.append(
            _columns([(1, "802"), (5, f"{team.number:3d}"), (15, f"{match:6.1f}"),
                      (22, f"{games:6.1f}")]
                     + [part for k, (opp, colour, points) in enumerate(per_round)
                        for part in ((29 + 13 * k, opp), (33 + 13 * k, colour),
                                     (35 + 13 * k, f"{points:4.1f}" if points is not None
                                      else " 0.0"))])
        )  # fmt: skip
    return rows


def _columns(parts: list[tuple[int, str]]) -> str:
    """Strings placed at 1-based columns."""
    out: list[str] = []
    for column, value in parts:
        out += [" "] * (column - 1 - len(out))
        out[column - 1 : column - 1 + len(value)] = list(value)
    return "".join(out).rstrip()


def _text(points: Decimal | None) -> str:
    """Points as the language writes them (``2.5``, German ``2,5``)."""
    return "?" if points is None else decimal(points.normalize())


_POINTS = {
    "1": Decimal(1),
    "=": Decimal("0.5"),
    "0": Decimal(0),
    "+": Decimal(1),
    "-": Decimal(0),
    "U": Decimal(1),
    "H": Decimal("0.5"),
    "Z": Decimal(0),
}


def _dates(swt: SwtFile, start: date | None, end: date | None, fail):  # type: ignore[no-untyped-def]
    """The file's start and end (fields 70, 71), else its first and last round date; the
    given ones win."""
    found: dict[str, date | None] = {}
    for key, value, at, what in (
        ("start", swt.start_text, 0x41F, _("start date (field 70)")),
        ("end", swt.end_text, 0x434, _("end date (field 71)")),
    ):
        found[key] = None
        if not value:
            continue
        try:
            found[key] = parse_date(value)
        except ValueError as err:
            if (start if key == "start" else end) is None:
                fail(at, what, _("%(error)s; give --%(option)s") % {"error": err, "option": key})
    days = [swt.round_dates[r] for r in sorted(swt.round_dates)]
    s = start or found["start"] or (min(days) if days else None)
    e = end or found["end"] or (max(days) if days else None) or s
    s = s or e
    if e is None:
        fail(
            0x434,
            _("end date (field 71)"),
            _(
                "the file has no tournament dates (fields 70/71 empty, no round dates): "
                "give --end (and --start)"
            ),
        )
    elif s is not None and e < s:
        fail(
            0x434,
            _("end date (field 71)"),
            _("end date %(end)s is before the start %(start)s")
            % {"end": date_text(e), "start": date_text(s)},
        )
    return s, e


@dataclass(frozen=True, slots=True)
class _Entry:
    round: int
    opponent: int  # player id, 0 = none
    colour: str  # w, b or -
    code: str  # TRF result code of the player's own line
    column: int  # byte offset of the record


@dataclass(frozen=True, slots=True)
class _Game:
    round: int
    white: int  # player ids
    black: int
    result: str
    offset: int


def _games(swt: SwtFile, by_id: dict[int, SwtPlayer], fail):  # type: ignore[no-untyped-def]
    """Games from both records of each pairing, byes and forfeits; every contradiction is a
    problem located at the first record."""
    games: list[_Game] = []
    entries: dict[int, list[_Entry]] = {}
    no_result: dict[int, list[str]] = {}
    done: set[tuple[int, int]] = set()  # (player id, round)

    def add(pid: int, e: _Entry) -> None:
        entries.setdefault(pid, []).append(e)

    for p in swt.players:
        if p.placeholder:
            continue
        for rec in p.records:
            if (p.ident, rec.round) in done or rec.empty or rec.status in NOT_FIELDED:
                continue
            who = {"id": p.ident, "name": p.name, "round": rec.round}
            if rec.status in ADJOURNED:
                fail(
                    rec.offset + 0x0F,
                    _("status of player %(id)d (%(name)s) round %(round)d") % who,
                    _("an adjourned game (Hängepartie) has no final result"),
                )
                done.add((rec.opponent, rec.round))
                continue
            q = by_id.get(rec.opponent) if rec.opponent else None
            if q is None and rec.opponent:
                fail(
                    rec.offset + 0x09,
                    _("opponent of player %(id)d (%(name)s) round %(round)d") % who,
                    _("player id %(id)d is not in the file") % {"id": rec.opponent},
                )
                continue
            if q is p:
                fail(
                    rec.offset + 0x09,
                    _("opponent of player %(id)d (%(name)s) round %(round)d") % who,
                    _("the player is paired with himself"),
                )
                continue
            if q is None or q.placeholder or rec.colour in (WHITE_BYE, BLACK_BYE):
                code = {2: "U", 1: "H", 0: "Z"}.get(POINTS2.get(rec.result, 0), "Z")
                add(p.ident, _Entry(rec.round, 0, "-", code, rec.offset))
                continue
            other = q.records[rec.round - 1] if len(q.records) >= rec.round else None
            if other is None or other.opponent != p.ident:
                named = {
                    "id": q.ident,
                    "name": q.name,
                    "round": rec.round,
                    "offset": other.offset if other else "?",
                    "other": other.opponent if other else 0,
                }
                if other is None or not other.opponent:
                    says = _(
                        "paired with %(id)d (%(name)s), whose record of round %(round)d "
                        "(byte %(offset)s) names nobody"
                    )
                else:
                    says = _(
                        "paired with %(id)d (%(name)s), whose record of round %(round)d "
                        "(byte %(offset)s) names id %(other)d"
                    )
                fail(
                    rec.offset + 0x09,
                    _("opponent of player %(id)d (%(name)s) round %(round)d") % who,
                    says % named,
                )
                done.add((p.ident, rec.round))
                continue
            done.add((p.ident, rec.round))
            done.add((q.ident, rec.round))
            if {rec.colour, other.colour} != {WHITE, BLACK}:
                fail(
                    rec.offset + 0x08,
                    _("colour of player %(id)d (%(name)s) round %(round)d") % who,
                    _(
                        "colours %(mine)d and %(theirs)d against %(id)d (%(name)s): one white "
                        "(1) and one black (3) expected"
                    )
                    % {"mine": rec.colour, "theirs": other.colour, "id": q.ident, "name": q.name},
                )
                continue
            white, black = (rec, other) if rec.colour == WHITE else (other, rec)
            wp, bp = (p, q) if rec.colour == WHITE else (q, p)
            if rec.result == 0 and other.result == 0:
                no_result.setdefault(rec.round, []).append(f"{wp.ident}-{bp.ident}")
                continue
            forfeit = rec.status in FORFEIT or other.status in FORFEIT
            if forfeit and not (rec.status in FORFEIT and other.status in FORFEIT):
                fail(
                    rec.offset + 0x0F,
                    _("status of player %(id)d (%(name)s) round %(round)d") % who,
                    _(
                        "forfeit on one side only (status 0x%(mine)02X and 0x%(theirs)02X "
                        "against %(id)d)"
                    )
                    % {"mine": rec.status, "theirs": other.status, "id": q.ident},
                )
                continue
            pair = (white.result, black.result)
            result = (_FORFEITS if forfeit else _PLAYED).get(pair)
            if result is None:
                shown = {0: _("none"), 1: "0", 2: "½", 3: "1"}
                if forfeit:
                    message = _(
                        "%(w)s:%(b)s between white %(white)d and black %(black)d (forfeit): "
                        "the two records contradict each other or give a result ratingdb "
                        "cannot store"
                    )
                else:
                    message = _(
                        "%(w)s:%(b)s between white %(white)d and black %(black)d: the two "
                        "records contradict each other or give a result ratingdb cannot store"
                    )
                fail(
                    rec.offset + 0x0B,
                    _("result of player %(id)d (%(name)s) round %(round)d") % who,
                    message
                    % {"w": shown[pair[0]], "b": shown[pair[1]], "white": wp.ident,
                       "black": bp.ident},
                )  # fmt: skip
                continue
            games.append(_Game(rec.round, wp.ident, bp.ident, result, rec.offset))
            codes = _CODES[result]
            add(wp.ident, _Entry(rec.round, bp.ident, "w", codes[0], white.offset))
            add(bp.ident, _Entry(rec.round, wp.ident, "b", codes[1], black.offset))
    for rnd, pairs in sorted(no_result.items()):
        first = next(
            r
            for p in swt.players
            for r in p.records
            if r.round == rnd and not r.empty and r.result == 0
        )
        fail(
            first.offset + 0x0B,
            _("result of round %(round)d") % {"round": rnd},
            ngettext(
                "the round is paired but %(num)d game has no result (%(games)s): enter the "
                "results in SwissChess first",
                "the round is paired but %(num)d games have no result (%(games)s): enter the "
                "results in SwissChess first",
                len(pairs),
            )
            % {"num": len(pairs), "games": ", ".join(pairs[:8]) + (" …" if len(pairs) > 8 else "")},
        )
    games.sort(key=lambda g: (g.round, g.white))
    return games, entries


#: (white's low bits, black's low bits) -> stored result
_PLAYED = {(3, 1): "1-0", (1, 3): "0-1", (2, 2): "1/2-1/2"}
_FORFEITS = {(3, 1): "+-", (1, 3): "-+", (1, 1): "--", (2, 2): "--"}
_CODES = {
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "1/2-1/2": ("=", "="),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    "--": ("-", "-"),
}


def _check_teams(swt, games, by_id, team_of, fail) -> None:  # type: ignore[no-untyped-def]
    """In a team tournament each game is between two teams the team records pair in that
    round (team.csv, team-pairings.csv)."""
    for g in games:
        tw = team_of.get(by_id[g.white].team_number)
        tb = team_of.get(by_id[g.black].team_number)
        if tw is None or tb is None:
            who = by_id[g.white] if tw is None else by_id[g.black]
            fail(
                who.offset + 0xC9,
                _("team number of player %(id)d (%(name)s)") % {"id": who.ident, "name": who.name},
                _("team %(team)d is not in the file") % {"team": who.team_number},
            )
            continue
        paired = tw.opponents.get(g.round)
        if tw is tb or paired is None or paired[0] != tb.ident:
            fail(
                g.offset,
                _("round %(round)d game %(white)d-%(black)d")
                % {"round": g.round, "white": g.white, "black": g.black},
                _(
                    "%(white)s (%(white_team)s) and %(black)s (%(black_team)s) play, but the "
                    "team records do not pair %(white_team)s with %(black_team)s in that round"
                )
                % {"white": by_id[g.white].name, "white_team": tw.name,
                   "black": by_id[g.black].name, "black_team": tb.name},
            )  # fmt: skip


def read(
    data: bytes,
    source: str = "<swt>",
    encoding: str | None = None,
    *,
    start: date | None = None,
    end: date | None = None,
) -> TrfTournament:
    """Parse an SWT file and convert it (:func:`parse` + :func:`to_tournament`)."""
    return to_tournament(parse(data, source, encoding), start=start, end=end)
