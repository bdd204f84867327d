"""FIDE Tournament Report File (TRF16 and TRF26): parsing with validation, and writing.

Record types read (fixed columns, 1-based as in the FIDE documents):

* tournament lines ``012`` name, ``022`` city, ``032`` federation, ``042``/``052`` start and
  end date (``YYYY/MM/DD``; ``YYYY-MM-DD`` is accepted too), ``062``/``072`` numbers of
  players, ``092`` type, ``102`` chief arbiter, ``122`` time control, ``132`` round dates
  (``YY/MM/DD`` at columns 92-99, 102-109, ...); other ``??2`` tags are kept as text;
* player lines ``001``: start rank 5-8, sex 10, title 11-13, name 15-47, FIDE rating 49-52,
  federation 54-56, FIDE id 58-68, birth date 70-79, points 81-84, rank 86-89, then per
  round (round 1 at 92) opponent 92-95, colour 97, result 99, every 10 columns;
* TRF26 national rating records (NRS): a 3-letter federation code such as ``GER`` instead of
  ``001``, the same static columns: start rank of the linked ``001`` record, national
  rating (for GER: the DWZ) at 49-52, national number (DSB id, or ZPS-member number
  ``VKZ-nnn``) at 58-68;
* team records ``013`` and ``310`` only mark a team competition.

Result codes: ``1 = 0`` rated; ``+ -`` forfeits; ``W D L`` games of less than one move (never
rated, stored as ``W-L``/``L-W``/``D-D``); ``H F U Z`` (and blank) byes and absences, which are
not games and are not stored. Lines starting with ``###`` are comments; ratingdb writes its
tournament id and VKZ into ``### ratingdb id:`` / ``### ratingdb vkz:`` comments on export.

Every problem is a :class:`TrfError` with the line and column: unknown result code, opponent
number out of range, asymmetric pairing (A says he played B as white, B's line disagrees),
a date that is not a date, end before start, duplicate start rank, an NRS record without its
``001`` line, missing name or dates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from ratingdb.io.errors import InputError

#: TRF round result code -> meaning; ``None`` marks a bye / absence (no game)
PLAYED = {"1", "0", "="}
FORFEIT = {"+", "-"}
UNRATED = {"W", "D", "L"}
BYES = {"H", "F", "U", "Z", " "}
#: the code the opponent's line must show for each code
_MIRROR = {
    "1": {"0"},
    "0": {"1"},
    "=": {"="},
    "+": {"-"},
    "-": {"+", "-"},
    "W": {"L"},
    "L": {"W"},
    "D": {"D"},
}
#: (white's code, black's code) -> stored result
_RESULT = {
    ("1", "0"): "1-0",
    ("0", "1"): "0-1",
    ("=", "="): "1/2-1/2",
    ("+", "-"): "+-",
    ("-", "+"): "-+",
    ("-", "-"): "--",
    ("W", "L"): "W-L",
    ("L", "W"): "L-W",
    ("D", "D"): "D-D",
}
_CODES = {v: k for k, v in _RESULT.items()}
#: points of a code for the player's own line (the points column on export)
_POINTS = {
    "1": Decimal(1),
    "=": Decimal("0.5"),
    "+": Decimal(1),
    "W": Decimal(1),
    "D": Decimal("0.5"),
    "F": Decimal(1),
    "H": Decimal("0.5"),
    "U": Decimal(1),
}
_NRS_TAG = re.compile(r"^[A-Z]{3}$")
_DATE = re.compile(r"^(\d{4})[/-](\d{2})[/-](\d{2})$")
_SHORT_DATE = re.compile(r"^(\d{2})/(\d{2})/(\d{2})$")


class TrfError(InputError):
    """A malformed TRF line: ``location`` is ``file:line:column``."""


@dataclass(frozen=True, slots=True)
class RoundEntry:
    round: int
    opponent: int  # start rank; 0 = none
    colour: str  # "w", "b" or "-"
    code: str  # upper-case result code, " " for blank
    column: int


@dataclass(slots=True)
class NationalRecord:
    """A TRF26 NRS line: ``federation`` (e.g. GER), national rating and number."""

    federation: str
    start_rank: int
    rating: int | None
    origin: str
    number: str
    name: str
    birth: date | int | None
    line: int


@dataclass(slots=True)
class TrfPlayer:
    start_rank: int
    sex: str
    title: str
    name: str
    rating: int | None
    federation: str
    fide_id: int | None
    birth: date | int | None  # a full date, or only the year
    points: Decimal | None
    rank: int | None
    rounds: list[RoundEntry]
    line: int
    national: dict[str, NationalRecord] = field(default_factory=dict)
    #: a chess computer (DSB XML ``###COMPUTER###``): a textual participant whose games
    #: are struck (WO 4.1.4); TRF itself has no such mark
    computer: bool = False

    @property
    def birth_year(self) -> int | None:
        if isinstance(self.birth, date):
            return self.birth.year
        return self.birth


@dataclass(frozen=True, slots=True)
class TrfGame:
    round: int
    white: int  # start ranks
    black: int
    result: str  # stored result code (see the module docstring)


@dataclass(slots=True)
class TrfTournament:
    source: str
    name: str
    start: date
    end: date
    city: str = ""
    federation: str = ""
    type: str = ""
    arbiter: str = ""
    time_control: str = ""
    round_dates: list[date] = field(default_factory=list)
    players: list[TrfPlayer] = field(default_factory=list)
    games: list[TrfGame] = field(default_factory=list)
    team: bool = False
    #: ratingdb's own ``### ratingdb key: value`` comments (tournament id, VKZ)
    meta: dict[str, str] = field(default_factory=dict)
    other: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def player(self, start_rank: int) -> TrfPlayer:
        for p in self.players:
            if p.start_rank == start_rank:
                return p
        raise KeyError(start_rank)


def decode(data: bytes, source: str, encoding: str = "utf-8") -> str:
    """Bytes to text; an undecodable byte is reported with its line and column."""
    if encoding.replace("-", "").lower() == "utf8" and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise TrfError(
            f"{source}:{line}:{column}",
            f"byte 0x{data[err.start]:02x} is not valid {encoding} "
            "(give the file's encoding with --encoding, e.g. cp1252)",
        ) from None
    except UnicodeError as err:  # a codec that decodes nothing, e.g. "undefined"
        raise TrfError(source, f"encoding {encoding!r} cannot decode text: {err}") from None
    except LookupError:
        raise TrfError(source, f"unknown encoding {encoding!r}") from None


def parse(text: str, source: str = "<trf>") -> TrfTournament:
    """Parse and validate a TRF text; raises :class:`TrfError` at the first problem."""
    header: dict[str, tuple[str, int]] = {}
    players: list[TrfPlayer] = []
    by_rank: dict[int, TrfPlayer] = {}
    national: list[NationalRecord] = []
    meta: dict[str, str] = {}
    round_dates: list[date] = []
    team = False

    def err(line: int, column: int, message: str) -> TrfError:
        return TrfError(f"{source}:{line}:{column}", message)

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if line.startswith("###"):
            m = re.match(r"^###\s*ratingdb\s+(\w+):\s*(.*?)\s*$", line)
            if m:
                meta[m.group(1)] = m.group(2)
            continue
        if "\t" in line:
            raise err(number, line.index("\t") + 1, "tab character in a fixed-column line")
        tag = line[:3]
        if tag == "001":
            player = _player(line, number, err)
            if player.start_rank in by_rank:
                first = by_rank[player.start_rank].line
                raise err(
                    number, 5, f"duplicate start rank {player.start_rank} (also line {first})"
                )
            by_rank[player.start_rank] = player
            players.append(player)
        elif tag in ("013", "310"):
            team = True
        elif tag == "132":
            round_dates = _round_dates(line, number, err)
        elif re.fullmatch(r"\d\d2", tag):
            if tag in header:
                raise err(number, 1, f"record {tag} appears twice (also line {header[tag][1]})")
            header[tag] = (line[4:].strip(), number)
        elif _NRS_TAG.match(tag) and not tag.startswith("XX"):
            national.append(_national(line, number, err))
        elif tag[:1].isdigit() or tag.startswith("XX"):
            continue  # other TRF records (tie-breaks, team results, JaVaFo extensions)
        else:
            raise err(number, 1, f"unknown record type {tag!r}")

    def required(tag: str, what: str) -> tuple[str, int]:
        value = header.get(tag)
        if value is None or not value[0]:
            raise TrfError(source, f"record {tag} ({what}) is missing")
        return value

    name, name_line = required("012", "tournament name")
    if len(name) > 200:
        raise err(name_line, 5, f"the tournament name has {len(name)} characters (at most 200)")
    start_text, start_line = required("042", "start date")
    end_text, end_line = required("052", "end date")
    start = _date(start_text, lambda m: err(start_line, 5, m))
    end = _date(end_text, lambda m: err(end_line, 5, m))
    if end < start:
        raise err(end_line, 5, f"end date {end} is before the start date {start}")
    if not players:
        raise TrfError(source, "no player records (001)")
    for rec in national:
        owner = by_rank.get(rec.start_rank)
        if owner is None:
            raise err(
                rec.line,
                5,
                f"{rec.federation} record for start rank {rec.start_rank}, which has no 001 line",
            )
        if rec.federation in owner.national:
            raise err(
                rec.line, 1, f"second {rec.federation} record for start rank {rec.start_rank}"
            )
        owner.national[rec.federation] = rec
    for tag, what in (("062", "number of players"), ("072", "number of rated players")):
        if tag in header and header[tag][0]:
            value, line_no = header[tag]
            if not (value.isascii() and value.isdigit()):
                raise err(line_no, 5, f"{what} is not a number: {value!r}")
    warnings = []
    if (
        "062" in header
        and header["062"][0].isascii()
        and header["062"][0].isdigit()
        and int(header["062"][0]) != len(players)
    ):
        warnings.append(f"062 says {header['062'][0]} players, the file has {len(players)}")
    tournament = TrfTournament(
        source=source,
        name=name,
        start=start,
        end=end,
        city=header.get("022", ("", 0))[0],
        federation=header.get("032", ("", 0))[0],
        type=header.get("092", ("", 0))[0],
        arbiter=header.get("102", ("", 0))[0],
        time_control=header.get("122", ("", 0))[0],
        round_dates=round_dates,
        players=players,
        team=team,
        meta=meta,
        other={t: v for t, (v, _) in header.items() if t not in _KNOWN},
        warnings=warnings,
    )
    tournament.games = _games(tournament, by_rank, err)
    return tournament


_KNOWN = {"012", "022", "032", "042", "052", "062", "072", "092", "102", "122"}


def _field(line: str, first: int, last: int) -> str:
    return line[first - 1 : last].strip()


def _int_field(line: str, first: int, last: int, what: str, number: int, err) -> int | None:  # type: ignore[no-untyped-def]
    value = _field(line, first, last)
    if not value:
        return None
    if not (value.isascii() and value.isdigit()):
        raise err(number, first, f"{what} is not a number: {value!r}")
    return int(value)


def _birth(value: str, fail) -> date | int | None:  # type: ignore[no-untyped-def]
    """A birth date, or only its year (``YYYY`` or ``YYYY/00/00``); year 0000 is unknown."""
    if not value:
        return None
    m = _DATE.match(value)
    if re.fullmatch(r"\d{4}", value) or (m and m.group(2) == "00" and m.group(3) == "00"):
        year = int(value[:4])
        if year == 0:
            return None
        if not 1850 <= year <= 2200:
            raise fail(f"birth year {year} is not plausible (1850..2200)")
        return year
    born = _date(value, fail)
    if not 1850 <= born.year <= 2200:
        raise fail(f"birth year {born.year} is not plausible (1850..2200)")
    return born


def _date(value: str, fail) -> date:  # type: ignore[no-untyped-def]
    m = _DATE.match(value)
    if m is None:
        raise fail(f"not a date (expected YYYY/MM/DD): {value!r}")
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError as e:
        raise fail(f"not a date: {value!r} ({e})") from None


def _player(line: str, number: int, err) -> TrfPlayer:  # type: ignore[no-untyped-def]
    start_rank = _int_field(line, 5, 8, "start rank", number, err)
    if not start_rank:
        raise err(number, 5, "a player line needs a start rank 1..9999")
    sex = _field(line, 10, 10).lower()
    if sex not in ("", "m", "w", "f"):
        raise err(number, 10, f"sex is m or w, got {sex!r}")
    name = _field(line, 15, 47)
    if not name:
        raise err(number, 15, "the player's name is empty")
    points_text = _field(line, 81, 84)
    try:
        points = Decimal(points_text) if points_text else None
    except InvalidOperation:
        raise err(number, 81, f"points are not a number: {points_text!r}") from None
    if points is not None and (not points.is_finite() or points < 0 or points * 2 % 1):
        raise err(number, 81, f"points are not a number of half points: {points_text!r}")
    rounds = []
    column = 92
    while column <= len(line):
        opponent_text = line[column - 1 : column + 3]
        colour = line[column + 4 : column + 5] or " "
        code = (line[column + 6 : column + 7] or " ").upper()
        opponent_text = opponent_text.strip()
        if opponent_text and not (opponent_text.isascii() and opponent_text.isdigit()):
            raise err(number, column, f"opponent is not a start rank: {opponent_text!r}")
        opponent = int(opponent_text) if opponent_text else 0
        colour = colour.lower()
        if colour not in ("w", "b", "-", " "):
            raise err(number, column + 5, f"colour is w, b or -, got {colour!r}")
        if code not in PLAYED | FORFEIT | UNRATED | BYES:
            raise err(number, column + 7, f"unknown result code {code!r}")
        rnd = (column - 92) // 10 + 1
        if opponent and code in BYES:
            raise err(
                number,
                column + 7,
                f"round {rnd}: result {code.strip() or 'blank'!r} "
                f"is a bye, but an opponent ({opponent}) is given",
            )
        if not opponent and code in PLAYED | UNRATED:
            raise err(number, column + 7, f"round {rnd}: result {code!r} needs an opponent")
        if opponent and code in PLAYED | UNRATED and colour not in ("w", "b"):
            raise err(number, column + 5, f"round {rnd}: a played game needs colour w or b")
        rounds.append(RoundEntry(rnd, opponent, "-" if colour == " " else colour, code, column))
        column += 10
    return TrfPlayer(
        start_rank=start_rank,
        sex={"w": "f"}.get(sex, sex),
        title=_field(line, 11, 13),
        name=name,
        rating=_int_field(line, 49, 52, "FIDE rating", number, err) or None,
        federation=_field(line, 54, 56),
        fide_id=_int_field(line, 58, 68, "FIDE id", number, err) or None,
        birth=_birth(_field(line, 70, 79), lambda m: err(number, 70, m)),
        points=points,
        rank=_int_field(line, 86, 89, "rank", number, err),
        rounds=rounds,
        line=number,
    )


def _national(line: str, number: int, err) -> NationalRecord:  # type: ignore[no-untyped-def]
    start_rank = _int_field(line, 5, 8, "start rank", number, err)
    if not start_rank:
        raise err(number, 5, "a national rating record needs the start rank of its 001 line")
    return NationalRecord(
        federation=line[:3],
        start_rank=start_rank,
        rating=_int_field(line, 49, 52, "national rating", number, err) or None,
        origin=_field(line, 54, 56),
        number=_field(line, 58, 68),
        name=_field(line, 15, 47),
        birth=_birth(_field(line, 70, 79), lambda m: err(number, 70, m)),
        line=number,
    )


def _round_dates(line: str, number: int, err) -> list[date]:  # type: ignore[no-untyped-def]
    dates = []
    column = 92
    while column <= len(line):
        value = line[column - 1 : column + 7].strip()
        if value:
            m = _SHORT_DATE.match(value)
            try:
                if m is None:
                    raise ValueError("expected YY/MM/DD")
                dates.append(date(2000 + int(m.group(1)), int(m.group(2)), int(m.group(3))))
            except ValueError as e:
                raise err(number, column, f"round date is not a date: {value!r} ({e})") from None
        column += 10
    return dates


def _games(t: TrfTournament, by_rank: dict[int, TrfPlayer], err) -> list[TrfGame]:  # type: ignore[no-untyped-def]
    """One game per pairing, checked from both sides."""
    games = []
    for p in t.players:
        for entry in p.rounds:
            if not entry.opponent:
                continue
            q = by_rank.get(entry.opponent)
            if q is None or q is p:
                what = "himself" if q is p else "no player with that start rank"
                raise err(
                    p.line,
                    entry.column,
                    f"round {entry.round}: opponent {entry.opponent} is out of range ({what})",
                )
            other = next((e for e in q.rounds if e.round == entry.round), None)
            theirs = (
                "no entry"
                if other is None
                else f"opponent {other.opponent}, colour {other.colour}, result {other.code!r}"
            )
            ok = (
                other is not None
                and other.opponent == p.start_rank
                and other.code in _MIRROR.get(entry.code, set())
                and {entry.colour, other.colour} in ({"w", "b"}, {"-"})
            )
            if not ok:
                colour = {"w": "as white", "b": "as black"}.get(entry.colour, "")
                raise err(
                    p.line,
                    entry.column,
                    f"asymmetric pairing in round {entry.round}: {p.start_rank} says he played "
                    f"{q.start_rank} {colour} with result {entry.code!r}, but line {q.line} "
                    f"of {q.start_rank} says {theirs}",
                )
            assert other is not None  # ok implies it
            white_first = entry.colour == "w" or (
                entry.colour == "-" and p.start_rank < q.start_rank
            )
            if white_first:
                games.append(
                    TrfGame(
                        entry.round, p.start_rank, q.start_rank, _RESULT[(entry.code, other.code)]
                    )
                )
    games.sort(key=lambda g: (g.round, g.white))
    return games


# -- writing -------------------------------------------------------------------------------


def _cols(parts: Iterable[tuple[int, str]]) -> str:
    """Place strings at 1-based columns."""
    out: list[str] = []
    for column, value in parts:
        if len(out) < column - 1:
            out.extend(" " * (column - 1 - len(out)))
        out[column - 1 : column - 1 + len(value)] = list(value)
    return "".join(out).rstrip()


def _birth_text(birth: date | int | None) -> str:
    if birth is None:
        return ""
    if isinstance(birth, date):
        return f"{birth.year:04d}/{birth.month:02d}/{birth.day:02d}"
    return f"{birth:04d}/00/00"


def _points_text(points: Decimal) -> str:
    return f"{points:.1f}".rjust(4)


def write(t: TrfTournament) -> str:
    """TRF26 text of ``t`` (players, NRS records, games; points recomputed from games)."""
    rounds = max((g.round for g in t.games), default=0)
    entries: dict[int, dict[int, tuple[int, str, str]]] = {p.start_rank: {} for p in t.players}
    for g in t.games:
        white_code, black_code = _CODES[g.result]
        entries[g.white][g.round] = (g.black, "w", white_code)
        entries[g.black][g.round] = (g.white, "b", black_code)
    lines = [f"### ratingdb {k}: {v}" for k, v in t.meta.items()]
    head = [
        ("012", t.name),
        ("022", t.city),
        ("032", t.federation),
        ("042", t.start.strftime("%Y/%m/%d")),
        ("052", t.end.strftime("%Y/%m/%d")),
        ("062", str(len(t.players))),
        ("072", str(sum(1 for p in t.players if p.rating or p.national))),
        ("092", t.type),
        ("102", t.arbiter),
        ("122", t.time_control),
    ]
    lines += [f"{tag} {value}".rstrip() for tag, value in head if value]
    lines += [f"{tag} {value}".rstrip() for tag, value in sorted(t.other.items())]
    if t.round_dates:
        lines.append(
            _cols(
                [(1, "132")]
                + [(92 + 10 * k, d.strftime("%y/%m/%d")) for k, d in enumerate(t.round_dates)]
            )
        )
    for p in sorted(t.players, key=lambda p: p.start_rank):
        cells = []
        points = Decimal(0)
        for rnd in range(1, rounds + 1):
            opp, colour, code = entries[p.start_rank].get(rnd, (0, "-", "Z"))
            points += _POINTS.get(code, Decimal(0))
            base = 92 + 10 * (rnd - 1)
            cells += [(base, f"{opp:4d}" if opp else "0000"), (base + 5, colour), (base + 7, code)]
        lines.append(
            _cols(
                [
                    (1, "001"),
                    (5, f"{p.start_rank:4d}"),
                    (10, {"f": "w", "m": "m"}.get(p.sex, "")),  # TRF knows m/w only
                    (11, p.title[:3].rjust(3) if p.title else ""),
                    (15, p.name[:33]),
                    (49, f"{p.rating:4d}" if p.rating else ""),
                    (54, p.federation[:3]),
                    (58, f"{p.fide_id:11d}" if p.fide_id else ""),
                    (70, _birth_text(p.birth)),
                    (81, _points_text(points)),
                    (86, f"{p.rank:4d}" if p.rank else ""),
                    *cells,
                ]
            )
        )
        for rec in p.national.values():
            lines.append(
                _cols(
                    [
                        (1, rec.federation),
                        (5, f"{p.start_rank:4d}"),
                        (15, rec.name[:33]),
                        (49, f"{rec.rating:4d}" if rec.rating else ""),
                        (54, rec.origin[:3]),
                        (58, rec.number[:11].rjust(11)),
                        (70, _birth_text(rec.birth)),
                    ]
                )
            )
    return "\n".join(lines) + "\n"
