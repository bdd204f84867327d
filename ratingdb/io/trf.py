"""FIDE Tournament Report File (TRF16 and TRF26): parsing with validation, and writing.

Record types read (fixed columns, 1-based as in the FIDE documents):

* tournament lines ``012`` name, ``022`` city, ``032`` federation, ``042``/``052`` start and
  end date (``YYYY/MM/DD``; ``YYYY-MM-DD`` is accepted too), ``062``/``072`` numbers of
  players, ``092`` type, ``102`` chief arbiter, ``122`` time control, ``132`` round dates
  (``YY/MM/DD`` at columns 92-99, 102-109, ...); other ``??2`` tags are kept as text;
* player lines ``001``: start rank 5-8, sex 10, title 11-13, name 15-47, FIDE rating 49-52,
  federation 54-56, FIDE id 58-68, birth date 70-79, points 81-84, rank 86-89, then per
  round (round 1 at 92) opponent 92-95, colour 97, result 99, every 10 columns;
* TRF26 national rating records (NRS): a FIDE federation code instead of ``001``, the same
  static columns: start rank of the linked ``001`` record, national rating at 49-52,
  national number at 58-68; ``GER`` is read (the DWZ, the DSB id or ZPS-member number
  ``VKZ-nnn``), every other federation's is kept as it is with its player
  (``TrfPlayer.kept``), as is another three-letter record with a start rank (Tornelo's
  ``DAT``);
* team records ``013`` and ``310`` mark a team competition; they, TRF-2026's other team
  records, JaVaFo's ``XX?`` and bbpPairings' ``BB?`` records are kept as lines
  (``records``); ``BB?`` and ``162`` set the point values (:func:`scoring_of`).

What real programs write and is accepted: records that repeat (``112`` one line per deputy,
``132`` one line per round date in TRF-2026 samples, one team record per team); lines that
are no records – Swiss-Manager's ruler ``DDD SSSS sTTT …``, legends – kept as comments with a
warning, never read as records; ``062 163 (73)`` (players, rated players); dates
``YYYY/MM/DD``, ``YYYY-MM-DD``, ``YYYY.MM.DD``, ``DD.MM.YYYY``, ``DD. MM. YYYY``,
``DD/MM/YYYY``, ``May 29, 2020`` (:func:`parse_date`); a missing ``052`` (the last round date,
else the start date, with a warning) or ``042``; old byes ``0000 - =`` and ``0000 - +``, a
cell shifted inside its ten columns (``0 - H``); TRF-2026's ``*`` and lichess' ``Z`` against
an opponent (no result yet: a pending pairing); lichess' dates ``May 29, 2020``.

Result codes: ``1 = 0`` rated; ``+ -`` forfeits; ``W D L`` games of less than one move (never
rated, stored as ``W-L``/``L-W``/``D-D``); ``H F U Z`` (and blank) byes and absences, ``-``,
``=`` and ``+`` without an opponent likewise: not games (``TrfPlayer.byes``). Lines starting
with ``###`` are comments; ratingdb writes its tournament id and VKZ into
``### ratingdb id:`` / ``### ratingdb vkz:`` comments on export.

Every problem of a file is reported at once (:class:`TrfError` with ``problems``, each with
line and column; the first :data:`ratingdb.budget.MAX_PROBLEMS` kept, the rest counted):
unknown result code, opponent out of range,
asymmetric pairing (A says he played B as white, B's line disagrees), a date that is not a
date, end before start, duplicate start rank, an NRS record without its ``001`` line, a
FIDE id or GER number of two start ranks that both played, a round paired without results
(``complete_rounds`` leaves such rounds out instead). Defects that touch no game are
warnings: points or rank column, sex, ``062``/``072``, round dates, a repeated header record,
an id given twice where one start rank played no game (it loses the id), and a points column
that differs from the results (the players are named). Problems and warnings are worded in
the language in force (German by default, :mod:`ratingdb.i18n`); their locations
(``file:line:column``) are the same in every language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal, InvalidOperation

from ratingdb.budget import Problems, check, more_line, more_of
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, date_text, decimal, ngettext
from ratingdb.io.numbers import NotANumber, optional_number, whole_number
from ratingdb.plausibility import BIRTH_YEAR, FIDE_ID, PLAYER_COUNT, RATING, START_RANK, Range
from ratingdb.safe_text import unsafe_place

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
#: the points column has 4 characters: no score beyond this is a number of points
MAX_POINTS = Decimal(9999)
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
#: the point values a file may set (bbpPairings' ``BBW``…``BBU`` records, TRF-2026's ``162``):
#: win (also forfeit win, unplayed win, full-point bye), draw (also half-point bye), played
#: loss, zero-point bye (and absence), forfeit loss, pairing-allocated bye (default: a win)
SCORING_KEYS = ("W", "D", "L", "Z", "F", "U")
DEFAULT_SCORING = {
    "W": Decimal(1), "D": Decimal("0.5"), "L": Decimal(0), "Z": Decimal(0), "F": Decimal(0),
}  # fmt: skip
#: TRF-2026 ``162``'s symbols -> the keys they set (A: absence, zero-point bye or forfeit
#: loss; P: pairing-allocated bye; X, an unknown result, scores nothing ratingdb stores)
_TRF26_SCORING = {"W": ("W",), "D": ("D",), "L": ("L",), "A": ("Z", "F"), "P": ("U",)}
_SCORING_VALUE = re.compile(r"[0-9]{1,3}(?:\.[0-9])?", re.ASCII)
_BB_TAG = re.compile(r"BB[WDLZFU]")
_NRS_TAG = re.compile(r"^[A-Z]{3}$")
#: FIDE's federation codes: a record with one of them and a start rank is a national rating
#: record (TRF-2026 NRS); another three-letter tag with a start rank (Tornelo's ``DAT``) is a
#: record of that player that ratingdb keeps as it is
FIDE_FEDERATIONS = frozenset(
    (
        "AFG", "ALB", "ALG", "AND", "ANG", "ANT", "ARG", "ARM", "ARU", "AUS", "AUT", "AZE",
        "BAH", "BAN", "BAR", "BDI", "BEL", "BER", "BHU", "BIH", "BIZ", "BLR", "BOL", "BOT",
        "BRA", "BRN", "BRU", "BUL", "BUR", "CAF", "CAM", "CAN", "CAY", "CHA", "CHI", "CHN",
        "CIV", "CMR", "COD", "COL", "COM", "CPV", "CRC", "CRO", "CUB", "CYP", "CZE", "DEN",
        "DJI", "DMA", "DOM", "ECU", "EGY", "ENG", "ERI", "ESA", "ESP", "EST", "ETH", "FAI",
        "FID", "FIJ", "FIN", "FRA", "GAB", "GAM", "GCI", "GEO", "GEQ", "GER", "GHA", "GRE",
        "GRN", "GUA", "GUM", "GUY", "HAI", "HKG", "HON", "HUN", "INA", "IND", "IOM", "IRI",
        "IRL", "IRQ", "ISL", "ISR", "ISV", "ITA", "IVB", "JAM", "JCI", "JOR", "JPN", "KAZ",
        "KEN", "KGZ", "KOR", "KOS", "KSA", "KUW", "LAO", "LAT", "LBA", "LBN", "LBR", "LCA",
        "LES", "LIE", "LTU", "LUX", "MAC", "MAD", "MAR", "MAS", "MAW", "MDA", "MDV", "MEX",
        "MGL", "MKD", "MLI", "MLT", "MNC", "MNE", "MOZ", "MRI", "MTN", "MYA", "NAM", "NCA",
        "NED", "NEP", "NGR", "NIG", "NOR", "NRU", "NZL", "OMA", "PAK", "PAN", "PAR", "PER",
        "PHI", "PLE", "PLW", "PNG", "POL", "POR", "PUR", "QAT", "ROU", "RSA", "RUS", "RWA",
        "SCO", "SEN", "SEY", "SGP", "SKN", "SLE", "SLO", "SMR", "SOL", "SOM", "SRB", "SRI",
        "SSD", "STP", "SUD", "SUI", "SUR", "SVK", "SWE", "SWZ", "SYR", "TAN", "THA", "TJK",
        "TKM", "TLS", "TOG", "TPE", "TTO", "TUN", "TUR", "UAE", "UGA", "UKR", "URU", "USA",
        "UZB", "VAN", "VEN", "VIE", "VIN", "WLS", "YEM", "ZAM", "ZIM",
    )
)  # fmt: skip
#: the national rating records ratingdb reads (the DSB's); others are kept as they are
READ_NRS = {"GER"}
_DATE = re.compile(r"^([0-9]{4})[/-]([0-9]{2})[/-]([0-9]{2})$")
_SHORT_DATE = re.compile(r"^([0-9]{2})/([0-9]{2})/([0-9]{2})$")


#: records that may appear more than once (one line per arbiter, per round date, per team)
REPEATABLE = {"112", "132"}
#: records whose repetition with another value is an error (they decide the tournament)
_ESSENTIAL = {"012": N_("tournament name"), "042": N_("start date"), "052": N_("end date")}
_MONTHS = {
    m: k
    for k, names in enumerate(
        (
            ("jan", "january", "januar", "jänner"),
            ("feb", "february", "februar"),
            ("mar", "march", "mär", "märz", "maerz", "mrz"),
            ("apr", "april"),
            ("may", "mai"),
            ("jun", "june", "juni"),
            ("jul", "july", "juli"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october", "okt", "oktober"),
            ("nov", "november"),
            ("dec", "december", "dez", "dezember"),
        ),
        start=1,
    )
    for m in names
}
_YMD = re.compile(r"^([0-9]{4})\s*[/.-]\s*([0-9]{1,2})\s*[/.-]\s*([0-9]{1,2})\.?$")
_DMY = re.compile(r"^([0-9]{1,2})\s*([/.-])\s*([0-9]{1,2})\s*[/.-]\s*([0-9]{4}|[0-9]{2})$")
_DMY_NAMED = re.compile(r"^([0-9]{1,2})\.?\s*([A-Za-zäÄ]+)\.?,?\s*([0-9]{4})$")
_MDY_NAMED = re.compile(r"^([A-Za-zäÄ]+)\.?\s*([0-9]{1,2})(?:st|nd|rd|th)?,?\s*([0-9]{4})$")
_HEADER_TAG = re.compile(r"[0-9]{2}2")
#: the points column: ASCII digits with at most one decimal point
_POINTS_TEXT = re.compile(r"[0-9]*\.?[0-9]+|[0-9]+\.", re.ASCII)
_COUNT = re.compile(r"^([0-9]+)\s*(?:\(\s*([0-9]+)\s*\))?$")


class TrfError(InputError):
    """One or more problems of a TRF file: ``problems`` holds ``(location, message)`` pairs,
    ``location`` being ``file:line:column`` (or ``file``); the first is ``location`` /
    ``message``, and ``str()`` lists every problem, one per line."""

    def __init__(
        self, location: str, message: str, problems: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(location, message)
        self.problems = problems or [(location, message)]
        #: problems found beyond those kept (:class:`ratingdb.budget.Problems`)
        self.more = more_of(self.problems)
        if len(self.problems) > 1 or self.more:
            lines = [f"{where}: {what}" for where, what in self.problems]
            self.args = ("\n".join(lines + more_line(self.more)),)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class RoundEntry:
    """One round of a player line: opponent start rank (0 = none), colour ``w``/``b``/``-``,
    the upper-case result code (``" "`` blank), and the 1-based column of the cell."""

    round: int
    opponent: int  # start rank; 0 = none
    colour: str  # "w", "b" or "-"
    code: str  # upper-case result code, " " for blank
    column: int

    @property
    def points(self) -> Decimal:
        """What the code scores for the player under the standard point values (byes
        included; ``=``/``+`` without an opponent are the old half- and full-point byes)."""
        return _POINTS.get(self.code, Decimal(0))

    def scored(self, scoring: dict[str, Decimal]) -> Decimal:
        """What the code scores under ``scoring`` (:func:`scoring_of`)."""
        return scoring[scoring_key(self.code, bool(self.opponent))]


@dataclass(frozen=True, slots=True)
class TeamRow:
    """A team of a team tournament as its TRF-2026 records give it: number, name, match and
    game points (``310``) and per round (opponent team number or a bye type such as ``ZPB``,
    ``w``/``b``, game points) from its ``802`` record."""

    number: int
    name: str
    match_points: str
    game_points: str
    rounds: tuple[tuple[str, str, str], ...]


def teams_of(records: Iterable[str]) -> list[TeamRow]:
    """The teams of a tournament's kept ``310`` and ``802`` records (none: an empty list),
    by team number; a record that cannot be read is left out (it is kept as it is)."""
    named: dict[int, tuple[str, str, str]] = {}
    rounds: dict[int, tuple[tuple[str, str, str], ...]] = {}
    for line in records:
        number = line[4:7].strip()
        if not (number.isascii() and number.isdigit()):
            continue
        if line[:3] == "310":
            named[int(number)] = (line[8:40].strip(), line[54:60].strip(), line[61:67].strip())
        elif line[:3] == "802":
            cells = []
            for start in range(28, len(line), 13):  # opponent at 29, colour 33, points 35-38
                cell = line[start : start + 11]
                cells.append((cell[0:3].strip(), cell[4:5].strip(), cell[6:10].strip()))
            rounds[int(number)] = tuple(cells)
    return [TeamRow(k, *named[k], rounds.get(k, ())) for k in sorted(named)]


def scoring_key(code: str, opponent: bool) -> str:
    """Which point value (:data:`SCORING_KEYS`) a round's code scores, as bbpPairings counts
    them: ``1 + W F`` a win (``+`` without an opponent: a pairing-allocated bye), ``= D H``
    a draw, ``0 L`` a loss, ``-`` a forfeit loss (without an opponent: an absence), ``Z``
    and blank a zero-point bye, ``U`` the pairing-allocated bye.

    >>> scoring_key("U", False), scoring_key("-", True), scoring_key("-", False)
    ('U', 'F', 'Z')
    """
    if code in ("1", "W", "F") or (code == "+" and opponent):
        return "W"
    if code in ("=", "D", "H"):
        return "D"
    if code in ("0", "L"):
        return "L"
    if code == "-" and opponent:
        return "F"
    if code in ("U", "+"):
        return "U"
    return "Z"


def scoring_of(records: Iterable[str], other: dict[str, str]) -> dict[str, Decimal]:
    """The point values of a tournament: the defaults, changed by its ``162`` header record
    (TRF-2026) and its ``BBW``…``BBU`` records (bbpPairings; a later record wins); the
    pairing-allocated bye scores a win unless a record sets it. Unreadable values are left
    out (:func:`parse` warns about them).

    >>> scoring_of(["BBU  0.5"], {})["U"], scoring_of(["BBW  3.0"], {"162": " W 3.0"})["U"]
    (Decimal('0.5'), Decimal('3.0'))
    """
    return _scoring(records, other)[0]


def _scoring(records: Iterable[str], other: dict[str, str]) -> tuple[dict[str, Decimal], list[str]]:
    """:func:`scoring_of` and the problems of its records (one text each)."""
    values: dict[str, Decimal] = {}
    problems = []
    for value in other.get("162", "").split("\n"):
        # code at 6, points at 7-10, every 9 columns; read by its words, as programs shift it
        words = value.split()
        for symbol, text in zip(words[::2], [*words[1::2], ""][: len(words[::2])], strict=True):
            if symbol == "X" and _SCORING_VALUE.fullmatch(text):
                continue  # an unknown result: no game ratingdb stores
            if symbol not in _TRF26_SCORING or not _SCORING_VALUE.fullmatch(text):
                problems.append(
                    _(
                        "record 162: %(symbol)r %(points)r is not a result code (W D L A P X) "
                        "with its points (11.5)"
                    )
                    % {"symbol": symbol[:5], "points": text[:10]}
                )
                continue
            for key in _TRF26_SCORING[symbol]:
                values[key] = Decimal(text)
    for line in records:
        if not _BB_TAG.fullmatch(line[:3]):
            continue
        text = line[3:].strip()
        if not _SCORING_VALUE.fullmatch(text):
            problems.append(
                _("record %(tag)s: points are not a number (pp.p): %(value)r")
                % {"tag": line[:3], "value": text[:20]}
            )
            continue
        values[line[2]] = Decimal(text)
    scoring = DEFAULT_SCORING | values
    scoring.setdefault("U", scoring["W"])
    return scoring, problems


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
    #: this player's records ratingdb keeps as they are and writes back after his ``001``
    #: line: national rating records of other federations, other programs' player records
    #: (Tornelo's ``DAT``); columns 5-8 hold his start rank
    kept: list[str] = field(default_factory=list)
    #: a chess computer (DSB XML ``###COMPUTER###``): a textual participant whose games
    #: are struck (WO 4.1.4); TRF itself has no such mark
    computer: bool = False

    @property
    def birth_year(self) -> int | None:
        if isinstance(self.birth, date):
            return self.birth.year
        return self.birth

    @property
    def byes(self) -> dict[int, str]:
        """Round -> code of every round without an opponent (H F U Z, ``-`` a forfeit
        without opponent, ``=``/``+`` old-style byes); blank rounds are left out."""
        return {e.round: e.code for e in self.rounds if not e.opponent and e.code != " "}


@dataclass(frozen=True, slots=True)
class TrfGame:
    round: int
    white: int  # start ranks
    black: int
    result: str  # stored result code (see the module docstring)
    #: False when the file gives no colours (a forfeit written ``-`` on both lines): then
    #: ``white`` is only the lower start rank, and the writer writes no colour either
    coloured: bool = True


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
    #: other ``??2`` records by tag; a repeated one (``112``: one line per deputy) holds its
    #: lines joined by a newline
    other: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: records kept as they are: team records (``013``, ``310``, TRF-2026 ``3xx``/``8xx``),
    #: JaVaFo's ``XX?`` and other numbered records ratingdb does not interpret
    records: list[str] = field(default_factory=list)
    #: lines that are no records (rulers, legends, program banners), kept as comments
    comments: list[str] = field(default_factory=list)
    #: the number of rated players when ``062`` says ``N (M)`` or ``072`` gives it
    rated_players: int | None = None

    @property
    def scoring(self) -> dict[str, Decimal]:
        """The point values the file sets (:func:`scoring_of`; the standard ones without)."""
        return scoring_of(self.records, self.other)

    def player(self, start_rank: int) -> TrfPlayer:
        for p in self.players:
            if p.start_rank == start_rank:
                return p
        raise KeyError(start_rank)


def decode(data: bytes, source: str, encoding: str = "utf-8") -> str:
    """Bytes to text; an undecodable byte, a NUL or a lone surrogate (``unicode_escape``
    makes them) is reported with its line and column."""
    if encoding.replace("-", "").lower() == "utf8" and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise TrfError(
            f"{source}:{line}:{column}",
            _(
                "byte 0x%(byte)02x is not valid %(encoding)s (give the file's encoding with "
                "--encoding, e.g. cp1252)"
            )
            % {"byte": data[err.start], "encoding": encoding},
        ) from None
    except UnicodeError as err:  # a codec that decodes nothing, e.g. "undefined"
        raise TrfError(
            source,
            _("encoding %(encoding)r cannot decode text: %(error)s")
            % {"encoding": encoding, "error": err},
        ) from None
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise TrfError(
            source, _("unknown encoding %(encoding)r") % {"encoding": encoding}
        ) from None
    bad = unsafe_place(text)
    if bad is not None:
        line, column, what = bad
        raise TrfError(f"{source}:{line}:{column}", _("%(what)s: not text") % {"what": what})
    return text


class _Report:
    """Problems and warnings of one file; the first problems are kept, the rest counted
    (:class:`ratingdb.budget.Problems`)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems = Problems()
        self.warnings: list[str] = []
        #: (start rank, round) of cells already reported: their pairings are not checked
        self.broken: set[tuple[int, int]] = set()
        #: player lines whose start rank could not be read (reported): a start rank that
        #: no line has may be theirs, so it is not reported again
        self.unnumbered = 0

    @property
    def count(self) -> int:
        """Every problem found so far, those beyond :data:`ratingdb.budget.MAX_PROBLEMS` too."""
        return self.problems.found

    def error(self, line: int | None, column: int | None, message: str) -> None:
        where = self.source
        if line is not None:
            where += f":{line}" + (f":{column}" if column is not None else "")
        self.problems.append((where, message))

    def warn(self, line: int | None, message: str) -> None:
        if line is not None:
            message = _("line %(line)d: %(message)s") % {"line": line, "message": message}
        self.warnings.append(message)

    def raise_if_any(self) -> None:
        if not self.problems:
            return
        problems = self.problems
        raise TrfError(problems[0][0], problems[0][1], problems)


class _Bad(Exception):
    """A field that cannot be read; the message is the user's."""


def parse(
    text: str,
    source: str = "<trf>",
    *,
    complete_rounds: bool = False,
    start: date | None = None,
    end: date | None = None,
) -> TrfTournament:
    """Parse and validate a TRF text.

    Every problem of the file is collected and raised together as one :class:`TrfError`
    (at most :data:`ratingdb.budget.MAX_PROBLEMS`, the rest counted); defects that touch no
    game (points or rank columns,
    sex, counts, round dates, repeated records, lines that are no records) are warnings in
    ``warnings``. With ``complete_rounds`` a round that is paired but has no results yet is
    left out (with a warning) instead of being an error. ``start``/``end`` replace the
    file's ``042``/``052`` (a file without them, such as a pairing program's, then reads)."""
    given = (start, end)
    rep = _Report(source)
    header: dict[str, tuple[str, int]] = {}
    repeated: dict[str, list[str]] = {}
    players: list[TrfPlayer] = []
    by_rank: dict[int, TrfPlayer] = {}
    national: list[NationalRecord] = []
    player_records: list[tuple[int, str, int]] = []  # (start rank, line, line number)
    meta: dict[str, str] = {}
    round_dates: list[tuple[int, date]] = []  # (round, date)
    records: list[str] = []
    comments: list[str] = []
    two_digit_years: list[TrfPlayer] = []  # DDMMYY birth dates
    team = False

    for number, raw in enumerate(text.splitlines(), start=1):
        check()  # the time budget of the upload (ratingdb/budget.py)
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if line.startswith("###"):
            m = re.match(r"^###\s*ratingdb\s+(\w+):\s*(.*?)\s*$", line)
            if m:
                meta[m.group(1)] = m.group(2)
            m = re.match(r"^### other (.+?): (.*)$", line)
            if m:  # a field of another format (SWI footer, XML UUIDs), as written below
                repeated.setdefault(m.group(1), []).append(m.group(2))
            continue
        tag = line[:3]
        kind = line_kind(line)
        if kind == "comment":
            comments.append(line)
            rep.warn(
                number,
                _("not a TRF record, kept as a comment: %(line)r") % {"line": line[:40].rstrip()},
            )
            continue
        if kind in ("001", "nrs") and "\t" in line:
            rep.error(number, line.index("\t") + 1, _("tab character in a fixed-column line"))
            continue
        if kind == "001":
            player = _player(line, number, rep)
            if player is None:
                continue
            if player.start_rank in by_rank:
                first = by_rank[player.start_rank].line
                rep.error(
                    number,
                    5,
                    _("duplicate start rank %(rank)d (also line %(line)d)")
                    % {"rank": player.start_rank, "line": first},
                )
                continue
            by_rank[player.start_rank] = player
            players.append(player)
            if _DDMMYY.fullmatch(_field(line, 70, 79)):
                two_digit_years.append(player)
        elif kind == "nrs" and tag in READ_NRS:
            rec = _national(line, number, rep)
            if rec is not None:
                national.append(rec)
        elif kind in ("nrs", "player record"):
            player_records.append((int(line[4:8]), line, number))
        elif kind == "team":
            team = True
            records.append(line)
        elif tag == "132":
            round_dates += _round_dates(line, number, rep)
        elif kind == "header":
            value = line[4:].strip()
            if tag == "162":
                for problem in _scoring([], {"162": line[4:]})[1]:
                    rep.warn(
                        number, _("%(problem)s (the standard value is used)") % {"problem": problem}
                    )
            if not value and tag in ("042", "052"):
                continue  # written but empty (JaVaFo's RTG): as if missing
            if tag in REPEATABLE:
                repeated.setdefault(tag, []).append(value)
                header.setdefault(tag, (value, number))
            elif tag in header:
                first_value, first_line = header[tag]
                if value == first_value:
                    continue
                if tag in _ESSENTIAL:
                    rep.error(
                        number,
                        5,
                        _(
                            "record %(tag)s (%(what)s) appears twice with different values "
                            "(also line %(line)d)"
                        )
                        % {"tag": tag, "what": _(_ESSENTIAL[tag]), "line": first_line},
                    )
                else:
                    rep.warn(
                        number,
                        _("record %(tag)s appears twice; the first (line %(line)d) is used")
                        % {"tag": tag, "line": first_line},
                    )
            else:
                header[tag] = (value, number)
        else:  # other numbered records, JaVaFo's XX? extensions, bbpPairings' BB?
            for problem in _scoring([line], {})[1]:
                rep.warn(
                    number, _("%(problem)s (the standard value is used)") % {"problem": problem}
                )
            records.append(line)

    name, name_line = header.get("012", ("", 0))
    if not name:
        rep.error(None, None, _("record 012 (tournament name) is missing"))
    elif len(name) > 200:
        rep.error(
            name_line,
            5,
            _("the tournament name has %(num)d characters (at most 200)") % {"num": len(name)},
        )
    start = given[0] or _header_date(header, "042", rep)
    end = given[1] or _header_date(header, "052", rep)
    dates = sorted(d for _, d in round_dates)
    if start is None and "042" not in header:
        start = dates[0] if dates else end
        if start is not None:
            missing = (
                _("record 042 (start date) is missing: %(date)s is used (the first round date)")
                if dates
                else _("record 042 (start date) is missing: %(date)s is used (the end date)")
            )
            rep.warn(None, missing % {"date": date_text(start)})
    if end is None and "052" not in header:
        end = dates[-1] if dates else start
        if end is not None:
            missing = (
                _("record 052 (end date) is missing: %(date)s is used (the last round date)")
                if dates
                else _("record 052 (end date) is missing: %(date)s is used (the start date)")
            )
            rep.warn(None, missing % {"date": date_text(end)})
    if start is None and end is None and "042" not in header and "052" not in header:
        rep.error(None, None, _("records 042 and 052 (start and end date) are missing"))
    _birth_century(two_digit_years, start)
    if start is not None and end is not None and end < start and not any(given):
        start, end = _year_first(header, rep, start, end)
    if start is not None and end is not None and end < start:
        rep.error(
            header.get("052", ("", None))[1],
            5,
            _("end date %(end)s is before the start date %(start)s")
            % {"end": date_text(end), "start": date_text(start)},
        )
    if not players and not rep.problems:
        rep.error(None, None, _("no player records (001)"))
    for rec in national:
        owner = by_rank.get(rec.start_rank)
        if owner is None and rep.unnumbered:
            continue  # perhaps the line whose start rank is reported unreadable
        if owner is None:
            rep.error(
                rec.line,
                5,
                _("%(federation)s record for start rank %(rank)d, which has no 001 line")
                % {"federation": rec.federation, "rank": rec.start_rank},
            )
        elif rec.federation in owner.national:
            rep.error(
                rec.line,
                1,
                _("second %(federation)s record for start rank %(rank)d")
                % {"federation": rec.federation, "rank": rec.start_rank},
            )
        else:
            owner.national[rec.federation] = rec
    for rank, line, number in player_records:
        if rank in by_rank:
            by_rank[rank].kept.append(line)
        else:
            rep.warn(
                number,
                _(
                    "%(tag)s record for start rank %(rank)d, which has no 001 line: kept as a "
                    "record of the tournament"
                )
                % {"tag": line[:3], "rank": rank},
            )
            records.append(line)
    rated = _counts(header, len(players), rep)
    tournament = TrfTournament(
        source=source,
        name=name,
        start=start or date.min,
        end=end or date.min,
        city=header.get("022", ("", 0))[0],
        federation=header.get("032", ("", 0))[0],
        type=header.get("092", ("", 0))[0],
        arbiter=header.get("102", ("", 0))[0],
        time_control=header.get("122", ("", 0))[0],
        round_dates=[d for _, d in sorted(round_dates)],
        players=players,
        team=team or meta.get("kind") == "team",
        meta=meta,
        other={t: v for t, (v, _) in header.items() if t not in _KNOWN}
        | {t: "\n".join(v) for t, v in repeated.items() if t != "132"},
        records=records,
        comments=comments,
        rated_players=rated,
    )
    _pending_rounds(tournament, rep, complete_rounds)
    _placeholders(tournament, by_rank, rep)
    tournament.games = _games(tournament, by_rank, rep)
    _duplicate_ids(tournament, rep)
    _unwritten_byes(tournament, rep)
    _points_column(tournament, rep)
    rep.raise_if_any()
    tournament.warnings = rep.warnings
    return tournament


_KNOWN = {"012", "022", "032", "042", "052", "062", "072", "092", "102", "122", "132"}


def line_kind(line: str) -> str:
    """What a line is: ``001``, ``nrs``, ``team``, ``header`` (``??2``), ``record`` (other
    numbered or ``XX?`` records) or ``comment`` (rulers, legends: no record at all)."""
    tag = line[:3]
    sep = line[3:4] in ("", " ")
    rank = line[4:8].strip()
    if tag == "001":
        # a ruler or legend ("001 SSSS sTTT NNNN...") has letters where the start rank is
        return "comment" if rank and not rank.isdigit() and rank.isalpha() else "001"
    if tag in ("013", "310") and sep:
        return "team"
    if re.fullmatch(r"[0-3][0-9]2", tag) and sep:
        return "header"
    if tag.startswith("XX") and tag.isalpha():
        return "record"
    if _BB_TAG.fullmatch(tag) and sep:
        return "record"  # bbpPairings' point values (:func:`scoring_of`)
    if _NRS_TAG.match(tag) and sep and rank.isdigit() and rank.isascii():
        return "nrs" if tag in FIDE_FEDERATIONS else "player record"
    if tag.isdigit() and sep:
        return "record"
    return "comment"


def _header_date(header: dict[str, tuple[str, int]], tag: str, rep: _Report) -> date | None:
    value = header.get(tag)
    if value is None:
        return None
    try:
        return parse_date(value[0])
    except _Bad as err:
        rep.error(value[1], 5, str(err))
        return None


def _counts(header: dict[str, tuple[str, int]], players: int, rep: _Report) -> int | None:
    """``062`` (``N`` or ``N (M)``, Swiss-Manager) and ``072``: warnings only."""
    rated = None
    for tag, what in (("062", N_("number of players")), ("072", N_("number of rated players"))):
        if tag not in header or not header[tag][0]:
            continue
        value, line = header[tag]
        m = _COUNT.match(value)
        try:
            if m is None:
                whole_number(value, PLAYER_COUNT, what)  # raises: says why it is none
            assert m is not None
            count = whole_number(m.group(1), PLAYER_COUNT, what)
            second = whole_number(m.group(2), PLAYER_COUNT, what) if m.group(2) else None
        except NotANumber as err:
            rep.warn(line, _("%(error)s (ignored)") % {"error": err})
            continue
        if tag == "062":
            if count != players:
                rep.warn(
                    line,
                    _("062 says %(count)d players, the file has %(players)d")
                    % {"count": count, "players": players},
                )
            if second is not None:
                rated = second
        elif rated is None:
            rated = count
    return rated


def parse_date(value: str) -> date:
    """A date as programs write it: ``2005/07/28``, ``2005-07-28``, ``2005.07.28``,
    ``28.07.2005``, ``28. 07. 2005``, ``28/07/2005`` (day first; month first only when the
    day cannot be a month), ``28-07-05``, ``May 29, 2020``, ``29 May 2020``, ``29. Mai
    2020``. Raises :class:`_Bad` with the user's message."""
    text = value.strip()
    try:
        m = _YMD.match(text)
        if m:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        m = _DMY.match(text)
        if m:
            a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
            if len(m.group(4)) == 2:
                year += 2000 if year < 70 else 1900
            day, month = (b, a) if m.group(2) == "/" and b > 12 >= a else (a, b)
            return date(year, month, day)
        m = _DMY_NAMED.match(text)
        if m and m.group(2).lower() in _MONTHS:
            return date(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
        m = _MDY_NAMED.match(text)
        if m and m.group(1).lower() in _MONTHS:
            return date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    except ValueError as e:
        raise _Bad(
            _("not a date: %(value)r (%(error)s)") % {"value": value, "error": _date_error(e)}
        ) from None
    raise _Bad(_("not a date (expected YYYY/MM/DD): %(value)r") % {"value": value})


#: Python's reasons for a date it cannot make (``datetime.date``), in the catalogs
_DATE_ERRORS = {
    "month must be in 1..12": N_("month must be in 1..12"),
    "day is out of range for month": N_("day is out of range for month"),
}
_YEAR_ERROR = re.compile(r"year (-?[0-9]+) is out of range")


def _date_error(error: Exception) -> str:
    """Why a date is none, in the language in force: Python's reason for ``date()`` (the
    known ones translated, another as it is) or the reader's own (:class:`_Bad`)."""
    text = str(error)
    if text in _DATE_ERRORS:
        return _(_DATE_ERRORS[text])
    year = _YEAR_ERROR.fullmatch(text)
    if year:
        return _("year %(year)s is out of range") % {"year": year.group(1)}
    return text


def _field(line: str, first: int, last: int) -> str:
    return line[first - 1 : last].strip()


def _int_field(
    line: str, first: int, last: int, limits: Range, what: str | None = None
) -> int | None:
    """The number at ``first``-``last`` (:func:`~ratingdb.io.numbers.optional_number`: empty
    or zeros are None)."""
    try:
        return optional_number(_field(line, first, last), limits, what)
    except NotANumber as err:
        raise _Bad(str(err)) from None


def _birth(value: str) -> date | int | None:
    """A birth date, or only its year (``YYYY``, ``YYYY/00/00``); year 0000 is unknown.
    ``DDMMYY`` (six digits: the Italian open in JaVaFo's manual) is read in the 1900s;
    :func:`_birth_century` moves it to the 2000s when that is not after the tournament."""
    if not value:
        return None
    blank = _BLANK_BIRTH.fullmatch(value)  # "1975.  ." (year only), ".  ." (nothing)
    if blank:
        value = blank.group(1) or ""
        if not value:
            return None
    short = _DDMMYY.fullmatch(value)
    if short:
        day, month, year = (int(x) for x in short.groups())
        try:
            return date(1900 + year, month, day)
        except ValueError as e:
            raise _Bad(
                _("not a date (DDMMYY): %(value)r (%(error)s)")
                % {"value": value, "error": _date_error(e)}
            ) from None
    m = re.fullmatch(r"([0-9]{4})(?:[/.-]00[/.-]00)?", value)
    if m:
        if m.group(1) == "0000":
            return None
        return _birth_year(m.group(1))
    born = parse_date(value)
    _birth_year(str(born.year))
    return born


def _birth_year(text: str) -> int:
    try:
        return whole_number(text, BIRTH_YEAR)
    except NotANumber as err:
        raise _Bad(str(err)) from None


_DDMMYY = re.compile(r"([0-9]{2})([0-9]{2})([0-9]{2})")
#: a birth date with its month and day (and perhaps its year) left blank
_BLANK_BIRTH = re.compile(r"([0-9]{4})?\s*[/.-]\s*[/.-]?\s*")
#: ``YY.MM.DD`` (an Irish league file: ``042 10.09.13`` is 13 September 2010)
_YYMMDD = re.compile(r"([0-9]{2})\.([0-9]{2})\.([0-9]{2})")


def _year_first(
    header: dict[str, tuple[str, int]], rep: _Report, start: date, end: date
) -> tuple[date, date]:
    """``042``/``052`` as ``YY.MM.DD`` when read day first they end before they start and
    year first they do not (``10.09.13`` to ``11.03.13``: a league from September 2010 to
    March 2011, not 10 September 2013 to 11 March 2013)."""
    found = [_YYMMDD.fullmatch(header[tag][0]) if tag in header else None
             for tag in ("042", "052")]  # fmt: skip
    if not all(found):
        return start, end
    try:
        first, last = (date(2000 + int(m[1]), int(m[2]), int(m[3])) for m in found if m)
    except ValueError:
        return start, end
    if first > last:
        return start, end
    rep.warn(
        header["042"][1],
        _(
            "042/052 read as YY.MM.DD (%(first)s to %(last)s): day first the tournament would "
            "end before it starts"
        )
        % {"first": date_text(first), "last": date_text(last)},
    )
    return first, last


def _birth_century(players: list[TrfPlayer], start: date | None) -> None:
    """``players``' ``DDMMYY`` birth dates (read in the 1900s) move to the 2000s when that
    date is not after the tournament's start: 12.02.42 in a 2012 open is 1942, 03.03.05
    is 2005."""
    for p in players:
        if start is None or not isinstance(p.birth, date):
            continue
        try:
            later = p.birth.replace(year=p.birth.year + 100)
        except ValueError:  # 29 February
            continue
        if later <= start:
            p.birth = later


def _read(rep: _Report, number: int, column: int, read, default=None):  # type: ignore[no-untyped-def]
    """``read()``, or ``default`` after reporting its problem at ``number:column``."""
    try:
        return read()
    except _Bad as err:
        rep.error(number, column, str(err))
        return default


def _player(line: str, number: int, rep: _Report) -> TrfPlayer | None:
    before = rep.count
    start_rank = _read(rep, number, 5, lambda: _int_field(line, 5, 8, START_RANK))
    if not start_rank:
        if rep.count == before:
            rep.error(number, 5, _("a player line needs a start rank 1..9999"))
        rep.unnumbered += 1
        return None
    sex = _field(line, 10, 10).lower()
    if sex not in ("", "m", "w", "f"):
        rep.warn(number, _("column 10: sex is m or w, got %(value)r (ignored)") % {"value": sex})
        sex = ""
    name = _field(line, 15, 47)
    if not name:
        rep.error(number, 15, _("the player's name is empty"))
    points_text = _field(line, 81, 84).replace(",", ".")
    points: Decimal | None = None
    try:
        if points_text and not _POINTS_TEXT.fullmatch(points_text):
            raise InvalidOperation  # Decimal() would read other scripts' digits, exponents
        points = Decimal(points_text) if points_text else None
    except InvalidOperation:
        rep.warn(
            number,
            _("column 81: points are not a number: %(value)r (ignored)") % {"value": points_text},
        )
    # bounded before any arithmetic: 9E99 * 2 % 1 exceeds the decimal context (66 of
    # 157,000 fuzzed files raised InvalidOperation here)
    if points is not None and (
        not points.is_finite() or not 0 <= points <= MAX_POINTS or points * 2 % 1
    ):
        rep.warn(
            number,
            _("column 81: points are not a number of half points: %(value)r")
            % {"value": points_text},
        )
        points = None
    rank = None
    try:
        rank = _int_field(line, 86, 89, START_RANK, N_("rank"))
    except _Bad as err:
        rep.warn(number, _("column %(column)d: %(error)s (ignored)") % {"column": 86, "error": err})
    rating = _read(rep, number, 49, lambda: _int_field(line, 49, 52, RATING, N_("FIDE rating")))
    fide_id = _read(rep, number, 58, lambda: _int_field(line, 58, 68, FIDE_ID))
    # no rating needs the birth date, federation or title from the file (a member's come
    # from the member list): unreadable, implausible or shifted, they are warnings, left empty
    birth: date | int | None = None
    try:
        birth = _birth(_field(line, 70, 79))
    except _Bad as err:
        rep.warn(
            number, _("column %(column)d: %(error)s (left empty)") % {"column": 70, "error": err}
        )
    federation = _field(line, 54, 56)
    if federation and not _FEDERATION.fullmatch(federation):
        rep.warn(
            number,
            _("column 54: a federation is 3 letters, got %(value)r (left empty)")
            % {"value": federation},
        )
        federation = ""
    title = _field(line, 11, 13)
    if title and not _TITLE.fullmatch(title):
        rep.warn(
            number,
            _("column 11: a title is letters, got %(value)r (left empty)") % {"value": title},
        )
        title = ""
    for gap, field_name in _shifted(line):
        shifted = {"column": gap, "field": _(field_name)}
        if field_name in ("FIDE rating", "FIDE id"):
            rep.error(
                number,
                gap,
                _(
                    "column %(column)d should be blank: the %(field)s runs into it (shifted "
                    "columns?)"
                )
                % shifted,
            )
        else:
            rep.warn(
                number,
                _(
                    "column %(column)d should be blank: the %(field)s runs into it (shifted "
                    "columns?); left empty"
                )
                % shifted,
            )
            if field_name == "birth date":
                birth = None
            elif field_name == "federation":
                federation = ""
    rounds = _rounds(line, number, rep, start_rank)
    return TrfPlayer(
        start_rank=start_rank,
        sex={"w": "f"}.get(sex, sex),
        title=title,
        name=name,
        rating=rating or None,
        federation=federation,
        fide_id=fide_id or None,
        birth=birth,
        points=points,
        rank=rank,
        rounds=rounds,
        line=number,
    )


_FEDERATION = re.compile(r"[A-Za-z]{3}")
_TITLE = re.compile(r"[A-Za-z]{1,3}")


def _shifted(line: str) -> list[tuple[int, str]]:
    """The blank columns between the fields of a ``001`` line that hold a character, and
    the field that runs into each (a field written a column or two off its place): the FIDE
    rating into 53, the federation into 57 (or the FIDE id, when digits meet there), the
    FIDE id or the birth date into 69, the birth date into 80."""
    found = []

    def at(column: int) -> str:
        return line[column - 1 : column]

    rating, federation, fide_id, birth = (
        N_("FIDE rating"), N_("federation"), N_("FIDE id"), N_("birth date")
    )  # fmt: skip
    if at(53).strip():
        found.append((53, rating if at(53).isdigit() and at(52).isdigit() else federation))
    if at(57).strip():
        found.append((57, fide_id if at(57).isdigit() and at(58).isdigit() else federation))
    if at(69).strip():
        found.append((69, fide_id if at(69).isdigit() and at(68).isdigit() else birth))
    if at(80).strip():
        found.append((80, birth))
    return found


def _words(cell: str) -> tuple[str, str, str] | None:
    """A round cell whose parts are not at their columns, read by its words: ``0 - H``,
    ``12 w 1``, ``12 1`` (no colour), ``U`` (a bye without opponent or colour); None when
    the words make no cell."""
    words = cell.split()
    number = words[0] if words and words[0].isascii() and words[0].isdigit() else ""
    rest = words[1:] if number else words
    if len(rest) == 2 and rest[0].lower() in ("w", "b", "-") and len(rest[1]) == 1:
        return number, rest[0].lower(), rest[1].upper()
    if len(rest) == 1 and len(rest[0]) == 1 and (number or not rest[0].isdigit()):
        return number, "-", rest[0].upper()
    return None


def _rounds(line: str, number: int, rep: _Report, start_rank: int) -> list[RoundEntry]:
    """The round cells from column 92, every 10 columns. A cell is read at its fixed
    columns (opponent 92-95, colour 97, result 99); one whose parts are shifted inside its
    ten columns (``0 - H``) is read by its words."""
    rounds = []
    column = 92

    def error(col: int, message: str) -> None:
        rep.error(number, col, message)
        rep.broken.add((start_rank, (column - 92) // 10 + 1))

    while column <= len(line):
        rnd = (column - 92) // 10 + 1
        cell = line[column - 1 : column + 9]
        opponent_text = cell[0:4].strip()
        colour = (cell[5:6] or " ").lower()
        code = (cell[7:8] or " ").upper()
        rest = cell[4:5] + cell[6:7] + cell[8:]
        fixed = (not opponent_text or opponent_text.isdigit()) and not rest.strip()
        if not fixed:
            words = _words(cell)
            if words is None:
                error(
                    column,
                    _(
                        "round %(round)d: cannot read the cell %(cell)r (expected opponent at 92, "
                        "colour at 97, result at 99, every 10 columns)"
                    )
                    % {"round": rnd, "cell": cell.rstrip()},
                )
                column += 10
                continue
            opponent_text, colour, code = words
        column_code, column_colour = column + 7, column + 5
        if opponent_text and not (opponent_text.isascii() and opponent_text.isdigit()):
            error(
                column,
                _("round %(round)d: opponent is not a start rank: %(value)r")
                % {"round": rnd, "value": opponent_text},
            )
            column += 10
            continue
        opponent = int(opponent_text) if opponent_text else 0
        if colour not in ("w", "b", "-", " "):
            error(
                column_colour,
                _("round %(round)d: colour is w, b or -, got %(value)r")
                % {"round": rnd, "value": colour},
            )
            column += 10
            continue
        if code == "*":
            code = " "  # TRF-2026: no result yet (paired: see _pending_rounds)
        if code not in PLAYED | FORFEIT | UNRATED | BYES:
            error(
                column_code,
                _("round %(round)d: unknown result code %(code)r") % {"round": rnd, "code": code},
            )
            column += 10
            continue
        if opponent and code == "Z":
            code = " "  # lichess writes Z for a game still being played: a pending pairing
        if opponent and code in BYES - {" "}:
            error(
                column_code,
                _(
                    "round %(round)d: result %(code)r is a bye, but an opponent (%(opponent)d) "
                    "is given"
                )
                % {"round": rnd, "code": code, "opponent": opponent},
            )
        elif not opponent and code in {"1", "0"} | UNRATED:
            error(
                column_code,
                _("round %(round)d: result %(code)r needs an opponent")
                % {"round": rnd, "code": code},
            )
        elif opponent and code in PLAYED | UNRATED and colour not in ("w", "b"):
            error(
                column_colour,
                _("round %(round)d: a played game needs colour w or b") % {"round": rnd},
            )
        else:
            rounds.append(RoundEntry(rnd, opponent, "-" if colour == " " else colour, code, column))
        column += 10
    return rounds


def _national(line: str, number: int, rep: _Report) -> NationalRecord | None:
    before = rep.count
    start_rank = _read(rep, number, 5, lambda: _int_field(line, 5, 8, START_RANK))
    rating = _read(rep, number, 49, lambda: _int_field(line, 49, 52, RATING, N_("national rating")))
    birth: date | int | None = None
    try:
        birth = _birth(_field(line, 70, 79))
    except _Bad as err:  # the 001 line's counts; this one only repeats it
        rep.warn(
            number, _("column %(column)d: %(error)s (left empty)") % {"column": 70, "error": err}
        )
    if rep.count != before or not start_rank:
        if not start_rank and rep.count == before:
            rep.error(number, 5, _("a national rating record needs the start rank of its 001 line"))
        return None
    return NationalRecord(
        federation=line[:3],
        start_rank=start_rank,
        rating=rating or None,
        origin=_field(line, 54, 56),
        number=_field(line, 58, 68),
        name=_field(line, 15, 47),
        birth=birth,
        line=number,
    )


def _round_dates(line: str, number: int, rep: _Report) -> list[tuple[int, date]]:
    """``132``: dates at columns 92, 102, ... (``YY/MM/DD`` or any form of
    :func:`parse_date`); TRF-2026 files of some programs write one ``132 YYYY/MM/DD`` line
    per round instead. A date that is no date is a warning (round dates touch no game)."""
    lead = line[4:91].strip()
    if lead:
        try:
            return [(10_000 + number, parse_date(lead))]  # sorted by line after fixed ones
        except _Bad as err:
            rep.warn(number, _("column 5: round date %(error)s (ignored)") % {"error": err})
            return []
    dates = []
    # each date belongs to the 10-column slot it starts in; Sharly-Chess writes its dates
    # one column later than the format (93, 103, ...), so a slot is 92 ± 4, not 92 exactly
    for m in re.finditer(r"\S+", line[87:]):
        column, value = m.start() + 88, m.group()
        slot = (column - 92 + 4) // 10
        short = re.fullmatch(r"([0-9]{2})/([0-9]{2})/([0-9]{2})", value)
        try:
            if short:
                day = date(2000 + int(short.group(1)), int(short.group(2)), int(short.group(3)))
            else:
                day = parse_date(value)
            dates.append((slot + 1, day))
        except (ValueError, _Bad) as e:
            rep.warn(
                number,
                _("column %(column)d: round date is not a date: %(value)r (%(error)s) (ignored)")
                % {"column": column, "value": value, "error": _date_error(e)},
            )
    return dates


def _pending_rounds(t: TrfTournament, rep: _Report, drop: bool) -> None:
    """Rounds with pairings that have no result yet (blank or ``*`` against an opponent):
    one error per round, or (``drop``) the round is left out with a warning."""
    pending: dict[int, list[tuple[TrfPlayer, RoundEntry]]] = {}
    for p in t.players:
        for e in p.rounds:
            if e.opponent and e.code == " ":
                pending.setdefault(e.round, []).append((p, e))
    for rnd, entries in sorted(pending.items()):
        pairs = len({frozenset((p.start_rank, e.opponent)) for p, e in entries})
        p, e = entries[0]
        if drop:
            rep.warn(
                None,
                ngettext(
                    "round %(round)d has %(num)d pairing without a result: the round is left out",
                    "round %(round)d has %(num)d pairings without a result: the round is left out",
                    pairs,
                )
                % {"round": rnd, "num": pairs},
            )
            for q in t.players:
                q.rounds = [x for x in q.rounds if x.round != rnd]
        else:
            rep.error(
                p.line,
                e.column,
                ngettext(
                    "round %(round)d is paired but has no results yet (%(num)d pairing without "
                    "a result, e.g. %(rank)d against %(opponent)d); import the complete rounds "
                    "with --complete-rounds",
                    "round %(round)d is paired but has no results yet (%(num)d pairings without "
                    "a result, e.g. %(rank)d against %(opponent)d); import the complete rounds "
                    "with --complete-rounds",
                    pairs,
                )
                % {"round": rnd, "num": pairs, "rank": p.start_rank, "opponent": e.opponent},
            )


#: names programs give the opponent of a bye (SwissChess and Swiss-Manager team files)
PLACEHOLDERS = {"spielfrei", "freilos", "bye"}
#: a game against the placeholder -> the bye it is: by the player's points
_PLACEHOLDER_BYE = {Decimal(1): "U", Decimal("0.5"): "H", Decimal(0): "Z"}


def _placeholders(t: TrfTournament, by_rank: dict[int, TrfPlayer], rep: _Report) -> None:
    """A player named like "spielfrei" (no FIDE id, no rating) is no participant: his games
    become byes of his opponents (U for a point, H for a half, Z for none) and he is left
    out, with a warning."""
    for fake in [
        p
        for p in t.players
        if re.sub(r"[^a-z]", "", p.name.lower()) in PLACEHOLDERS and not p.fide_id and not p.rating
    ]:
        changed = 0
        for p in t.players:
            for k, e in enumerate(p.rounds):
                if e.opponent == fake.start_rank:
                    code = _PLACEHOLDER_BYE.get(e.points, "Z")
                    p.rounds[k] = RoundEntry(e.round, 0, "-", code, e.column)
                    changed += 1
        t.players.remove(fake)
        del by_rank[fake.start_rank]
        rep.warn(
            fake.line,
            ngettext(
                "%(name)r (start rank %(rank)d) is a placeholder, not a player: left out, "
                "%(num)d game against it read as a bye",
                "%(name)r (start rank %(rank)d) is a placeholder, not a player: left out, "
                "%(num)d games against it read as byes",
                changed,
            )
            % {"name": fake.name, "rank": fake.start_rank, "num": changed},
        )


def _games(t: TrfTournament, by_rank: dict[int, TrfPlayer], rep: _Report) -> list[TrfGame]:
    """One game per pairing, checked from both sides; each broken pairing is reported once."""
    games = []
    reported: set[tuple[int, frozenset[int]]] = set()
    for p in t.players:
        for entry in p.rounds:
            q = by_rank.get(entry.opponent)
            if entry.opponent and q is None and rep.unnumbered:
                rep.broken.add((p.start_rank, entry.round))  # perhaps the unreadable line
            elif entry.opponent and (q is None or q is p):
                out = (
                    _("round %(round)d: opponent %(opponent)d is out of range (himself)")
                    if q is p
                    else _(
                        "round %(round)d: opponent %(opponent)d is out of range (no player with "
                        "that start rank)"
                    )
                )
                rep.error(
                    p.line, entry.column, out % {"round": entry.round, "opponent": entry.opponent}
                )
                rep.broken.add((p.start_rank, entry.round))
    for p in t.players:
        for entry in p.rounds:
            q = by_rank.get(entry.opponent)
            if not entry.opponent or entry.code == " " or q is None or q is p:
                continue  # no game, a pending pairing (see _pending_rounds), out of range
            if {(p.start_rank, entry.round), (q.start_rank, entry.round)} & rep.broken:
                continue  # the broken cell is reported already
            other = next((e for e in q.rounds if e.round == entry.round), None)
            ok = (
                other is not None
                and other.opponent == p.start_rank
                and other.code in _MIRROR.get(entry.code, set())
                and {entry.colour, other.colour} in ({"w", "b"}, {"-"})
            )
            if not ok:
                key = (entry.round, frozenset((p.start_rank, q.start_rank)))
                if key in reported:
                    continue
                reported.add(key)
                if other is not None and other.opponent and other.opponent != p.start_rank:
                    reported.add((entry.round, frozenset((q.start_rank, other.opponent))))
                theirs = (
                    _("no entry")
                    if other is None
                    else _("opponent %(opponent)d, colour %(colour)s, result %(code)r")
                    % {"opponent": other.opponent, "colour": other.colour, "code": other.code}
                )
                facts = {
                    "round": entry.round,
                    "rank": p.start_rank,
                    "opponent": q.start_rank,
                    "code": entry.code,
                    "line": q.line,
                    "theirs": theirs,
                }
                if entry.colour == "w":
                    text = _(
                        "asymmetric pairing in round %(round)d: %(rank)d says he played "
                        "%(opponent)d as white with result %(code)r, but line %(line)d of "
                        "%(opponent)d says %(theirs)s"
                    )
                elif entry.colour == "b":
                    text = _(
                        "asymmetric pairing in round %(round)d: %(rank)d says he played "
                        "%(opponent)d as black with result %(code)r, but line %(line)d of "
                        "%(opponent)d says %(theirs)s"
                    )
                else:
                    text = _(
                        "asymmetric pairing in round %(round)d: %(rank)d says he played "
                        "%(opponent)d with result %(code)r, but line %(line)d of %(opponent)d "
                        "says %(theirs)s"
                    )
                rep.error(p.line, entry.column, text % facts)
                continue
            assert other is not None  # ok implies it
            white_first = entry.colour == "w" or (
                entry.colour == "-" and p.start_rank < q.start_rank
            )
            if white_first:
                result = _RESULT[(entry.code, other.code)]
                coloured = entry.colour != "-"
                games.append(TrfGame(entry.round, p.start_rank, q.start_rank, result, coloured))
    games.sort(key=lambda g: (g.round, g.white))
    return games


def _duplicate_ids(t: TrfTournament, rep: _Report) -> None:
    """One person, one start rank: a FIDE id or GER number given twice is an error – unless
    one of the two start ranks played no game (a real defect of real files, touching no
    game): then that one's id is dropped with a warning."""
    played = [g for g in t.games if g.result not in ("+-", "-+", "--")]
    playing = {g.white for g in played} | {g.black for g in played}
    seen: dict[tuple[str, object], TrfPlayer] = {}
    for p in t.players:
        keys: list[tuple[str, object, int, int]] = []
        if p.fide_id:
            keys.append((N_("FIDE id"), p.fide_id, p.line, 58))
        ger = p.national.get("GER")
        if ger is not None and ger.number:
            keys.append((N_("GER number"), ger.number, ger.line, 58))
        for kind, value, line, column in keys:
            first = seen.get((kind, value))
            if first is None:
                seen[(kind, value)] = p
                continue
            idle = next((x for x in (p, first) if x.start_rank not in playing), None)
            if idle is None:
                rep.error(
                    line,
                    column,
                    _("%(kind)s %(value)s of start rank %(rank)d is also start rank %(other)d's")
                    % {"kind": _(kind), "value": value, "rank": p.start_rank,
                       "other": first.start_rank},
                )  # fmt: skip
                continue
            rep.warn(
                idle.line,
                _(
                    "%(kind)s %(value)s is given to start ranks %(first)d and %(second)d; "
                    "%(idle)d played no game and is imported without it"
                )
                % {"kind": _(kind), "value": value, "first": first.start_rank,
                   "second": p.start_rank, "idle": idle.start_rank},
            )  # fmt: skip
            if kind == "FIDE id":
                idle.fide_id = None
            else:
                idle.national["GER"].number = ""
            seen[(kind, value)] = p if idle is first else first


def _unwritten_byes(t: TrfTournament, rep: _Report) -> None:
    """Rounds without opponent and result (``0000 -  ``, ``      -  ``) that the player's
    points column counts are byes the program did not write: read as half-point (``H``) or
    full-point (``F``) byes when the column exceeds the results by exactly half or one
    point for each such round (the Irish files written for the ICU; its own reader does
    the same). A round the line does not reach counts as such a round too (a line that
    ends early and one that writes ``-`` to the last round read the same). Any other
    difference is left to :func:`_points_column`'s warning."""
    named = []
    last = max((e.round for p in t.players for e in p.rounds), default=0)
    scoring = t.scoring
    for p in t.players:
        present = {e.round for e in p.rounds}
        blank = [i for i, e in enumerate(p.rounds) if not e.opponent and e.code == " "]
        absent = [r for r in range(1, last + 1) if r not in present]
        if p.points is None or not (blank or absent):
            continue
        missing = p.points - sum((e.scored(scoring) for e in p.rounds), Decimal(0))
        for code, each in (("H", scoring["D"]), ("F", scoring["W"])):
            if each and missing == each * (len(blank) + len(absent)):
                filled = sorted([p.rounds[i].round for i in blank] + absent)
                for i in blank:
                    p.rounds[i] = replace(p.rounds[i], code=code)
                p.rounds += [RoundEntry(r, 0, "-", code, 0) for r in absent]
                p.rounds.sort(key=lambda e: e.round)
                rounds = ", ".join(str(r) for r in filled)
                named.append(
                    ngettext(
                        "%(rank)d %(name)s (%(code)s in round %(rounds)s)",
                        "%(rank)d %(name)s (%(code)s in rounds %(rounds)s)",
                        len(filled),
                    )
                    % {"rank": p.start_rank, "name": p.name, "code": code, "rounds": rounds}
                )
                break
    if named:
        rep.warn(
            None,
            ngettext(
                "rounds without a result that the points column counts are read as byes for "
                "%(num)d player: %(players)s",
                "rounds without a result that the points column counts are read as byes for "
                "%(num)d players: %(players)s",
                len(named),
            )
            % {"num": len(named), "players": _first_ten(named)},
        )


def _first_ten(named: list[str]) -> str:
    """The first ten of ``named``, and how many more there are."""
    shown = ", ".join(named[:10])
    if len(named) <= 10:
        return shown
    return _("%(shown)s and %(num)d more") % {"shown": shown, "num": len(named) - 10}


def _points_column(t: TrfTournament, rep: _Report) -> None:
    """A warning naming the players whose points column differs from their results."""
    differ = []
    scoring = t.scoring
    for p in t.players:
        if p.points is None:
            continue
        scored = sum((e.scored(scoring) for e in p.rounds), Decimal(0))
        if scored != p.points:
            differ.append(
                _("%(rank)d %(name)s (file %(file)s, results %(results)s)")
                % {"rank": p.start_rank, "name": p.name, "file": decimal(p.points, 1),
                   "results": decimal(scored, 1)}
            )  # fmt: skip
    if differ:
        rep.warn(
            None,
            ngettext(
                "the points column differs from the results for %(num)d player: %(players)s",
                "the points column differs from the results for %(num)d players: %(players)s",
                len(differ),
            )
            % {"num": len(differ), "players": _first_ten(differ)},
        )


# -- writing -------------------------------------------------------------------------------


def _cols(parts: Iterable[tuple[int, str]]) -> str:
    """Place strings at 1-based columns."""
    out: list[str] = []
    for column, value in parts:
        if len(out) < column - 1:
            out.extend(" " * (column - 1 - len(out)))
        out[column - 1 : column - 1 + len(value)] = list(value)
    return "".join(out).rstrip()


def _date_text(day: date) -> str:
    """``YYYY/MM/DD`` with four digits of the year for every date (``strftime("%Y")`` writes
    the year 1 as ``1``, which no reader takes back).

    >>> _date_text(date(1, 1, 3)), _date_text(date(2026, 11, 21))
    ('0001/01/03', '2026/11/21')
    """
    return f"{day.year:04d}/{day.month:02d}/{day.day:02d}"


def _birth_text(birth: date | int | None) -> str:
    if birth is None:
        return ""
    if isinstance(birth, date):
        return _date_text(birth)
    return f"{birth:04d}/00/00"


def _points_text(points: Decimal) -> str:
    return f"{points:.1f}".rjust(4)


_Entries = dict[int, dict[int, tuple[int, str, str]]]


def _entries(t: TrfTournament) -> tuple[int, _Entries]:
    """The number of rounds and, per start rank and round, (opponent, colour, code)."""
    rounds = max([g.round for g in t.games] + [r for p in t.players for r in p.byes], default=0)
    entries: _Entries = {p.start_rank: {} for p in t.players}
    for g in t.games:
        white_code, black_code = _CODES[g.result]
        colours = ("w", "b") if g.coloured else ("-", "-")
        entries[g.white][g.round] = (g.black, colours[0], white_code)
        entries[g.black][g.round] = (g.white, colours[1], black_code)
    return rounds, entries


def _round_cells(
    p: TrfPlayer, rounds: int, entries: _Entries, scoring: dict[str, Decimal]
) -> tuple[list[tuple[int, str]], Decimal]:
    """A player line's round cells (a round without game or bye is ``0000 - Z`` for a
    player read from no file, else blank) and the points they score, byes included."""
    cells: list[tuple[int, str]] = []
    points = Decimal(0)
    byes = p.byes
    blank = (0, "-", "Z") if not p.rounds else (0, " ", " ")
    for rnd in range(1, rounds + 1):
        bye = (0, "-", byes[rnd]) if rnd in byes else blank
        opp, colour, code = entries[p.start_rank].get(rnd, bye)
        points += scoring[scoring_key(code, bool(opp))]
        base = 92 + 10 * (rnd - 1)
        number = f"{opp:4d}" if opp else ("0000" if code != " " else "")
        cells += [(base, number), (base + 5, colour), (base + 7, code)]
    return cells, points


def scored_points(t: TrfTournament) -> dict[int, Decimal]:
    """Per start rank the points of what :func:`write` writes (games and byes): the
    points column unless a player carries the file's own (``TrfPlayer.points``)."""
    rounds, entries = _entries(t)
    scoring = t.scoring
    return {p.start_rank: _round_cells(p, rounds, entries, scoring)[1] for p in t.players}


def write(t: TrfTournament) -> str:
    """TRF26 text of ``t``: header records (a repeated one line by line), round dates,
    players with their games and byes (``TrfPlayer.byes``), NRS records, and the kept
    records (team records, ``XX?``). The points column is the player's ``points`` when
    given (the file's own column, kept even where it disagrees with the results: the
    import warned), else computed from what is written; forfeits read without colours are
    written without."""
    rounds, entries = _entries(t)
    scoring = t.scoring
    meta = dict(t.meta)
    if t.team and not any(r[:3] in ("013", "310") for r in t.records):
        meta.setdefault("kind", "team")  # no team record says it
    lines = [f"### ratingdb {k}: {v}" for k, v in meta.items()]
    players = str(len(t.players))
    head = [
        ("012", t.name),
        ("022", t.city),
        ("032", t.federation),
        ("042", _date_text(t.start)),
        ("052", _date_text(t.end)),
        ("062", players),
        ("072", str(sum(1 for p in t.players if p.rating or p.national))),
        ("092", t.type),
        ("102", t.arbiter),
        ("122", t.time_control),
    ]
    lines += [f"{tag} {value}".rstrip() for tag, value in head if value]
    lines += [
        f"{tag} {value}".rstrip() if _HEADER_TAG.fullmatch(tag) else f"### other {tag}: {value}"
        for tag, values in sorted(t.other.items())
        for value in values.split("\n")
    ]
    if t.round_dates:
        lines.append(
            _cols(
                [(1, "132")]
                + [(92 + 10 * k, d.strftime("%y/%m/%d")) for k, d in enumerate(t.round_dates)]
            )
        )
    for p in sorted(t.players, key=lambda p: p.start_rank):
        cells, points = _round_cells(p, rounds, entries, scoring)
        if p.points is not None:
            points = p.points
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
        lines += [f"{x[:4]}{p.start_rank:4d}{x[8:]}" for x in p.kept]
    lines += t.records
    return "\n".join(lines) + "\n"


#: the fields a round trip must keep: tournament, then per player
TOURNAMENT_FIELDS = (
    "name", "city", "federation", "start", "end", "type", "arbiter", "time_control",
    "round_dates", "other", "team", "records",
)  # fmt: skip
PLAYER_FIELDS = (
    "name", "sex", "title", "rating", "federation", "fide_id", "birth", "byes", "kept",
)  # fmt: skip


def differences(a: TrfTournament, b: TrfTournament) -> list[str]:
    """The fields of :data:`TOURNAMENT_FIELDS`, :data:`PLAYER_FIELDS`, the national records
    and the games in which ``b`` differs from ``a`` (empty: nothing lost); one entry per
    field, naming it (``player.birth``, ``games``)."""
    lost = [f for f in TOURNAMENT_FIELDS if getattr(a, f) != getattr(b, f)]
    theirs = {p.start_rank: p for p in b.players}
    if set(theirs) != {p.start_rank for p in a.players}:
        lost.append("players")
    for name in PLAYER_FIELDS:
        if any(
            p.start_rank in theirs
            and getattr(p, name) != getattr(theirs[p.start_rank], name)
            and (name != "byes" or p.rounds)  # a format without rounds: byes written as Z
            for p in a.players
        ):
            lost.append(f"player.{name}")
    if any(
        p.start_rank in theirs
        and {k: (r.rating, r.number) for k, r in p.national.items()}
        != {k: (r.rating, r.number) for k, r in theirs[p.start_rank].national.items()}
        for p in a.players
    ):
        lost.append("player.national")
    if sorted(a.games, key=lambda g: (g.round, g.white)) != sorted(
        b.games, key=lambda g: (g.round, g.white)
    ):
        lost.append("games")
    return lost
