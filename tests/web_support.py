"""Shared pieces of the web tests: databases built as users build them (the CLI), the app
on a fixed "today", users and tokens, and submission documents from stored tournaments."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.queries.tournament import submission_document
from ratingdb.services.users import add_user, issue_token
from ratingdb.web.app import create_app
from tests.builders import ok
from tests.cli import wo_2026_throughout
from tests.conftest import _create_migrated, _drop_database

#: the tests' "today": the synthetic history ends in 2026 (WO 6.2's year counts from here)
TODAY = date(2026, 11, 21)
EXCHANGE = Path(__file__).parent / "data" / "exchange"
ARTIFACTS = Path(__file__).parent / "artifacts"


@contextmanager
def database(server: URL, prefix: str) -> Iterator[URL]:
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    url = _create_migrated(server, name)
    try:
        yield url
    finally:
        _drop_database(server, name)


@contextmanager
def synth_database(server: URL) -> Iterator[URL]:
    """The synthetic federation of 300 players over 2024-2026 (seed 3), recalculated."""
    with database(server, "web_synth") as url:
        ok(["synth", "--players", "300", "--years", "3", "--seed", "3"], url)
        ok(["recalc", "--quiet"], url)
        yield url


@contextmanager
def example_database(server: URL) -> Iterator[URL]:
    """The worked example of WO Anhang 3.1 imported from files (as tests/test_exchange.py)."""
    with database(server, "web_example") as url:
        wo_2026_throughout(url)
        ok(["players", "import", str(EXCHANGE / "spieler-2025-01-01.csv"), "--date",
            "2025-01-01", "--quiet"], url)  # fmt: skip
        for f in sorted(EXCHANGE.glob("residual-*.trf")):
            ok(["tournament", "import", str(f)], url)
        ok(["players", "import", str(EXCHANGE / "spieler-2026-08-01.csv"), "--date",
            "2026-08-01", "--quiet"], url)  # fmt: skip
        ok(["tournament", "import", str(EXCHANGE / "wo-2026-example.trf")], url)
        ok(["recalc", "--quiet"], url)
        yield url


def engine_for(url: URL):  # type: ignore[no-untyped-def]
    return create_engine(url, poolclass=NullPool)


def client_for(url: URL, today: date = TODAY) -> TestClient:
    return TestClient(create_app(engine_for(url), today=lambda: today))


def user_token(url: URL, name: str, role: str, scopes: list[str] | None = None) -> str:
    with Session(engine_for(url)) as session, session.begin():
        add_user(session, name, role, scopes or [], full_name=name.title())
        return issue_token(session, name)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def document(url: URL, code: str, **changes: Any) -> dict[str, Any]:
    """Stored tournament ``code`` as a submission, with tournament fields changed."""
    with Session(engine_for(url)) as session:
        doc = copy.deepcopy(submission_document(session, code))
    doc["tournament"].update(changes)
    return doc


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` under uvicorn on a free loopback port, in a thread; yields its base URL."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
