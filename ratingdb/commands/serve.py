"""``ratingdb serve``: the web pages and the JSON API (docs/web.md)."""

from __future__ import annotations

import os

import click

from ratingdb.commands.common import engine, select_database


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="processes"
)
@click.option("--log-level", default="info", show_default=True)
@click.option(
    "--database",
    metavar="NAME",
    default=None,
    help="Serve the database NAME of the configured server (DATABASE_URL's or the embedded "
    "one) instead of its own, e.g. ratingdb_demo, the one `ratingdb demo` builds (the same "
    "as `ratingdb --database NAME serve`).",
)
def serve(host: str, port: int, workers: int, log_level: str, database: str | None) -> None:
    """Serve the web pages and the JSON API (OpenAPI at /docs) with uvicorn."""
    import uvicorn

    if database is not None:
        select_database(database)
    use_database()
    engine()  # fail early and clearly: no database, or not migrated
    stop_on_sigterm()
    uvicorn.run(
        "ratingdb.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        server_header=False,  # no banner naming the server's software (docs/web.md)
    )


def use_database() -> None:
    """Point ``DATABASE_URL`` of this process (and so of uvicorn's worker processes, which
    inherit it) at the configured database (``--database``: that one of the configured
    server). The embedded server is started here if needed and stays up as long as this
    process runs."""
    from ratingdb.services.database import configured_url

    url = configured_url()
    os.environ["DATABASE_URL"] = url.render_as_string(hide_password=False)


def stop_on_sigterm() -> None:
    """End this process on SIGTERM as on Ctrl-C, through the exit handlers: uvicorn shuts
    down gracefully, then raises the signal again with the handler it found, and Python's
    default for SIGTERM ends the process without them. The embedded server that this
    process started (:func:`use_database`) is stopped by such a handler: ``serve`` stops
    it when it ends, unless ``ratingdb db start`` asked to keep it running."""
    import signal
    import sys

    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
