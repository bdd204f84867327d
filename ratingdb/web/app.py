"""The ASGI application: ``create_app(engine)`` (tests, embedding) and ``app_from_env()``
(``ratingdb serve``, the database of ``DATABASE_URL`` or the embedded server)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path

from fastapi import FastAPI
from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine

from ratingdb import __version__
from ratingdb.web import (
    admin_pages,
    api_admin,
    api_officer,
    api_public,
    calculator,
    contract,
    officer_pages,
    officer_submit,
    pages,
    run_pages,
)
from ratingdb.web.assets import add_assets
from ratingdb.web.bodies import BodyGuard
from ratingdb.web.dewis import service as dewis_service
from ratingdb.web.errors import HANDLERS, RefuseUnsafeText
from ratingdb.web.language import LanguageMiddleware, template_context
from ratingdb.web.timing import ServerTiming, count_statements

TEMPLATES = Path(__file__).parent / "templates"

DESCRIPTION = """\
The DWZ rating database (DSB Wertungsordnung, WO 6.5): Karteikarten, evaluations, rating
and tournament lists for everyone; submissions, corrections, deletions and their what-if
for rating officers within their VKZ prefixes and the one-year period of WO 6.2 (API
tokens: `ratingdb user token NAME`, sent as `Authorization: Bearer TOKEN`); the audit log
and anonymisation (WO 4.1.1) for administrators. Errors are `{"error", "errors": [{location,
line, column, path, message}]}`.
"""


def create_app(
    engine: Engine,
    *,
    today: Callable[[], date] | None = None,
    threads: int | None = None,
    offload: int = 0,
    cache: bool = False,
    evaluate_on_submit: bool | None = None,
) -> FastAPI:
    """The app on ``engine``; ``today`` fixes the date for tests (default: the clock);
    ``threads`` limits the threads that run the (synchronous) database work of requests
    (the officers' writes have :data:`ratingdb.web.offload.WRITE_THREADS` of their own);
    ``offload`` worker processes (at a lower priority) run the officers' what-ifs, and one
    more reads uploaded files (:mod:`ratingdb.web.offload`; 0: they run in request
    threads); ``cache`` keeps the public pages in memory, keyed by the data version
    (:mod:`ratingdb.web.page_cache`);
    ``evaluate_on_submit``: the officer's pages run the recalculation right after a change
    (default: the setting :data:`ratingdb.services.recalc.SETTING`, on)."""
    from ratingdb.services.recalc import evaluate_on_submit as setting
    from ratingdb.web.page_cache import DataVersion, PageCache, conninfo_of

    version = DataVersion(conninfo_of(engine)) if cache else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if threads is not None:
            # few threads per process: the work holds the GIL, more threads only queue
            # unfairly (long tails); the pool's connections are opened before the first
            # request instead of during it
            import anyio.to_thread
            from fastapi.concurrency import run_in_threadpool

            from ratingdb.web.offload import WRITE_THREADS

            anyio.to_thread.current_default_thread_limiter().total_tokens = threads
            # the officers' writes have threads of their own (they may wait for locks)
            app.state.write_threads = anyio.CapacityLimiter(WRITE_THREADS)
            await run_in_threadpool(_open_connections, engine, threads)
        try:
            if not offload:
                yield
                return
            from ratingdb.web.offload import READ_NICE, Offload

            url = engine.url.render_as_string(hide_password=False)
            workers = Offload(
                url, offload, modules=(api_officer.__name__, "ratingdb.services.recalc")
            )
            # uploaded files are read in a process of their own (ratingdb/web/offload.py)
            reader = Offload(url, 1, nice=READ_NICE, modules=(officer_submit.__name__,))
            try:
                workers.start()
                reader.start()
                app.state.offload = workers
                app.state.reader = reader
                yield
            finally:
                app.state.offload = app.state.reader = None
                workers.close()
                reader.close()
        finally:
            if version is not None:
                await version.close()

    app = FastAPI(
        title="ratingdb",
        version=__version__,
        description=DESCRIPTION,
        exception_handlers=HANDLERS,
        lifespan=lifespan,
        docs_url=None,  # served by add_assets from the installed package, not a CDN
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.today = today or date.today
    app.state.evaluate_on_submit = setting() if evaluate_on_submit is None else evaluate_on_submit
    app.state.templates = templates()
    app.add_middleware(RefuseUnsafeText)  # inside: its error page is in the request's language
    app.add_middleware(BodyGuard)  # before any body is read (ratingdb/web/bodies.py)
    app.add_middleware(LanguageMiddleware)
    for router in (
        pages.router,
        officer_pages.router,
        officer_submit.router,
        run_pages.router,
        admin_pages.router,
        calculator.page_router,
        api_public.router,
        calculator.api_router,
        api_officer.router,
        api_admin.router,
        dewis_service.router,  # the DeWIS SOAP interface (docs/dewis.md)
    ):
        app.include_router(router)
    add_assets(app)
    contract.install(app)  # the limits of the middleware in the OpenAPI document
    if version is not None:  # outer: an entry holds every header of the answer
        app.add_middleware(
            PageCache, version=version, today=app.state.today, post_paths=dewis_service.PATHS
        )
    app.add_middleware(ServerTiming)  # outermost: a page from the cache is timed too
    if engine is not None:  # None: only the routes are wanted (tests)
        count_statements(engine)
    return app


def templates() -> Jinja2Templates:
    """The pages' templates with gettext (``{{ _("...") }}``, ``{% trans %}``) in the
    language of the request (:mod:`ratingdb.web.language`)."""
    import jinja2

    from ratingdb import i18n, terms

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        auto_reload=False,  # the installed templates do not change: no stat() per page
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext,
        npgettext=i18n.npgettext,
    )  # fmt: skip
    env.filters["decimal"] = i18n.decimal  # {{ e.score | decimal(1) }}: 2,5 / 2.5
    env.filters["number"] = i18n.number_text  # {{ t.match_points | number }}: 2,0 / 2.0
    env.filters["date"] = i18n.date_text  # {{ t.end_date | date }}: 01.12.2026 / 2026-12-01
    env.globals["tournament_kind"] = terms.tournament_kind
    env.globals["game_result"] = terms.game_result
    env.globals["game_marks"] = terms.game_marks
    env.globals["precision"] = terms.precision
    env.globals["evaluation_notes"] = terms.notes
    env.globals["membership_status"] = terms.membership_status
    env.globals["match_how"] = terms.match_how
    env.globals["record_status"] = terms.record_status
    return Jinja2Templates(env=env, context_processors=[template_context])


def app_from_env() -> FastAPI:
    """The app on the configured database (which must be migrated to head); the server
    refuses to start with the one error line of a bad setting or database."""
    from ratingdb.errors import Unavailable
    from ratingdb.services.database import open_engine
    from ratingdb.settings import Settings, SettingsError
    from ratingdb.web.offload import WRITE_THREADS

    try:
        threads = Settings.from_env(web=True).web_threads
        # a connection for each read thread, and beyond them one for each write thread
        engine = open_engine(pool_size=threads, max_overflow=WRITE_THREADS, pool_recycle=3600)
    except (Unavailable, SettingsError) as err:
        raise SystemExit(f"error: {err}") from None
    return create_app(engine, threads=threads, offload=1, cache=True)


def _open_connections(engine: Engine, count: int) -> None:
    connections = [engine.connect() for _ in range(count)]
    for conn in connections:
        conn.close()
