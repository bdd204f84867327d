"""Everything a page loads comes from this server: the API documentation (Swagger UI at
``/docs``, ReDoc at ``/redoc``) with the JavaScript and CSS that the ``fastapi-offline`` wheel
ships (FastAPI's own pages load them from a CDN, which a federation's server often cannot
reach and which hands every visitor's address to a third party), and the favicon.

Every response carries a Content-Security-Policy that allows only this server's scripts
(no inline script: the Swagger UI is started by ``static/swagger-init.js``; inline styles,
``data:`` and ``blob:`` URLs are allowed, ReDoc needs them): ReDoc's bundle, for one, would
fetch its logo from its vendor's CDN, and the browser refuses to. With it every answer says
``X-Content-Type-Options: nosniff`` (a browser takes the declared type, never guesses one)
and ``Referrer-Policy: same-origin`` (a link to another site does not tell it which page,
with which query, it came from); ``ratingdb serve`` sends no ``Server`` banner.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the Swagger UI and ReDoc bundles of the installed ``fastapi-offline`` package
DOCS_ASSETS = Path(str(files("fastapi_offline") / "static"))
DOCS_ASSETS_URL = "/static/api-docs"
FAVICON = Path(__file__).parent / "static" / "favicon.ico"
SWAGGER_INIT = Path(__file__).parent / "static" / "swagger-init.js"
#: the headers of every answer besides the policy
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' blob:; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'self'"
)


class SameOriginOnly:
    """ASGI middleware: the Content-Security-Policy and :data:`SECURITY_HEADERS` on every
    HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                headers.extend(SECURITY_HEADERS)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_policy)


def add_assets(app: FastAPI) -> None:
    """``/docs``, ``/redoc``, their assets and ``/favicon.ico`` on ``app`` (created with
    ``docs_url=None, redoc_url=None``), and the policy that keeps every page on this server."""
    app.add_middleware(SameOriginOnly)
    app.mount(DOCS_ASSETS_URL, StaticFiles(directory=DOCS_ASSETS), name="api-docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_redirect = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        html = get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            oauth2_redirect_url=oauth2_redirect,
            swagger_js_url=f"{DOCS_ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )
        page = bytes(html.body).decode()
        # the inline start script replaced by this server's file (no inline script runs)
        start, end = page.index("<script>"), page.index("</script>", page.index("<script>"))
        page = page[:start] + '<script src="/static/swagger-init.js">' + page[end:]
        return HTMLResponse(page)

    @app.get("/static/swagger-init.js", include_in_schema=False)
    def swagger_init() -> FileResponse:
        return FileResponse(SWAGGER_INIT, media_type="text/javascript")

    @app.get(oauth2_redirect, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            redoc_js_url=f"{DOCS_ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url="/favicon.ico",
            with_google_fonts=False,
        )

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(FAVICON, media_type="image/x-icon")
