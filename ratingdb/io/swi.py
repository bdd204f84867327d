"""The DSB/ELOBASE "SWI" text file (SwissChess *DEWIS* export and its imitators): reading.

There is no published specification; what is read here follows the research note
``docs/data-exchange.md`` (section "SWI / ELOBASE text") summarises, built from the writers
of SwissChess, ChessLeagueManager (CLM, "DSB Format"), the NSV league manager, the fischer
club app and bmm, and a DWZ officer's description of the DeWIS import. Layout:

* **header** – line 1 the tournament name, line 2 free text, then the *kind line*
  ``ES  12  7  1 #860#`` (kind code, players, rounds, a third number, an optional
  ``#nnn#`` program tag). One writer (bmm) leaves the kind line out;
* the **ruler line** `` ttt. rrr nnnn… vvvv… lll ffff… pppp… gggg… eeee dddd  zzzzz mmmm``:
  the runs of letters give every field's columns (nothing here uses fixed constants);
* one **player row** per participant: ``ttt`` participant number (the key the result
  blocks refer to; never the row order nor ``rrr``), ``rrr`` a second number (SwissChess:
  final rank, fischer: start rank – kept, not used), ``n`` "Surname, Given name", ``v``
  club, ``l`` federation, ``f`` FIDE id, ``p`` player id (PKZ / DSB id), ``g`` birth year
  or date (``YYYY``, ``DDMMYY``, ``DDMMYYYY``, ``DD.MM.YYYY``), ``e`` FIDE rating, ``d``
  DWZ, ``z`` club VKZ (ZPS), ``m`` member number; after the ``m`` field come the **result
  blocks**, 6 characters per round: blank, result, colour, opponent number (3 columns);
* the **footer** after ``###``: ``Key: value`` items (``Name:``, ``Ort:``, ``FIDE-Land:``,
  ``Datum(S):``, ``Datum(E):``, ``Züge(1..3):``, ``Hauptschiedsrichter:`` …), several
  per line. The tournament name comes from ``Name:`` (else line 1), the dates from
  ``Datum(S):``/``Datum(E):`` (``d.M.yyyy``).

Result codes: ``1`` ``0`` ``R`` (draw) played games with colour ``W``/``B``; ``+``/``-``
forfeits (colour ``:``), never rated; ``:`` with an opponent a double forfeit (CLM), without
one an absence; ``=`` a half point against a forfeit (CLM, not rated); a blank block or
opponent 0 no game. A result of ``0`` against ``-`` (CLM's "0-0") or ``0`` against ``R``
(CLM's "0:½") is rated for one side only or unequally: ratingdb cannot store such a game
and refuses the file naming the block.

Encodings: UTF-8 (with or without BOM) when the bytes are valid UTF-8, otherwise CP850 or
Latin-1/CP1252, told apart by the bytes of German letters (``0x81 0x84 0x94 0x8E 0x99 0x9A
0xE1`` are CP850, ``0xE4 0xF6 0xFC 0xC4 0xD6 0xDC 0xDF`` Latin-1); ties go to CP850, the
encoding DeWIS required. Line ends: CRLF, LF, CR and the CR CR LF of one writer.

Every problem of a file is collected and reported at once (:class:`SwiError`), each with
``file:line:column``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ratingdb.budget import Problems, check, more_line, more_of
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, date_text, ngettext
from ratingdb.io.numbers import NotANumber, optional_number, whole_number
from ratingdb.io.trf import NationalRecord, TrfGame, TrfPlayer, TrfTournament
from ratingdb.names import full_name
from ratingdb.plausibility import BIRTH_YEAR, FIDE_ID, RATING, START_RANK, Range

FEDERATION = "GER"
#: result code -> points for the player's own row
POINTS = {
    "1": Decimal(1),
    "0": Decimal(0),
    "R": Decimal("0.5"),
    "+": Decimal(1),
    "-": Decimal(0),
    "=": Decimal("0.5"),
    ":": Decimal(0),
}
PLAYED = {"1", "0", "R"}
#: result code -> the codes the opponent's block may show
MIRROR = {
    "1": {"0"},
    "0": {"1", "-", "R"},  # 0 against - or R: detected and refused below
    "R": {"R", "0"},
    "+": {"-"},
    "-": {"+", "-", "=", "0"},
    "=": {"-"},
    ":": {":"},
}
#: (white's code, black's code) -> stored result
RESULT = {
    ("1", "0"): "1-0",
    ("0", "1"): "0-1",
    ("R", "R"): "1/2-1/2",
    ("+", "-"): "+-",
    ("-", "+"): "-+",
    ("-", "-"): "--",
    (":", ":"): "--",
    ("=", "-"): "--",
    ("-", "="): "--",
}
#: kind codes seen in files: E… individual, M… team (Mannschaft)
KINDS = {"ES": "Swiss", "ER": "round robin", "MR": "team round robin", "MS": "team Swiss"}
_RULER = re.compile(r"^\s*t+\.\s+r+\s+n+")
_KIND = re.compile(
    r"^\s*([A-Z]{2})\s+([0-9]{1,9})\s+([0-9]{1,9})(?:\s+([0-9]{1,9}))?\s*(?:#\s*([0-9]*)\s*#)?\s*$"
)
_FOOTER_KEY = re.compile(
    r"(Name|Ort|FIDE-Land|Datum\(S\)|Datum\(E\)|Z\S{1,3}ge(?:\([0-9]\))?|Hauptschiedsrichter"
    r"|Weitere Schiedsrichter|Schiedsrichter|Turnierleitung|Turnierorganisator|Anwender"
    r"|Ser\.Nummer)\s*:"
)
_DATE = re.compile(r"^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{2}|[0-9]{4})$")
_CP850 = frozenset(b"\x81\x84\x94\x8e\x99\x9a\xe1")
_LATIN1 = frozenset(b"\xe4\xf6\xfc\xc4\xd6\xdc\xdf")


class SwiError(InputError):
    """One or more problems of an SWI file; ``problems`` holds ``(location, message)``."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        self.more = more_of(problems)  # found beyond those kept (ratingdb/budget.py)
        first = problems[0]
        text = "\n".join([f"{where}: {what}" for where, what in problems] + more_line(self.more))
        super().__init__(first[0], first[1])
        self.args = (text,)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class SwiBlock:
    """One result block: ``index`` counts from 0 (round ``index + 1``)."""

    index: int
    result: str  # 1 0 R + - = : or " "
    colour: str  # W B : or " "
    opponent: int  # participant number, 0 = none
    column: int  # 1-based column of the block's result character

    @property
    def points(self) -> Decimal:
        return POINTS.get(self.result, Decimal(0))


@dataclass(slots=True)
class SwiPlayer:
    number: int  # ttt
    second: int | None  # rrr
    name: str  # "Surname, Given name"
    club: str
    federation: str
    fide_id: int | None
    player_id: str
    birth: date | int | None
    fide_rating: int | None
    dwz: int | None
    vkz: str
    member_number: str
    blocks: list[SwiBlock]
    line: int

    @property
    def points(self) -> Decimal:
        """Points of the row (forfeit wins count, as in the tournament's table)."""
        return sum((b.points for b in self.blocks if b.result != " "), Decimal(0))

    @property
    def birth_year(self) -> int | None:
        return self.birth.year if isinstance(self.birth, date) else self.birth


@dataclass(slots=True)
class SwiFile:
    source: str
    encoding: str
    title: str
    subtitle: str = ""
    kind: str = ""  # ES, ER, MR … ("" when the kind line is missing)
    declared_players: int | None = None
    declared_rounds: int | None = None
    third: int | None = None
    tag: str = ""  # the #nnn# of the kind line
    players: list[SwiPlayer] = field(default_factory=list)
    footer: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def team(self) -> bool:
        return self.kind.startswith("M")

    def player(self, number: int) -> SwiPlayer:
        for p in self.players:
            if p.number == number:
                return p
        raise KeyError(number)


def detect_encoding(data: bytes) -> str:
    """``utf-8`` when valid, else ``cp850`` or ``latin-1`` by the bytes of German letters."""
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    cp850 = sum(1 for b in data if b in _CP850)
    latin1 = sum(1 for b in data if b in _LATIN1)
    return "latin-1" if latin1 > cp850 else "cp850"


def split_lines(text: str) -> list[str]:
    """Lines for CRLF, LF, CR and CR CR LF files (a CR run before LF is one line end)."""
    text = re.sub(r"\r+\n", "\n", text).replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def looks_like_swi(data: bytes) -> bool:
    """True when the first 40 lines hold the ruler line (how DeWIS recognised the file)."""
    head = data[:8000].decode("latin-1")
    return any(_RULER.match(line) for line in split_lines(head)[:40])


def parse(data: bytes | str, source: str = "<swi>", encoding: str | None = None) -> SwiFile:
    """Read an SWI file; every problem is collected and raised at once as :class:`SwiError`."""
    problems = Problems()

    def problem(line: int, column: int, message: str) -> None:
        problems.append((f"{source}:{line}:{column}", message))

    if isinstance(data, str):
        text, used = data, "text"
    else:
        if data.startswith(b"\xef\xbb\xbf"):
            data, used = data[3:], "utf-8"
        else:
            used = encoding or detect_encoding(data)
        try:
            text = data.decode(used)
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
            raise SwiError(
                source,
                [
                    (
                        f"{source}:{line}:{column}",
                        _("byte 0x%(byte)02x is not valid %(encoding)s")
                        % {"byte": data[err.start], "encoding": used},
                    )
                ],
            ) from None
        except (LookupError, ValueError):  # ValueError: a NUL in the name
            raise SwiError(
                source, [(source, _("unknown encoding %(encoding)r") % {"encoding": used})]
            ) from None
    lines = split_lines(text)
    ruler_at = next((k for k, line in enumerate(lines) if _RULER.match(line)), None)
    if ruler_at is None:
        raise SwiError(
            source,
            [
                (
                    source,
                    _("no ruler line (' ttt. rrr nnnn… vvvv… ') found: not an SWI/ELOBASE file"),
                )
            ],
        )
    swi = SwiFile(source=source, encoding=used, title="")
    _header(swi, lines[:ruler_at], problem)
    columns = _columns(lines[ruler_at])
    for needed in ("t", "n"):
        if needed not in columns:
            problem(
                ruler_at + 1, 1, _("the ruler line has no '%(letter)s' field") % {"letter": needed}
            )
    if problems:
        raise SwiError(source, problems)
    footer_at = next(
        (k for k in range(ruler_at + 1, len(lines)) if lines[k].startswith("###")), len(lines)
    )
    seen: dict[int, int] = {}
    for k in range(ruler_at + 1, footer_at):
        check()  # the time budget of the upload (ratingdb/budget.py)
        raw = lines[k]
        if not raw.strip():
            continue
        player = _player(raw, k + 1, columns, problem, swi.warnings)
        if player is None:
            continue
        if player.number in seen:
            problem(
                k + 1,
                columns["t"][0] + 1,
                _("participant number %(number)d appears twice (also line %(line)d)")
                % {"number": player.number, "line": seen[player.number]},
            )
            continue
        seen[player.number] = k + 1
        swi.players.append(player)
    swi.footer = _footer(lines[footer_at + 1 :])
    if not swi.players and not problems:
        problem(ruler_at + 2, 1, _("no player rows after the ruler line"))
    if swi.declared_players is not None and swi.declared_players != len(swi.players):
        swi.warnings.append(
            ngettext(
                "the kind line announces %(num)d player, the file has %(found)d",
                "the kind line announces %(num)d players, the file has %(found)d",
                swi.declared_players,
            )
            % {"num": swi.declared_players, "found": len(swi.players)}
        )
    if problems:
        raise SwiError(source, problems)
    return swi


def _header(swi: SwiFile, lines: list[str], problem) -> None:  # type: ignore[no-untyped-def]
    texts = []
    for number, line in enumerate(lines, start=1):
        m = _KIND.match(line)
        if m and not swi.kind:
            swi.kind = m.group(1)
            swi.declared_players = int(m.group(2))
            swi.declared_rounds = int(m.group(3))
            swi.third = int(m.group(4)) if m.group(4) else None
            swi.tag = m.group(5) or ""
            if swi.kind[0] not in "EM":
                swi.warnings.append(
                    _(
                        "line %(line)d: unknown kind %(kind)r (known: %(known)s); read as an "
                        "individual tournament"
                    )
                    % {"line": number, "kind": swi.kind, "known": ", ".join(KINDS)}
                )
        elif line.strip():
            texts.append(line.strip())
    swi.title = texts[0] if texts else ""
    swi.subtitle = " / ".join(texts[1:])
    if not swi.kind:
        swi.warnings.append(_("no kind line (ES/ER/MR …): read as an individual tournament"))


def _columns(ruler: str) -> dict[str, tuple[int, int]]:
    """Field letter -> (first, end) 0-based columns, from the ruler's runs of letters."""
    out: dict[str, tuple[int, int]] = {}
    for m in re.finditer(r"([a-z])\1*", ruler):
        out.setdefault(m.group(1), (m.start(), m.end()))
    return out


def _player(  # type: ignore[no-untyped-def]
    raw: str, number: int, cols: dict[str, tuple[int, int]], problem, warnings: list[str]
) -> SwiPlayer | None:
    line = raw.rstrip("\r\n")
    if "\t" in line:
        problem(number, line.index("\t") + 1, _("tab character in a fixed-column row"))
        return None

    def get(key: str) -> str:
        if key not in cols:
            return ""
        first, end = cols[key]
        return line[first:end].strip()

    def integer(key: str, limits: Range, what: str, *, allow_zero: bool = False) -> int | None:
        """``what`` marked with ``N_`` (numbers.py translates it in its message)."""
        value = get(key)
        if not value or (allow_zero and not value.strip("0")):
            return 0 if value else None
        try:
            return optional_number(value, limits, what)
        except NotANumber as err:
            problem(number, cols[key][0] + 1, str(err))
            return None

    t_first, t_end = cols["t"]
    ttt = line[t_first:t_end].strip().rstrip(".").strip()
    try:
        participant = whole_number(ttt, START_RANK, N_("participant number"))
    except NotANumber as err:
        problem(number, t_first + 1, str(err))
        return None
    name = get("n")
    if not name:
        problem(number, cols["n"][0] + 1, _("the player's name is empty"))
    surname, comma, given = name.partition(",")
    if comma:
        name = full_name(surname, given)
    # no rating needs the birth date from the file (a member's comes from the member list):
    # unreadable or implausible, it is a warning and left empty
    birth = _birth(
        get("g"),
        lambda m: warnings.append(
            _("line %(line)d: column %(column)d: %(problem)s (left empty)")
            % {"line": number, "column": cols["g"][0] + 1, "problem": m}
        ),
    )
    # the result blocks start after the last field (the member number), one blank later
    last_end = max(end for _first, end in cols.values())
    blocks: list[SwiBlock] = []
    start = last_end + 1
    k = 0
    body = line.rstrip()
    while start < len(body):
        cell = body[start : start + 6].ljust(6)
        block = _block(cell, k, start, number, problem)
        if block is not None:
            blocks.append(block)
        start += 6
        k += 1
    return SwiPlayer(
        number=participant,
        second=integer("r", START_RANK, N_("second number"), allow_zero=True),
        name=name,
        club=get("v"),
        federation=get("l"),
        fide_id=integer("f", FIDE_ID, N_("FIDE id")),
        player_id=get("p"),
        birth=birth,
        fide_rating=integer("e", RATING, N_("FIDE rating")),
        dwz=integer("d", RATING, N_("DWZ")),
        vkz=get("z"),
        member_number=get("m"),
        blocks=blocks,
        line=number,
    )


def _block(cell: str, k: int, start: int, number: int, problem) -> SwiBlock | None:  # type: ignore[no-untyped-def]
    """One 6-character block ``' RCooo'`` at 0-based column ``start``."""
    if not cell.strip():
        return SwiBlock(k, " ", " ", 0, start + 2)
    result = cell[1].upper()
    colour = cell[2].upper()
    opp_text = cell[3:6].strip()
    rnd = k + 1
    ok = True
    if cell[0] != " ":
        problem(
            number,
            start + 1,
            _("round %(round)d: a block starts with a blank, not %(char)r")
            % {"round": rnd, "char": cell[0]},
        )
        ok = False
    if result not in POINTS and result != " ":
        problem(
            number,
            start + 2,
            _("round %(round)d: unknown result %(code)r (1 0 R + - = :)")
            % {"round": rnd, "code": cell[1]},
        )
        ok = False
    if colour not in ("W", "B", ":", " ", "-"):
        problem(
            number,
            start + 3,
            _("round %(round)d: unknown colour %(colour)r (W B :)")
            % {"round": rnd, "colour": cell[2]},
        )
        ok = False
    if opp_text and not (opp_text.isascii() and opp_text.isdigit()):
        problem(
            number,
            start + 4,
            _("round %(round)d: opponent is not a number: %(value)r")
            % {"round": rnd, "value": opp_text},
        )
        ok = False
    if not ok:
        return None
    opponent = int(opp_text) if opp_text else 0
    if result in PLAYED and not opponent:
        problem(
            number,
            start + 2,
            _("round %(round)d: result %(code)r needs an opponent")
            % {"round": rnd, "code": result},
        )
        return None
    if result in PLAYED and colour not in ("W", "B"):
        problem(
            number,
            start + 3,
            _("round %(round)d: a played game needs colour W or B") % {"round": rnd},
        )
        return None
    if result == " " and opponent:
        problem(
            number,
            start + 2,
            _("round %(round)d: opponent %(opponent)d without a result")
            % {"round": rnd, "opponent": opponent},
        )
        return None
    return SwiBlock(k, result, colour, opponent, start + 2)


def _birth(value: str, fail) -> date | int | None:  # type: ignore[no-untyped-def]
    """``YYYY``, ``DDMMYY``, ``DDMMYYYY`` or ``DD.MM.YYYY``; ``0``/``0000`` unknown."""
    if not value or set(value) <= {"0"}:
        return None
    digits = value.replace(".", "")
    try:
        if re.fullmatch(r"[0-9]{4}", value):
            try:
                return whole_number(value, BIRTH_YEAR)
            except NotANumber as err:
                fail(str(err))
                return None
        if re.fullmatch(r"[0-9]{6}", digits):
            day, month, yy = int(digits[:2]), int(digits[2:4]), int(digits[4:])
            born = date(1900 + yy, month, day)
            return born
        if re.fullmatch(r"[0-9]{8}", digits):
            return date(int(digits[4:]), int(digits[2:4]), int(digits[:2]))
    except ValueError:  # a day or month out of range
        fail(_("birth date is not a date: %(value)r") % {"value": value})
        return None
    fail(
        _("birth field is not a year or date (YYYY, DDMMYY, DDMMYYYY): %(value)r")
        % {"value": value}
    )
    return None


def _footer(lines: list[str]) -> dict[str, str]:
    """``Key: value`` items, several per line; the key names are normalised
    (``Z?ge(1)`` -> ``Züge(1)``, whatever encoding damage the umlaut suffered)."""
    out: dict[str, str] = {}
    for line in lines:
        matches = list(_FOOTER_KEY.finditer(line))
        if not matches:
            if ":" in line:
                key, _colon, value = line.partition(":")
                if key.strip() and value.strip():
                    out.setdefault(key.strip(), value.strip())
            continue
        for m, following in zip(matches, [*matches[1:], None], strict=True):
            key = m.group(1)
            if key.startswith("Z") and key.endswith(("ge", ")")) and "Datum" not in key:
                key = "Züge" + key[key.index("ge") + 2 :]
            value = line[m.end() : following.start() if following else len(line)].strip()
            if value or key not in out:
                out[key] = value
    return out


def _date(value: str) -> date | None:
    m = _DATE.match(value.strip())
    if m is None:
        raise ValueError(_("not a date (expected dd.mm.yyyy): %(value)r") % {"value": value})
    year = int(m.group(3))
    if year < 100:
        year += 2000 if year < 70 else 1900
    return date(year, int(m.group(2)), int(m.group(1)))


# -- to the neutral tournament model ---------------------------------------------------------


def to_tournament(swi: SwiFile) -> TrfTournament:
    """The tournament model the TRF import uses (players, games both sides checked).

    Raises :class:`SwiError` with every problem: an opponent not in the file, a pairing the
    opponent's row contradicts, a game ratingdb cannot store, missing dates."""
    problems = Problems()
    src = swi.source

    def problem(line: int, column: int, message: str) -> None:
        problems.append((f"{src}:{line}:{column}", message))

    def footer(key: str) -> str:
        return _("%(file)s: footer %(key)s") % {"file": src, "key": key}

    start = end = None
    for key in ("Datum(S)", "Datum(E)"):
        value = swi.footer.get(key, "")
        if not value:
            continue
        try:
            parsed = _date(value)
        except ValueError as err:
            problems.append((footer(key), str(err)))
            continue
        if key == "Datum(S)":
            start = parsed
        else:
            end = parsed
    if end is None and not any(where == footer("Datum(E)") for where, _m in problems):
        problems.append(
            (
                _("%(file)s: footer") % {"file": src},
                _("no end date ('Datum(E):' after the '###' line)"),
            )
        )
    if start is None:
        start = end
    if start is not None and end is not None and end < start:
        problems.append(
            (
                footer("Datum(E)"),
                _("end date %(end)s is before the start %(start)s")
                % {"end": date_text(end), "start": date_text(start)},
            )
        )
    by_number = {p.number: p for p in swi.players}
    games = _games(swi, by_number, problem)
    if problems:
        raise SwiError(src, problems)
    assert start is not None and end is not None
    players = []
    for p in swi.players:
        tp = TrfPlayer(
            start_rank=p.number,
            sex="",
            title="",
            name=p.name,
            rating=p.fide_rating,
            federation=p.federation,
            fide_id=p.fide_id,
            birth=p.birth,
            points=p.points,
            rank=None,
            rounds=[],
            line=p.line,
        )
        key = p.player_id or (f"{p.vkz}-{p.member_number}" if p.vkz and p.member_number else "")
        if key or p.dwz:
            tp.national[FEDERATION] = NationalRecord(
                FEDERATION, p.number, p.dwz, "", key, p.name, p.birth, p.line
            )
        players.append(tp)
    name = swi.footer.get("Name") or swi.title or swi.source
    time_control = " / ".join(
        v for k, v in sorted(swi.footer.items()) if k.startswith("Züge") and v
    )
    arbiter = swi.footer.get("Hauptschiedsrichter") or swi.footer.get("Schiedsrichter", "")
    known = {"Name", "Ort", "FIDE-Land", "Datum(S)", "Datum(E)", "Hauptschiedsrichter"}
    return TrfTournament(
        source=src,
        name=name,
        start=start,
        end=end,
        city=swi.footer.get("Ort", ""),
        federation=swi.footer.get("FIDE-Land", ""),
        type=swi.kind,
        arbiter=arbiter,
        time_control=time_control,
        players=players,
        games=games,
        team=swi.team,
        other={k: v for k, v in swi.footer.items() if k not in known and not k.startswith("Züge")},
        warnings=list(swi.warnings),
    )


def _games(swi: SwiFile, by_number: dict[int, SwiPlayer], problem) -> list[TrfGame]:  # type: ignore[no-untyped-def]
    """One game per pairing, checked from both rows; blocks are matched by opponent, the
    same block index first (writers that add a block for a second game in one round)."""
    used: set[tuple[int, int]] = set()  # (participant number, block index)
    games: list[TrfGame] = []
    shifted = 0
    for p in swi.players:
        for b in p.blocks:
            if not b.opponent or (p.number, b.index) in used:
                continue
            q = by_number.get(b.opponent)
            if q is None or q is p:
                if q is p:
                    message = _("round %(round)d: opponent %(opponent)d is himself")
                else:
                    message = _("round %(round)d: opponent %(opponent)d is not in the file")
                problem(
                    p.line, b.column + 2, message % {"round": b.index + 1, "opponent": b.opponent}
                )
                continue
            candidates = [
                c for c in q.blocks if c.opponent == p.number and (q.number, c.index) not in used
            ]
            other = next((c for c in candidates if c.index == b.index), None) or next(
                iter(candidates), None
            )
            if other is None:
                problem(
                    p.line,
                    b.column,
                    _(
                        "round %(round)d: %(player)d played %(opponent)d, but the row of "
                        "%(opponent)d (line %(line)d) has no block against %(player)d"
                    )
                    % {"round": b.index + 1, "player": p.number, "opponent": q.number,
                       "line": q.line},
                )  # fmt: skip
                continue
            used.add((p.number, b.index))
            used.add((q.number, other.index))
            if other.index != b.index:
                shifted += 1
            pair_ok = other.result in MIRROR.get(b.result, set())
            colours = {b.colour, other.colour}
            if b.result in PLAYED or other.result in PLAYED:
                pair_ok = pair_ok and colours == {"W", "B"}
            elif colours in ({"W"}, {"B"}):
                pair_ok = False  # both white or both black
            if not pair_ok:
                problem(
                    p.line,
                    b.column,
                    _(
                        "round %(round)d: %(player)d says %(mine)s against %(opponent)d, but "
                        "line %(line)d says %(theirs)s against %(player)d"
                    )
                    % {"round": b.index + 1, "player": p.number, "mine": b.result + b.colour,
                       "opponent": q.number, "line": q.line,
                       "theirs": other.result + other.colour},
                )  # fmt: skip
                continue
            white_is_p = b.colour == "W" or (other.colour != "W" and p.number < q.number)
            w, bl = (b, other) if white_is_p else (other, b)
            result = RESULT.get((w.result, bl.result))
            if result is None:
                problem(
                    p.line,
                    b.column,
                    _(
                        "round %(round)d: %(w)s:%(b)s between %(player)d and %(opponent)d is "
                        "rated for one side only or unequally; ratingdb stores only 1:0, 0:1, "
                        "R:R and forfeits"
                    )
                    % {"round": b.index + 1, "w": w.result, "b": bl.result, "player": p.number,
                       "opponent": q.number},
                )  # fmt: skip
                continue
            white, black = (p, q) if white_is_p else (q, p)
            games.append(TrfGame(min(b.index, other.index) + 1, white.number, black.number, result))
    if shifted:
        swi.warnings.append(
            ngettext(
                "%(num)d game is in different blocks in the two players' rows (a second game "
                "in one round?); the earlier block's round is used",
                "%(num)d games are in different blocks in the two players' rows (a second "
                "game in one round?); the earlier block's round is used",
                shifted,
            )
            % {"num": shifted}
        )
    games.sort(key=lambda g: (g.round, g.white))
    return games


def read(data: bytes, source: str = "<swi>", encoding: str | None = None) -> TrfTournament:
    """Parse an SWI file and convert it (:func:`parse` + :func:`to_tournament`)."""
    return to_tournament(parse(data, source, encoding))
