"""The DeWIS operations, answered from ratingdb's data (docs/dewis.md has each one's
arguments, answer and sources).

Each operation takes the session, today's date and the call's positional arguments and
returns the ``return`` value (dicts, lists, ints, strings: :mod:`.encoding`), or raises a
:class:`~ratingdb.web.dewis.faults.DewisFault`. They read through :mod:`ratingdb.queries`
and the public pages' functions under the pages' publication rules (WO 4.1.1, docs/web.md
"Data protection"): only published players (members today, not anonymised) appear with a
player id and personal data; everybody else is a textual participant (the name in a
tournament's pairings, nothing else). The Karteikarte shows no birth year, sex or member
number, as the public card; lists show what the public rating lists show. Each answer names
the scopes it shows for the page cache (:func:`ratingdb.web.page_cache.depends_on`).

A player's ``pid`` is ratingdb's player id (the number of ``/players/{id}``): the clients
take a number for a Karteikarte and a ``VKZ-number`` for a ZPS.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.queries import dewis_data as data
from ratingdb.queries.evaluation_table import tournament_info
from ratingdb.queries.games import tournament_games
from ratingdb.queries.publication import published_players
from ratingdb.queries.reports import rating_list_rows
from ratingdb.queries.search import ZPS, search_players
from ratingdb.web import scopes
from ratingdb.web.dewis import arguments as arg
from ratingdb.web.dewis import faults as f
from ratingdb.web.dewis.envelope import Value
from ratingdb.web.dewis.faults import DewisFault
from ratingdb.web.lists import selected_top_list
from ratingdb.web.page_cache import depends_on
from ratingdb.web.pages import card_for, tournament_list

#: the most players one ``searchByName`` answers (the clients ask for up to 500)
MAX_SEARCH = 1000
#: ``searchByName`` without a limit
DEFAULT_SEARCH = 100
MAX_OFFSET = 100_000
#: the most places one ``bestOfFederation`` answers (the top lists' bound, DeWIS's)
MAX_PLACES = 1000
#: a larger limit is answered with :data:`MAX_PLACES` places up to this one (the Contao
#: bundle asks for 500 more than it shows, to filter foreigners out), a fault above
MAX_PLACES_ASKED = 10_000
#: ``bestOfFederation``'s age bounds; 0 to at least :data:`ALL_AGES` selects no age
MAX_AGE = 140
ALL_AGES = 120
#: the most tournaments one ``tournamentsByPeriod`` answers
MAX_TOURNAMENTS = 5000
#: the shortest surname ``searchByName`` looks for (letters, without spaces)
MIN_SURNAME = 2
#: a VKZ (WO 6.3: letters and digits)
VKZ = re.compile(r"[0-9A-Za-z]{1,10}")
#: the pages in which the lists are read (the queries' own bounds)
_SEARCH_PAGE = 200
_TOURNAMENT_PAGE = 500
#: game results as the DeWIS pairings write them (white's score, ':', black's)
PAIRING_RESULTS = {
    "1-0": "1:0", "0-1": "0:1", "1/2-1/2": "½:½", "+-": "+:-", "-+": "-:+", "--": "-:-",
    "W-L": "1:0", "L-W": "0:1", "D-D": "½:½",
}  # fmt: skip

Operation = Callable[[Session, date, Sequence[Value]], Any]


def _number(value: Decimal | int | None) -> str:
    """An exact decimal as the text DeWIS sends (``4.5``, ``7``, ``0.512``); "" if none."""
    if value is None:
        return ""
    found = Decimal(value)
    text = format(found.normalize(), "f") if found == found.to_integral() else format(found, "f")
    return text


def _stamp(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def _member_number(value: str | None) -> int:
    return int(value) if value and value.isascii() and value.isdigit() else 0


def _state(status: str | None) -> str:
    """DeWIS's membership state: "" for active, ``P`` for passive."""
    return "P" if status == "passive" else ""


def _member(
    pid: int,
    player: Any,
    membership: dict[str, Any] | None,
    rating: tuple[int, int | None] | None,
    last: tuple[str, date] | None,
    fide: tuple[int, str, str] | None,
) -> dict[str, Any]:
    """A player of a list (search, club, top list): the fields in DeWIS's order."""
    return {
        "pid": pid,
        "surname": player.surname,
        "firstname": player.given_name or "",
        "title": "",
        "gender": player.sex or "",
        "yearOfBirth": player.birth_year or 0,
        "membership": _member_number(membership["member_number"]) if membership else 0,
        "vkz": membership["vkz"] if membership else "",
        "club": membership["club"] if membership else "",
        "state": _state(membership["status"]) if membership else "",
        "rating": rating[0] if rating else 0,
        "ratingIndex": (rating[1] or 0) if rating else 0,
        "tcode": last[0] if last else "",
        "finishedOn": last[1].isoformat() if last else "",
        "idfide": player.fide_id or 0,
        "nationfide": fide[1] if fide else "",
        "elo": fide[0] if fide else 0,
        "fideTitle": fide[2] if fide else "",
    }


def search_by_name(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``searchByName(surname, firstname = "", offset = 0, limit = 100)``: published players
    whose surname (and first name) begin so, accents and umlaut spellings folded."""
    surname = arg.text(args, 0, f.NOT_A_VALID_SURNAME, max_length=100)
    if len(surname.replace(" ", "")) < MIN_SURNAME:
        raise DewisFault(f.SURNAME_TOO_SHORT)
    if surname.isdigit():
        raise DewisFault(f.NOT_A_VALID_SURNAME)
    firstname = arg.text(args, 1, f.NOT_A_VALID_SURNAME, max_length=100)
    offset = arg.integer(args, 2, f.NOT_A_VALID_OFFSET, default=0, high=MAX_OFFSET)
    limit = arg.integer(args, 3, f.NOT_A_VALID_LIMIT, default=0, high=MAX_SEARCH)
    limit = limit or DEFAULT_SEARCH
    name = f"{surname.replace(',', ' ')}, {firstname.replace(',', ' ')}"
    hits: list[dict[str, Any]] = []
    while len(hits) < limit:
        page = search_players(
            session, name=name, day=today, limit=min(_SEARCH_PAGE, limit - len(hits)),
            offset=offset + len(hits),
        )  # fmt: skip
        hits.extend(page)
        if len(page) < _SEARCH_PAGE:
            break
    ids = [h["id"] for h in hits]
    players = data.players_by_id(session, ids)
    clubs = data.current_memberships(session, ids, today)
    last = data.last_tournaments(session, ids, today)
    fide = data.fide_data(session, ids, today)
    return {
        "members": [
            _member(
                h["id"],
                players[h["id"]],
                next(iter(clubs.get(h["id"], [])), None),
                (h["rating"], h["index"]) if h["rating"] is not None else None,
                last.get(h["id"]),
                fide.get(h["id"]),
            )
            for h in hits
        ]
    }


def _vkz(args: Sequence[Value], i: int, fault: str, default: str | None = None) -> str:
    found = arg.text(args, i, fault, default=default, max_length=10)
    if not VKZ.fullmatch(found):
        raise DewisFault(fault)
    return found


def union_rating_list(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``unionRatingList(zps)``: a club's published members today, by DWZ (the public
    rating list of the club), its name and the officer responsible for it."""
    vkz = _vkz(args, 0, f.NOT_A_VALID_UNION_ID)
    club = data.organisation(session, vkz)
    if club is None or club.kind != "club":
        raise DewisFault(f.UNION_DOES_NOT_EXIST)
    rows = rating_list_rows(session, club=vkz, day=today, published_on=today, memberships=True)
    depends_on(scopes.club(vkz), *(scopes.player(r["player_id"]) for r in rows))
    ids = [r["player_id"] for r in rows]
    last = data.last_tournaments(session, ids, today)
    players = data.players_by_id(session, ids)
    fide = data.fide_data(session, ids, today)
    officer = data.responsible(data.officers(session), vkz)
    return {
        "union": {"vkz": club.vkz, "name": club.name},
        "ratingOfficer": "" if officer is None else str(officer.user_id),
        "members": [
            _member(
                r["player_id"],
                players[r["player_id"]],
                {
                    "vkz": r["vkz"],
                    "club": r["club"],
                    "member_number": r["member_number"],
                    "status": "passive" if r["passive"] else "active",
                },
                (r["rating"], r["index"]) if r["rating"] is not None else None,
                last.get(r["player_id"]),
                fide.get(r["player_id"]),
            )
            for r in rows
        ],
    }


def _card(session: Session, today: date, player_id: int) -> dict[str, Any]:
    try:
        found = card_for(session, player_id, today, None)
    except LookupError:
        raise DewisFault(f.NOT_A_MEMBER) from None
    card = found["card"]
    player = card.player
    fide = data.fide_data(session, [player_id], today).get(player_id)
    clubs = data.current_memberships(session, [player_id], today).get(player_id, [])
    officer_list = data.officers(session)
    evaluations = [e for e in card.evaluations if e["kind"] == "evaluation"]
    unrated = data.unrated_games(session, [e["participant_id"] for e in evaluations])
    depends_on(*(scopes.club(c["vkz"]) for c in clubs))
    return {
        "member": {
            "pid": player["id"],
            "surname": player["surname"],
            "firstname": player["given_name"] or "",
            "title": "",
            "gender": "",  # the public Karteikarte shows no sex
            "yearOfBirth": 0,  # nor a birth year
            "idfide": player["fide_id"] or 0,
            "fideNation": fide[1] if fide else "",
            "elo": fide[0] if fide else 0,
            "fideTitle": fide[2] if fide else "",
            "rating": card.current_rating or 0,
            "ratingIndex": card.current_index or 0,
        },
        "memberships": [
            {
                "vkz": c["vkz"],
                "club": c["club"],
                "membership": 0,  # nor a member number
                "state": _state(c["status"]),
                "assessor": _officer_id(data.responsible(officer_list, c["vkz"])),
            }
            for c in clubs
        ],
        "ranking": [today.isoformat(), _ranking(session, today, player_id, clubs, officer_list)],
        "tournaments": [
            {
                "tcode": e["tournament"],
                "tname": e["name"],
                "finishedOn": e["end_date"].isoformat(),
                "ratingOld": e["rating_old"] or 0,
                "ratingOldIndex": e["index_old"] or 0,
                "points": _number(e["score"]),
                "games": e["games"],
                "unratedGames": unrated.get(e["participant_id"], 0),
                "we": _number(e["expected"]),
                "achievement": e["performance"] or 0,
                "eCoefficient": _number(e["k"]),
                "ratingNew": e["rating_new"] or 0,
                "ratingNewIndex": e["index_new"] or 0,
                "level": e["opponents_avg"] or 0,
            }
            for e in evaluations
        ],
    }


def _officer_id(officer: data.Officer | None) -> str:
    return "" if officer is None else str(officer.user_id)


def _ranking(
    session: Session,
    today: date,
    player_id: int,
    clubs: list[dict[str, Any]],
    officer_list: list[data.Officer],
) -> list[dict[str, Any]]:
    """The player's place in each current club's rating list (``o6``) and the levels above
    the club (``o1`` the top, one more per level below, at most ``o5``; their place is left
    empty: a federation's whole list per Karteikarte is not computed)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for c in clubs:
        rows = rating_list_rows(session, club=c["vkz"], day=today, published_on=today)
        rank = next((r["rank"] for r in rows if r["player_id"] == player_id), 0)
        levels = data.ancestors(session, c["vkz"])
        for depth, level in enumerate(levels):
            if level.vkz in seen:
                continue
            seen.add(level.vkz)
            from_top = len(levels) - 1 - depth
            out.append(
                {
                    "vkz": level.vkz,
                    "organization": level.name,
                    "organizationType": "o6" if depth == 0 else f"o{min(from_top + 1, 5)}",
                    "rank": rank if depth == 0 else "",
                    "assessor": _officer_id(data.responsible(officer_list, level.vkz)),
                }
            )
    return out


def tournament_card_for_id(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournamentCardForId(pid)``: the Karteikarte of a published player."""
    return _card(session, today, arg.integer(args, 0, f.NO_VALID_ID, low=1, high=2**62))


def tournament_card_for_zps(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournamentCardForZps("VKZ-number")``: the Karteikarte of the published player with
    that membership (leading zeros of the number ignored)."""
    zps = arg.text(args, 0, f.NO_VALID_ID, default=None, max_length=20)
    if not ZPS.fullmatch(zps):
        raise DewisFault(f.NO_VALID_ID)
    hits = search_players(session, zps=zps, day=today, limit=1)
    if not hits:
        raise DewisFault(f.NOT_A_MEMBER)
    return _card(session, today, int(hits[0]["id"]))


def rating_officer(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``ratingOfficer(id)``: the name of a rating officer (ratingdb keeps no address)."""
    user_id = arg.integer(args, 0, f.NO_VALID_ID, low=1)
    officer = next((o for o in data.officers(session) if o.user_id == user_id), None)
    if officer is None:
        raise DewisFault(f.RATING_OFFICER_DOES_NOT_EXIST)
    full = " ".join((officer.full_name or officer.name).split())
    if "," in full:
        surname, _, firstname = (s.strip() for s in full.partition(","))
    else:
        firstname, _, surname = full.rpartition(" ")
    return {
        "id": officer.user_id,
        "surname": surname,
        "firstname": firstname,
        "street": "",
        "zip": "",
        "city": "",
        "email": "",
    }


def organizations(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``organizations(zps = "00000")``: the organisation (federation level or club) and
    everything below it as a tree of ``children``."""
    zps = _vkz(args, 0, f.NOT_A_VALID_FEDERATION_ID, default="000")
    tree = data.organisation_tree(session)
    officer_list = data.officers(session)
    by_vkz = {o.vkz: o for o in tree}
    children: dict[int | None, list[data.Organisation]] = {}
    for o in tree:
        children.setdefault(o.parent_id, []).append(o)
    top = _level(by_vkz, zps)

    def node(o: data.Organisation, depth: int) -> dict[str, Any]:
        below = children.get(o.id, []) if depth < 20 else []
        return {
            "id": o.id,
            "club": o.name,
            "vkz": o.vkz,
            "p": o.parent_id or 0,
            "assessor": _officer_id(data.responsible(officer_list, o.vkz)),
            "children": [node(c, depth + 1) for c in below],
        }

    if top is not None:
        return node(top, 0)
    if zps.strip("0"):
        raise DewisFault(f.FEDERATION_DOES_NOT_EXIST)
    # the whole federation, without an organisation for it: its top levels
    return {
        "id": 0, "club": "", "vkz": "000", "p": 0, "assessor": "",
        "children": [node(o, 1) for o in children.get(None, [])],
    }  # fmt: skip


def _level(by_vkz: dict[str, data.Organisation], zps: str) -> data.Organisation | None:
    """The organisation a DeWIS ZPS names: its VKZ, or the VKZ without trailing zeros
    (``C0300`` → ``C03``, ``00000`` → ``000``), the longest that exists."""
    candidate = zps
    while candidate:
        if candidate in by_vkz:
            return by_vkz[candidate]
        if not candidate.endswith("0"):
            return None
        candidate = candidate[:-1]
    return None


def _name_key(name: str) -> str:
    """A person's name compared: ``Amtlich, Anna`` = ``Anna Amtlich``, case and spaces
    ignored."""
    if "," in name:
        surname, _, given = name.partition(",")
        name = f"{given} {surname}"
    return " ".join(name.split()).lower()


def _assessors(evaluators: list[str], officer_list: list[data.Officer]) -> tuple[str, str]:
    """The officers among a tournament's first two evaluators (by user name or full name),
    as ids; "" for an evaluator who is no officer."""
    found = []
    for name in evaluators[:2]:
        key = _name_key(name)
        match = next(
            (o for o in officer_list if key in (o.name.lower(), _name_key(o.full_name))), None
        )
        found.append(_officer_id(match))
    found += ["", ""]
    return found[0], found[1]


def _header(info: Any, rounds: int, officer_list: list[data.Officer]) -> dict[str, Any]:
    first, second = _assessors(info.evaluators, officer_list)
    computed = info.evaluated_at or info.calculated_at
    recomputed = info.calculated_at if info.calculated_at != computed else None
    return {
        "tid": info.id,
        "tcode": info.code,
        "tname": info.name,
        "rounds": rounds,
        "finishedOn": info.end.isoformat(),
        "computedOn": _stamp(computed),
        "recomputedOn": _stamp(recomputed),
        "assessor1": first,
        "assessor2": second,
        "cntPlayer": info.players,
        "cntGames": info.games,
    }


def _tournament_code(args: Sequence[Value]) -> str:
    return arg.text(args, 0, f.NOT_A_VALID_TOURNAMENT_CODE, default=None, max_length=30)


def _info(session: Session, code: str) -> Any:
    try:
        return tournament_info(session, code)
    except LookupError:
        raise DewisFault(f.NOT_A_VALID_TOURNAMENT) from None


def tournament(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournament(code)``: the header and the evaluation of a tournament; the evaluation
    lists the published participants (the others are textual participants: their names are
    in ``tournamentPairings``)."""
    info = _info(session, _tournament_code(args))
    results = data.tournament_results(session, info.id)
    ids = [r["player_id"] for r in results if r["player_id"] is not None]
    depends_on(scopes.tournament(info.id), *map(scopes.person, ids))
    shown = published_players(session, ids, today)
    players = data.players_by_id(session, sorted(shown))
    fide = data.fide_data(session, sorted(shown), today)
    rounds = data.tournament_rounds(session, [info.id]).get(info.id, (0, 0))[0]
    evaluation = []
    for r in results:
        pid = r["player_id"]
        if pid not in shown:
            continue
        p = players[pid]
        remaining = r["player_group"] == "remaining"
        evaluation.append(
            {
                "pid": pid,
                "surname": p.surname,
                "firstname": p.given_name or "",
                "title": "",
                "membership": 0,  # the evaluation display shows no member number,
                "vkz": r["club_vkz"] or "",
                "club": r["club"] or "",
                "yearOfBirth": 0,  # no birth year and no sex (its age class only)
                "gender": "",
                "idfide": p.fide_id or 0,
                "elo": fide[pid][0] if pid in fide else 0,
                "fideTitle": fide[pid][2] if pid in fide else "",
                "ratingOld": r["rating_old"] or 0,
                "ratingOldIndex": r["index_old"] or 0,
                "points": _number(r["score"]),
                "games": r["games"],
                "unratedGames": r["unrated"],
                "we": _number(r["expected"]),
                "achievement": r["performance"] or 0,
                "eCoefficient": _number(r["k"]),
                "ratingNew": 0 if remaining else r["rating_new"] or 0,
                "ratingNewIndex": 0 if remaining else r["index_new"] or 0,
                "level": r["opponents_avg"] or 0,
            }
        )
    return {"tournament": _header(info, rounds, data.officers(session)), "evaluation": evaluation}


def _pairings(session: Session, today: date, code: str) -> tuple[Any, dict[int, list[Any]]]:
    """A tournament's header info and its games by round as DeWIS writes them."""
    info = _info(session, code)
    found = tournament_games(session, info.code, today)
    depends_on(
        scopes.tournament(info.id),
        *(scopes.person(p["player_id"]) for p in found["participants"] if p["player_id"]),
    )
    ids = {
        p["participant_id"]: p["player_id"] or -p["participant_id"] for p in found["participants"]
    }
    rounds: dict[int, list[dict[str, Any]]] = {}
    for g in found["games"]:
        rounds.setdefault(g["round"] or 0, []).append(
            {
                "idWhite": ids[g["white_participant"]],
                "white": g["white"],
                "idBlack": ids[g["black_participant"]],
                "black": g["black"],
                "result": PAIRING_RESULTS[g["result"]],
            }
        )
    return info, rounds


def tournament_pairings(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournamentPairings(code)``: the header and every game by round; a published player
    is named by his ``pid``, a textual participant by minus his participant number."""
    info, rounds = _pairings(session, today, _tournament_code(args))
    return {
        "tournament": _header(info, max(rounds, default=0), data.officers(session)),
        "rounds": [
            {"no": no, "appointment": "", "games": games} for no, games in sorted(rounds.items())
        ],
    }


def tournament_pairings_by_player(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournamentPairingsByPlayer(code, pid)``: the header and the games of one published
    player in the tournament, in round order (none for a player who is not in it)."""
    code = _tournament_code(args)
    pid = arg.integer(args, 1, f.NO_VALID_ID, low=1, high=2**62)
    info, rounds = _pairings(session, today, code)
    games = [
        g
        for _, games in sorted(rounds.items())
        for g in games
        if pid in (g["idWhite"], g["idBlack"])
    ]
    return {
        "tournament": _header(info, max(rounds, default=0), data.officers(session)),
        "games": games,
    }


def tournaments_by_period(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``tournamentsByPeriod(from, to, zps = "000", subs = true, type, search = "")``: the
    tournaments that ended in the period (within one year, as the DSB's service), of the
    level ``zps`` (its VKZ without trailing zeros; with ``subs`` the levels below too),
    whose name contains ``search``. ``type`` is not used."""
    since = arg.day(args, 0, f.NOT_A_VALID_DATE)
    until = arg.day(args, 1, f.NOT_A_VALID_DATE)
    if since > until or since.year != until.year:
        raise DewisFault(f.NOT_A_VALID_PERIOD)
    zps = _vkz(args, 2, f.TOURNAMENT_LEVEL_NOT_VALID, default="000")
    subs = arg.flag(args, 3, default=True)
    search = arg.text(args, 5, f.NOT_A_VALID_SEARCH, max_length=100)
    prefix = zps.rstrip("0")
    if prefix and not any(o.vkz.startswith(prefix) for o in data.organisation_tree(session)):
        raise DewisFault(f.TOURNAMENT_LEVEL_NOT_VALID)
    items: list[dict[str, Any]] = []
    while len(items) < MAX_TOURNAMENTS:
        page, _ = tournament_list(
            session, ended_from=since, ended_to=until, vkz=prefix or None, name=search or None,
            limit=_TOURNAMENT_PAGE, offset=len(items),
        )  # fmt: skip
        items.extend(page)
        if len(page) < _TOURNAMENT_PAGE:
            break
    if not subs:
        items = [t for t in items if t["vkz"] == zps]
    counts = data.tournament_rounds(session, [t["id"] for t in items])
    officer_list = data.officers(session)
    out = []
    for t in items[:MAX_TOURNAMENTS]:
        rounds, games = counts.get(t["id"], (0, 0))
        first, second = _assessors(t["evaluators"], officer_list)
        computed = t["evaluated_at"] or t["calculated_at"]
        out.append(
            {
                "tid": t["id"],
                "tcode": t["code"],
                "tname": t["name"],
                "rounds": rounds,
                "finishedOn": t["end_date"].isoformat(),
                "computedOn": _stamp(computed),
                "recomputedOn": _stamp(
                    t["calculated_at"] if t["calculated_at"] != computed else None
                ),
                "cntPlayer": t["players"],
                "cntGames": games,
                "assessor1": first,
                "assessor2": second,
            }
        )
    return {"tournaments": out}


def best_of_federation(session: Session, today: date, args: Sequence[Value]) -> Any:
    """``bestOfFederation(zps, limit = 100, ageFrom = 0, ageTo = 140, sex = "")``: the best
    published members of an organisation by DWZ today (the public top list,
    :func:`ratingdb.web.lists.selected_top_list`); age from/to inclusive (age = this year
    minus the birth year; 0 to 120 or more: every age, players without a birth year too),
    sex ``m``, ``f`` (or ``w``), ``d`` or "" (any)."""
    zps = _vkz(args, 0, f.NOT_A_VALID_FEDERATION_ID)
    limit = arg.integer(args, 1, f.NOT_A_VALID_LIMIT, default=0, high=MAX_PLACES_ASKED)
    age_from = arg.integer(args, 2, f.NOT_A_VALID_AGE, default=0, high=MAX_AGE)
    age_to = arg.integer(args, 3, f.NOT_A_VALID_AGE, default=MAX_AGE, high=MAX_AGE)
    if age_from > age_to:
        raise DewisFault(f.NOT_A_VALID_AGE)
    sex = arg.text(args, 4, f.NOT_A_VALID_SEX, max_length=1).lower()
    if sex not in ("", "m", "f", "w", "d"):
        raise DewisFault(f.NOT_A_VALID_SEX)
    every_age = age_from == 0 and age_to >= ALL_AGES
    _, scope, rows, _ = selected_top_list(
        session, today, organisation=zps, limit=min(limit or DEFAULT_SEARCH, MAX_PLACES),
        birth_year_from=None if every_age else today.year - age_to,
        birth_year_to=None if every_age else today.year - age_from, sex=sex or None,
    )  # fmt: skip
    if scope.name is None and not scope.everything:
        raise DewisFault(f.FEDERATION_DOES_NOT_EXIST)
    ids = [r.player_id for r in rows]
    last = data.last_tournaments(session, ids, today)
    fide = data.fide_data(session, ids, today)
    officer = data.responsible(data.officers(session), scope.vkz)
    return {
        "organization": {"vkz": scope.vkz, "name": scope.name or ""},
        "ratingOfficer": _officer_id(officer),
        "members": [
            _member(
                r.player_id,
                r,
                # the public top list shows no member number
                {"vkz": r.vkz, "club": r.club, "member_number": None, "status": r.status},
                (r.rating, r.index),
                last.get(r.player_id),
                fide.get(r.player_id),
            )
            for r in rows
        ],
    }


#: the operations by their DeWIS names
OPERATIONS: dict[str, Operation] = {
    "searchByName": search_by_name,
    "tournamentCardForId": tournament_card_for_id,
    "tournamentCardForZps": tournament_card_for_zps,
    "unionRatingList": union_rating_list,
    "bestOfFederation": best_of_federation,
    "tournamentsByPeriod": tournaments_by_period,
    "tournament": tournament,
    "tournamentPairings": tournament_pairings,
    "tournamentPairingsByPlayer": tournament_pairings_by_player,
    "organizations": organizations,
    "ratingOfficer": rating_officer,
}

#: each operation's arguments in order, with their XML Schema types: the parts of the WSDL
#: (:mod:`.wsdl`; the calls are read by position, these names are for the clients)
PARAMETERS: dict[str, tuple[tuple[str, str], ...]] = {
    "searchByName": (
        ("surname", "string"), ("firstname", "string"), ("offset", "int"), ("limit", "int"),
    ),
    "tournamentCardForId": (("pid", "int"),),
    "tournamentCardForZps": (("zps", "string"),),
    "unionRatingList": (("zps", "string"),),
    "bestOfFederation": (
        ("zps", "string"), ("limit", "int"), ("ageFrom", "int"), ("ageTo", "int"),
        ("sex", "string"),
    ),
    "tournamentsByPeriod": (
        ("since", "string"), ("until", "string"), ("zps", "string"), ("bSubs", "boolean"),
        ("type", "string"), ("search", "string"),
    ),
    "tournament": (("code", "string"),),
    "tournamentPairings": (("code", "string"),),
    "tournamentPairingsByPlayer": (("code", "string"), ("pid", "int")),
    "organizations": (("zps", "string"),),
    "ratingOfficer": (("id", "int"),),
}  # fmt: skip
