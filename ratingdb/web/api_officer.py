"""The officer API: submit, correct and delete tournaments, and the what-if of each
(WO 6.2 deadlines, 6.3 responsibility by VKZ, 3.7 replay from the change point).

Every write goes through :mod:`ratingdb.db.submissions` / :mod:`ratingdb.db.trf_import`
(change point + audit entry with the user's name) in one transaction: all or nothing.
Nothing is recalculated here; the nightly ``ratingdb recalc`` does it. The what-if applies
the same change in a transaction that is always rolled back (:mod:`ratingdb.db.whatif`).
Order of the checks: token (401), the stored tournament's scope and age (403), the document
(422), the document's scope and age (403).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.db import submissions, trf_import
from ratingdb.db.models import Tournament
from ratingdb.db.users import Principal
from ratingdb.db.whatif import what_if
from ratingdb.io.errors import InputError
from ratingdb.io.evaluate_json import load_json_text, parse_tournament
from ratingdb.io.trf import TrfTournament, decode, parse
from ratingdb.web import schemas
from ratingdb.web.deps import UserDep
from ratingdb.web.permissions import check_edit
from ratingdb.web.submission_schema import json_body, trf_body

router = APIRouter(prefix="/api", tags=["officers"])
MAX_BODY = 20 * 1024 * 1024
KIND = Query(pattern="^(individual|team|match)$")
Plan = Callable[[Session], dict[str, Any]]


# -- reading the request ---------------------------------------------------------------------
async def _raw(request: Request) -> bytes:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise InputError("body", f"the body has {len(raw)} bytes; at most {MAX_BODY} are read")
    return raw


def _json(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError("body", f"byte {err.start}: not UTF-8 text ({err.reason})") from None
    return load_json_text(text)


def _trf(raw: bytes, filename: str, encoding: str) -> TrfTournament:
    return parse(decode(raw, filename, encoding), filename)


# -- the changes -----------------------------------------------------------------------------
def _existing(session: Session, code: str) -> Tournament:
    t = session.scalar(select(Tournament).where(Tournament.code == code))
    if t is None:
        raise LookupError(f"no tournament {code!r}")
    return t


def _sign(t: Tournament, user: Principal) -> None:
    """The officer is one of the tournament's evaluators (WO 6.5.2.1 item 4)."""
    name = user.full_name or user.name
    if name not in (t.evaluators or []):
        t.evaluators = [*(t.evaluators or []), name[:100]]


def _written(
    action: str, t: Tournament, user: Principal, change_point: date, matches: Any = None
) -> dict[str, Any]:
    return {
        "action": action,
        "tournament": t.code,
        "name": t.name,
        "vkz": t.vkz,
        "end": t.end_date,
        "change_point": change_point,
        "actor": user.name,
        "matches": matches,
    }


def _match_list(matches: list[Any]) -> list[dict[str, Any]]:
    return [
        {"start_rank": m.start_rank, "name": m.name, "player_id": m.player_id, "how": m.how}
        for m in matches
    ]


def add_json(doc: Any, user: Principal, today: date) -> Plan:
    def plan(session: Session) -> dict[str, Any]:
        info = parse_tournament(doc).tournament
        check_edit(user, code=info.id, vkz=info.vkz or "000", end=info.end, today=today)
        t = submissions.add_tournament(session, doc, actor=user.name)
        _sign(t, user)
        return _written("add", t, user, t.end_date)

    return plan


def correct_json(code: str, doc: Any, user: Principal, today: date) -> Plan:
    def plan(session: Session) -> dict[str, Any]:
        t = _existing(session, code)
        check_edit(user, code=t.code, vkz=t.vkz, end=t.end_date, today=today)
        info = parse_tournament(doc).tournament
        if info.id != t.code:
            raise InputError("$.tournament.id", f"the document is {info.id!r}, not {t.code!r}")
        check_edit(user, code=t.code, vkz=info.vkz or t.vkz, end=info.end, today=today)
        old_end = t.end_date
        t = submissions.correct_tournament(session, t.code, doc, actor=user.name)
        _sign(t, user)
        return _written("correct", t, user, min(old_end, t.end_date))

    return plan


def delete(code: str, user: Principal, today: date) -> Plan:
    def plan(session: Session) -> dict[str, Any]:
        t = _existing(session, code)
        check_edit(user, code=t.code, vkz=t.vkz, end=t.end_date, today=today)
        out = _written("delete", t, user, t.end_date)
        submissions.delete_tournament(session, t.code, actor=user.name)
        return out

    return plan


def add_trf(
    parsed: TrfTournament,
    code: str | None,
    vkz: str | None,
    kind: str | None,
    user: Principal,
    today: date,
) -> Plan:
    def plan(session: Session) -> dict[str, Any]:
        tcode, tvkz = code or parsed.meta.get("id"), vkz or parsed.meta.get("vkz")
        if not tcode:
            raise InputError(parsed.source, "no tournament id: give ?id= (or '### ratingdb id:')")
        if not tvkz:
            raise InputError(parsed.source, "no VKZ: give ?vkz= (or '### ratingdb vkz:')")
        check_edit(user, code=tcode, vkz=tvkz, end=parsed.end, today=today)
        t, matches = trf_import.import_trf(
            session, parsed, code=tcode, vkz=tvkz, kind=kind, actor=user.name
        )
        _sign(t, user)
        return _written("add", t, user, t.end_date, _match_list(matches))

    return plan


def correct_trf(
    code: str,
    parsed: TrfTournament,
    vkz: str | None,
    kind: str | None,
    user: Principal,
    today: date,
) -> Plan:
    def plan(session: Session) -> dict[str, Any]:
        t = _existing(session, code)
        check_edit(user, code=t.code, vkz=t.vkz, end=t.end_date, today=today)
        tvkz = vkz or parsed.meta.get("vkz") or t.vkz
        tkind = kind or parsed.meta.get("kind") or ("team" if parsed.team else "individual")
        check_edit(user, code=t.code, vkz=tvkz, end=parsed.end, today=today)
        old_end = t.end_date
        t, matches = trf_import.correct_trf(
            session, parsed, t.code, vkz=tvkz, kind=tkind, actor=user.name
        )
        _sign(t, user)
        return _written("correct", t, user, min(old_end, t.end_date), _match_list(matches))

    return plan


# -- running them ----------------------------------------------------------------------------
def _commit(request: Request, plan: Plan) -> dict[str, Any]:
    with Session(request.app.state.engine) as session, session.begin():
        out = plan(session)
        session.flush()
        return out


def _what_if(request: Request, plan: Plan) -> dict[str, Any]:
    session = Session(request.app.state.engine)
    try:
        session.begin()
        written, report = what_if(session, plan)
    finally:
        session.rollback()  # nothing of a what-if is ever written
        session.close()
    return {
        "action": written["action"],
        "tournament": written["tournament"],
        "pending_changes": report.pending_changes,
        "tournaments_evaluated": report.tournaments_evaluated,
        "moved": [m.to_dict() for m in report.moved],
    }


WRITE = schemas.error_responses(401, 403, 404, 422)
FILENAME = Query(max_length=100, description="named in error locations")
ENCODING = Query(max_length=20, description="e.g. cp1252 for older programs")


@router.get("/me", response_model=schemas.Me, responses=schemas.error_responses(401))
def me(user: UserDep) -> dict[str, Any]:
    """The token's user, role and VKZ prefixes."""
    return {
        "name": user.name,
        "full_name": user.full_name,
        "role": user.role,
        "scopes": list(user.scopes),
    }


@router.post(
    "/tournaments",
    status_code=201,
    response_model=schemas.Written,
    responses=WRITE,
    openapi_extra=json_body(),
    summary="Submit a tournament (JSON)",
)
async def submit_json(request: Request, user: UserDep) -> dict[str, Any]:
    doc = _json(await _raw(request))
    today = request.app.state.today()
    return await run_in_threadpool(_commit, request, add_json(doc, user, today))


@router.post(
    "/tournaments/trf",
    status_code=201,
    response_model=schemas.Written,
    responses=WRITE,
    openapi_extra=trf_body(),
    summary="Submit a tournament (TRF)",
)
async def submit_trf(
    request: Request,
    user: UserDep,
    id: Annotated[str | None, Query(max_length=30, description="tournament id")] = None,
    vkz: Annotated[str | None, Query(max_length=10)] = None,
    kind: Annotated[str | None, KIND] = None,
    filename: Annotated[str, FILENAME] = "upload.trf",
    encoding: Annotated[str, ENCODING] = "utf-8",
) -> dict[str, Any]:
    parsed = _trf(await _raw(request), filename, encoding)
    plan = add_trf(parsed, id, vkz, kind, user, request.app.state.today())
    return await run_in_threadpool(_commit, request, plan)


@router.put(
    "/tournaments/{code}",
    response_model=schemas.Written,
    responses=WRITE,
    openapi_extra=json_body(),
    summary="Correct a tournament (JSON)",
)
async def correct_with_json(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    doc = _json(await _raw(request))
    plan = correct_json(code, doc, user, request.app.state.today())
    return await run_in_threadpool(_commit, request, plan)


@router.put(
    "/tournaments/{code}/trf",
    response_model=schemas.Written,
    responses=WRITE,
    openapi_extra=trf_body(),
    summary="Correct a tournament (TRF)",
)
async def correct_with_trf(
    request: Request,
    code: str,
    user: UserDep,
    vkz: Annotated[str | None, Query(max_length=10)] = None,
    kind: Annotated[str | None, KIND] = None,
    filename: Annotated[str, FILENAME] = "upload.trf",
    encoding: Annotated[str, ENCODING] = "utf-8",
) -> dict[str, Any]:
    parsed = _trf(await _raw(request), filename, encoding)
    plan = correct_trf(code, parsed, vkz, kind, user, request.app.state.today())
    return await run_in_threadpool(_commit, request, plan)


@router.delete(
    "/tournaments/{code}",
    response_model=schemas.Written,
    responses=WRITE,
    summary="Delete a tournament",
)
def delete_tournament(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    return _commit(request, delete(code, user, request.app.state.today()))


WHAT_IF = schemas.error_responses(401, 403, 404, 409, 422)


@router.post(
    "/what-if/tournaments",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    openapi_extra=json_body(),
    summary="What a JSON submission would change",
    tags=["what-if"],
)
async def what_if_json(request: Request, user: UserDep) -> dict[str, Any]:
    """The players whose rating the next run would move because of this submission,
    before anything is written (the same checks as the submission)."""
    doc = _json(await _raw(request))
    plan = add_json(doc, user, request.app.state.today())
    return await run_in_threadpool(_what_if, request, plan)


@router.post(
    "/what-if/tournaments/trf",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    openapi_extra=trf_body(),
    summary="What a TRF submission would change",
    tags=["what-if"],
)
async def what_if_trf(
    request: Request,
    user: UserDep,
    id: Annotated[str | None, Query(max_length=30)] = None,
    vkz: Annotated[str | None, Query(max_length=10)] = None,
    kind: Annotated[str | None, KIND] = None,
    filename: Annotated[str, FILENAME] = "upload.trf",
    encoding: Annotated[str, ENCODING] = "utf-8",
) -> dict[str, Any]:
    parsed = _trf(await _raw(request), filename, encoding)
    plan = add_trf(parsed, id, vkz, kind, user, request.app.state.today())
    return await run_in_threadpool(_what_if, request, plan)


@router.put(
    "/what-if/tournaments/{code}",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    openapi_extra=json_body(),
    summary="What a correction would change",
    tags=["what-if"],
)
async def what_if_correct(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    doc = _json(await _raw(request))
    plan = correct_json(code, doc, user, request.app.state.today())
    return await run_in_threadpool(_what_if, request, plan)


@router.delete(
    "/what-if/tournaments/{code}",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    summary="What a deletion would change",
    tags=["what-if"],
)
def what_if_delete(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    return _what_if(request, delete(code, user, request.app.state.today()))
