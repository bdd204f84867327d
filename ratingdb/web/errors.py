"""Errors as structured JSON (API) or an HTML page (pages), never a 500 for bad input.

The status of each error class comes from the one table of :mod:`ratingdb.services.outcomes`
(the command line reads the same table for its exit codes). A 5xx response carries
``Connection: close``: the server closes the keep-alive connection cleanly after it.

Body: ``{"error": summary, "errors": [{"location", "line", "column", "path", "message"}]}``;
``line``/``column`` for file positions (``t.trf:12:97``, ``line 3, column 5``, German
``Zeile 3, Spalte 5``), ``path`` for JSON paths (``$.games[3].result``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, IntegrityError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from ratingdb.errors import InputError, RatingdbError, Refused, RulesError
from ratingdb.i18n import N_, _
from ratingdb.services.outcomes import as_error, outcome
from ratingdb.web import validation_text

_FILE_POSITION = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<column>\d+))?$")
#: ``line 3, column 5`` and the German ``Zeile 3, Spalte 5``: the readers (a JSON syntax
#: error, an XML file) name a place in the language in force
_LINE_COLUMN = re.compile(r"^(?:line|Zeile) (?P<line>\d+), (?:column|Spalte) (?P<column>\d+)$")
#: the headline of a request the framework refused (a parameter, an unreadable body)
INVALID_REQUEST = N_("invalid request")
_DEFAULT_SUMMARY = {
    404: N_("not found"),
    403: N_("forbidden"),
    401: N_("authentication required"),
}
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


def _respond(
    request: Request,
    status: int,
    summary: str,
    items: list[dict[str, Any]],
    extra: dict[str, str] | None = None,
) -> Any:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    headers.update(extra or {})
    if status >= 500:  # the server's fault: end the keep-alive connection cleanly
        headers["Connection"] = "close"
    if _wants_html(request):
        templates = request.app.state.templates
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "summary": summary, "items": items},
            status_code=status, headers=headers,
        )  # fmt: skip
    return JSONResponse(body(summary, items), status_code=status, headers=headers)


#: an error answer (JSON for the API, the error page for pages) outside a handler
respond = _respond


async def ratingdb_error(request: Request, exc: Exception) -> Any:
    """Every error of the hierarchy (and the foreign ones :func:`as_error` knows), by the
    one table of :mod:`ratingdb.services.outcomes`."""
    error = as_error(exc)
    if error is None:  # a KeyError, IndexError: a programming error, not a missing thing
        raise exc
    status, summary, items = describe(error)
    retry = getattr(error, "retry_after", None)  # a busy server says when to come back
    extra = {"Retry-After": str(retry)} if retry is not None else None
    return _respond(request, status, summary, items, extra)


#: the most problems an answer lists; beyond them one item says how many more there are
MAX_SHOWN = 100


def bounded(items: list[dict[str, Any]], more: int = 0) -> list[dict[str, Any]]:
    """The first :data:`MAX_SHOWN` items and, for the rest (and ``more`` problems a reader
    only counted, :class:`ratingdb.budget.Problems`), one "and N more" item: an upload with
    40,000 faults is answered with a page of the first ones, not megabytes."""
    rest = max(len(items) - MAX_SHOWN, 0) + more
    if not rest:
        return items
    from ratingdb.budget import more_line

    return [*items[:MAX_SHOWN], error_item("…", more_line(rest)[0])]


def describe(error: RatingdbError) -> tuple[int, str, list[dict[str, Any]]]:
    """Status, summary and items of an error (the officer's pages show them in place), at
    most :data:`MAX_SHOWN` problems (:func:`bounded`)."""
    found = outcome(error)
    more = 0
    if isinstance(error, Refused):
        items = [error_item("database", error.reason)]
    elif isinstance(error, InputError):  # a file's readers report all its problems at once
        problems = getattr(error, "problems", None) or [(error.location, error.message)]
        items = [error_item(str(where), str(what)) for where, what in problems]
        more = int(getattr(error, "more", 0))
    elif isinstance(error, RulesError):
        items = [error_item("evaluation", str(error))]
    else:
        items = []
    if found.summary:  # the headline in the request's language, as the items
        summary = _(found.summary)
    else:
        summary = str(error) or _(_DEFAULT_SUMMARY.get(found.status, N_("error")))
    return found.status, summary, bounded(items, more)


async def server_error(request: Request, exc: Exception) -> Any:
    """Anything else (a programming error): a 500 without details, and ``Connection:
    close``, so that a keep-alive client opens a new connection instead of finding this
    one dropped. Starlette logs the exception with its traceback."""
    error = as_error(exc)
    if error is not None:
        return await ratingdb_error(request, error)
    return _respond(request, 500, "internal server error", [])


async def validation_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, RequestValidationError)
    items = [
        error_item(".".join(str(p) for p in e.get("loc", ())), validation_text.message(e))
        for e in exc.errors()
    ]
    return _respond(request, 422, _(INVALID_REQUEST), bounded(items))


#: why a body the framework could not parse is refused (its 400 answered as every bad input)
UNREADABLE_BODY = N_("the request body cannot be read: it is not JSON in UTF-8 or not a form")


async def http_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # a body FastAPI could not parse: bad input, one 422
        items = [error_item("body", _(UNREADABLE_BODY))]
        return _respond(request, 422, _(INVALID_REQUEST), items)
    # its headers travel with it: ``Allow`` of a 405, ``Connection`` of a cut-off body
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = allowed_methods(request.scope)
    return _respond(request, exc.status_code, str(exc.detail), [], headers)


def allowed_methods(scope: Scope) -> str:
    """The ``Allow`` of a 405: the methods a route of the app takes at the request's path
    (the router's own names only the first route's: ``GET`` where ``POST`` is declared
    too)."""
    from starlette.routing import Match

    routes = getattr(getattr(scope.get("app"), "router", None), "routes", ())
    return ", ".join(
        method
        for method in _METHODS
        if any(route.matches({**scope, "method": method})[0] == Match.FULL for route in routes)
    )


#: the methods an ``Allow`` may name (HEAD and OPTIONS are declared nowhere)
_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT")


HANDLERS: dict[Any, Any] = {
    RatingdbError: ratingdb_error,
    LookupError: ratingdb_error,
    IntegrityError: ratingdb_error,
    DataError: ratingdb_error,
    OperationalError: ratingdb_error,
    Exception: server_error,
    RequestValidationError: validation_error,
    StarletteHTTPException: http_error,
}


def unsafe_request_text(scope: Scope) -> tuple[str, str] | None:
    """(location, problem) of the first character in the request's path or query that no
    stored text may hold (a NUL, ``%00``: :mod:`ratingdb.safe_text`), or None."""
    from ratingdb.safe_text import unsafe_character

    bad = unsafe_character(scope.get("path", ""))
    if bad:
        return "path", f"the address holds {bad}"
    query = scope.get("query_string", b"").decode("latin-1")
    for key, value in parse_qsl(query, keep_blank_values=True):
        bad = unsafe_character(key) or unsafe_character(value)
        if bad:
            shown = key.encode("unicode_escape").decode("ascii")
            return f"query.{shown}", f"the text holds {bad}"
    return None


class RefuseUnsafeText:
    """Pure ASGI middleware: a path or query parameter holding a NUL is a 422 naming the
    parameter before any endpoint runs; it reached the database, whose refusal read
    "refused by the database, nothing written" (on a search, a list, a page)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = unsafe_request_text(scope) if scope["type"] == "http" else None
        if problem is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)  # answered as FastAPI answers a bad parameter
        response = _respond(request, 422, _(INVALID_REQUEST), [error_item(*problem)])
        await response(scope, receive, send)
