"""``ratingdb serve``: the web pages and the JSON API (docs/web.md)."""

from __future__ import annotations

import os

import click

from ratingdb.commands.common import engine


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
    "one) instead of its own, e.g. ratingdb_demo, the one `ratingdb demo` builds.",
)
def serve(host: str, port: int, workers: int, log_level: str, database: str | None) -> None:
    """Serve the web pages and the JSON API (OpenAPI at /docs) with uvicorn."""
    import uvicorn

    if database is not None:
        use_database(database)
    engine()  # fail early and clearly: no database, or not migrated
    uvicorn.run(
        "ratingdb.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )


def use_database(name: str) -> None:
    """Point ``DATABASE_URL`` of this process (and so of uvicorn's worker processes, which
    inherit it) at database ``name`` of the configured server. The embedded server is
    started here if needed and stays up as long as this process runs."""
    from ratingdb.services.database import configured_url

    url = configured_url().set(database=name)
    os.environ["DATABASE_URL"] = url.render_as_string(hide_password=False)
