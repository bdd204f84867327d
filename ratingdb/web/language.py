"""The language of a request (:mod:`ratingdb.i18n`): ``?lang=de|en`` (the switch on every
page; it also sets the ``lang`` cookie for a year), else the ``lang`` cookie, else the
``Accept-Language`` header, else German. The JSON API (``/api/``) answers in English
unless ``?lang=`` asks otherwise. Answers carry ``Content-Language`` and
``Vary: Accept-Language, Cookie`` so that caches keep the languages apart."""

from __future__ import annotations

from http.cookies import SimpleCookie
from typing import Any

from starlette.datastructures import MutableHeaders, QueryParams
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb.i18n import LANGUAGES, NAMES, language, negotiate, normalise, reset_language
from ratingdb.i18n import set_language as _set

COOKIE = "lang"
COOKIE_AGE = 365 * 24 * 3600


def choose(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The language of a request from its three sources, in that order."""
    return normalise(query) or normalise(cookie) or negotiate(accept_language)


def request_language(scope: Scope) -> tuple[str, str | None, str | None]:
    """The language of an HTTP request, the one its ``?lang=`` asks for and the one of its
    cookie (the page cache keys pages by the first: :mod:`ratingdb.web.page_cache`)."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    requested = normalise(QueryParams(scope.get("query_string", b"")).get(COOKIE))
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header is the client's: ignore it
        cookie = SimpleCookie()
    stored = cookie[COOKIE].value if COOKIE in cookie else None
    if scope["path"].startswith("/api/"):
        # the JSON API is data for programs: its column names stay English (a client
        # asks for a language with ?lang=)
        return requested or "en", requested, stored
    return choose(requested, stored, headers.get("accept-language")), requested, stored


class LanguageMiddleware:
    """Pure ASGI middleware: sets the language for everything the request runs (the
    endpoint's thread copies the context), error pages included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lang, requested, stored = request_language(scope)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                out["Content-Language"] = lang
                out.append("Vary", "Accept-Language, Cookie")
                if requested is not None and requested != stored:
                    out.append(
                        "Set-Cookie",
                        f"{COOKIE}={requested}; Path=/; Max-Age={COOKIE_AGE}; SameSite=Lax",
                    )
            await send(message)

        token = _set(lang)
        try:
            await self.app(scope, receive, send_with_language)
        finally:
            reset_language(token)


def template_context(request: Request) -> dict[str, Any]:
    """For every template: ``lang`` and the switch's links (this page in each language)."""
    current = language()
    return {
        "lang": current,
        "languages": [
            {
                "code": code,
                "name": NAMES[code],
                "url": _relative(request, code),
                "active": code == current,
            }
            for code in LANGUAGES
        ],
    }


def _relative(request: Request, code: str) -> str:
    """This page's path and query with ``lang=code`` (relative: no host in the page)."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != COOKIE]
    params.append((COOKIE, code))
    return f"{request.url.path}?{QueryParams(params)}"
