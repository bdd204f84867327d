"""Sign-in for people and the officer's overview: passwords as
argon2id hashes, session cookies, CSRF tokens, throttled failures, the officer's scope."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.services.sign_in import FIRST_LOCK_SECONDS, FREE_FAILURES, MAX_LOCK_SECONDS
from ratingdb.services.users import add_user
from tests.cli import Completed
from tests.cli import run as run_in
from tests.web_support import client_for, database, engine_for, ok


def run(args: list[str], url: Any, input: str | bytes | None = None) -> Completed:
    """``ratingdb ARGS`` in the default language (German: the words these tests read;
    ``--lang en`` where a test reads English)."""
    return run_in(args, url, input, lang=None)


PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[URL]:
    """A small synthetic federation, recalculated, with an officer for the clubs of
    region A (VKZ A...), one for region B and an admin, each with a password."""
    with database(pg_server, "web_sign_in") as url:
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


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def _sign_in(client, name: str, password: str = PASSWORD, address: str | None = None):  # type: ignore[no-untyped-def]
    csrf = _csrf(client.get("/anmelden").text)
    return client.post(
        "/anmelden",
        data={"name": name, "password": password, "csrf": csrf, "next": "/officer"},
        follow_redirects=False,
    )


def _clear_throttle(url: URL) -> None:
    with engine_for(url).begin() as conn:
        conn.execute(text("DELETE FROM sign_in_throttle"))


def test_password_is_stored_as_argon2id(site):
    with engine_for(site).connect() as conn:
        hashes = conn.execute(text("SELECT password_hash FROM users ORDER BY name")).scalars()
        assert all(h.startswith("$argon2id$v=19$") and PASSWORD not in h for h in hashes)
    out = run_in(["user", "password", "anna", "--password-stdin"], site, input="short\n")
    assert out.returncode == 2
    assert out.stderr == "error: password: a password has 10 to 1000 characters\n"
    out = run(["user", "password", "nobody", "--password-stdin"], site, input=PASSWORD + "\n")
    assert out.stderr == "Fehler: user: kein Benutzer 'nobody'\n"
    # the prompt: asked twice, not echoed; a mismatch is asked again
    out = run(["user", "password", "anna"], site, input=f"{PASSWORD}\nx\n{PASSWORD}\n{PASSWORD}\n")
    assert out.returncode == 0, out.stderr
    assert PASSWORD not in out.stdout and "Passwort von anna gesetzt" in out.stdout


def test_officer_page_needs_a_session(site):
    client = client_for(site)
    answer = client.get("/officer", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/anmelden?next=/officer"
    page = client.get("/anmelden")
    assert "Anmelden" in page.text and 'type="password"' in page.text
    assert "Sign in" in client.get("/anmelden?lang=en").text


def test_sign_in_and_out(site):
    _clear_throttle(site)
    client = client_for(site)
    answer = _sign_in(client, "anna")
    assert answer.status_code == 303 and answer.headers["location"] == "/officer"
    cookie = next(c for c in answer.headers.get_list("set-cookie") if "rdb_session=" in c)
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    token = re.search(r"rdb_session=([^;]+)", cookie).group(1)  # type: ignore[union-attr]
    with engine_for(site).connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM web_sessions")).scalars().all()
    assert token not in stored and len(stored) == 1  # only its hash
    page = client.get("/officer")
    assert page.status_code == 200 and "Anna A" in page.text
    # signing out needs the session's CSRF token
    assert client.post("/abmelden", data={}).status_code == 403
    assert client.post("/abmelden", data={"csrf": "forged"}).status_code == 403
    assert client.get("/officer", follow_redirects=False).status_code == 200
    out = client.post("/abmelden", data={"csrf": _csrf(page.text)}, follow_redirects=False)
    assert out.status_code == 303
    assert client.get("/officer", follow_redirects=False).status_code == 303
    with engine_for(site).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM web_sessions")).scalar() == 0
    # the stolen cookie is worthless after signing out
    client.cookies.set("rdb_session", token)
    assert client.get("/officer", follow_redirects=False).status_code == 303


def test_secure_cookie_over_https(site):
    _clear_throttle(site)
    client = client_for(site)
    client.base_url = client.base_url.copy_with(scheme="https")  # type: ignore[attr-defined]
    answer = _sign_in(client, "bert")
    cookie = next(c for c in answer.headers.get_list("set-cookie") if "rdb_session=" in c)
    assert "Secure" in cookie and "HttpOnly" in cookie


def test_sign_in_refused_without_csrf_token(site):
    _clear_throttle(site)
    client = client_for(site)
    client.get("/anmelden")  # the CSRF cookie, but not the field
    data = {"name": "anna", "password": PASSWORD}
    answer = client.post("/anmelden", data=data, follow_redirects=False)
    assert answer.status_code == 403 and "rdb_session" not in answer.headers.get("set-cookie", "")
    other = client_for(site)  # a field but no cookie: another site's form
    answer = other.post("/anmelden", data=data | {"csrf": "x" * 43}, follow_redirects=False)
    assert answer.status_code == 403


def test_wrong_password_does_not_tell_whether_the_name_exists(site):
    _clear_throttle(site)
    client = client_for(site)
    wrong = _sign_in(client, "anna", "not the password")
    unknown = _sign_in(client, "nobody", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert "Falscher Name oder falsches Passwort." in wrong.text
    assert wrong.text.replace("anna", "").count("Falscher") == unknown.text.count("Falscher")


def _throttle(url: URL) -> dict[str, tuple[int, float]]:
    with engine_for(url).connect() as conn:
        rows = conn.execute(
            text(
                "SELECT key, failures, extract(epoch FROM locked_until - now()) AS left "
                "FROM sign_in_throttle"
            )
        ).all()
    return {r.key: (r.failures, float(r.left or 0)) for r in rows}


def test_twenty_failures_do_not_let_the_21st_through(site):
    _clear_throttle(site)
    client = client_for(site)
    answers = [_sign_in(client, "bert", f"guess {i}").status_code for i in range(20)]
    # the first failures are answered, then the name and the address are locked
    assert answers == [401] * FREE_FAILURES + [429] * (20 - FREE_FAILURES)
    state = _throttle(site)
    assert state["pair:testclient|bert"][0] == FREE_FAILURES
    assert FIRST_LOCK_SECONDS - 30 < state["pair:testclient|bert"][1] <= FIRST_LOCK_SECONDS
    # the right password in the 21st attempt is refused as well: the lock is not lifted
    right = _sign_in(client, "bert")
    assert right.status_code == 429 and "rdb_session" not in right.headers.get("set-cookie", "")
    assert "Zu viele fehlgeschlagene Anmeldungen" in right.text
    # after 20 counted failures (the locks waited out) the lock is the longest one
    with engine_for(site).begin() as conn:
        conn.execute(text("UPDATE sign_in_throttle SET failures = 19, locked_until = NULL"))
    assert _sign_in(client, "bert", "guess 20").status_code == 401
    failures, left = _throttle(site)["pair:testclient|bert"]
    assert failures == 20 and MAX_LOCK_SECONDS - 5 < left <= MAX_LOCK_SECONDS
    assert _sign_in(client, "bert").status_code == 429
    # another address signs in with the same name (only the pair is locked)
    other = TestClient(client.app, client=("10.9.9.9", 4000))
    assert _sign_in(other, "bert").status_code == 303
    _clear_throttle(site)
    assert _sign_in(client, "bert").status_code == 303  # a success clears the count


def test_officer_sees_only_his_prefixes(site):
    _clear_throttle(site)
    with engine_for(site).connect() as conn:
        vkzs = dict(conn.execute(text("SELECT code, vkz FROM tournaments")).all())
    assert {v[0] for v in vkzs.values()} >= {"A", "B"}  # both regions have tournaments
    pages = {}
    for name in ("anna", "bert", "root"):
        client = client_for(site)
        assert _sign_in(client, name).status_code == 303
        pages[name] = client.get("/officer").text
    for code, vkz in vkzs.items():
        assert (code in pages["anna"]) == vkz.startswith("A"), code
        assert (code in pages["bert"]) == vkz.startswith("B"), code
    assert "Benutzer" not in pages["anna"] and "root" in pages["root"]
    assert "ausgewertet" in pages["anna"]  # the recalculated tournaments
