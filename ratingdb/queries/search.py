"""Player search for the Karteikarte (WO 6.5.2.1 item 2): by name, club or an identifier.

Names match by prefix, ignoring case, accents and umlaut spellings (``ratingdb_fold_name``,
migration 0013: Müller = Mueller = Muller, Strauß = Strauss, Çelik = Celik): ``Müller``
finds every surname starting with it, ``Müller, An`` adds a given-name prefix, ``An Müller``
(no comma) tries both orders. A text of digits is a DSB id or a FIDE id (the DSB id's hit
first), ``C0327-12`` a ZPS number (club VKZ and membership number, leading zeros ignored).
Each hit has the last FIDE rating up to the day. Results come in byte order
of the folded name (the order of the name index, so that a short prefix needs no sort of
thousands of rows), a page at a time (``limit``, ``offset``; :func:`count_players` gives the
total). A club is a VKZ (or VKZ prefix) or a part of the club's name. Only published players
(members today, see :mod:`ratingdb.queries.publication`) are found unless
``include_unpublished`` (an authenticated officer, the command line) is set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.errors import InputError, NotFound
from ratingdb.i18n import _
from ratingdb.names import full_name
from ratingdb.queries.like import like_escape
from ratingdb.queries.reports import current_ratings

MAX_RESULTS = 200
#: a ZPS number: the club's VKZ (5 characters), a dash, the membership number (ASCII
#: digits: ``\d`` would take other scripts' digits too); the API declares it as the
#: parameter's pattern (:data:`ZPS_PARAMETER`)
ZPS_PATTERN = r"([0-9A-Za-z]{5})-([0-9]{1,5})"
ZPS = re.compile(ZPS_PATTERN)
#: the ``zps`` search parameter: a ZPS number or nothing
ZPS_PARAMETER = f"^(?:{ZPS_PATTERN})?$"
#: a DSB id or a FIDE id (both numbers; FIDE ids have up to 10 digits)
NUMBER = re.compile(r"\d{1,12}")


def _like(prefix: str) -> str:
    """A LIKE pattern matching what starts with ``prefix`` literally."""
    return like_escape(prefix) + "%"


def _folded(param: str) -> str:
    """The folded prefix pattern of parameter ``param`` (folding keeps \\, % and _)."""
    return f"ratingdb_fold_name(:{param})"


def _name_filter(name: str, params: dict[str, Any]) -> str:
    name = " ".join(name.split())
    if "," in name:
        surname, _, given = (s.strip() for s in name.partition(","))
        params.update(s=_like(surname), g=_like(given))
        return (
            f"ratingdb_fold_name(p.surname) LIKE {_folded('s')} "
            f"AND ratingdb_fold_name(p.given_name) LIKE {_folded('g')}"
        )
    words = name.split(" ")
    if len(words) == 1:
        params["s"] = _like(name)
        return f"ratingdb_fold_name(p.surname) LIKE {_folded('s')}"
    first, rest = words[0], " ".join(words[1:])
    last, front = words[-1], " ".join(words[:-1])
    # "Given Surname", "Surname Given", or a surname of several words
    params.update(s1=_like(rest), g1=_like(first), s2=_like(front), g2=_like(last), s3=_like(name))
    # a UNION, not an OR: each branch is a range of the name index
    return (
        f"p.id IN (SELECT id FROM players WHERE ratingdb_fold_name(surname) LIKE {_folded('s1')} "
        f"AND ratingdb_fold_name(given_name) LIKE {_folded('g1')} UNION SELECT id FROM players "
        f"WHERE ratingdb_fold_name(surname) LIKE {_folded('s2')} "
        f"AND ratingdb_fold_name(given_name) LIKE {_folded('g2')} UNION "
        f"SELECT id FROM players WHERE ratingdb_fold_name(surname) LIKE {_folded('s3')})"
    )


def _text_filter(query: str, params: dict[str, Any]) -> str:
    """A free text: a ZPS number, a DSB or FIDE id, or a name."""
    query = query.strip()
    zps = ZPS.fullmatch(query)
    if zps:
        params.update(zps_vkz=zps[1].upper(), zps_nr=zps[2].lstrip("0"))
        return (
            "p.id IN (SELECT zm.player_id FROM memberships zm JOIN organisations zo "
            "ON zo.id = zm.organisation_id WHERE zo.vkz = :zps_vkz "
            "AND ltrim(zm.member_number, '0') = :zps_nr)"
        )
    if NUMBER.fullmatch(query):
        params.update(number=query, number_int=int(query))
        return "(p.dsb_id = :number OR p.fide_id = :number_int)"
    return _name_filter(query, params)


@dataclass
class _Criteria:
    where: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    members: str = ""
    #: ORDER BY's first terms: a hit by the DSB id before the others (a name search keeps
    #: the name index's order alone)
    first: str = ""


def _criteria(
    name: str | None,
    club: str | None,
    dsb_id: str | None,
    fide_id: int | None,
    zps: str | None,
    day: date,
) -> _Criteria:
    c = _Criteria(params={"d": day})
    if name and name.strip():
        c.where.append(_text_filter(name, c.params))
        if "number" in c.params:  # a DSB id before a FIDE id of the same digits
            c.first = "(p.dsb_id = :number) DESC, "
    if dsb_id and dsb_id.strip():
        c.where.append("p.dsb_id = :dsb")
        c.params["dsb"] = dsb_id.strip()
    if fide_id is not None:
        c.where.append("p.fide_id = :fide")
        c.params["fide"] = fide_id
    if zps and zps.strip():
        if not ZPS.fullmatch(zps.strip()):
            raise InputError(
                "zps",
                _("%(value)r is no ZPS number (VKZ-number, e.g. C0327-12)")
                % {"value": zps.strip()},
            )
        c.where.append(_text_filter(zps, c.params))
    if club and club.strip():
        c.params["club_vkz"] = _like(club.strip())  # a '%' or '_' typed is no wildcard
        c.params["club_name"] = "%" + _like(club.strip().lower())
        c.members = (
            "WITH club_members AS MATERIALIZED (SELECT DISTINCT cm.player_id FROM memberships cm "
            "WHERE cm.organisation_id IN (SELECT id FROM organisations WHERE vkz LIKE :club_vkz "
            "OR lower(name) LIKE :club_name) "
            "AND cm.valid_from <= :d AND (cm.valid_to IS NULL OR cm.valid_to >= :d)) "
        )
        c.where.append("p.id IN (SELECT player_id FROM club_members)")
    return c


#: the last FIDE rating up to the day (external_ratings), as the rating lists give it
_FIDE_RATING = (
    "LEFT JOIN LATERAL (SELECT er.rating AS fide_rating FROM external_ratings er "
    "WHERE er.player_id = p.id AND er.system = 'fide' AND er.rated_on <= :d "
    "ORDER BY er.rated_on DESC LIMIT 1) f ON true"
)

_CURRENT_CLUB = (
    "LATERAL (SELECT o.vkz, o.name AS club FROM memberships mm "
    "JOIN organisations o ON o.id = mm.organisation_id WHERE mm.player_id = p.id "
    "AND mm.valid_from <= :d AND (mm.valid_to IS NULL OR mm.valid_to >= :d) "
    "ORDER BY mm.valid_from DESC LIMIT 1) m ON true"
)


def search_players(
    session: Session,
    *,
    name: str | None = None,
    club: str | None = None,
    dsb_id: str | None = None,
    fide_id: int | None = None,
    zps: str | None = None,
    day: date | None = None,
    include_unpublished: bool = False,
    limit: int = 50,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """Players matching every given criterion (``name`` may also be an id or a ZPS number),
    by folded name, ``limit`` from ``offset``; each with id, name, club VKZ and name (today's
    membership), DSB id, FIDE id, birth year and current DWZ/index."""
    day = day or date.today()
    c = _criteria(name, club, dsb_id, fide_id, zps, day)
    if not c.where:
        return []
    c.params.update(n=max(1, min(limit, MAX_RESULTS)), o=max(0, offset))
    join = "LEFT JOIN" if include_unpublished else "JOIN"
    published = "" if include_unpublished else " AND NOT p.anonymised"
    rows = session.execute(
        text(
            f"{c.members}SELECT p.id, p.surname, p.given_name, p.dsb_id, p.fide_id, "
            f"p.birth_year, m.vkz, m.club, f.fide_rating FROM players p {join} {_CURRENT_CLUB} "
            f"{_FIDE_RATING} WHERE {' AND '.join(c.where)}{published} "
            f"ORDER BY {c.first}ratingdb_fold_name(p.surname) USING ~<~, "
            "ratingdb_fold_name(p.given_name) USING ~<~, p.id LIMIT :n OFFSET :o"
        ),
        c.params,
    ).all()
    ratings = current_ratings(session, [r.id for r in rows], day)
    return [
        {
            "id": r.id,
            "name": full_name(r.surname, r.given_name),
            "vkz": r.vkz,
            "club": r.club,
            "dsb_id": r.dsb_id,
            "fide_id": r.fide_id,
            "fide_rating": r.fide_rating,
            "birth_year": r.birth_year,
            "rating": ratings.get(r.id, (None, None))[0],
            "index": ratings.get(r.id, (None, None))[1],
            "member": r.vkz is not None,
        }
        for r in rows
    ]


def count_players(
    session: Session,
    *,
    name: str | None = None,
    club: str | None = None,
    dsb_id: str | None = None,
    fide_id: int | None = None,
    zps: str | None = None,
    day: date | None = None,
    include_unpublished: bool = False,
) -> int:
    """How many players :func:`search_players` finds with the same criteria (all pages)."""
    day = day or date.today()
    c = _criteria(name, club, dsb_id, fide_id, zps, day)
    if not c.where:
        return 0
    published = (
        ""
        if include_unpublished
        else " AND NOT p.anonymised AND EXISTS (SELECT 1 FROM memberships mm WHERE "
        "mm.player_id = p.id AND mm.valid_from <= :d AND (mm.valid_to IS NULL OR "
        "mm.valid_to >= :d))"
    )
    return int(
        session.execute(
            text(
                f"{c.members}SELECT count(*) FROM players p "
                f"WHERE {' AND '.join(c.where)}{published}"
            ),
            c.params,
        ).scalar_one()
    )


def resolve_player(session: Session, reference: str, day: date | None = None) -> int:
    """The player id that ``reference`` names: a player id, a DSB id (``dsb:`` or ``id:``
    in front decides when a number is both), or a name (``Wolf, Lea``) that is exactly one
    player's, or the prefix of only one. NotFound, or InputError listing the candidates."""
    ref = " ".join(reference.split())
    kind, _colon, value = ref.partition(":")
    if kind in ("id", "dsb") and value.strip().isascii() and value.strip().isdigit():
        value = value.strip()
        column = "id" if kind == "id" else "dsb_id"
        found = session.execute(
            text(f"SELECT id FROM players WHERE {column} = :v"),
            {"v": int(value) if kind == "id" else value},
        ).scalar()
        if found is None:
            raise NotFound(
                (
                    _("no player with id %(id)s")
                    if kind == "id"
                    else _("no player with DSB id %(id)s")
                )
                % {"id": value}
            )
        return int(found)
    if ref.isascii() and ref.isdigit():
        rows = session.execute(
            text("SELECT id, dsb_id = :v AS by_dsb FROM players WHERE id = :i OR dsb_id = :v"),
            {"i": int(ref) if len(ref) < 19 else -1, "v": ref},
        ).all()
        if len(rows) == 1:
            return int(rows[0].id)
        if not rows:
            raise NotFound(_("no player with id or DSB id %(id)s") % {"id": ref})
        by_id = next(r.id for r in rows if not r.by_dsb)
        by_dsb = next(r.id for r in rows if r.by_dsb)
        raise InputError(
            ref,
            _("is player %(id)d and the DSB id of player %(dsb)d: write id:%(ref)s or dsb:%(ref)s")
            % {"id": by_id, "dsb": by_dsb, "ref": ref},
        )
    if not ref:
        raise InputError("player", _("empty; give a player id, a DSB id or a name"))
    hits = search_players(session, name=ref, day=day, include_unpublished=True, limit=11)
    exact = [h for h in hits if _same_name(session, h["name"], ref)]
    if len(exact) == 1:
        return int(exact[0]["id"])
    if len(hits) == 1:
        return int(hits[0]["id"])
    if not hits:
        raise NotFound(
            _("no player named %(name)r (ratingdb player search finds by part of a name)")
            % {"name": ref}
        )
    candidates = exact if exact else hits
    total = (
        len(candidates)
        if exact
        else count_players(session, name=ref, day=day, include_unpublished=True)
    )
    listed = "; ".join(_candidate(h) for h in candidates[:10])
    if total > 10:
        message = _("%(total)d players match: %(listed)s and %(more)d more; give the id") % {
            "total": total,
            "listed": listed,
            "more": total - 10,
        }
    else:
        message = _("%(total)d players match: %(listed)s; give the id") % {
            "total": total,
            "listed": listed,
        }
    raise InputError(ref, message)


def _same_name(session: Session, name: str, reference: str) -> bool:
    """Whether ``name`` and ``reference`` are the same name once folded."""
    return bool(
        session.execute(
            text("SELECT ratingdb_fold_name(:a) = ratingdb_fold_name(:b)"),
            {"a": " ".join(name.split()), "b": reference},
        ).scalar()
    )


def _candidate(hit: dict[str, Any]) -> str:
    details = [f"id {hit['id']}"]
    if hit["vkz"]:
        details.append(hit["vkz"])
    if hit["birth_year"]:
        details.append(f"born {hit['birth_year']}")
    if hit["dsb_id"]:
        details.append(f"DSB id {hit['dsb_id']}")
    return f"{hit['name']} ({', '.join(details)})"
