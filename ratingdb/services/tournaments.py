"""Submitting, correcting and deleting a tournament (JSON or TRF), and the what-if of each
(WO 3.7, 6.2, 6.3): one implementation for the command line and the officer API.

Each function takes the session of the caller's transaction and the acting ``user``: a
:class:`~ratingdb.services.users.Principal` of the API, whose scope and deadline are checked
(:mod:`ratingdb.services.permissions`) and who signs the tournament as one of its
evaluators (WO 6.5.2.1 item 4); or None for the command line, a system administrator who
signs nothing and names a tournament by code or number. The writes themselves (change
point, audit entry) are :mod:`ratingdb.services.submissions` and
:mod:`ratingdb.services.trf_import`.

Order of the checks for a user: the stored tournament's scope and age (Forbidden), the
document (InputError), the document's scope and age (Forbidden).

Each write first takes the tournament's lock (:func:`ratingdb.services.submissions.lock`), then
reads: concurrent writes on one tournament follow one another and each sees the one before
(a second correction replaces the first, a correction after a deletion is a 404 / "no
tournament", a second submission of a code finds it taken), never a deadlock or a
constraint message. An edit never waits for a run's computing, only for its short write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeVar

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry, Tournament
from ratingdb.db.organisations import require_organisation
from ratingdb.errors import InputError, NotFound
from ratingdb.i18n import _
from ratingdb.io import sizes
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.io.trf import TrfTournament
from ratingdb.plausibility import Above, check_sizes, check_tournament_dates
from ratingdb.services import stored_tournament, submissions, trf_import
from ratingdb.services.permissions import check_edit, check_memberships
from ratingdb.services.trf_import import CLI_HINTS, Choice, Match
from ratingdb.services.users import Principal
from ratingdb.services.whatif import WhatIf, what_if

T = TypeVar("T")
#: the actor of the command line in the audit log
CLI_ACTOR = "cli"


@dataclass(frozen=True, slots=True)
class Written:
    """What a change wrote: the tournament as stored afterwards, the change point, who."""

    action: str
    tournament: str
    name: str
    vkz: str
    end: date
    change_point: date
    actor: str
    matches: list[Match] | None = field(default=None)
    #: what a correction changed, in words (:func:`ratingdb.services.stored_tournament.
    #: differences`); action ``unchanged`` when nothing: then nothing was written
    changes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "tournament": self.tournament,
            "name": self.name,
            "vkz": self.vkz,
            "end": self.end,
            "change_point": self.change_point,
            "actor": self.actor,
            "changes": list(self.changes),
            "matches": None
            if self.matches is None
            else [
                {"start_rank": m.start_rank, "name": m.name, "player_id": m.player_id, "how": m.how}
                for m in self.matches
            ],
        }


def _actor(user: Principal | None) -> str:
    return CLI_ACTOR if user is None else user.name


def _check(user: Principal | None, code: str, vkz: str, end: date, today: date | None) -> None:
    if user is not None:
        assert today is not None, "an API user's deadline needs today's date"
        check_edit(user, code=code, vkz=vkz, end=end, today=today)


def _check_members(user: Principal | None, doc: Any) -> None:
    """New members only in clubs within the user's scope (WO 6.3)."""
    if user is not None:
        check_memberships(user, doc)


def _plausible(start: date, end: date, where: str, today: date | None) -> None:
    """The tournament's dates within the bounds of :mod:`ratingdb.plausibility` (the
    command line passes no ``today``: :func:`ratingdb.plausibility.today`)."""
    check_tournament_dates(start, end, where, today=today)


def within_bounds(
    source: TrfTournament | Any, user: Principal | None, allow_large: bool, where: str = "$"
) -> list[Above]:
    """The size bounds of :mod:`ratingdb.plausibility` (players, rounds, games per player,
    players without a game) for a tournament file or a submission document (``where``: the
    document's JSON path; a file names itself), checked before anything else is done with
    it: :class:`~ratingdb.plausibility.AboveBound` (a 422, exit code 2), unless an
    administrator (the command line, or a user of role ``admin``) passes ``allow_large``.
    Returns the bounds so allowed, for the audit log (:func:`_keep_above`)."""
    if isinstance(source, TrfTournament):
        found, where = sizes.of_file(source), source.source
    else:
        found = sizes.of_document(source)
    allow = allow_large and (user is None or user.is_admin)
    return check_sizes(found, where, allow=allow)


def _keep_above(session: Session, code: str, above: list[Above], user: Principal | None) -> None:
    """An administrator's override of the size bounds, in the audit log next to the
    submission's entry."""
    if above:
        session.add(
            AuditEntry(
                actor=_actor(user),
                action="above size bounds",
                entity="tournament",
                entity_id=code,
                details={"allowed": [a.to_dict() for a in above]},
            )
        )


def existing(session: Session, code: str) -> Tournament:
    """Stored tournament ``code``; :class:`NotFound` if there is none."""
    t = session.scalar(select(Tournament).where(Tournament.code == code))
    if t is None:
        raise NotFound(_("no tournament %(code)r") % {"code": code})
    return t


def _stored(session: Session, ident: str, user: Principal | None) -> Tournament:
    """The API names a tournament by code (404); the command line by code or number."""
    return submissions.find(session, ident) if user is None else existing(session, ident)


def _sign(t: Tournament, user: Principal | None) -> None:
    """The officer is one of the tournament's evaluators (WO 6.5.2.1 item 4)."""
    if user is None:
        return
    name = user.full_name or user.name
    if name not in (t.evaluators or []):
        t.evaluators = [*(t.evaluators or []), name[:100]]


def _written(
    action: str,
    t: Tournament,
    user: Principal | None,
    change_point: date,
    matches: list[Match] | None = None,
) -> Written:
    return Written(action, t.code, t.name, t.vkz, t.end_date, change_point, _actor(user), matches)


#: the action of a correction that changes nothing (nothing written, no change point)
UNCHANGED = "unchanged"


def _exactly(session: Session, tournament_id: int, correct: Callable[[], Written]) -> Written:
    """Run ``correct`` (a correction of tournament ``tournament_id``) so that it changes
    exactly what it changes: the stored state before and after is compared
    (:mod:`ratingdb.services.stored_tournament`); no difference rolls everything back (no change
    point, no audit entry, no new player: ``unchanged``), else the correction's audit
    entry lists the differences in words."""
    before = stored_tournament.state(session, tournament_id)
    last_entry = session.scalar(select(func.max(AuditEntry.id))) or 0
    savepoint = session.begin_nested()
    try:
        written = correct()
        session.flush()
        changes = stored_tournament.differences(
            before, stored_tournament.state(session, tournament_id)
        )
    except BaseException:
        savepoint.rollback()
        raise
    if not changes:
        savepoint.rollback()
        return replace(written, action=UNCHANGED, changes=())
    savepoint.commit()
    for entry in session.scalars(
        select(AuditEntry).where(
            AuditEntry.id > last_entry,
            AuditEntry.action == "correct",
            AuditEntry.entity_id == written.tournament,
        )
    ):
        entry.details = {**(entry.details or {}), "changes": changes}
    return replace(written, changes=tuple(changes))


@contextmanager
def _named(name: str | None) -> Iterator[None]:
    """Input errors of a document read from the file ``name`` name it first."""
    try:
        yield
    except InputError as err:
        if not name:
            raise
        raise err.with_context(name) from None


def add_json(
    session: Session,
    doc: Any,
    *,
    user: Principal | None = None,
    today: date | None = None,
    named: str | None = None,
    allow_large: bool = False,
) -> Written:
    """Store a new (possibly late) tournament from a submission document (read from the
    file ``named``, which its errors then name); above a size bound only with an
    administrator's ``allow_large`` (:func:`within_bounds`)."""
    with _named(named):
        above = within_bounds(doc, user, allow_large)
        info = parse_tournament(doc).tournament
        if user is not None:
            submissions.lock(session, info.id)
        _check(user, info.id, info.vkz or "000", info.end, today)
        _check_members(user, doc)
        _plausible(info.start, info.end, "$.tournament", today)
        t = submissions.add_tournament(session, doc, actor=_actor(user))
    _sign(t, user)
    _keep_above(session, t.code, above, user)
    return _written("add", t, user, t.end_date)


def correct_json(
    session: Session,
    ident: str,
    doc: Any,
    *,
    user: Principal | None = None,
    today: date | None = None,
    named: str | None = None,
    allow_large: bool = False,
) -> Written:
    """Replace tournament ``ident``'s data with the document (read from the file
    ``named``); an API user's document must name the same tournament. Above a size bound
    only with an administrator's ``allow_large`` (:func:`within_bounds`)."""
    with _named(named):
        return _correct_json(session, ident, doc, user, today, allow_large)


def _correct_json(
    session: Session,
    ident: str,
    doc: Any,
    user: Principal | None,
    today: date | None,
    allow_large: bool,
) -> Written:
    above = within_bounds(doc, user, allow_large)
    submissions.lock(session, ident)
    if user is None:
        code = ident
        stored = _stored_code(session, ident)
        old_end = _end_date(session, ident)
        info = parse_tournament(doc).tournament
        if stored is not None and info.id != stored:  # another tournament's file, by mistake
            raise InputError(
                "$.tournament.id",
                _("the document is %(id)r, not %(stored)r") % {"id": info.id, "stored": stored},
            )
    else:
        t = existing(session, ident)
        _check(user, t.code, t.vkz, t.end_date, today)  # the stored one first (403)
        info = parse_tournament(doc).tournament
        if info.id != t.code:
            raise InputError(
                "$.tournament.id",
                _("the document is %(id)r, not %(stored)r") % {"id": info.id, "stored": t.code},
            )
        _check(user, t.code, info.vkz or t.vkz, info.end, today)
        _check_members(user, doc)
        code, old_end = t.code, t.end_date
    _plausible(info.start, info.end, "$.tournament", today)

    def correct() -> Written:
        t = submissions.correct_tournament(session, code, doc, actor=_actor(user))
        _sign(t, user)
        _keep_above(session, t.code, above, user)
        return _written("correct", t, user, min(old_end or t.end_date, t.end_date))

    tid = _stored_id(session, code)
    return correct() if tid is None else _exactly(session, tid, correct)


def _stored_id(session: Session, ident: str) -> int | None:
    try:
        return submissions.find(session, ident).id
    except InputError:
        return None  # correct_tournament names the missing tournament


def delete(
    session: Session,
    ident: str,
    *,
    user: Principal | None = None,
    today: date | None = None,
    reason: str | None = None,
) -> Written:
    """Delete tournament ``ident``; the next run replays from its end date. A ``reason``
    (the officer's page asks for one) is kept in the audit entry."""
    submissions.lock(session, ident)
    t = _stored(session, ident, user)
    _check(user, t.code, t.vkz, t.end_date, today)
    out = _written("delete", t, user, t.end_date)
    submissions.delete_tournament(
        session, ident if user is None else t.code, actor=_actor(user), reason=reason
    )
    return out


def _check_choices(
    user: Principal | None, parsed: TrfTournament, choices: Mapping[int, Choice] | None
) -> None:
    """New members chosen on the page only in clubs within the user's scope (WO 6.3): the
    check of submission documents, on the document the choices make (same paths)."""
    if user is None or not choices:
        return
    players = [
        {"club": c.club}
        if (c := choices.get(p.start_rank)) and c.kind == "new"
        else {"member": False}
        for p in parsed.players
    ]
    _check_members(user, {"players": players})


def _keep_choices(
    session: Session, code: str, matches: list[Match], user: Principal | None
) -> None:
    """Who is who as submitted: every participant's database player and how he
    was found or chosen, in the audit log next to the submission's entry."""
    session.add(
        AuditEntry(
            actor=_actor(user),
            action="who is who",
            entity="tournament",
            entity_id=code,
            details={
                "matches": [
                    {
                        "start_rank": m.start_rank,
                        "name": m.name,
                        "player_id": m.player_id,
                        "how": m.how,
                    }
                    for m in matches
                ]
            },
        )
    )


def add_trf(
    session: Session,
    parsed: TrfTournament,
    *,
    code: str | None = None,
    vkz: str | None = None,
    kind: str | None = None,
    user: Principal | None = None,
    today: date | None = None,
    hints: tuple[str, str] = CLI_HINTS,
    create_organisation: bool = False,
    choices: Mapping[int, Choice] | None = None,
    allow_large: bool = False,
) -> Written:
    """Import a TRF tournament; id, VKZ and kind default to the file's ``### ratingdb``
    lines (``hints`` say how the front end asks for a missing one). The VKZ must name a
    known organisation unless ``create_organisation`` (:mod:`ratingdb.db.organisations`).
    ``choices`` (the officer's pages, by start rank) decide who is who before the import's
    matching; given, the matches are kept in the audit log. Above a size bound only with an
    administrator's ``allow_large`` (:func:`within_bounds`)."""
    from ratingdb.services import dsb_exchange

    above = within_bounds(parsed, user, allow_large)
    if code is None and "tournamentUUID" in parsed.other:  # a corrected TournamentReport
        code = dsb_exchange.known_uuid(session, parsed.other["tournamentUUID"], parsed)
        vkz = vkz or (dsb_exchange.stored_vkz(session, code) if code else None)
    tcode, tvkz, tkind = trf_import.resolve_meta(parsed, code, vkz, kind, hints)
    if tcode:
        submissions.lock(session, tcode)
    else:  # a file that names no id gets one, as on DeWIS
        tcode = trf_import.assign_code(session, tvkz, parsed.end)
    _check(user, tcode, tvkz, parsed.end, today)
    _check_choices(user, parsed, choices)
    _plausible(parsed.start, parsed.end, parsed.source, today)
    if create_organisation:
        require_organisation(session, tvkz, parsed.source, create=True, actor=_actor(user))
    t, matches = dsb_exchange.import_tournament(
        session, parsed, code=tcode, vkz=tvkz, kind=tkind, actor=_actor(user), choices=choices
    )
    _sign(t, user)
    if choices is not None:
        _keep_choices(session, t.code, matches, user)
    _keep_above(session, t.code, above, user)
    return _written("add", t, user, t.end_date, matches)


def correct_trf(
    session: Session,
    code: str,
    parsed: TrfTournament,
    *,
    vkz: str | None = None,
    kind: str | None = None,
    user: Principal | None = None,
    today: date | None = None,
    create_organisation: bool = False,
    choices: Mapping[int, Choice] | None = None,
    allow_large: bool = False,
) -> Written:
    """Replace stored tournament ``code`` with the TRF's players and games (its VKZ known,
    or created with ``create_organisation``; ``choices`` and ``allow_large`` as for
    :func:`add_trf`)."""
    above = within_bounds(parsed, user, allow_large)
    submissions.lock(session, code)
    t = _stored(session, code, user)
    _check(user, t.code, t.vkz, t.end_date, today)
    tvkz = vkz or parsed.meta.get("vkz") or t.vkz
    tkind = kind or parsed.meta.get("kind") or ("team" if parsed.team else "individual")
    _check(user, t.code, tvkz, parsed.end, today)
    _check_choices(user, parsed, choices)
    _plausible(parsed.start, parsed.end, parsed.source, today)
    if create_organisation:
        require_organisation(session, tvkz, parsed.source, create=True, actor=_actor(user))
    old_end, tid, tcode = t.end_date, t.id, t.code
    kept = stored_tournament.entries(session, tid)

    def correct() -> Written:
        stored, matches = trf_import.correct_trf(
            session, parsed, tcode, vkz=tvkz, kind=tkind, actor=_actor(user), choices=choices,
            kept=kept,
        )  # fmt: skip
        _sign(stored, user)
        if choices is not None:
            _keep_choices(session, stored.code, matches, user)
        _keep_above(session, stored.code, above, user)
        return _written("correct", stored, user, min(old_end, stored.end_date), matches)

    return _exactly(session, tid, correct)


def _stored_code(session: Session, ident: str) -> str | None:
    """The code of tournament ``ident`` (code or number), None when there is none."""
    try:
        return submissions.find(session, ident).code
    except InputError:
        return None  # correct_tournament names the missing tournament


def _end_date(session: Session, ident: str) -> date | None:
    try:
        return submissions.find(session, ident).end_date
    except InputError:
        return None  # correct_tournament names the missing tournament


def preview(engine: Engine, change: Callable[[Session], T]) -> tuple[T, WhatIf]:
    """What-if: apply ``change``, simulate the next run, roll everything back; returns what
    ``change`` returned and the ratings the next run would move (:mod:`ratingdb.services.whatif`);
    it waits while edits or a run's write phase are in flight."""
    session = Session(engine)
    try:
        session.begin()
        return what_if(session, change)
    finally:
        session.rollback()  # nothing of a what-if is ever written
        session.close()
