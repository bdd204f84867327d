"""Printable reports (WO 6.5.2.1/6.5.2.2): a tournament's evaluation, rating lists and a
player's Karteikarte as :class:`~ratingdb.queries.documents.Document` (CSV or PDF).

Rating lists (WO 6.5.2.1 item 3) hold the members of a club (``club``: a VKZ) or of every
club under a federation prefix (``federation``: the VKZ starts with it) on ``day``, with
their current DWZ and index: the last stored evaluation or list takeover, carried through
the rating adjustments up to ``day`` (the same rule as the replay's). ``age_class`` filters
by the WO age classes (``youth`` up to 20, ``junior`` 21-25, ``adult``; age = year of ``day``
minus birth year, WO 3.5.2.2) or by DeWIS's ranges ``U<n>`` (age up to n) and ``Ü<n>`` (n or
more): :mod:`ratingdb.queries.age_ranges`.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb import terms
from ratingdb.db.store import fetch_together
from ratingdb.engine.inputs import state_at
from ratingdb.engine.model import Adjustment, PlayerRecord, PlayerState, Takeover
from ratingdb.i18n import _, date_text, decimal, pgettext
from ratingdb.names import full_name
from ratingdb.plausibility import check_date
from ratingdb.queries.age_ranges import age_condition
from ratingdb.queries.card import current_memberships, rating_card
from ratingdb.queries.chart import chart_points
from ratingdb.queries.clubs import OrganisationScope
from ratingdb.queries.documents import Document, Section, cells
from ratingdb.queries.evaluation_display import evaluation_rows, headers, spreadsheet_headers
from ratingdb.queries.like import like_escape
from ratingdb.queries.tournament import stored_evaluation
from ratingdb.terms import card_terms

AGE_CLASSES = ("youth", "junior", "adult")


#: the fields of :func:`rating_list_rows` that a rating list shows, in the order of its columns
LIST_KEYS = ("rank", "name", "vkz", "club", "member_number", "birth_year", "sex", "rating",
             "index", "fide_id", "player_id")  # fmt: skip


def list_labels() -> dict[str, str]:
    """The column name of each of :data:`LIST_KEYS` in the language in force (the page's
    heads, the CSV's and the PDF's header)."""
    return dict(
        zip(
            LIST_KEYS,
            (
                "#", pgettext("column", "Name"), "VKZ", pgettext("column", "Club"),
                pgettext("column", "Member no."), pgettext("column", "Born"),
                pgettext("column", "Sex"), "DWZ", pgettext("column", "Index"),
                pgettext("column", "FIDE ID"), pgettext("column", "Player ID"),
            ),
            strict=True,
        )
    )  # fmt: skip


def list_columns() -> tuple[str, ...]:
    """The columns of a rating list (CSV and PDF) in the language in force: DWZ and index
    in columns of their own."""
    return tuple(list_labels().values())


def card_columns() -> tuple[str, ...]:
    """The columns of the Karteikarte's CSV and PDF in the language in force: end, tournament,
    then the number columns of the page (:func:`ratingdb.terms.card_terms`), Rechenmodul."""
    return (
        pgettext("column", "End"),
        pgettext("column", "Tournament"),
        *(t.label for t in card_terms()),
        pgettext("column", "Rechenmodul"),
    )


def card_spreadsheet_columns() -> tuple[str, ...]:
    """The columns of the Karteikarte's CSV: :func:`card_columns` with DWZ and index apart,
    the Sonderwertung and residual-games marks in their own columns
    (:func:`ratingdb.terms.spreadsheet_labels`)."""
    return (
        pgettext("column", "End"),
        pgettext("column", "Tournament"),
        *terms.spreadsheet_labels(card_terms()),
        pgettext("column", "Rechenmodul"),
    )


def evaluation_document(session: Session, ident: str) -> Document:
    tin, result = stored_evaluation(session, ident)
    info = tin.tournament
    described = terms.evaluation_terms(result.coefficient)
    rows = evaluation_rows(tin, result)
    return Document(
        title=_("DWZ evaluation: %(name)s") % {"name": info.name or info.id},
        header=[
            (_("Tournament ID"), info.id),
            (pgettext("date", "Start"), date_text(info.start)),
            (pgettext("date", "End"), date_text(info.end)),
            ("VKZ", info.vkz or "-"),
            (_("Kind"), terms.tournament_kind(info.kind)),
            (_("Rechenmodul"), f"{result.rules} ({result.precision})"),
        ],
        columns=headers(result),
        rows=[row.cells for row in rows],
        notes=[terms.notes(), *(t.legend for t in described[2:])],
        left=frozenset({1, 2, 3}),
        csv_columns=spreadsheet_headers(result),
        csv_rows=[row.values for row in rows],
    )


def current_ratings(
    session: Session, player_ids: list[int], day: date
) -> dict[int, tuple[int, int | None]]:
    """Current DWZ and index on ``day`` of the given players (those who have one): the last
    stored evaluation carried through takeovers and adjustments up to ``day`` by the
    engine's own rule (:func:`ratingdb.engine.inputs.state_at`)."""
    params = {"ids": player_ids, "d": day}
    last, taken, adjusted = fetch_together(
        session,
        [
            (
                "SELECT DISTINCT ON (s.player_id) s.player_id, t.end_date, s.rating_new, "
                "s.index_new FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
                "WHERE s.stored AND s.player_id = ANY(:ids) AND t.end_date <= :d "
                "ORDER BY s.player_id, t.end_date DESC, t.start_date DESC, t.vkz DESC, "
                "t.processed_at DESC, t.id DESC",
                params,
            ),
            (
                "SELECT player_id, taken_on, rating, rating_index FROM rating_takeovers "
                "WHERE player_id = ANY(:ids) AND taken_on <= :d",
                params,
            ),
            (
                "SELECT effective_on, formula, raises_index FROM rating_adjustments "
                "WHERE effective_on <= :d ORDER BY effective_on, id",
                params,
            ),
        ],
    )  # one round trip
    states = {r.player_id: PlayerState(r.rating_new, r.index_new, (), r.end_date) for r in last}
    takeovers = {r.player_id: Takeover(r.taken_on, r.rating, r.rating_index) for r in taken}
    adjustments = [Adjustment(r.effective_on, r.formula, r.raises_index) for r in adjusted]
    after = day + timedelta(days=1)  # the events dated ``day`` count
    out: dict[int, tuple[int, int | None]] = {}
    for pid in states.keys() | takeovers.keys():
        record = PlayerRecord(pid, takeover=takeovers.get(pid))
        state = state_at(states.get(pid, PlayerState()), record, after, adjustments)
        if state.rating is not None:
            out[pid] = (state.rating, state.index)
    return out


def rating_list_rows(
    session: Session,
    *,
    club: str | None = None,
    federation: str | None = None,
    age_class: str | None = None,
    day: date,
    published_on: date | None = None,
    memberships: bool = False,
    scope: OrganisationScope | None = None,
) -> list[dict[str, Any]]:
    """The members on ``day`` (each once), by DWZ descending, players without DWZ last;
    ``day`` must be plausible (:func:`ratingdb.plausibility.check_date`, an InputError).

    ``published_on``: only players who are members that day too and not anonymised (WO
    4.1.1: former members appear in publications only as textual participants; the web).
    ``scope``: instead of ``club``/``federation``, the clubs of an organisation level
    (:class:`ratingdb.queries.clubs.OrganisationScope`). ``memberships``: one row per
    membership (a player in two clubs twice, next to each other), with the fields of the
    player files (:mod:`ratingdb.io.player_files`): DSB id, membership status, club name,
    last FIDE rating and federation on ``day``, date of the last evaluation or takeover.
    ValueError for a bad selection."""
    check_date(day, "date", today=published_on)
    if scope is not None:  # an organisation level of the directory
        where, scope_params = scope.condition("o")
        value = None
    else:
        if (club is None) == (federation is None):
            raise ValueError(_("give either a club VKZ or a federation prefix"))
        where = "o.vkz = :v" if club is not None else "o.vkz LIKE :v"
        # a prefix, not a pattern: '_' and '%' in it are themselves (LIKE's escape is '\\')
        value = club if club is not None else f"{like_escape(federation or '')}%"
        scope_params = {}
    published = (
        ""
        if published_on is None
        else " AND NOT p.anonymised AND EXISTS (SELECT 1 FROM memberships n WHERE "
        "n.player_id = p.id AND n.valid_from <= :today "
        "AND (n.valid_to IS NULL OR n.valid_to >= :today))"
    )
    members = session.execute(
        text(
            f"SELECT {'' if memberships else 'DISTINCT ON (p.id) '}p.id, p.surname, "
            "p.given_name, p.birth_year, p.sex, p.fide_id, p.dsb_id, o.vkz, o.name AS club, "
            "u.vkz AS parent, m.member_number, m.status, m.eligibility FROM memberships m "
            "JOIN players p ON p.id = m.player_id JOIN organisations o ON o.id = m.organisation_id "
            "LEFT JOIN organisations u ON u.id = o.parent_id "
            f"WHERE {where} AND m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d)"
            f"{published}{age_condition(age_class, day.year)} ORDER BY p.id, o.vkz"
        ),
        {"v": value, "d": day, "today": published_on, **scope_params},
    ).all()
    ratings = current_ratings(session, [m.id for m in members], day)

    def key(m: Any) -> tuple[Any, ...]:
        rating = ratings.get(m.id, (None, None))[0]
        return (rating is None, -(rating or 0), m.surname, m.given_name, m.id, m.vkz)

    rows = [
        {
            "rank": k,
            "player_id": m.id,
            "name": full_name(m.surname, m.given_name),
            "vkz": m.vkz,
            "club": m.club,
            "member_number": m.member_number,
            "birth_year": m.birth_year,
            "sex": m.sex,
            "rating": ratings.get(m.id, (None, None))[0],
            "index": ratings.get(m.id, (None, None))[1],
            "fide_id": m.fide_id,
        }
        | (
            {
                "surname": m.surname,
                "given_name": m.given_name,
                "dsb_id": m.dsb_id,
                "club_parent": m.parent,
                "passive": m.status == "passive",
                "eligibility": m.eligibility,
            }
            if memberships
            else {}
        )
        for k, m in enumerate(sorted(members, key=key), start=1)
    ]
    if memberships:
        _player_file_fields(session, rows, day)
    return rows


def _player_file_fields(session: Session, rows: list[dict[str, Any]], day: date) -> None:
    """The last FIDE rating and federation on ``day`` and the date of the last evaluation up
    to ``day`` (the end of a tournament with a stored evaluation, or a list takeover, which
    ``players import`` dates in the week of the list's "Letzte Auswertung"), added to every
    row (None when there is none)."""
    ids = sorted({r["player_id"] for r in rows})
    fide = {
        r.player_id: (r.rating, r.federation)
        for r in session.execute(
            text(
                "SELECT DISTINCT ON (player_id) player_id, rating, federation "
                "FROM external_ratings WHERE system = 'fide' AND player_id = ANY(:ids) "
                "AND rated_on <= :d ORDER BY player_id, rated_on DESC"
            ),
            {"ids": ids, "d": day},
        )
    }
    last = {
        r.player_id: r.last
        for r in session.execute(
            text(
                "SELECT player_id, max(day) AS last FROM ("
                "SELECT s.player_id, t.end_date AS day FROM rating_snapshots s "
                "JOIN tournaments t ON t.id = s.tournament_id WHERE s.stored "
                "UNION ALL SELECT player_id, taken_on FROM rating_takeovers) e "
                "WHERE player_id = ANY(:ids) AND day <= :d GROUP BY player_id"
            ),
            {"ids": ids, "d": day},
        )
    }
    for r in rows:
        r["fide_rating"], r["fide_federation"] = fide.get(r["player_id"], (None, None))
        r["last_evaluation"] = last.get(r["player_id"])


def rating_list_document(
    rows: list[dict[str, Any]], *, scope: str, day: date, age_class: str | None
) -> Document:
    """Rows of :func:`rating_list_rows` as a CSV/PDF document."""
    header = [(_("As of"), date_text(day)), (_("Selection"), scope)]
    if age_class:
        header.append((_("Age class"), age_class))
    return Document(
        title=_("Rating list %(selection)s") % {"selection": scope},
        header=header,
        columns=list_columns(),
        rows=[cells([r[k] for k in LIST_KEYS]) for r in rows],
        left=frozenset({1, 2, 3, 6}),
    )


def rating_list(
    session: Session,
    *,
    club: str | None = None,
    federation: str | None = None,
    age_class: str | None = None,
    day: date | None = None,
) -> Document:
    """The rating list for ``ratingdb export list`` (every member on the day)."""
    day = day or date.today()
    rows = rating_list_rows(session, club=club, federation=federation, age_class=age_class, day=day)
    if not rows:
        raise LookupError(
            _("no members in %(where)s on %(day)s")
            % {"where": club or f"{federation}*", "day": date_text(day)}
        )
    return rating_list_document(rows, scope=list_scope(club, federation), day=day,
                                age_class=age_class)  # fmt: skip


def list_scope(club: str | None, federation: str | None) -> str:
    """The selection of a rating list in words ("Verein C0327", "Verband C03")."""
    if club is not None:
        return _("Club %(vkz)s") % {"vkz": club}
    return _("Federation %(prefix)s") % {"prefix": federation}


def card_document(
    session: Session, player_id: int, today: date | None = None, *, public: bool = False
) -> Document:
    """The Karteikarte as CSV/PDF: every evaluation, takeover and adjustment with its +/-,
    and in the PDF the rating chart and the memberships. ``public``: without birth year (as
    the public page, WO 4.1.1)."""
    today = today or date.today()
    card = rating_card(session, player_id, today)
    p = card.player
    rows, values = [], []
    for e in card.evaluations:
        change = "" if e["change"] is None else f"{e['change']:+d}"
        old = "" if e["rating_old"] is None else f"{e['rating_old']}-{e['index_old']}"
        old_values = (e["rating_old"], None if e["rating_old"] is None else e["index_old"])
        if e["kind"] != "evaluation":
            new = f"{e['rating_new']}-{e['index_new']}"
            rows.append(
                cells((e["end_date"], e["name"], "", "", "", "", "", "", old, new, change,
                       e["rechenmodul"]))
            )  # fmt: skip
            values.append(
                cells((e["end_date"], e["name"], "", "", "", "", "", "", "", *old_values,
                       e["rating_new"], e["index_new"], "", change, e["rechenmodul"]))
            )  # fmt: skip
            continue
        new = (
            f"{e['rating_new']}-{e['index_new']}"
            if e["stored"]
            else (terms.residual_mark() if e["new_residual"] else "-")
        )
        numbers = (
            decimal(e["score"], 1),
            e["games"],
            None if e["expected"] is None else decimal(e["expected"], 3),
            None if e["k"] is None else decimal(e["k"], 1),
            e["opponents_avg"],
        )
        exceptional = "*" if e["exceptional"] else ""
        rows.append(
            cells(
                (
                    e["end_date"], e["name"] or e["tournament"], *numbers,
                    None if e["performance"] is None else f"{e['performance']}{exceptional}",
                    old, new, change, e["rechenmodul"],
                )
            )
        )  # fmt: skip
        values.append(
            cells(
                (
                    e["end_date"], e["name"] or e["tournament"], *numbers, e["performance"],
                    exceptional, *old_values,
                    *((e["rating_new"], e["index_new"]) if e["stored"] else (None, None)),
                    _("yes") if not e["stored"] and e["new_residual"] else "",
                    change, e["rechenmodul"],
                )
            )
        )  # fmt: skip
    current = "-" if card.current_rating is None else f"{card.current_rating}-{card.current_index}"
    name = full_name(p["surname"], p["given_name"])
    clubs = "; ".join(f"{m['club']} ({m['vkz']})" for m in current_memberships(card, today))
    header = [(_("Player ID"), str(p["id"])), (_("DSB ID"), p["dsb_id"] or "-")]
    if not public:
        header.append((_("Year of birth"), str(p["birth_year"] or "-")))
    header += [(pgettext("column", "Club"), clubs or "-"), ("DWZ", current)]
    memberships = Section(
        _("Memberships"),
        ("VKZ", pgettext("column", "Club"), _("from"), _("until"), _("Status")),
        [
            cells(
                (
                    m["vkz"],
                    m["club"],
                    m["valid_from"],
                    m["valid_to"],
                    terms.membership_status(m["status"]),
                )
            )
            for m in card.memberships
        ],
        left=frozenset({0, 1, 4}),
    )
    return Document(
        title=_("Rating card %(name)s") % {"name": name},
        header=header,
        columns=card_columns(),
        rows=rows,
        left=frozenset({0, 1, 11}),
        csv_columns=card_spreadsheet_columns(),
        csv_rows=values,
        notes=[t.legend for t in card_terms()],
        chart=chart_points(card.evaluations),
        chart_title=_("Rating history"),
        sections=[memberships] if card.memberships else [],
    )
