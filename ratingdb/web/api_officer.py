"""The officer API: submit, correct and delete tournaments, and the what-if of each
(WO 6.2 deadlines, 6.3 responsibility by VKZ, 3.7 replay from the change point).

Every write is a function of :mod:`ratingdb.services.tournaments` (the same the command
line calls: scope and deadline checks, change point + audit entry with the user's name,
the user signed as evaluator) in one transaction: all or nothing. Nothing is recalculated
here; the nightly ``ratingdb recalc`` does it. The what-if applies the same change in a
transaction that is always rolled back (:func:`ratingdb.services.tournaments.preview`).
Order of the checks: token (401), the stored tournament's scope and age (403), the document
(422), the document's scope and age (403).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.services import recalc, tournaments
from ratingdb.services.database import json_document, write
from ratingdb.services.imports import TournamentFile, read_trf
from ratingdb.services.tournaments import Written
from ratingdb.services.trf_import import API_HINTS
from ratingdb.services.users import Principal
from ratingdb.web import schemas
from ratingdb.web.deps import ReleasingRoute, UserDep
from ratingdb.web.offload import in_a_request_thread, off_the_readers, read_off_the_readers
from ratingdb.web.submission_schema import json_body, trf_body

router = APIRouter(prefix="/api", tags=["officers"], route_class=ReleasingRoute)
MAX_BODY = 20 * 1024 * 1024
KIND = Query(pattern="^(individual|team|match)$")
Plan = Callable[[Session], Written]


# -- reading the request ---------------------------------------------------------------------
async def _raw(request: Request) -> bytes:
    """The body, read up to :data:`MAX_BODY` bytes: a larger one is refused as it arrives
    (it was read whole into memory first, however large)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise InputError(
                "body", _("the body has more than %(n)d bytes, the most read") % {"n": MAX_BODY}
            )
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request) -> Any:
    """The JSON document of the body, decoded as heavy work within the time budget of one
    file (it was decoded in the event loop, where every other request waited for it)."""
    return await read_off_the_readers(
        request, "body", json_document, "body", named=False, body=partial(_raw, request)
    )


# -- running the changes of ratingdb.services.tournaments ------------------------------------
def committed(engine: Engine, plan: Plan) -> dict[str, Any]:
    """Make the change (one transaction) and describe it."""
    return write(engine, plan).to_dict()


def previewed(engine: Engine, plan: Plan) -> dict[str, Any]:
    """What the change would move (nothing is written)."""
    written, report = tournaments.preview(engine, plan)
    return {
        "action": written.action,
        "tournament": written.tournament,
        "pending_changes": report.pending_changes,
        "tournaments_evaluated": report.tournaments_evaluated,
        "moved": [m.to_dict() for m in report.moved],
        "rated": report.rated,
    }


async def _commit(request: Request, plan: Plan) -> dict[str, Any]:
    """The write in a request thread (a short transaction, :mod:`ratingdb.web.offload`),
    then, as on the officer's pages, the recalculation for it at once (WO 6.4.3; unless
    switched off, :func:`ratingdb.services.recalc.evaluate_on_submit`): the answer's
    ``evaluation`` says whether it ran, its run and what it changed, or why the change
    stays pending for the next run (``null`` when nothing was written or the setting is off).
    """
    done = await in_a_request_thread(request, committed, plan)
    done["evaluation"] = None
    if done["action"] != tournaments.UNCHANGED and request.app.state.evaluate_on_submit:
        outcome = await off_the_readers(request, recalc.evaluate_now, None)
        done["evaluation"] = {
            "evaluated": outcome.ok,
            "run": outcome.run_id,
            "tournaments_evaluated": outcome.tournaments_evaluated,
            "ratings_changed": len(outcome.changes),
            "reason": outcome.reason,
        }
    return done


async def _what_if(request: Request, plan: Plan) -> dict[str, Any]:
    """The what-if in the app's worker process if it has one (:mod:`ratingdb.web.offload`:
    ``ratingdb serve``), else in a request thread."""
    return await off_the_readers(request, previewed, plan)


def add_json(doc: Any, user: Principal, today: date, allow_large: bool = False) -> Plan:
    return partial(tournaments.add_json, doc=doc, user=user, today=today, allow_large=allow_large)


def correct_json(
    code: str, doc: Any, user: Principal, today: date, allow_large: bool = False
) -> Plan:
    return partial(
        tournaments.correct_json, ident=code, doc=doc, user=user, today=today,
        allow_large=allow_large,
    )  # fmt: skip


def delete(code: str, user: Principal, today: date) -> Plan:
    return partial(tournaments.delete, ident=code, user=user, today=today)


def add_trf(
    parsed: TournamentFile,
    code: str | None,
    file: FileQuery,
    user: Principal,
    today: date,
) -> Plan:
    return partial(
        tournaments.add_trf, parsed=parsed, code=code, vkz=file.vkz, kind=file.kind, user=user,
        today=today, hints=API_HINTS, create_organisation=file.create_organisation,
        allow_large=file.allow_large,
    )  # fmt: skip


def correct_trf(
    code: str,
    parsed: TournamentFile,
    file: FileQuery,
    user: Principal,
    today: date,
) -> Plan:
    return partial(
        tournaments.correct_trf, code=code, parsed=parsed, vkz=file.vkz, kind=file.kind,
        user=user, today=today, create_organisation=file.create_organisation,
        allow_large=file.allow_large,
    )  # fmt: skip


WRITE = schemas.error_responses(401, 403, 404, 422)
FILENAME = Query(max_length=100, description="named in error locations")
ENCODING = Query(
    max_length=20,
    description="TRF: utf-8 unless given (e.g. cp1252 for older programs); SWI: detected; "
    "SWT: cp1252",
)


DATES = Query(description="YYYY-MM-DD, replacing the file's date (an SWT file may have none)")
CREATE_ORG = Query(description="create the VKZ's organisation when it is unknown (else a 422)")
ALLOW_LARGE = Query(
    description="administrators: go above the size bounds on purpose (players, rounds, games "
    "per player, players without a game; recorded in the audit log); an officer's is not "
    "honoured (the bound's 422)"
)
AllowLarge = Annotated[bool, ALLOW_LARGE]
COMPLETE = Query(
    description="TRF: leave out rounds that are paired but have no results yet (else a 422)"
)


@dataclass
class FileQuery:
    """The query parameters of an uploaded tournament file (TRF, SwissChess SWT, SWI,
    TournamentReport or DeWIS XML; the format is detected from the content)."""

    vkz: Annotated[str | None, Query(max_length=10)] = None
    kind: Annotated[str | None, KIND] = None
    filename: Annotated[str, FILENAME] = "upload.trf"
    encoding: Annotated[str | None, ENCODING] = None
    start: Annotated[schemas.IsoDate | None, DATES] = None
    end: Annotated[schemas.IsoDate | None, DATES] = None
    complete_rounds: Annotated[bool, COMPLETE] = False
    create_organisation: Annotated[bool, CREATE_ORG] = False
    allow_large: AllowLarge = False

    async def read(self, request: Request) -> TournamentFile:
        """The file of the body, read as heavy work within its time budget (:func:`ratingdb.
        web.offload.read_off_the_readers`)."""
        return await read_off_the_readers(
            request, self.filename, read_trf, self.filename, self.encoding,
            start=self.start, end=self.end, complete_rounds=self.complete_rounds,
            body=partial(_raw, request),
        )  # fmt: skip


FileDep = Annotated[FileQuery, Depends()]


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
async def submit_json(
    request: Request, user: UserDep, allow_large: AllowLarge = False
) -> dict[str, Any]:
    doc = await _json(request)
    today = request.app.state.today()
    return await _commit(request, add_json(doc, user, today, allow_large))


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
    file: FileDep,
    id: Annotated[str | None, Query(max_length=30, description="tournament id")] = None,
) -> dict[str, Any]:
    parsed = await file.read(request)
    plan = add_trf(parsed, id, file, user, request.app.state.today())
    return await _commit(request, plan)


@router.put(
    "/tournaments/{code}",
    response_model=schemas.Written,
    responses=WRITE,
    openapi_extra=json_body(),
    summary="Correct a tournament (JSON)",
)
async def correct_with_json(
    request: Request, code: str, user: UserDep, allow_large: AllowLarge = False
) -> dict[str, Any]:
    doc = await _json(request)
    plan = correct_json(code, doc, user, request.app.state.today(), allow_large)
    return await _commit(request, plan)


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
    file: FileDep,
) -> dict[str, Any]:
    parsed = await file.read(request)
    plan = correct_trf(code, parsed, file, user, request.app.state.today())
    return await _commit(request, plan)


@router.delete(
    "/tournaments/{code}",
    response_model=schemas.Written,
    responses=WRITE,
    summary="Delete a tournament",
)
async def delete_tournament(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    return await _commit(request, delete(code, user, request.app.state.today()))


WHAT_IF = schemas.error_responses(401, 403, 404, 409, 422)


@router.post(
    "/what-if/tournaments",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    openapi_extra=json_body(),
    summary="What a JSON submission would change",
    tags=["what-if"],
)
async def what_if_json(
    request: Request, user: UserDep, allow_large: AllowLarge = False
) -> dict[str, Any]:
    """The players whose rating the next run would move because of this submission,
    before anything is written (the same checks as the submission)."""
    doc = await _json(request)
    plan = add_json(doc, user, request.app.state.today(), allow_large)
    return await _what_if(request, plan)


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
    file: FileDep,
    id: Annotated[str | None, Query(max_length=30)] = None,
) -> dict[str, Any]:
    parsed = await file.read(request)
    plan = add_trf(parsed, id, file, user, request.app.state.today())
    return await _what_if(request, plan)


@router.put(
    "/what-if/tournaments/{code}",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    openapi_extra=json_body(),
    summary="What a correction would change",
    tags=["what-if"],
)
async def what_if_correct(
    request: Request, code: str, user: UserDep, allow_large: AllowLarge = False
) -> dict[str, Any]:
    doc = await _json(request)
    plan = correct_json(code, doc, user, request.app.state.today(), allow_large)
    return await _what_if(request, plan)


@router.delete(
    "/what-if/tournaments/{code}",
    response_model=schemas.WhatIfOut,
    responses=WHAT_IF,
    summary="What a deletion would change",
    tags=["what-if"],
)
async def what_if_delete(request: Request, code: str, user: UserDep) -> dict[str, Any]:
    return await _what_if(request, delete(code, user, request.app.state.today()))
