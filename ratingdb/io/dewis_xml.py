"""The DeWIS XML (the DSB's import format before 2026): reading.

No schema or description of the format is public any more (the import schema was
``https://dwz.svw.info/services/files/xml/tournamentImport.xsd``); what is read here follows
the one public writer, ChessLeagueManager's "XML Dewis" export (``admin/models/auswertung.php``,
format 2), which archives and CLM installations still produce::

    <dewis>
      <tournamentSection>
        <tournament><label/><type/><rounds/><endDate/><notes/></tournament>
        <appointments><appointment><round/><matchday/><matchtime/></appointment>…</appointments>
      </tournamentSection>
      <playerSection>
        <players><player><noPlayer/><id/><surname/><forename/><dob/><vkz/><club/>
                 <noMember/><idFide/><rating/></player>…</players>
        <games><game><round/><noWhite/><noBlack/><result/></game>…</games>
      </playerSection>
      <teamSection>…</teamSection>   (team leagues: teams, line-ups, matches – ignored)
    </dewis>

Elements are matched by local name (CLM declares a ``dwz`` namespace prefix but uses none).
``type`` is the TournamentReport's ``SR SW SC TR TW TC``; ``id`` the DeWIS person key (PKZ,
read as DSB id); ``dob`` a year or ``YYYY-MM-DD`` (``0000`` unknown); ``rating`` the DWZ
(kept, not used: ratings come from the database); empty elements mean "not given".
Results ``white:black`` with ``1 0 ½ + -`` (``0,5``/``0.5`` for ½ too): ``1:0 0:1 ½:½`` rated,
``+:- -:+ -:-`` forfeits; an empty result or an empty ``noBlack`` is no game; one-sided or
unequal results (``0:0``, ``½:0``, ``0:-``) are refused like in the TournamentReport. The
format has no start date: the first ``matchday`` is used, else the end date.

The problems and warnings are worded in the language in force (:mod:`ratingdb.i18n`, German
by default), the paths and the quoted values as the file has them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date

from ratingdb.budget import Problems, check
from ratingdb.i18n import _
from ratingdb.io.dsb_xml import HIMSELF, REQUIRED_MISSING, RESULTS, DsbXmlError, safe_root
from ratingdb.io.numbers import NotANumber, optional_number, whole_number
from ratingdb.io.trf import NationalRecord, TrfGame, TrfPlayer, TrfTournament
from ratingdb.plausibility import BIRTH_YEAR, FIDE_ID, RATING, ROUND, START_RANK, Range

ROOT = "dewis"
FEDERATION = "GER"
_HALF = {"½": "0.5", "0,5": "0.5", "0.5": "0.5", "1/2": "0.5", "R": "0.5", "=": "0.5"}


def _local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _child(elem: ET.Element | None, name: str) -> ET.Element | None:
    if elem is None:
        return None
    return next((c for c in elem if _local(c.tag) == name), None)


def _children(elem: ET.Element | None, name: str) -> list[ET.Element]:
    return [] if elem is None else [c for c in elem if _local(c.tag) == name]


def _text(elem: ET.Element | None, name: str) -> str:
    found = _child(elem, name)
    return " ".join((found.text or "").split()) if found is not None else ""


def is_dewis(data: bytes) -> bool:
    from ratingdb.io.dsb_xml import root_element

    found = root_element(data)
    return found is not None and found[1] == ROOT


def _point(value: str) -> str | None:
    value = value.strip()
    if value in ("0", "1", "+", "-"):
        return value
    return _HALF.get(value)


def parse(data: bytes, source: str = "<dewis>") -> TrfTournament:
    """Read a DeWIS XML file into the neutral model; all problems at once with their paths."""
    root = safe_root(data, source)
    if _local(root.tag) != ROOT:
        why = _("not a DeWIS file (root %(root)r)") % {"root": ROOT}
        raise DsbXmlError(source, [(f"/{_local(root.tag)}", why)])
    problems = Problems()
    top = f"/{ROOT}"
    section = _child(root, "tournamentSection")
    tour = _child(section, "tournament")
    tpath = f"{top}/tournamentSection/tournament"
    if tour is None:
        problems.append((tpath, _(REQUIRED_MISSING)))
    label = _text(tour, "label")
    kind = _text(tour, "type")
    if kind and kind.removesuffix("-H") not in ("SR", "SW", "SC", "TR", "TW", "TC"):
        problems.append((f"{tpath}/type", _("unknown tournament type %(type)r") % {"type": kind}))

    def day(value: str, path: str) -> date | None:
        try:
            return date.fromisoformat(value)
        except ValueError:
            problems.append((path, _("not a date (YYYY-MM-DD): %(value)r") % {"value": value}))
            return None

    end = day(_text(tour, "endDate"), f"{tpath}/endDate") if tour is not None else None

    def number(value: str, path: str, limits: Range) -> int | None:
        try:
            return whole_number(value, limits)
        except NotANumber as err:
            problems.append((path, str(err)))
            return None

    def optional(value: str, path: str, limits: Range) -> int | None:
        try:
            return optional_number(value, limits)
        except NotANumber as err:
            problems.append((path, str(err)))
            return None

    rounds_text = _text(tour, "rounds")
    rounds = number(rounds_text, f"{tpath}/rounds", ROUND) if rounds_text else None
    round_dates: dict[int, date] = {}
    apps = _children(_child(section, "appointments"), "appointment")
    for k, app in enumerate(apps, start=1):
        apath = f"{top}/tournamentSection/appointments/appointment[{k}]"
        app_round, when = _text(app, "round"), _text(app, "matchday")
        if app_round and when:
            which = number(app_round, f"{apath}/round", ROUND)
            parsed = day(when[:10], f"{apath}/matchday")
            if parsed is not None and which is not None:
                round_dates[which] = parsed
    players_section = _child(root, "playerSection")
    ppath = f"{top}/playerSection/players/player"
    players: list[TrfPlayer] = []
    warnings: list[str] = []
    seen: dict[int, int] = {}
    unnumbered = False
    for k, elem in enumerate(_children(_child(players_section, "players"), "player"), start=1):
        check()  # the time budget of the upload (ratingdb/budget.py)
        path = f"{ppath}[{k}]"
        start_rank = number(_text(elem, "noPlayer"), f"{path}/noPlayer", START_RANK)
        if start_rank is None:
            unnumbered = True  # reported: the games that name it are not reported again
            continue
        if start_rank in seen:
            also = _("number %(number)d is also player[%(other)d]")
            problems.append(
                (f"{path}/noPlayer", also % {"number": start_rank, "other": seen[start_rank]})
            )
            continue
        seen[start_rank] = k
        surname, forename = _text(elem, "surname"), _text(elem, "forename")
        if not surname and not forename:
            problems.append((f"{path}/surname", _("the player has no name")))
        dob = _text(elem, "dob")
        birth: date | int | None = None
        before, counted = len(problems), problems.more
        if re.fullmatch(r"[0-9]{4}", dob):
            birth = number(dob, f"{path}/dob", BIRTH_YEAR) if dob != "0000" else None
        elif dob and dob not in ("0000-00-00",):
            birth = day(dob, f"{path}/dob")
            if isinstance(birth, date) and not BIRTH_YEAR.low <= birth.year <= BIRTH_YEAR.high:
                number(str(birth.year), f"{path}/dob", BIRTH_YEAR)
                birth = None
        # no rating needs the birth date from the file (a member's comes from the member
        # list): unreadable or implausible, it is a warning and left empty
        for where, what in problems[before:]:
            warnings.append(
                _("%(where)s: %(problem)s (left empty)") % {"where": where, "problem": what}
            )
        del problems[before:]
        problems.more = counted
        fide_id = optional(_text(elem, "idFide"), f"{path}/idFide", FIDE_ID)
        dwz = optional(_text(elem, "rating"), f"{path}/rating", RATING)
        pkz, vkz, member = _text(elem, "id"), _text(elem, "vkz"), _text(elem, "noMember")
        name = f"{surname}, {forename}" if forename else surname
        player = TrfPlayer(
            start_rank=start_rank,
            sex="",
            title="",
            name=name,
            rating=None,
            federation="",
            fide_id=fide_id,
            birth=birth,
            points=None,
            rank=None,
            rounds=[],
            line=0,
        )
        key = pkz if pkz and pkz != "0" else (f"{vkz}-{member}" if vkz and member else "")
        if key or dwz:
            player.national[FEDERATION] = NationalRecord(
                FEDERATION, start_rank, dwz, "", key, name, birth, 0
            )
        players.append(player)
    if len(players) < 2 and not problems:
        problems.append((ppath, _("at least 2 players required")))
    games: list[TrfGame] = []
    gpath = f"{top}/playerSection/games/game"
    for k, elem in enumerate(_children(_child(players_section, "games"), "game"), start=1):
        check()
        path = f"{gpath}[{k}]"
        result = _text(elem, "result").replace(" ", "")
        white_text, black_text = _text(elem, "noWhite"), _text(elem, "noBlack")
        if not result or not white_text or not black_text:
            continue  # not played, a bye, or no opponent named
        sides = []
        for what, value in (("noWhite", white_text), ("noBlack", black_text)):
            side = number(value, f"{path}/{what}", START_RANK)
            if side is not None and side not in seen and not unnumbered:
                missing = _("no player with noPlayer %(number)d") % {"number": side}
                problems.append((f"{path}/{what}", missing))
            elif side is not None:
                sides.append(side)
        rnd = number(_text(elem, "round"), f"{path}/round", ROUND)
        if rnd is None:
            continue
        if rounds is not None and rnd > rounds:
            higher = _("round %(round)d is higher than rounds (%(rounds)d)")
            problems.append((f"{path}/round", higher % {"round": rnd, "rounds": rounds}))
        white_point, _colon, black_point = result.partition(":")
        pw, pb = _point(white_point), _point(black_point)
        code = RESULTS.get((pw, pb)) if pw and pb else None
        if pw is None or pb is None:
            unknown = _("unknown result %(result)r (e.g. 1:0, ½:½, +:-)") % {"result": result}
            problems.append((f"{path}/result", unknown))
            continue
        if code is None:
            unequal = _(
                "%(result)s is rated for one side only or unequally; ratingdb stores only "
                "1:0, 0:1, ½:½ and forfeits"
            )
            problems.append((f"{path}/result", unequal % {"result": result}))
            continue
        if len(sides) == 2:
            if sides[0] == sides[1]:
                problems.append((f"{path}/noBlack", _(HIMSELF) % {"number": sides[0]}))
                continue
            games.append(TrfGame(rnd, sides[0], sides[1], code))
    if end is None and tour is not None and not any(p.endswith("endDate") for p, _what in problems):
        problems.append((f"{tpath}/endDate", _(REQUIRED_MISSING)))
    if problems:
        raise DsbXmlError(source, problems)
    assert end is not None
    start = min(round_dates.values(), default=end)
    if start > end:
        start = end
    if _child(root, "teamSection") is not None:
        warnings.append(_("the teamSection (teams, line-ups, match points) is not read"))
    return TrfTournament(
        source=source,
        name=label or source,
        start=start,
        end=end,
        type=kind,
        players=players,
        games=sorted(games, key=lambda g: (g.round, g.white)),
        team=kind.startswith("T") or _child(root, "teamSection") is not None,
        round_dates=[round_dates[r] for r in sorted(round_dates)],
        other={"notes": _text(tour, "notes")} if _text(tour, "notes") else {},
        warnings=warnings,
    )
