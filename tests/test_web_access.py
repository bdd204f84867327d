"""Who is let in: disabling a user ends all of him at once, revoking a token ends only that
token, role and scope changes reach open sessions at their next request; sign-in
throttling counts simultaneous attempts exactly, by address and name together (a stranger
cannot lock out a named officer), answers 429 with Retry-After and writes failures and
locks to the audit log."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.services.sign_in import (
    ADDRESS_FREE_FAILURES,
    FIRST_LOCK_SECONDS,
    FREE_FAILURES,
    Locked,
    sign_in,
)
from ratingdb.services.users import add_user, issue_token
from ratingdb.web.app import create_app
from tests.cli import Completed
from tests.cli import run as run_in
from tests.web_support import TODAY, bearer, database, engine_for, ok


def run(args: list[str], url: Any, input: str | bytes | None = None) -> Completed:
    """``ratingdb ARGS`` in the default language (German: the words these tests read;
    ``--lang en`` where a test reads English)."""
    return run_in(args, url, input, lang=None)


PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[URL]:
    """A small synthetic federation with officers for region A and B and an admin."""
    with database(pg_server, "web_access") as url:
        ok(["synth", "--players", "40", "--years", "1", "--seed", "7"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"], full_name="Anna A")
            add_user(session, "bert", "officer", ["B"])
            add_user(session, "carl", "officer", ["A"])
            add_user(session, "dora", "officer", ["B"])
            add_user(session, "root", "admin")
        for name in ("anna", "bert", "carl", "dora", "root"):
            out = run(["user", "password", name, "--password-stdin"], url, input=PASSWORD + "\n")
            assert out.returncode == 0, out.stderr
        yield url


@pytest.fixture(autouse=True)
def _no_throttle(site: URL) -> None:
    with engine_for(site).begin() as conn:
        conn.execute(text("DELETE FROM sign_in_throttle"))


def client(url: URL, address: str = "10.0.0.1") -> TestClient:
    return TestClient(create_app(engine_for(url), today=lambda: TODAY), client=(address, 4000))


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def attempt(browser: TestClient, name: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
    csrf = _csrf(browser.get("/anmelden").text)
    return browser.post(
        "/anmelden",
        data={"name": name, "password": password, "csrf": csrf},
        follow_redirects=False,
    )


def signed_in(url: URL, name: str, address: str = "10.0.0.1") -> TestClient:
    browser = client(url, address)
    answer = attempt(browser, name)
    assert answer.status_code == 303, answer.text
    return browser


def _audit(url: URL, entity_id: str) -> list[tuple[str, str, dict]]:  # type: ignore[type-arg]
    with engine_for(url).connect() as conn:
        rows = conn.execute(
            text("SELECT actor, action, details FROM audit_log WHERE entity_id = :n ORDER BY id"),
            {"n": entity_id},
        ).all()
    return [(r.actor, r.action, r.details) for r in rows]


def _token(url: URL, name: str, label: str = "") -> str:
    with Session(engine_for(url)) as session, session.begin():
        return issue_token(session, name, label=label)


def test_disabled_user_is_out_at_once_on_the_command_line(site):
    browser = signed_in(site, "anna")
    other = signed_in(site, "anna", "10.0.0.9")
    token = _token(site, "anna")
    assert browser.get("/officer", follow_redirects=False).status_code == 200
    assert browser.get("/api/me", headers=bearer(token)).status_code == 200

    out = run(["user", "disable", "anna"], site)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "anna gesperrt: 1 Token widerrufen, 2 Sitzungen beendet\n"  # German

    # the open sessions, the token and the password: all refused at the next request
    for b in (browser, other):
        answer = b.get("/officer", follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/anmelden")
    assert browser.get("/api/me", headers=bearer(token)).status_code == 401
    refused = attempt(client(site, "10.0.0.2"), "anna")
    assert refused.status_code == 401 and "rdb_session" not in refused.headers.get("set-cookie", "")
    assert "Falscher Name oder falsches Passwort." in refused.text
    out = run(["user", "token", "anna"], site)
    assert out.returncode == 2 and "gesperrt" in out.stderr
    assert "anna" in run(["user", "list"], site).stdout.split("disabled")[0]
    assert ("cli", "disable", {"tokens": 1, "sessions": 2}) in _audit(site, "anna")

    # enabled again: the password works, the old token stays revoked
    assert run(["user", "enable", "anna"], site).returncode == 0
    assert attempt(client(site, "10.0.0.3"), "anna").status_code == 303
    assert browser.get("/api/me", headers=bearer(token)).status_code == 401
    entries = _audit(site, "anna")
    assert [a for _, a, _ in entries][-3:] == ["disable", "sign-in failed", "enable"]
    assert entries[-2] == ("anonymous", "sign-in failed", {"address": "10.0.0.2",
                                                           "reason": "disabled"})  # fmt: skip


def test_admin_disables_a_user_on_his_page(site):
    victim = signed_in(site, "bert", "10.0.1.1")
    token = _token(site, "bert")
    admin = signed_in(site, "root", "10.0.1.2")
    page = admin.get("/admin/users/bert")
    assert "aktiv" in page.text and "Benutzer sperren" in page.text
    answer = admin.post(
        "/admin/users/bert/disable", data={"csrf": _csrf(page.text)}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"].endswith("done=disabled")
    page = admin.get(answer.headers["location"])
    assert "gesperrt" in page.text and "Benutzer entsperren" in page.text
    assert victim.get("/officer", follow_redirects=False).status_code == 303
    assert victim.get("/api/me", headers=bearer(token)).status_code == 401
    assert attempt(client(site, "10.0.1.3"), "bert").status_code == 401
    assert ("root", "disable", {"tokens": 1, "sessions": 1}) in _audit(site, "bert")
    # without the form's token nothing happens
    assert admin.post("/admin/users/bert/enable", data={}).status_code == 403
    answer = admin.post(
        "/admin/users/bert/enable", data={"csrf": _csrf(page.text)}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert attempt(client(site, "10.0.1.3"), "bert").status_code == 303


def test_revoking_one_token_ends_only_that_token(site):
    browser = signed_in(site, "carl", "10.0.2.1")
    first, second = _token(site, "carl", "one"), _token(site, "carl", "two")
    out = run(["--lang", "en", "user", "revoke", "carl", "--token", first[:12]], site)
    assert out.returncode == 0 and out.stdout == "revoked 1 token of carl\n"
    assert browser.get("/api/me", headers=bearer(first)).status_code == 401
    assert browser.get("/api/me", headers=bearer(second)).status_code == 200
    assert browser.get("/officer", follow_redirects=False).status_code == 200  # the session


def test_scope_and_role_changes_apply_at_the_next_request(site):
    browser = signed_in(site, "dora", "10.0.3.1")
    token = _token(site, "dora")
    with engine_for(site).connect() as conn:
        codes = dict(conn.execute(text("SELECT code, vkz FROM tournaments")).all())
    a_code = next(c for c, v in codes.items() if v.startswith("A"))
    assert a_code not in browser.get("/officer?offset=0").text
    assert browser.get("/admin/users").status_code == 403
    api = browser.get(f"/api/me/{a_code}/submission", headers=bearer(token))
    assert api.status_code in (403, 404)

    assert run(["user", "scope", "dora", "--scope", "A"], site).returncode == 0
    assert a_code in browser.get("/officer").text
    assert browser.get("/api/me", headers=bearer(token)).json()["scopes"] == ["A"]
    out = run(["user", "role", "dora", "--role", "admin"], site)
    assert out.returncode == 0 and out.stdout == "dora ist jetzt Administrator\n"
    assert browser.get("/admin/users").status_code == 200
    assert browser.get("/api/admin/audit", headers=bearer(token)).status_code == 200
    out = run(["user", "role", "dora", "--role", "officer", "--scope", "B"], site)
    assert out.returncode == 0
    assert browser.get("/admin/users").status_code == 403
    assert browser.get("/api/admin/audit", headers=bearer(token)).status_code == 403
    actions = [a for _, a, _ in _audit(site, "dora")]
    assert actions[-3:] == ["scope", "role", "role"]
    out = run(["user", "role", "dora", "--role", "officer"], site)
    assert out.returncode == 2  # an officer needs a prefix


def test_forty_simultaneous_wrong_passwords_check_exactly_the_free_failures(site):
    engine = create_engine(site, pool_size=45, max_overflow=0)
    start = threading.Barrier(40)
    outcomes: list[object] = []

    def guess(i: int) -> None:
        start.wait()
        outcomes.append(sign_in(engine, "bert", f"guess {i}", "10.0.4.1"))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engine.dispose()
    checked = [o for o in outcomes if o is None]
    assert len(outcomes) == 40 and len(checked) == FREE_FAILURES
    assert all(isinstance(o, Locked) for o in outcomes if o is not None)
    failed = [a for _, a, _ in _audit(site, "bert") if a == "sign-in failed"]
    assert len(failed) >= FREE_FAILURES
    with engine_for(site).connect() as conn:
        failures = conn.execute(
            text("SELECT failures FROM sign_in_throttle WHERE key = 'pair:10.0.4.1|bert'")
        ).scalar()
    assert failures == FREE_FAILURES


def test_a_stranger_cannot_lock_out_a_named_officer(site):
    stranger = client(site, "10.0.5.66")
    answers = [attempt(stranger, "carl", f"guess {i}").status_code for i in range(8)]
    assert answers == [401] * FREE_FAILURES + [429] * 3
    locked = attempt(stranger, "carl")
    assert locked.status_code == 429
    retry = int(locked.headers["Retry-After"])
    assert FIRST_LOCK_SECONDS - 30 < retry <= FIRST_LOCK_SECONDS
    assert "Zu viele fehlgeschlagene Anmeldungen" in locked.text
    # carl at his own address signs in at once
    assert attempt(client(site, "10.0.5.1"), "carl").status_code == 303
    # the audit log has every failure and the lock, as readable details
    entries = [(a, d) for _, a, d in _audit(site, "carl") if a.startswith("sign-in")]
    assert [a for a, _ in entries].count("sign-in failed") == FREE_FAILURES
    lock = next(d for a, d in entries if a == "sign-in locked")
    assert lock == {"key": "pair", "address": "10.0.5.66", "failures": FREE_FAILURES,
                    "seconds": FIRST_LOCK_SECONDS}  # fmt: skip


def test_an_address_trying_many_names_is_locked_longer(site):
    guesser = client(site, "10.0.6.66")
    answers = [
        attempt(guesser, f"name{i // 2}", f"guess {i}").status_code
        for i in range(ADDRESS_FREE_FAILURES + 1)
    ]
    assert answers == [401] * ADDRESS_FREE_FAILURES + [429]
    refused = attempt(guesser, "anna")  # even the right password of a real user
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > FIRST_LOCK_SECONDS
    assert attempt(client(site, "10.0.6.1"), "anna").status_code == 303


def test_audit_page_shows_details_as_text(site):
    stranger = client(site, "10.0.7.66")
    for i in range(FREE_FAILURES):
        attempt(stranger, "root", f"guess {i}")
    admin = signed_in(site, "root", "10.0.7.1")
    page = admin.get("/admin/audit?entity_id=root").text
    assert "sign-in locked" in page or "Anmeldung gesperrt" in page
    table = page.split('<table id="audit">')[1].split("</table>")[0]
    details_cell = r"class=\"[^\"]*\bdetails\b[^\"]*\">([^<]*)<"
    lock = re.search(r"sign-in locked</td>.*?" + details_cell, table, re.S)
    assert lock is not None
    assert sorted(lock.group(1).split("; ")) == [
        "address: 10.0.7.66", "failures: 5", "key: pair", "seconds: 30"]  # fmt: skip
    assert "reason: wrong password" in table and "{" not in table
    with Session(engine_for(site)) as session, session.begin():
        from ratingdb.services.users import set_role

        add_user(session, "emil", "officer", ["C1", "C2"])
        set_role(session, "emil", "admin")
    page = admin.get("/admin/audit?entity_id=emil").text
    assert "before: (role: officer; scopes: C1, C2)" in page
    api = admin.get("/api/admin/audit?entity_id=emil", headers=bearer(_token(site, "root")))
    assert "before: (role: officer; scopes: C1, C2)" in api.json()["items"][0]["text"]


def test_the_schema_declares_security_only_where_a_token_is_demanded():
    """A public read that shows more to an officer takes a token but demands none: its
    OpenAPI entry has no security; every operation that answers 401 without one has."""
    doc = create_app(None).openapi()  # type: ignore[arg-type]
    declared = {
        (method.upper(), path): "security" in op
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
    }
    public = {("GET", "/api/players"), ("GET", "/api/players/{player_id}"),
              ("GET", "/api/tournaments"), ("GET", "/api/tournaments/{code}"),
              ("GET", "/api/tournaments/{code}/games"), ("POST", "/api/calc"),
              ("GET", "/api/tournaments/{code}/players/{participant_id}")}  # fmt: skip
    assert public <= set(declared)
    assert not any(declared[k] for k in public)
    demanded = {
        ("GET", "/api/me"),
        ("POST", "/api/tournaments"),
        ("GET", "/api/admin/audit"),
        ("PUT", "/api/tournaments/{code}"),
        ("POST", "/api/what-if/tournaments"),
    }
    assert all(declared[k] for k in demanded)


def test_an_undeclared_method_is_405_with_allow(site):
    browser = client(site)
    for method, path in (("TRACE", "/api/players"), ("PATCH", "/api/me"),
                         ("DELETE", "/api/players/1"), ("PUT", "/api/calc")):  # fmt: skip
        answer = browser.request(method, path)
        assert answer.status_code == 405, (method, path)
        assert answer.headers["allow"], (method, path)
        assert method not in answer.headers["allow"]


def test_allow_names_every_method_of_the_path(site):
    """A path with several operations (GET and POST /api/tournaments) names them all in
    the ``Allow`` of its 405, not only the first route's method."""
    browser = client(site)
    for method, path, allowed in (
        ("OPTIONS", "/api/tournaments", "GET, POST"),
        ("TRACE", "/api/tournaments/S3-000001", "DELETE, GET, PUT"),
        ("PATCH", "/api/what-if/tournaments/S3-000001", "DELETE, PUT"),
    ):
        answer = browser.request(method, path)
        assert answer.status_code == 405, (method, path)
        assert answer.headers["allow"] == allowed, (method, path)
