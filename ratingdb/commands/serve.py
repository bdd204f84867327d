"""``ratingdb serve``: the web pages and the JSON API (docs/web.md)."""

from __future__ import annotations

import click

from ratingdb.commands.common import engine


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="processes"
)
@click.option("--log-level", default="info", show_default=True)
def serve(host: str, port: int, workers: int, log_level: str) -> None:
    """Serve the web pages and the JSON API (OpenAPI at /docs) with uvicorn."""
    import uvicorn

    engine()  # fail early and clearly: no database, or not migrated
    uvicorn.run(
        "ratingdb.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )
