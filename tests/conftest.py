"""Shared fixtures: the worked example of WO Anhang 3.1 and its published results."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db import migrate
from ratingdb.i18n import use
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
from ratingdb.rules.model import TournamentInput, TournamentResult
from tests.db_server import postgres_for_tests

# CI (.ci/run sets RATINGDB_CI=1) draws hypothesis examples from a fixed seed, so a submission
# is judged by the same examples it was tested with; local runs keep drawing new ones (and
# hypothesis' example database replays any failure found) so rare cases still turn up.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("RATINGDB_CI"):
    settings.load_profile("ci")

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent / "data"

#: a test that uses one of these fixtures (directly or through another) needs PostgreSQL
DATABASE_FIXTURES = {"pg_server", "private_home"}


def _drives_a_browser(module: Any, seen: dict[str, bool] = {}) -> bool:  # noqa: B006
    """Whether a test module starts Chromium (it imports Playwright's sync API)."""
    path = getattr(module, "__file__", None)
    if path is None:
        return False
    if path not in seen:
        seen[path] = "sync_playwright" in Path(path).read_text(encoding="utf-8")
    return seen[path]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``db`` and ``browser`` markers (pyproject.toml), from what each test uses, and
    each test's pytest-xdist group (``--dist loadgroup``): the tests of one file run on one
    worker, in their order (a module's world is built once and its tests go on from each
    other's changes); the files that run ``ratingdb demo`` share one worker (the demo builds
    ``ratingdb_demo`` on the server, which the workers share under TEST_DATABASE_URL)."""
    demo_files = {
        item.nodeid.split("::")[0]
        for item in items
        if "demo_run" in getattr(item, "fixturenames", ())
    }
    for item in items:
        path = item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group("demo" if path in demo_files else path))
        browser = _drives_a_browser(getattr(item, "module", None))
        if browser or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.db)
        if browser:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def in_english() -> Iterator[None]:
    """The test runs in English (the default language is German): for tests that pin the
    English wording of a message; a module asks for it with
    ``pytestmark = pytest.mark.usefixtures("in_english")``. Pages and commands still choose
    their language per request and per call."""
    with use("en"):
        yield


@pytest.fixture(scope="session")
def example_json() -> dict[str, Any]:
    return json.loads((FIXTURES / "wo-2026-example.json").read_text())


@pytest.fixture(scope="session")
def example_expected() -> dict[str, Any]:
    return json.loads((FIXTURES / "wo-2026-example.expected.json").read_text())


@pytest.fixture(scope="session")
def example_input(example_json: dict[str, Any]) -> TournamentInput:
    return parse_tournament(example_json)


@pytest.fixture(scope="session")
def example_result(example_input: TournamentInput) -> TournamentResult:
    return evaluate(example_input, Dwz2026Parameters())


@pytest.fixture(scope="session")
def example_output(example_result: TournamentResult) -> dict[str, Any]:
    """The JSON contract form, with the trace."""
    return json.loads(json.dumps(example_result.to_dict(trace=True)))


# -- a real PostgreSQL (tests/db_server.py) ----------------------------------------------------
@pytest.fixture(scope="session")
def pg_server() -> Iterator[URL]:
    """URL of the session's PostgreSQL server (any database on it)."""
    with postgres_for_tests() as (url, _source):
        _SERVERS.append(url)
        yield url
        _SERVERS.remove(url)
        template = _TEMPLATES.pop(_key(url), None)
        if template is not None:
            _drop_database(url, template)


#: the session's servers, and per server the database migrated to head once, which every
#: migrated test database copies
_SERVERS: list[URL] = []
_TEMPLATES: dict[str, str] = {}


def _key(server: URL) -> str:
    return server.render_as_string(hide_password=False)


def _template(server: URL) -> str:
    """The server's template database, migrated by the real Alembic migrations on first use."""
    name = _TEMPLATES.get(_key(server))
    if name is None:
        name = f"template_{uuid.uuid4().hex[:12]}"
        migrate.upgrade(_create_database(server, name))
        _TEMPLATES[_key(server)] = name
    return name


def _create_migrated(server: URL, name: str) -> URL:
    """A new database at the migrations' head: a copy of the server's template
    (``CREATE DATABASE … TEMPLATE``), the same schema and seed rows as migrating it."""
    template = _template(server)
    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    return server.set(database=name)


def at_head(url: URL) -> None:
    """Bring a new, empty database of the session's server (``scratch_db``) to the
    migrations' head, as ``migrate.upgrade(url)`` does, by making it again as a copy of the
    template: nothing may be connected to it yet."""
    assert url.database is not None
    server = next(s for s in _SERVERS if (s.host, s.port) == (url.host, url.port))
    _create_migrated(server, url.database)


def _create_database(server: URL, name: str) -> URL:
    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return server.set(database=name)


def _drop_database(server: URL, name: str) -> None:
    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def scratch_db(pg_server: URL, request: pytest.FixtureRequest) -> Iterator[URL]:
    """A new, empty database for one test (migrations, CLI); dropped afterwards."""
    name = f"scratch_{uuid.uuid4().hex[:12]}"
    try:
        url = _create_database(pg_server, name)
    except Exception as err:  # e.g. TEST_DATABASE_URL without CREATEDB
        if os.environ.get("RATINGDB_CI"):  # CI must run every database test
            pytest.fail(f"cannot create a scratch database: {err}")
        pytest.skip(f"cannot create a scratch database: {err}")
    yield url
    _drop_database(pg_server, name)


@pytest.fixture(scope="session")
def demo_run(pg_server: URL) -> Iterator[tuple[Any, URL]]:
    """``ratingdb demo --players 200 --years 3`` run once for the session (it is slow) in
    the default language (German): its output and the ``DATABASE_URL`` it ran with (the
    demo builds ``ratingdb_demo`` on the same server, dropped afterwards)."""
    from ratingdb.commands.demo import DEMO_DB
    from tests.cli import run

    name = f"scratch_{uuid.uuid4().hex[:12]}"
    url = _create_database(pg_server, name)
    try:
        yield run(["demo", "--players", "200", "--years", "3"], url, lang=None), url
    finally:
        _drop_database(pg_server, DEMO_DB)
        _drop_database(pg_server, name)


@pytest.fixture(scope="session")
def migrated_engine(pg_server: URL) -> Iterator[Engine]:
    """An engine on a database migrated to head by the real Alembic migrations."""
    # a database of each pytest-xdist worker's own (they share TEST_DATABASE_URL's server)
    name = "ratingdb_tests" + os.environ.get("PYTEST_XDIST_WORKER", "").replace("gw", "_")
    try:
        url = _create_database(pg_server, name)
    except Exception:
        url = pg_server  # TEST_DATABASE_URL without CREATEDB: use it as given
    migrate.upgrade(url)
    engine = create_engine(url, poolclass=NullPool)
    yield engine
    engine.dispose()


@pytest.fixture
def db(migrated_engine: Engine) -> Iterator[Session]:
    """A session inside a transaction that is rolled back after the test.

    Commits inside the test become savepoints, so tests never leak into each other.
    """
    with migrated_engine.connect() as conn:
        outer = conn.begin()
        session = Session(bind=conn, join_transaction_mode="create_savepoint")
        try:
            yield session
        finally:
            session.close()
            outer.rollback()


@pytest.fixture
def loaded(scratch_db):
    """A scratch database with a small synthetic federation (300 players, 3 years)."""
    from tests.cli import run

    at_head(scratch_db)
    out = run(["synth", "--players", "300", "--years", "3", "--seed", "3"], scratch_db)
    assert out.returncode == 0, out.stderr
    return scratch_db
