"""Errors as structured JSON (API) or an HTML page (pages), never a 500 for bad input.

Body: ``{"error": summary, "errors": [{"location", "line", "column", "path", "message"}]}``;
``line``/``column`` for file positions (``t.trf:12:97``, ``line 3, column 5``), ``path``
for JSON paths (``$.games[3].result``).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, IntegrityError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ratingdb.db.recalc import RecalcBusy
from ratingdb.io.errors import InputError
from ratingdb.rules.errors import RulesError
from ratingdb.web.permissions import Forbidden, Unauthenticated

_FILE_POSITION = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<column>\d+))?$")
_LINE_COLUMN = re.compile(r"^line (?P<line>\d+), column (?P<column>\d+)$")
_PATH = re.compile(r"(?:^|:\s*)(?P<path>\$[^\s]*)$")


def error_item(location: str, message: str) -> dict[str, Any]:
    line = column = path = None
    m = _LINE_COLUMN.match(location) or _FILE_POSITION.match(location)
    if m:
        line = int(m.group("line"))
        column = int(m.group("column")) if m.group("column") else None
    else:
        p = _PATH.search(location)
        if p:
            path = p.group("path")
    return {"location": location, "line": line, "column": column, "path": path, "message": message}


def body(summary: str, items: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"error": summary, "errors": items or []}


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api") and request.url.path != "/openapi.json"


def _respond(request: Request, status: int, summary: str, items: list[dict[str, Any]]) -> Any:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if _wants_html(request):
        templates = request.app.state.templates
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "summary": summary, "items": items},
            status_code=status, headers=headers,
        )  # fmt: skip
    return JSONResponse(body(summary, items), status_code=status, headers=headers)


async def input_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, InputError)
    return _respond(
        request, 422, "invalid input, nothing written", [error_item(exc.location, exc.message)]
    )


async def lookup_error(request: Request, exc: Exception) -> Any:
    if isinstance(exc, KeyError | IndexError):  # a programming error, not a missing thing
        raise exc
    message = str(exc.args[0]) if exc.args else "not found"
    return _respond(request, 404, message, [])


async def forbidden(request: Request, exc: Exception) -> Any:
    return _respond(request, 403, str(exc) or "forbidden", [])


async def unauthenticated(request: Request, exc: Exception) -> Any:
    return _respond(request, 401, str(exc) or "authentication required", [])


async def refused(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, IntegrityError | DataError)
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return _respond(
        request, 422, "refused by the database, nothing written", [error_item("database", reason)]
    )


async def rules_error(request: Request, exc: Exception) -> Any:
    return _respond(request, 422, "the evaluation failed", [error_item("evaluation", str(exc))])


async def busy(request: Request, exc: Exception) -> Any:
    return _respond(request, 409, str(exc), [])


async def validation_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, RequestValidationError)
    items = [
        error_item(".".join(str(p) for p in e.get("loc", ())), str(e.get("msg", "")))
        for e in exc.errors()
    ]
    return _respond(request, 422, "invalid request", items)


async def http_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, StarletteHTTPException)
    return _respond(request, exc.status_code, str(exc.detail), [])


HANDLERS: dict[Any, Any] = {
    InputError: input_error,
    LookupError: lookup_error,
    Forbidden: forbidden,
    Unauthenticated: unauthenticated,
    IntegrityError: refused,
    DataError: refused,
    RulesError: rules_error,
    RecalcBusy: busy,
    RequestValidationError: validation_error,
    StarletteHTTPException: http_error,
}
