"""The officer's overview, the runs and the admin pages (issue 29, item 6): users (create,
scope, password, tokens) and the audit log, by the same functions as the command line;
officers are refused the admin pages, anonymous visitors are sent to sign in."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.db.users import add_user
from tests.cli import run
from tests.web_support import client_for, database, engine_for, ok

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[URL]:
    """A small synthetic federation, recalculated, with an officer for region A, one for
    region B and an admin, each with a password."""
    with database(pg_server, "web_admin_pages") as url:
        ok(["synth", "--players", "60", "--years", "1", "--seed", "5"], url)
        ok(["recalc", "--quiet"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"], full_name="Anna A")
            add_user(session, "bert", "officer", ["B"])
            add_user(session, "root", "admin")
        for name in ("anna", "bert", "root"):
            out = run(["user", "password", name, "--password-stdin"], url, input=PASSWORD + "\n")
            assert out.returncode == 0, out.stderr
        yield url


def _clear_throttle(url: URL) -> None:
    with engine_for(url).begin() as conn:
        conn.execute(text("DELETE FROM sign_in_throttle"))


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def signed_in(url: URL, name: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
    """A test client signed in as ``name``."""
    _clear_throttle(url)
    client = client_for(url)
    csrf = _csrf(client.get("/anmelden").text)
    answer = client.post(
        "/anmelden",
        data={"name": name, "password": password, "csrf": csrf},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    return client


def _audit(url: URL, name: str) -> list[tuple[str, str, dict]]:  # type: ignore[type-arg]
    with engine_for(url).connect() as conn:
        rows = conn.execute(
            text(
                "SELECT actor, action, details FROM audit_log WHERE entity = 'user' "
                "AND entity_id = :n ORDER BY id"
            ),
            {"n": name},
        ).all()
    return [(r.actor, r.action, r.details) for r in rows]


def test_scope_and_generated_password_on_the_command_line(site):
    ok(["user", "add", "carl", "--role", "officer", "--scope", "A"], site)
    out = run(["user", "scope", "carl", "--scope", "B", "--scope", "A1", "--scope", "B"], site)
    assert (out.returncode, out.stdout) == (0, "carl now acts for A1, B\n"), out.stderr
    bad = run(["user", "scope", "carl", "--scope", "A 1"], site)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "error: scope: a VKZ prefix has 1 to 10 letters or digits: 'A 1'\n"
    bad = run(["user", "scope", "root", "--scope", "A"], site)
    assert bad.stderr == "error: scope: an admin acts on every VKZ: give no prefixes\n"
    assert run(["user", "scope", "nobody", "--scope", "A"], site).stderr == (
        "error: user: no user 'nobody'\n"
    )
    generated = ok(["user", "password", "carl", "--generate"], site).strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", generated)
    signed_in(site, "carl", generated)  # the printed password signs in
    assert _audit(site, "carl") == [
        ("cli", "add", {"role": "officer", "scopes": ["A"]}),
        ("cli", "scope", {"scopes": ["A1", "B"], "before": ["A"]}),
        ("cli", "password", {"generated": True}),
    ]
