"""The SOAP endpoint: ``POST /services/soap/index.php`` (the DSB service's path, so that a
website changes only the host name) and ``POST /dewis/soap``; the WSDL at
``GET /services/files/dewis.wsdl`` and ``/dewis/dewis.wsdl``.

Bounded as the JSON API: a request body of at most :data:`MAX_BODY` bytes (a call is a few
hundred), at most :data:`CONCURRENT` calls at a time per server process (one more waits up
to :data:`WAIT` seconds, then gets the fault "too many requests"), every statement of a call
limited to :data:`STATEMENT_TIMEOUT`, and the operations' own limits (docs/dewis.md). Every
refusal is a SOAP fault in the body of an HTTP 200 answer (a client's fault) or 503 (the
server's: busy, the database unavailable, an error of its own, logged), never a 500 or a
traceback: PHP's ``SoapClient``, zeep and node-soap read the fault from the body whatever
the status. Public data only: an ``Authorization`` header is not looked at (an officer's
token shows nothing more here). The page cache keeps the answers (200 only) by the call's
body (:mod:`ratingdb.web.page_cache`, ``post_paths``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from ratingdb.errors import RatingdbError, Unavailable
from ratingdb.web.dewis import encoding, faults, wsdl
from ratingdb.web.dewis.envelope import Value, read_call
from ratingdb.web.dewis.faults import DewisFault
from ratingdb.web.dewis.operations import OPERATIONS, Operation
from ratingdb.web.timing import in_thread

log = logging.getLogger("ratingdb.web")

PATHS = ("/services/soap/index.php", "/dewis/soap")
#: the WSDL (the DSB's path, and beside the clean alias)
WSDL_PATHS = ("/services/files/dewis.wsdl", "/dewis/dewis.wsdl")
MAX_BODY = 64 * 1024
CONCURRENT = 4
WAIT = 10.0
STATEMENT_TIMEOUT = "15s"

router = APIRouter(include_in_schema=False)
_slots: dict[int, asyncio.Semaphore] = {}


def _semaphore() -> asyncio.Semaphore:
    """The calls' slots of this event loop (a new loop in tests gets new ones)."""
    loop = asyncio.get_running_loop()
    key = id(loop)
    if key not in _slots:
        _slots.clear()
        _slots[key] = asyncio.Semaphore(CONCURRENT)
    return _slots[key]


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise DewisFault(faults.REQUEST_TOO_LARGE)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise DewisFault(faults.REQUEST_TOO_LARGE)
        chunks.append(chunk)
    return b"".join(chunks)


def _xml(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=encoding.CONTENT_TYPE)


def _run(engine: Engine, today: date, operation: Operation, args: Sequence[Value]) -> Any:
    """The operation in a read-only transaction of its own, each statement time-limited."""
    with Session(engine) as session, session.begin():
        session.execute(text("SET TRANSACTION READ ONLY"))
        session.execute(text(f"SET LOCAL statement_timeout = '{STATEMENT_TIMEOUT}'"))
        return operation(session, today, args)


@router.get(WSDL_PATHS[0])
@router.get(WSDL_PATHS[1])
async def wsdl_document(request: Request) -> Response:
    """The WSDL of the interface (:mod:`.wsdl`), addressed to this server's SOAP path."""
    location = str(request.base_url).rstrip("/") + PATHS[0]
    return Response(wsdl.document(location), media_type=encoding.CONTENT_TYPE)


@router.post(PATHS[0])
@router.post(PATHS[1])
async def soap(request: Request) -> Response:
    """One SOAP call (RPC/encoded) of a DeWIS operation."""
    try:
        call = read_call(await _body(request))
        operation = OPERATIONS.get(call.operation)
        if operation is None:
            raise DewisFault(f"{faults.UNKNOWN_OPERATION}: {call.operation[:100]}")
        slots = _semaphore()
        try:
            await asyncio.wait_for(slots.acquire(), WAIT)
        except TimeoutError:
            raise DewisFault(faults.BUSY, client=False) from None
        try:
            value = await in_thread(
                _run, request.app.state.engine, request.app.state.today(), operation,
                call.arguments,
            )  # fmt: skip
        finally:
            slots.release()
        return _xml(encoding.answer(call.operation, call.namespace, value))
    except DewisFault as err:  # the server's own (busy) with 503: the page cache keeps no 503
        return _xml(encoding.fault(err.faultstring, client=err.client), 200 if err.client else 503)
    except (Unavailable, OperationalError) as err:
        log.warning("DeWIS call refused: %s", err)
        return _xml(encoding.fault(faults.UNAVAILABLE, client=False), 503)
    except RatingdbError as err:  # a query's refusal of the arguments
        return _xml(encoding.fault(str(err)))
    except DBAPIError as err:  # a statement over its time, a server gone away
        log.warning("DeWIS call failed in the database: %s", err)
        return _xml(encoding.fault(faults.UNAVAILABLE, client=False), 503)
    except Exception:  # a fault of this server: logged with its traceback, a fault sent
        log.exception("DeWIS call failed")
        return _xml(encoding.fault(faults.INTERNAL, client=False), 503)
