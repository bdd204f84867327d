"""The DSB's ``DSB_DWZ_TournamentReport`` XML, version 2.5 (schema revision 2.5.1): read, write.

Since 08.06.2026 the DSB takes tournaments for DWZ evaluation in this format (namespace
``http://www.schachbund.de/XMLSchema``, root ``DSB_DWZ_TournamentReport version="2.5"``).
Every element of the schema is read into :class:`DsbReport` and written back:

* ``header`` (optional): ``creationDate``, ``sender``, ``system``, ``fileUUID`` (new for
  every file);
* ``tournament``: ``tournamentUUID`` (kept for corrected files), ``label``,
  ``tournamentType`` (``SR SW SC TR TW TC``, each also ``-H`` for hybrid), ``timecontrol``,
  ``rounds``, ``startDate``, ``endDate``, ``location``, optional ``url``, ``notes``,
  ``ageClass``;
* ``players/player`` (≥ 2): ``tournamentPlayerNumber``, optional ``dsbId``, ``surname``,
  ``forename`` (``###COMPUTER###`` for an engine), ``dobYear``, optional ``dobDate``,
  ``vkz`` (5 letters or digits), ``numberClubMember``, ``club``, ``fideId``, ``fideRating``,
  ``sex`` (``m``/``w``);
* ``games/game`` (≥ 1): ``round``, optional ``date``, ``tournamentPlayerNumberWhite`` or
  ``noneWhitePlayer``, ``tournamentPlayerNumberBlack`` or ``noneBlackPlayer``,
  ``pointWhite``, ``pointBlack`` from ``0 0.5 1 + -``.

Input is parsed with ``defusedxml`` (a DOCTYPE of any kind is refused) and checked element by
element;
every problem names its element path (``/DSB_DWZ_TournamentReport/games/game[3]/pointWhite``),
all problems of a file at once. Checked besides what the XSD says: the points of a game add up
to at most 1, a game's round is at most ``rounds``, white and black differ, the end date is
not before the start. When the DSB's XSD is available (:func:`schema_path`) the file is also
validated with ``xmlschema``; problems inside ``header`` only warn (ChessLeagueManager writes
``creationDate`` as ``dd.mm.yyyyThh:mm:ss``, which the schema does not allow).

Into the neutral tournament model (:func:`to_tournament`, the model of the TRF import):
``1:0 0:1 0.5:0.5`` are rated games, ``+:- -:+ -:- +:+`` forfeits (never rated), a game with
``noneWhitePlayer``/``noneBlackPlayer`` is no game (a bye), ``###COMPUTER###`` players are
computers (their games are struck, WO 4.1.4). Games the schema allows but ratingdb cannot
store – rated for one side only (``0:-``), or rated unequally (``0.5:0``, ``0:0``) – are
refused with their path. The ``dsbId`` (else ``vkz``-``numberClubMember``) identifies a
member as the ``GER`` record of a TRF does; ``fideRating`` serves as R_0 for a player without
DWZ (WO 4.1.2).

The problems and warnings are worded in the language in force (:mod:`ratingdb.i18n`, German
by default: ``…/game[3]/pointWhite: ein Punktwert ist einer von 0 0.5 1 + -, nicht 'x'``);
the paths and the values quoted from the file stay as they are, the reasons of the DSB's XSD
(``schema: …``) are the validator's English.
"""

from __future__ import annotations

import os
import re
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from ratingdb.budget import MAX_PROBLEMS, Problems, check, more_line, more_of, stopped_after
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, ngettext
from ratingdb.io.numbers import NotANumber, whole_number
from ratingdb.io.trf import NationalRecord, TrfGame, TrfPlayer, TrfTournament
from ratingdb.plausibility import (
    BIRTH_YEAR,
    FIDE_ID,
    MEMBER_NUMBER,
    RATING,
    ROUND,
    START_RANK,
    Range,
)

NS = "http://www.schachbund.de/XMLSchema"
ROOT = "DSB_DWZ_TournamentReport"
VERSION = "2.5"
COMPUTER = "###COMPUTER###"
#: written as dobYear when the birth year is unknown (the element is required); read back
#: as "unknown" when no dobDate is given
UNKNOWN_BIRTH_YEAR = 1900
#: the birth years a player may have (``players.birth_year``; the TRF and SWI readers' bounds)
MIN_BIRTH_YEAR, MAX_BIRTH_YEAR = BIRTH_YEAR.low, BIRTH_YEAR.high
FEDERATION = "GER"
TYPES = ("SR", "SW", "SC", "TR", "TW", "TC")
ALL_TYPES = TYPES + tuple(f"{t}-H" for t in TYPES)
SCORES = ("0", "0.5", "1", "+", "-")
#: the kind codes of an SWI file -> tournamentType
SWI_KINDS = {"ES": "SW", "ER": "SR", "MR": "TR", "MS": "TW"}
#: (pointWhite, pointBlack) -> stored result code
RESULTS = {
    ("1", "0"): "1-0",
    ("0", "1"): "0-1",
    ("0.5", "0.5"): "1/2-1/2",
    ("+", "-"): "+-",
    ("-", "+"): "-+",
    ("-", "-"): "--",
    ("+", "+"): "--",  # both "not rated": stored as a double forfeit
}
#: stored result code -> (pointWhite, pointBlack)
POINTS = {
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "1/2-1/2": ("0.5", "0.5"),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    "--": ("-", "-"),
    "W-L": ("+", "-"),  # a game of less than one move: never rated
    "L-W": ("-", "+"),
    "D-D": ("-", "-"),
}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DATE = re.compile(r"^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})(Z|[+-][0-9]{2}:[0-9]{2})?$")
_DATETIME = re.compile(
    r"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$"
)
_GYEAR = re.compile(r"^(-?[0-9]{4,})(Z|[+-][0-9]{2}:[0-9]{2})?$")


#: a sequence of child elements: (names – several for a choice –, min, max)
Spec = list[tuple[tuple[str, ...], int, int]]


class DsbXmlError(InputError):
    """Problems of a TournamentReport file; ``problems`` holds ``(path, message)``."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        self.more = more_of(problems)  # found beyond those kept (ratingdb/budget.py)
        super().__init__(f"{source}: {problems[0][0]}", problems[0][1])
        lines = [f"{source}: {where}: {what}" for where, what in problems]
        self.args = ("\n".join(lines + more_line(self.more)),)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(slots=True)
class DsbHeader:
    creation: str  # xs:dateTime as written
    sender: str
    system: str
    file_uuid: str


@dataclass(slots=True)
class DsbPlayer:
    number: int
    surname: str
    forename: str
    dob_year: int
    dsb_id: str | None = None
    dob_date: date | None = None
    vkz: str | None = None
    member_number: int | None = None
    club: str | None = None
    fide_id: int | None = None
    fide_rating: int | None = None
    sex: str | None = None  # m / w

    @property
    def computer(self) -> bool:
        return COMPUTER in (self.surname, self.forename)

    @property
    def name(self) -> str:
        if self.forename and self.forename != self.surname:
            return f"{self.surname}, {self.forename}"
        return self.surname


@dataclass(slots=True)
class DsbGame:
    round: int
    white: int | None  # None: noneWhitePlayer
    black: int | None  # None: noneBlackPlayer
    point_white: str
    point_black: str
    date: date | None = None


@dataclass(slots=True)
class DsbReport:
    tournament_uuid: str
    label: str
    type: str
    timecontrol: str
    rounds: int
    start: date
    end: date
    location: str
    players: list[DsbPlayer] = field(default_factory=list)
    games: list[DsbGame] = field(default_factory=list)
    url: str | None = None
    notes: str | None = None
    age_class: str | None = None
    header: DsbHeader | None = None
    version: str | None = VERSION
    warnings: list[str] = field(default_factory=list)

    @property
    def team(self) -> bool:
        return self.type.startswith("T")

    @property
    def hybrid(self) -> bool:
        return self.type.endswith("-H")


# -- detection -------------------------------------------------------------------------------


def root_element(data: bytes) -> tuple[str, str] | None:
    """``(namespace, local name)`` of the document element, or None when it is not XML."""
    try:
        for _event, elem in SafeET.iterparse(_BytesIO(data), events=("start",), forbid_dtd=True):
            tag = elem.tag
            if tag.startswith("{"):
                ns, _brace, local = tag[1:].partition("}")
                return ns, local
            return "", tag
    except (ET.ParseError, DefusedXmlException, ValueError, LookupError):
        return None  # LookupError: an unknown encoding in the declaration
    return None


def is_report(data: bytes) -> bool:
    """True when the document element is ``DSB_DWZ_TournamentReport`` in the DSB namespace."""
    return root_element(data) == (NS, ROOT)


class _BytesIO:
    """A minimal file object for ``iterparse`` that stops early without reading it all."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.data) if size < 0 else self.pos + size
        chunk = self.data[self.pos : end]
        self.pos += len(chunk)
        return chunk


# -- the XSD ---------------------------------------------------------------------------------


def schema_path() -> Path | None:
    """The DSB's XSD: ``$RATINGDB_DSB_XSD``, else ``shared/spec`` next to the repository (the
    schema is the DSB's publication and is not shipped with ratingdb)."""
    env = os.environ.get("RATINGDB_DSB_XSD")
    if env:
        return Path(env) if Path(env).is_file() else None
    here = Path(__file__).resolve()
    for parent in here.parents[1:5]:
        candidate = parent / "shared" / "spec" / "DSB_DWZ_Tournament_2_5_1.xsd"
        if candidate.is_file():
            return candidate
    return None


_SCHEMA: dict[Path, Any] = {}


def xsd_problems(data: bytes, xsd: Path | None = None) -> list[tuple[str, str]] | None:
    """Problems the DSB's XSD finds (``(path, reason)``), or None when no XSD is available."""
    path = xsd or schema_path()
    if path is None:
        return None
    import xmlschema

    schema = _SCHEMA.get(path)
    if schema is None:
        schema = _SCHEMA[path] = xmlschema.XMLSchema(str(path))
    out = Problems()
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        for err in schema.iter_errors(text):
            if len(out) == MAX_PROBLEMS - 1:  # each costs milliseconds: not all of them
                list.append(out, ("/", stopped_after(len(out))))
                break
            out.append((err.path or "/", (err.reason or str(err)).strip()))
    except (ValueError, ArithmeticError) as err:
        # not UTF-8, or a value the validator itself cannot hold (xmlschema raises
        # OverflowError "year overflow" for a date in year 10^20): a problem of the file
        stopped = _("the schema check stopped: %(kind)s: %(error)s")
        out.append(("/", stopped % {"kind": type(err).__name__, "error": err}))
    return out


# -- reading ---------------------------------------------------------------------------------


#: a game of a player against himself (both XML formats)
HIMSELF = N_("player %(number)d plays himself")

#: the attributes every element may carry (xsi:type, xsi:nil, xsi:schemaLocation)
XSI = "{http://www.w3.org/2001/XMLSchema-instance}"


class _Reader:
    def __init__(self) -> None:
        self.problems = Problems()

    def fail(self, path: str, message: str) -> None:
        self.problems.append((path, message))

    def children(
        self, elem: ET.Element, path: str, spec: Spec
    ) -> dict[str, list[tuple[ET.Element, str]]]:
        """Check the children against a sequence ``[(names, min, max)]`` (several names: a
        choice); returns name -> [(element, path)]."""
        found: dict[str, list[tuple[ET.Element, str]]] = {}
        counts = [0] * len(spec)
        position = 0
        seen_names: dict[str, int] = {}
        for child in elem:
            if not isinstance(child.tag, str):
                continue  # comments, processing instructions
            ns, local = _split(child.tag)
            seen_names[local] = seen_names.get(local, 0) + 1
            cpath = f"{path}/{local}"
            if ns != NS:
                self.fail(cpath, _namespace(ns))
                continue
            if child.attrib and not path.startswith(f"/{ROOT}/header"):
                self._attributes(child, cpath, seen_names[local], spec_max(spec, local) > 1)
            index = next(
                (k for k in range(position, len(spec)) if local in spec[k][0]),
                None,
            )
            if index is None:
                if any(local in names for names, _low, _high in spec):
                    self.fail(cpath, _("element out of order (see the schema's sequence)"))
                else:
                    self.fail(cpath, _("unexpected element"))
                continue
            for k in range(position, index):
                if counts[k] < spec[k][1]:
                    self.fail(f"{path}/{'|'.join(spec[k][0])}", _(REQUIRED_MISSING))
            position = index
            counts[index] += 1
            if counts[index] > spec[index][2]:
                self.fail(cpath, _("at most %(num)d allowed") % {"num": spec[index][2]})
            found.setdefault(local, []).append((child, cpath))
        for k in range(position, len(spec)):
            if counts[k] < spec[k][1]:
                need = spec[k][1]
                self.fail(
                    f"{path}/{'|'.join(spec[k][0])}",
                    _(REQUIRED_MISSING)
                    if need == 1
                    else _("at least %(num)d required") % {"num": need},
                )
        # number repeated elements as in XPath (player[3])
        for name, items in found.items():
            if len(items) > 1 or spec_max(spec, name) > 1:
                found[name] = [(e, f"{p}[{i}]") for i, (e, p) in enumerate(items, start=1)]
        return found

    def _attributes(self, elem: ET.Element, path: str, index: int, repeated: bool) -> None:
        """The schema allows no attribute below the root (but the XSI ones): each one a
        problem, found here for little instead of by the schema check for milliseconds
        each (100,000 of them took minutes)."""
        where = f"{path}[{index}]" if repeated else path
        for name in elem.attrib:
            if not name.startswith(XSI):
                self.fail(
                    where,
                    _("attribute %(name)r not allowed (the schema has none)")
                    % {"name": _split(name)[1]},
                )

    def text(self, elem: ET.Element, path: str, *, collapse: bool = True) -> str:
        if len([c for c in elem if isinstance(c.tag, str)]):
            self.fail(path, _("element content where text is expected"))
        value = elem.text or ""
        return " ".join(value.split()) if collapse else value

    def integer(
        self, elem: ET.Element, path: str, limits: Range, text: str | None = None
    ) -> int | None:
        """The element's number (:func:`ratingdb.io.numbers.whole_number`), or None after
        reporting it at ``path``; ``text`` replaces the element's (a part of it)."""
        try:
            return whole_number(self.text(elem, path) if text is None else text, limits)
        except NotANumber as err:
            self.fail(path, str(err))
            return None

    def date(self, elem: ET.Element, path: str) -> date | None:
        value = self.text(elem, path)
        m = _DATE.match(value)
        if m is None:
            self.fail(
                path, _("not a date: %(value)r (expected YYYY-MM-DD)") % {"value": value[:40]}
            )
            return None
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except (ValueError, OverflowError):  # OverflowError: a year of 20 digits
            self.fail(path, _("not a date: %(value)r (no such day)") % {"value": value[:40]})
            return None


def _namespace(ns: str) -> str:
    """Why an element of another namespace (or of none) is refused."""
    if not ns:
        return _("element without a namespace, expected %(expected)r") % {"expected": NS}
    return _("element in namespace %(ns)r, expected %(expected)r") % {"ns": ns, "expected": NS}


def spec_max(spec: Spec, name: str) -> int:
    return next((mx for names, _low, mx in spec if name in names), 1)


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        ns, _brace, local = tag[1:].partition("}")
        return ns, local
    return "", tag


_HEADER: Spec = [(("creationDate",), 1, 1), (("sender",), 1, 1), (("system",), 1, 1),
           (("fileUUID",), 1, 1)]  # fmt: skip
_TOURNAMENT: Spec = [
    (("tournamentUUID",), 1, 1), (("label",), 1, 1), (("tournamentType",), 1, 1),
    (("timecontrol",), 1, 1), (("rounds",), 1, 1), (("startDate",), 1, 1),
    (("endDate",), 1, 1), (("location",), 1, 1), (("url",), 0, 1), (("notes",), 0, 1),
    (("ageClass",), 0, 1),
]  # fmt: skip
_PLAYER: Spec = [
    (("tournamentPlayerNumber",), 1, 1), (("dsbId",), 0, 1), (("surname",), 1, 1),
    (("forename",), 1, 1), (("dobYear",), 1, 1), (("dobDate",), 0, 1), (("vkz",), 0, 1),
    (("numberClubMember",), 0, 1), (("club",), 0, 1), (("fideId",), 0, 1),
    (("fideRating",), 0, 1), (("sex",), 0, 1),
]  # fmt: skip
_GAME: Spec = [
    (("round",), 1, 1), (("date",), 0, 1),
    (("tournamentPlayerNumberWhite", "noneWhitePlayer"), 1, 1),
    (("tournamentPlayerNumberBlack", "noneBlackPlayer"), 1, 1),
    (("pointWhite",), 1, 1), (("pointBlack",), 1, 1),
]  # fmt: skip
_TOP: Spec = [
    (("header",), 0, 1), (("tournament",), 1, 1), (("players",), 1, 1), (("games",), 1, 1)
]  # fmt: skip


#: the one answer to an XML file with a DOCTYPE, in both XML formats (English; ``_()``
#: where used)
DOCTYPE_REFUSED = N_(
    "refused: the file has a DOCTYPE (a DTD, entities or an external identifier); a "
    "tournament file needs none and ratingdb reads none"
)
#: a required element that is not there (both XML formats)
REQUIRED_MISSING = N_("required element missing")


#: expat's reasons (``xml.parsers.expat.errors``) that a tournament file meets, marked for the
#: catalog; any other stays expat's English
EXPAT_REASONS = frozenset(
    {
        N_("syntax error"),
        N_("no element found"),
        N_("not well-formed (invalid token)"),
        N_("unclosed token"),
        N_("partial character"),
        N_("mismatched tag"),
        N_("duplicate attribute"),
        N_("junk after document element"),
        N_("undefined entity"),
        N_("reference to invalid character number"),
        N_("XML or text declaration not at start of entity"),
        N_("unknown encoding"),
        N_("encoding specified in XML declaration is incorrect"),
        N_("unclosed CDATA section"),
        N_("unbound prefix"),
        N_("XML declaration not well-formed"),
    }
)


def expat_reason(err: ET.ParseError) -> str:
    """Why expat refused a file, without the place (the location says it, counting columns
    from 1), in the language in force for the reasons of :data:`EXPAT_REASONS`."""
    from xml.parsers.expat import ErrorString

    code = getattr(err, "code", None)
    reason = ErrorString(code) if isinstance(code, int) else None
    if reason in EXPAT_REASONS:
        return _(reason)
    return re.sub(r": line [0-9]+, column [0-9]+$", "", str(err))


def safe_root(data: bytes, source: str) -> ET.Element:
    """The root element of an XML file read without DTDs or entities (defusedxml); a file
    that is not well-formed, declares an unknown encoding or has a DOCTYPE of any kind (an
    internal subset, entities, an external identifier: :data:`DOCTYPE_REFUSED`, one rule for
    both XML formats, nothing is read or fetched) is a :class:`DsbXmlError` with its
    position."""
    try:
        root: ET.Element = SafeET.fromstring(data, forbid_dtd=True)
        return root
    except ET.ParseError as err:
        line, column = getattr(err, "position", (0, 0))
        where = _("line %(line)d, column %(column)d") % {"line": line, "column": column + 1}
        why = _("not well-formed XML: %(error)s") % {"error": expat_reason(err)}
        raise DsbXmlError(source, [(where, why)]) from None
    except DefusedXmlException:
        raise DsbXmlError(source, [("/", _(DOCTYPE_REFUSED))]) from None
    except (LookupError, ValueError) as err:  # the declaration names an unknown encoding
        where = _("line %(line)d") % {"line": 1}
        raise DsbXmlError(
            source, [(where, _("not readable XML: %(error)s") % {"error": err})]
        ) from None


def parse(data: bytes, source: str = "<xml>", *, xsd: bool = True) -> DsbReport:
    """Read and check a TournamentReport; raises :class:`DsbXmlError` with every problem."""
    root = safe_root(data, source)
    ns, local = _split(root.tag)
    if (ns, local) != (NS, ROOT):
        found = {"root": ROOT, "local": local, "ns": ns, "expected": NS}
        if ns:
            why = _(
                "not a %(root)s (root element %(local)r in namespace %(ns)r, expected %(root)r "
                "in %(expected)r)"
            )
        else:
            why = _(
                "not a %(root)s (root element %(local)r without a namespace, expected %(root)r "
                "in %(expected)r)"
            )
        raise DsbXmlError(source, [(f"/{local}", why % found)])
    r = _Reader()
    top = f"/{ROOT}"
    version = root.get("version")
    warnings = []
    if version is not None and version != VERSION:
        warnings.append(
            _("%(path)s/@version is %(version)r, read as %(expected)s")
            % {"path": top, "version": version, "expected": VERSION}
        )
    parts = r.children(root, top, _TOP)
    header = None
    if "header" in parts:
        elem, path = parts["header"][0]
        h = r.children(elem, path, _HEADER)
        header_problems = len(r.problems)
        values = {k: r.text(v[0][0], v[0][1]) for k, v in h.items()}
        header = DsbHeader(
            values.get("creationDate", ""),
            values.get("sender", ""),
            values.get("system", ""),
            values.get("fileUUID", ""),
        )
        if header.creation and not _DATETIME.match(header.creation):
            warnings.append(
                _("%(path)s/creationDate: not an xs:dateTime: %(value)r (ignored)")
                % {"path": path, "value": header.creation}
            )
        if header.file_uuid and not _UUID.match(header.file_uuid):
            r.fail(f"{path}/fileUUID", _("not a UUID: %(value)r") % {"value": header.file_uuid})
        del header_problems
    t_elem = parts.get("tournament", [(None, "")])[0]
    info: dict[str, Any] = {}
    if t_elem[0] is not None:
        info = _tournament(r, t_elem[0], t_elem[1])
    players: list[DsbPlayer] = []
    known: set[int] = set()
    unnumbered = False  # a player whose number is reported unreadable: games may name it
    if "players" in parts:
        elem, path = parts["players"][0]
        items = r.children(elem, path, [(("player",), 2, 10**9)]).get("player", [])
        seen: dict[int, str] = {}
        for pelem, ppath in items:
            check()  # the time budget of the upload (ratingdb/budget.py)
            p = _player(r, pelem, ppath)
            if isinstance(p, int):  # a player with problems: its number still counts
                known.add(p)
                continue
            if p is None:
                unnumbered = True
                continue
            known.add(p.number)
            if p.number in seen:
                also = _("number %(number)d is also %(other)s")
                r.fail(
                    f"{ppath}/tournamentPlayerNumber",
                    also % {"number": p.number, "other": seen[p.number]},
                )
                continue
            seen[p.number] = ppath
            players.append(p)
    games: list[DsbGame] = []
    if "games" in parts:
        elem, path = parts["games"][0]
        items = r.children(elem, path, [(("game",), 1, 10**9)]).get("game", [])
        numbers = None if unnumbered else known
        computers = {p.number for p in players if p.computer}
        for gelem, gpath in items:
            check()
            g = _game(r, gelem, gpath, numbers, info.get("rounds"))
            if g is None:
                continue
            if {g.white, g.black} & computers and (g.point_white, g.point_black) != ("-", "-"):
                warnings.append(
                    _("%(path)s: a computer's game should be -:- (it is not rated either way)")
                    % {"path": gpath}
                )
            games.append(g)
    if r.problems:
        raise DsbXmlError(source, r.problems)
    report = DsbReport(
        players=players, games=games, header=header, version=version, warnings=warnings, **info
    )
    if xsd:
        invalid = xsd_problems(data)
        if invalid:
            serious = [(p, m) for p, m in invalid if not p.startswith(f"/{ROOT}/header")]
            if serious:
                schema = _("schema: %(reason)s")
                raise DsbXmlError(source, [(p, schema % {"reason": m}) for p, m in serious])
            ignored = _("%(path)s: schema: %(reason)s (header only, ignored)")
            report.warnings += [ignored % {"path": p, "reason": m} for p, m in invalid]
    return report


def _tournament(r: _Reader, elem: ET.Element, path: str) -> dict[str, Any]:
    c = r.children(elem, path, _TOURNAMENT)

    def one(name: str) -> tuple[ET.Element, str] | None:
        return c[name][0] if name in c else None

    out: dict[str, Any] = {}
    if (x := one("tournamentUUID")) is not None:
        value = r.text(*x)
        if not _UUID.match(value):
            r.fail(x[1], _("not a UUID (RFC 4122): %(value)r") % {"value": value})
        out["tournament_uuid"] = value
    for name, key in (("label", "label"), ("timecontrol", "timecontrol"),
                      ("location", "location")):  # fmt: skip
        if (x := one(name)) is not None:
            out[key] = r.text(*x)
    for name, key in (("url", "url"), ("notes", "notes"), ("ageClass", "age_class")):
        out[key] = r.text(*x) if (x := one(name)) is not None else None
    if (x := one("tournamentType")) is not None:
        value = r.text(*x)
        if value not in ALL_TYPES:
            unknown = _("unknown tournament type %(type)r (one of %(types)s)")
            r.fail(x[1], unknown % {"type": value, "types": ", ".join(ALL_TYPES)})
        out["type"] = value
    if (x := one("rounds")) is not None:
        out["rounds"] = r.integer(*x, ROUND)
    for name, key in (("startDate", "start"), ("endDate", "end")):
        if (x := one(name)) is not None:
            out[key] = r.date(*x)
    if out.get("start") and out.get("end") and out["end"] < out["start"]:
        earlier = _("%(end)s is before the startDate %(start)s")
        r.fail(f"{path}/endDate", earlier % {"end": out["end"], "start": out["start"]})
    return out


def _player(r: _Reader, elem: ET.Element, path: str) -> DsbPlayer | int | None:
    """The player; only its number when other fields have problems; None without one."""
    c = r.children(elem, path, _PLAYER)
    before = r.problems.found

    def get(name: str) -> tuple[ET.Element, str] | None:
        return c[name][0] if name in c else None

    number = r.integer(*x, START_RANK) if (x := get("tournamentPlayerNumber")) else None
    surname = r.text(*x) if (x := get("surname")) else ""
    forename = r.text(*x) if (x := get("forename")) else ""
    dob_year = None
    if (x := get("dobYear")) is not None:
        value = r.text(*x)
        m = _GYEAR.match(value)
        if m is None or m.group(1).startswith("-") or not m.group(1).strip("0"):
            r.fail(x[1], _("not a year (xs:gYear): %(value)r") % {"value": value[:20]})
        else:
            dob_year = r.integer(x[0], x[1], BIRTH_YEAR, m.group(1))
    dob_date = r.date(*x) if (x := get("dobDate")) is not None else None
    if dob_date and dob_year and dob_date.year != dob_year:
        outside = _("%(date)s is not in dobYear %(year)d")
        r.fail(f"{path}/dobDate", outside % {"date": dob_date, "year": dob_year})
    vkz = None
    if (x := get("vkz")) is not None:
        vkz = r.text(*x)
        if not re.fullmatch(r"[A-Za-z0-9]{5}", vkz):
            r.fail(x[1], _("a VKZ has exactly 5 letters or digits: %(vkz)r") % {"vkz": vkz})
    member = r.integer(*x, MEMBER_NUMBER) if (x := get("numberClubMember")) is not None else None
    fide_id = r.integer(*x, FIDE_ID) if (x := get("fideId")) is not None else None
    rating = r.integer(*x, RATING) if (x := get("fideRating")) is not None else None
    sex = None
    if (x := get("sex")) is not None:
        sex = r.text(*x)
        if sex not in ("m", "w"):
            r.fail(x[1], _("sex is m or w, got %(value)r") % {"value": sex})
    if number is None:
        return None
    if r.problems.found > before or dob_year is None:
        return number
    return DsbPlayer(
        number=number,
        surname=surname,
        forename=forename,
        dob_year=dob_year,
        dsb_id=r.text(*x) if (x := get("dsbId")) is not None else None,
        dob_date=dob_date,
        vkz=vkz,
        member_number=member,
        club=r.text(*x) if (x := get("club")) is not None else None,
        fide_id=fide_id,
        fide_rating=rating,
        sex=sex,
    )


def _game(
    r: _Reader, elem: ET.Element, path: str, numbers: set[int] | None, rounds: int | None
) -> DsbGame | None:
    """One game; ``numbers`` are the players' (None: not checked, a player's number was
    unreadable and is reported already)."""
    c = r.children(elem, path, _GAME)
    before = r.problems.found

    def get(name: str) -> tuple[ET.Element, str] | None:
        return c[name][0] if name in c else None

    rnd = r.integer(*x, ROUND) if (x := get("round")) is not None else None
    if rnd is not None and rounds is not None and rnd > rounds:
        higher = _("round %(round)d is higher than the tournament's rounds (%(rounds)d)")
        r.fail(f"{path}/round", higher % {"round": rnd, "rounds": rounds})
    day = r.date(*x) if (x := get("date")) is not None else None
    sides: dict[str, int | None] = {}
    for colour in ("White", "Black"):
        if (x := get(f"tournamentPlayerNumber{colour}")) is not None:
            number = r.integer(*x, START_RANK)
            if number is not None and numbers is not None and number not in numbers:
                missing = _("no player with tournamentPlayerNumber %(number)d")
                r.fail(x[1], missing % {"number": number})
            sides[colour] = number
        elif (x := get(f"none{colour}Player")) is not None:
            value = r.text(*x)
            if value not in ("true", "1"):
                r.fail(x[1], _("the only allowed value is true, got %(value)r") % {"value": value})
            sides[colour] = None
    points = []
    for name in ("pointWhite", "pointBlack"):
        value = r.text(*x) if (x := get(name)) is not None else ""
        if x is not None and value not in SCORES:
            point = _("a point is one of %(scores)s, got %(value)r")
            r.fail(x[1], point % {"scores": " ".join(SCORES), "value": value})
        points.append(value)
    if all(p in SCORES for p in points):
        played = sum(Decimal(p) for p in points if p not in ("+", "-"))
        if played > 1:
            more = _("%(white)s:%(black)s gives more than 1 point")
            r.fail(f"{path}/pointBlack", more % {"white": points[0], "black": points[1]})
    white, black = sides.get("White"), sides.get("Black")
    if white is not None and white == black:
        r.fail(f"{path}/tournamentPlayerNumberBlack", _(HIMSELF) % {"number": white})
    if r.problems.found > before or rnd is None:
        return None
    return DsbGame(rnd, white, black, points[0], points[1], day)


# -- into the neutral model ------------------------------------------------------------------


def to_tournament(report: DsbReport, source: str = "<xml>") -> TrfTournament:
    """The TRF import's model: players with their identifiers, stored games only."""
    problems = Problems()
    players = []
    for p in report.players:
        birth: date | int | None = p.dob_date or p.dob_year
        if p.dob_date is None and p.dob_year == UNKNOWN_BIRTH_YEAR:
            birth = None
        tp = TrfPlayer(
            start_rank=p.number,
            sex={"w": "f", "m": "m"}.get(p.sex or "", ""),
            title="",
            name=p.name,
            rating=None if p.computer else p.fide_rating,
            federation="",
            fide_id=None if p.computer else p.fide_id,
            birth=None if p.computer else birth,
            points=None,
            rank=None,
            rounds=[],
            line=0,
            computer=p.computer,
        )
        key = p.dsb_id or (f"{p.vkz}-{p.member_number}" if p.vkz and p.member_number else "")
        if key and not p.computer:
            tp.national[FEDERATION] = NationalRecord(
                FEDERATION, p.number, None, "", key, p.name, birth, 0
            )
        players.append(tp)
    games = []
    byes = 0
    for k, g in enumerate(report.games, start=1):
        if g.white is None or g.black is None:
            byes += 1
            continue
        result = RESULTS.get((g.point_white, g.point_black))
        if result is None:
            unequal = _(
                "%(white)s:%(black)s is rated for one side only or unequally; ratingdb stores "
                "only 1:0, 0:1, 0.5:0.5 and forfeits (+ -)"
            )
            problems.append(
                (
                    f"/{ROOT}/games/game[{k}]",
                    unequal % {"white": g.point_white, "black": g.point_black},
                )
            )
            continue
        games.append(TrfGame(g.round, g.white, g.black, result))
    if problems:
        raise DsbXmlError(source, problems)
    warnings = list(report.warnings)
    if byes:
        warnings.append(
            ngettext(
                "%(num)d game without an opponent (noneWhitePlayer/noneBlackPlayer) is not stored",
                "%(num)d games without an opponent (noneWhitePlayer/noneBlackPlayer) are not "
                "stored",
                byes,
            )
            % {"num": byes}
        )
    other = {"tournamentUUID": report.tournament_uuid}
    if report.header is not None:
        other["fileUUID"] = report.header.file_uuid
    return TrfTournament(
        source=source,
        name=report.label or report.tournament_uuid,
        start=report.start,
        end=report.end,
        city=report.location,
        type=report.type,
        time_control=report.timecontrol,
        players=players,
        games=sorted(games, key=lambda g: (g.round, g.white)),
        team=report.team,
        other=other,
        warnings=warnings,
    )


def read(data: bytes, source: str = "<xml>") -> tuple[DsbReport, TrfTournament]:
    """Parse, check and convert (:func:`parse` + :func:`to_tournament`)."""
    report = parse(data, source)
    return report, to_tournament(report, source)


# -- writing ---------------------------------------------------------------------------------


def new_uuid() -> str:
    return str(uuid.uuid4())


def write(report: DsbReport) -> bytes:
    """The report as UTF-8 XML (elements in the schema's order; optional ones only when set)."""

    def q(name: str) -> str:
        return f"{{{NS}}}{name}"

    def add(parent: ET.Element, name: str, value: object) -> None:
        if value is None:
            return
        ET.SubElement(parent, q(name)).text = str(value)

    root = ET.Element(q(ROOT), {"version": VERSION})
    if report.header is not None:
        h = ET.SubElement(root, q("header"))
        add(h, "creationDate", report.header.creation)
        add(h, "sender", report.header.sender)
        add(h, "system", report.header.system)
        add(h, "fileUUID", report.header.file_uuid)
    t = ET.SubElement(root, q("tournament"))
    add(t, "tournamentUUID", report.tournament_uuid)
    add(t, "label", report.label)
    add(t, "tournamentType", report.type)
    add(t, "timecontrol", report.timecontrol)
    add(t, "rounds", report.rounds)
    add(t, "startDate", report.start.isoformat())
    add(t, "endDate", report.end.isoformat())
    add(t, "location", report.location)
    add(t, "url", report.url)
    add(t, "notes", report.notes)
    add(t, "ageClass", report.age_class)
    players = ET.SubElement(root, q("players"))
    for p in report.players:
        e = ET.SubElement(players, q("player"))
        add(e, "tournamentPlayerNumber", p.number)
        add(e, "dsbId", p.dsb_id)
        add(e, "surname", p.surname)
        add(e, "forename", p.forename)
        add(e, "dobYear", f"{p.dob_year:04d}")
        add(e, "dobDate", p.dob_date.isoformat() if p.dob_date else None)
        add(e, "vkz", p.vkz)
        add(e, "numberClubMember", p.member_number)
        add(e, "club", p.club)
        add(e, "fideId", p.fide_id)
        add(e, "fideRating", p.fide_rating)
        add(e, "sex", p.sex)
    games = ET.SubElement(root, q("games"))
    for g in report.games:
        e = ET.SubElement(games, q("game"))
        add(e, "round", g.round)
        add(e, "date", g.date.isoformat() if g.date else None)
        if g.white is None:
            add(e, "noneWhitePlayer", "true")
        else:
            add(e, "tournamentPlayerNumberWhite", g.white)
        if g.black is None:
            add(e, "noneBlackPlayer", "true")
        else:
            add(e, "tournamentPlayerNumberBlack", g.black)
        add(e, "pointWhite", g.point_white)
        add(e, "pointBlack", g.point_black)
    ET.register_namespace("", NS)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n").encode("utf-8")


def header(sender: str, system: str = "ratingdb", when: datetime | None = None) -> DsbHeader:
    """A header for a new file: now (with time zone) and a new fileUUID."""
    moment = (when or datetime.now().astimezone()).replace(microsecond=0)
    return DsbHeader(moment.isoformat(), sender, system, new_uuid())


def split_name(name: str) -> tuple[str, str]:
    """ "Surname, Given" -> (surname, forename); one name only goes into both (as the schema
    asks)."""
    surname, _comma, given = name.partition(",")
    surname, given = surname.strip(), given.strip()
    if not surname:
        surname = given
    return surname or "?", given or surname or "?"


def tournament_type(kind: str, players: int, games: list[tuple[int, int]]) -> str:
    """``SR``/``TR`` when every pair met (a round robin), else ``SW``/``TW``; a match is SR."""
    letter = "T" if kind == "team" else "S"
    if kind == "match":
        return "SR"
    pairs = {frozenset(p) for p in games}
    full = players * (players - 1) // 2
    return f"{letter}R" if players > 1 and len(pairs) == full else f"{letter}W"


def points_of(result: str, computer: bool = False) -> tuple[str, str]:
    """A stored result as (pointWhite, pointBlack); computer games are -:- (schema)."""
    return ("-", "-") if computer else POINTS[result]


def from_tournament(
    t: TrfTournament,
    *,
    tournament_uuid: str,
    kind: str = "individual",
    extra: dict[int, dict[str, Any]] | None = None,
    head: DsbHeader | None = None,
) -> DsbReport:
    """A report of a tournament in the neutral model; ``extra`` gives per start rank what the
    model has no field for (``dsb_id``, ``vkz``, ``member_number``, ``club``, ``computer``,
    ``birth_date``). Unknown birth years are written as :data:`UNKNOWN_BIRTH_YEAR`."""
    extra = extra or {}
    warnings = []
    players = []
    computers = set()
    for p in sorted(t.players, key=lambda p: p.start_rank):
        more = extra.get(p.start_rank, {})
        computer = bool(more.get("computer") or p.computer)
        if computer:
            computers.add(p.start_rank)
            players.append(DsbPlayer(p.start_rank, COMPUTER, COMPUTER, UNKNOWN_BIRTH_YEAR))
            continue
        surname, forename = split_name(p.name)
        year = p.birth_year
        if year is None:
            year = UNKNOWN_BIRTH_YEAR
            unknown = _(
                "player %(number)d (%(name)s): birth year unknown, dobYear %(year)d written"
            )
            warnings.append(
                unknown % {"number": p.start_rank, "name": p.name, "year": UNKNOWN_BIRTH_YEAR}
            )
        vkz = more.get("vkz")
        member = more.get("member_number")
        text = str(member or "")
        member_int = int(text) if text.isascii() and text.isdigit() else None
        players.append(
            DsbPlayer(
                number=p.start_rank,
                surname=surname,
                forename=forename,
                dob_year=year,
                dsb_id=more.get("dsb_id") or None,
                dob_date=more.get("birth_date") or (p.birth if isinstance(p.birth, date) else None),
                vkz=vkz if vkz and re.fullmatch(r"[A-Za-z0-9]{5}", vkz) else None,
                member_number=(
                    member_int if member_int and member_int <= MEMBER_NUMBER.high else None
                ),
                club=more.get("club") or None,
                fide_id=p.fide_id if p.fide_id and p.fide_id <= FIDE_ID.high else None,
                fide_rating=p.rating if p.rating and 0 < p.rating <= RATING.high else None,
                sex={"m": "m", "f": "w"}.get(p.sex),
            )
        )
    games = [
        DsbGame(
            g.round, g.white, g.black, *points_of(g.result, bool({g.white, g.black} & computers))
        )
        for g in t.games
    ]
    if not games:
        raise InputError(t.source, _("a TournamentReport needs at least one game (the schema)"))
    if len(players) < 2:
        raise InputError(t.source, _("a TournamentReport needs at least two players (the schema)"))
    rounds = max(g.round for g in games)
    return DsbReport(
        tournament_uuid=tournament_uuid,
        label=t.name,
        type=t.type
        if t.type in ALL_TYPES
        else SWI_KINDS.get(t.type)
        or tournament_type(kind, len(players), [(g.white, g.black) for g in t.games]),
        timecontrol=t.time_control,
        rounds=rounds,
        start=t.start,
        end=t.end,
        location=t.city,
        players=players,
        games=games,
        header=head,
        warnings=warnings,
    )
