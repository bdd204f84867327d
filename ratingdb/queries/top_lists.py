"""Top lists (Bestenlisten): the best N players by DWZ of an organisation level on a day.

What DeWIS's ``bestOfFederation`` gave club sites (an organisation's VKZ, the number of
places, age from/to, sex), with the selections of the DSB's own top lists:

* **organisation**: a VKZ (:func:`ratingdb.queries.clubs.organisation_scope`: the clubs
  below it in the club lists' hierarchy and those whose VKZ begins with it; ``000`` the
  whole federation);
* **on**: any day; the members on that day (WO 4.1.1: with ``published_on``, only those
  who are published that day too, as every public list), with the DWZ they had that day
  (:func:`ratingdb.queries.reports.current_ratings`); players without DWZ are left out;
* **birth years** from/to (inclusive), or an **age range** (:mod:`ratingdb.queries.
  age_ranges`: ``U18``, ``Ü60``, ``youth`` …; age = year of ``on`` minus birth year); a
  player without birth year is left out of any age selection except ``adult``;
* **sex** ``f``/``m``/``d`` as the member list gives it (``players.sex``; ``w`` is ``f``);
* **status**: ``active`` (an active membership in the organisation that day) or
  ``passive`` (only passive ones).

Order: DWZ descending, then the higher index, then name; equal DWZ share the place (1, 2,
2, 4). At most ``limit`` rows (1 to 1000, DeWIS's bound).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _, date_text, pgettext
from ratingdb.names import full_name
from ratingdb.plausibility import BIRTH_YEAR, check_date
from ratingdb.queries.age_ranges import age_condition, birth_year_condition
from ratingdb.queries.clubs import OrganisationScope, organisation_scope
from ratingdb.queries.documents import Document, cells
from ratingdb.terms import membership_status

MAX_LIMIT = 1000
SEXES = {"f": "f", "w": "f", "m": "m", "d": "d"}
STATUSES = ("active", "passive")


@dataclass(frozen=True, slots=True)
class TopListRow:
    """One place of a top list."""

    rank: int
    player_id: int
    name: str
    surname: str
    given_name: str
    rating: int
    index: int | None
    birth_year: int | None
    sex: str | None
    vkz: str  # the club in the organisation (the player's first by VKZ, if several)
    club: str
    status: str  # active / passive, in the organisation on the day
    fide_id: int | None
    dsb_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TopListQuery:
    """A top list's selection, checked (:func:`top_list_query`)."""

    organisation: str
    on: date
    limit: int = 100
    birth_year_from: int | None = None
    birth_year_to: int | None = None
    age: str | None = None
    sex: str | None = None
    status: str | None = None


def top_list_query(
    *,
    organisation: str,
    on: date,
    limit: int = 100,
    birth_year_from: int | None = None,
    birth_year_to: int | None = None,
    age: str | None = None,
    sex: str | None = None,
    status: str | None = None,
    today: date | None = None,
) -> TopListQuery:
    """The selection with its values normalised; an InputError naming the bad one."""
    check_date(on, "date", today=today)
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(
            "limit", _("the number of places must be 1 to %(max)d") % {"max": MAX_LIMIT}
        )
    for where, year in (("birth_year_from", birth_year_from), ("birth_year_to", birth_year_to)):
        if year is not None and not BIRTH_YEAR.low <= year <= BIRTH_YEAR.high:
            raise InputError(where, _("%(year)d is no birth year") % {"year": year})
    if (
        birth_year_from is not None
        and birth_year_to is not None
        and birth_year_from > birth_year_to
    ):
        raise InputError(
            "birth_year_to",
            _("the birth years run from %(first)d to %(last)d: the end lies before the start")
            % {"first": birth_year_from, "last": birth_year_to},
        )
    age = (age or "").strip() or None
    if age is not None:
        try:
            age_condition(age, on.year)
        except ValueError as err:
            raise InputError("age", str(err)) from None
    sex_key = (sex or "").strip().lower() or None
    if sex_key is not None and sex_key not in SEXES:
        raise InputError("sex", _("sex is f (female), m (male) or d (diverse), not %(value)r")
                         % {"value": sex})  # fmt: skip
    status = (status or "").strip().lower() or None
    if status is not None and status not in STATUSES:
        raise InputError("status", _("status is active or passive, not %(value)r")
                         % {"value": status})  # fmt: skip
    return TopListQuery(
        organisation=organisation.strip(), on=on, limit=limit, birth_year_from=birth_year_from,
        birth_year_to=birth_year_to, age=age, sex=SEXES[sex_key] if sex_key else None,
        status=status,
    )  # fmt: skip


def top_list(
    session: Session,
    *,
    organisation: str,
    on: date,
    limit: int = 100,
    birth_year_from: int | None = None,
    birth_year_to: int | None = None,
    age: str | None = None,
    sex: str | None = None,
    status: str | None = None,
    published_on: date | None = None,
) -> list[TopListRow]:
    """The best ``limit`` members of ``organisation`` by DWZ on ``on`` (module docstring).
    ``published_on``: only players published that day (the public pages: today)."""
    query = top_list_query(
        organisation=organisation, on=on, limit=limit, birth_year_from=birth_year_from,
        birth_year_to=birth_year_to, age=age, sex=sex, status=status, today=published_on,
    )  # fmt: skip
    return top_list_rows(session, query, organisation_scope(session, query.organisation),
                         published_on=published_on)  # fmt: skip


def top_list_rows(
    session: Session,
    query: TopListQuery,
    scope: OrganisationScope,
    *,
    published_on: date | None = None,
) -> list[TopListRow]:
    """The rows of a checked query in a resolved scope (:func:`top_list`)."""
    from ratingdb.queries.reports import current_ratings

    in_scope, params = scope.condition("o")
    filters = age_condition(query.age, query.on.year) + birth_year_condition(
        query.birth_year_from, query.birth_year_to
    )
    if query.sex is not None:
        filters += " AND p.sex = :sex"
    published = (
        ""
        if published_on is None
        else " AND NOT p.anonymised AND EXISTS (SELECT 1 FROM memberships n WHERE "
        "n.player_id = p.id AND n.valid_from <= :today "
        "AND (n.valid_to IS NULL OR n.valid_to >= :today))"
    )
    members = session.execute(
        text(
            "SELECT p.id, p.surname, p.given_name, p.birth_year, p.sex, p.fide_id, p.dsb_id, "
            "min(o.vkz) AS vkz, bool_or(m.status = 'active') AS active FROM memberships m "
            "JOIN players p ON p.id = m.player_id JOIN organisations o ON o.id = m.organisation_id "
            f"WHERE {in_scope} AND m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d)"
            f"{published}{filters} GROUP BY p.id"
        ),
        {**params, "d": query.on, "today": published_on, "sex": query.sex},
    ).all()
    if query.status is not None:
        members = [m for m in members if m.active == (query.status == "active")]
    ratings = current_ratings(session, [m.id for m in members], query.on)
    rated = sorted(
        (m for m in members if m.id in ratings),
        key=lambda m: (-ratings[m.id][0], -(ratings[m.id][1] or 0), m.surname, m.given_name, m.id),
    )[: query.limit]
    clubs = {
        r.vkz: r.name
        for r in session.execute(
            text("SELECT vkz, name FROM organisations WHERE vkz = ANY(:v)"),
            {"v": sorted({m.vkz for m in rated})},
        )
    }
    rows: list[TopListRow] = []
    for k, m in enumerate(rated):
        rating, index = ratings[m.id]
        rank = rows[-1].rank if rows and rows[-1].rating == rating else k + 1
        rows.append(
            TopListRow(
                rank=rank, player_id=m.id, name=full_name(m.surname, m.given_name),
                surname=m.surname, given_name=m.given_name, rating=rating, index=index,
                birth_year=m.birth_year, sex=m.sex, vkz=m.vkz, club=clubs.get(m.vkz, ""),
                status="active" if m.active else "passive", fide_id=m.fide_id, dsb_id=m.dsb_id,
            )
        )  # fmt: skip
    return rows


#: the fields of :class:`TopListRow` a top list shows (page, CSV, PDF), in column order
TOP_KEYS = ("rank", "name", "rating", "index", "birth_year", "sex", "vkz", "club", "status",
            "fide_id", "player_id")  # fmt: skip


def top_labels() -> dict[str, str]:
    """The column name of each of :data:`TOP_KEYS` in the language in force."""
    return dict(
        zip(
            TOP_KEYS,
            (
                pgettext("column", "Place"), pgettext("column", "Name"), "DWZ",
                pgettext("column", "Index"), pgettext("column", "Born"),
                pgettext("column", "Sex"), "VKZ", pgettext("column", "Club"),
                pgettext("column", "Status"), pgettext("column", "FIDE ID"),
                pgettext("column", "Player ID"),
            ),
            strict=True,
        )
    )  # fmt: skip


def selection_words(query: TopListQuery) -> list[tuple[str, str]]:
    """The selection as header lines of the CSV/PDF and the page (label, value)."""
    lines = [(_("As of"), date_text(query.on)), (_("Places"), str(query.limit))]
    if query.age:
        lines.append((_("Age class"), query.age))
    if query.birth_year_from is not None or query.birth_year_to is not None:
        first = "" if query.birth_year_from is None else str(query.birth_year_from)
        last = "" if query.birth_year_to is None else str(query.birth_year_to)
        lines.append((_("Born"), f"{first}–{last}"))
    if query.sex:
        lines.append((pgettext("column", "Sex"), sex_word(query.sex)))
    if query.status:
        lines.append((pgettext("column", "Status"), membership_status(query.status)))
    return lines


def sex_word(sex: str | None) -> str:
    return {"f": _("female"), "m": _("male"), "d": _("diverse")}.get(sex or "", "")


def top_list_title(scope: OrganisationScope) -> str:
    shown = f"{scope.name} ({scope.vkz})" if scope.name else scope.vkz
    return _("Top list %(organisation)s") % {"organisation": shown}


def top_list_document(
    rows: list[TopListRow], query: TopListQuery, scope: OrganisationScope
) -> Document:
    """A top list as CSV/PDF: the selection in the header, a row per place."""
    values = [r.to_dict() for r in rows]
    for v in values:
        v["sex"], v["status"] = sex_word(v["sex"]), membership_status(v["status"])
    return Document(
        title=top_list_title(scope),
        header=selection_words(query),
        columns=tuple(top_labels().values()),
        rows=[cells([v[k] for k in TOP_KEYS]) for v in values],
        left=frozenset({1, 5, 6, 7, 8}),
    )


def top_list_report(session: Session, **selection: Any) -> Document:
    """The top list of :func:`top_list`'s selection (every player, as an officer's command
    line sees them) as a CSV/PDF document (``ratingdb export list --top``)."""
    query = top_list_query(**selection)
    scope = organisation_scope(session, query.organisation)
    return top_list_document(top_list_rows(session, query, scope), query, scope)
