"""Security of the officer's and the admin's area: every
route of the area, found in ``app.routes`` (a path under ``/officer`` or ``/admin``, or any
page that reads the session: the pages of every later piece are covered as soon as they
exist), answers a visitor without a session with a redirect to sign in (or 401/403), never
200 or 500; every form's POST without its CSRF token is refused with 403 and writes nothing;
the session cookie is HttpOnly and SameSite; passwords are stored only as argon2id hashes;
20 wrong passwords in a row do not let the 21st try through, nor sooner."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from fastapi.routing import APIRoute
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.services.sign_in import FIRST_LOCK_SECONDS, FREE_FAILURES, MAX_LOCK_SECONDS
from ratingdb.services.users import add_user
from ratingdb.web.app import create_app
from ratingdb.web.deps import SignedInDep
from ratingdb.web.deps import signed_in as session_dependency
from ratingdb.web.guard import SIGN_IN
from tests.cli import run
from tests.web_support import TODAY, client_for, database, engine_for, ok

PASSWORD = "correct horse battery"
#: the officer's and the admin's area by path; pages elsewhere join it by reading the session
AREA = ("/officer", "/admin")


def _reads_session(dependant: Any) -> bool:
    return any(d.call is session_dependency or _reads_session(d) for d in dependant.dependencies)


def area_routes() -> list[tuple[str, str]]:
    """(method, path) of every route of the signed-in area (not the JSON API, which has its
    own tests with tokens), the sign-in form itself excepted."""
    out = []
    for path, route in _routes(create_app(engine=None)):  # type: ignore[arg-type]
        if not isinstance(route, APIRoute) or path.startswith("/api/"):
            continue
        if path.startswith(AREA) or path == SIGN_IN or _reads_session(route.dependant):
            out += [(m, path) for m in sorted(route.methods) if m != "HEAD"]
    return [(m, p) for m, p in out if (m, p) != ("GET", SIGN_IN)]


def _routes(app: Any) -> list[tuple[str, Any]]:
    """(full path, route) of every route of ``app``; FastAPI from 0.165 keeps included
    routers unflattened in ``app.routes``."""
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # an older FastAPI: app.routes is flat
        return [(r.path, r) for r in app.routes if hasattr(r, "path")]
    return [(c.path, c.route) for c in iter_route_contexts(app.routes) if c.path]


def _concrete(path: str) -> str:
    """A path with each parameter filled in (``{run_id}`` → ``1``)."""
    return re.sub(r"\{[^}]+\}", "1", path)


def test_the_area_is_found():
    """The enumeration finds today's pages (so it will find the later ones the same way)."""
    found = set(area_routes())
    assert {("GET", "/officer"), ("POST", "/abmelden"), ("POST", SIGN_IN), ("GET", "/admin/users"),
            ("POST", "/admin/users"), ("POST", "/admin/users/{name}/password"),
            ("GET", "/admin/audit"), ("GET", "/officer/runs/{run_id}")} <= found  # fmt: skip
    assert not any(p.startswith(("/players", "/tournaments", "/lists")) for _, p in found)


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[URL]:
    with database(pg_server, "web_security") as url:
        ok(["synth", "--players", "40", "--years", "1", "--seed", "7"], url)
        ok(["recalc", "--quiet"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"])
            add_user(session, "root", "admin")
        for name in ("anna", "root"):
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


def _try_sign_in(client, name: str, password: str):  # type: ignore[no-untyped-def]
    csrf = _csrf(client.get(SIGN_IN).text)
    data = {"name": name, "password": password, "csrf": csrf}
    return client.post(SIGN_IN, data=data, follow_redirects=False)


def _signed_in(url: URL, name: str):  # type: ignore[no-untyped-def]
    _clear_throttle(url)
    client = client_for(url)
    assert _try_sign_in(client, name, PASSWORD).status_code == 303
    return client


def _writes(url: URL) -> tuple[int, ...]:
    """What a refused request must not have changed."""
    with engine_for(url).connect() as conn:
        return tuple(
            conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("audit_log", "users", "api_tokens", "tournaments", "web_sessions")
        )


@pytest.mark.parametrize(("method", "path"), area_routes())
def test_no_page_of_the_area_answers_without_a_session(site, method, path):
    client = client_for(site)
    answer = client.request(method, _concrete(path), follow_redirects=False)
    assert answer.status_code in (303, 401, 403), (answer.status_code, answer.text[:300])
    if answer.status_code == 303:
        target = answer.headers["location"]
        # signing out without a session has nothing to end: it goes home
        expected = "/" if path == "/abmelden" else f"{SIGN_IN}?next="
        assert target == expected if path == "/abmelden" else target.startswith(expected)
    assert not re.search(r"rdb_session=[^\";]", answer.headers.get("set-cookie", ""))  # none opened


@pytest.mark.parametrize(("method", "path"), [r for r in area_routes() if r[0] == "POST"])
def test_no_form_is_accepted_without_its_csrf_token(site, method, path):
    """Signed in as an admin (who may do everything): a POST without the token, or with
    another one, is 403 and changes nothing; the session stays."""
    client = _signed_in(site, "root")
    before = _writes(site)
    form = {"name": "x" * 12, "password": PASSWORD, "role": "admin", "scopes": "A",
            "mode": "generate", "reason": "test"}  # fmt: skip
    for token in (None, "forged-" + "x" * 36):
        data = form if token is None else form | {"csrf": token}
        answer = client.request(method, _concrete(path), data=data, follow_redirects=False)
        assert answer.status_code == 403, (token, answer.status_code, answer.text[:300])
    assert _writes(site) == before
    assert client.get("/officer", follow_redirects=False).status_code == 200


@pytest.mark.parametrize(("method", "path"), [r for r in area_routes() if r[0] == "GET"])
def test_every_page_of_the_area_renders_for_an_admin(site, method, path):
    """Signed in, no page of the area fails (404 for a thing that does not exist is fine)."""
    answer = _signed_in(site, "root").get(_concrete(path), follow_redirects=False)
    assert answer.status_code in (200, 303, 404), (answer.status_code, answer.text[:300])
    assert answer.status_code != 200 or answer.headers["cache-control"] == "no-store"


def test_session_cookie_is_httponly_and_samesite(site):
    _clear_throttle(site)
    answer = _try_sign_in(client_for(site), "anna", PASSWORD)
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("rdb_session="))
    attributes = {a.strip().split("=")[0].lower(): a for a in cookie.split(";")[1:]}
    assert "httponly" in attributes and attributes["samesite"].strip().lower() == "samesite=lax"
    assert attributes["path"].strip() == "Path=/"


def test_passwords_are_stored_only_as_argon2id(site):
    """Every way a password is set (the command line, an admin's form, a generated one)
    stores an argon2id hash and nothing else."""
    root = _signed_in(site, "root")
    csrf = _csrf(root.get("/admin/users").text)
    page = root.post("/admin/users", data={"csrf": csrf, "name": "gena", "role": "officer",
                                            "scopes": "A", "password": "generate"})  # fmt: skip
    generated = re.search(r'<code class="secret">([^<]+)</code>', page.text).group(1)  # type: ignore[union-attr]
    typed = "typed on the admin page"
    root.post("/admin/users/gena/password",
              data={"csrf": csrf, "mode": "set", "password": typed, "repeated": typed})  # fmt: skip
    ok(["user", "add", "hans", "--role", "officer", "--scope", "B"], site)
    out = run(["user", "password", "hans", "--password-stdin"], site, input=typed + "\n")
    assert out.returncode == 0, out.stderr
    with engine_for(site).connect() as conn:
        stored = dict(conn.execute(text("SELECT name, password_hash FROM users")).all())
    assert set(stored) == {"anna", "root", "gena", "hans"}
    for name, hashed in stored.items():
        assert hashed.startswith("$argon2id$v=19$m="), name
        assert not any(p in hashed for p in (PASSWORD, generated, typed)), name
    # salted: the same password twice gives two hashes
    assert stored["gena"] != stored["hans"]


def _lock_length(url: URL, name: str) -> float:
    """The lock the last failure of ``name`` set, in seconds (0: none)."""
    with engine_for(url).connect() as conn:
        length = conn.execute(
            text(
                "SELECT extract(epoch FROM locked_until - updated_at) FROM sign_in_throttle "
                "WHERE key = :k"
            ),
            {"k": f"pair:testclient|{name}"},
        ).scalar_one_or_none()
    return float(length or 0)


def test_twenty_wrong_passwords_do_not_let_the_21st_through_sooner(site):
    """20 wrong passwords, each one checked (the locks waited out in between): after each
    failure the wait before the next try is at least as long as after the one before (0 for
    the first four, then 30 s doubling to 15 min); the right password as the 21st try is
    refused unchecked, and its answer names a wait no shorter than the 20th left."""
    _clear_throttle(site)
    client = client_for(site)
    waits = []
    for k in range(20):
        answer = _try_sign_in(client, "anna", f"wrong guess {k}")
        assert answer.status_code == 401, k
        waits.append(_lock_length(site, "anna"))
        with engine_for(site).begin() as conn:  # wait the locks out, keep the counts
            conn.execute(text("UPDATE sign_in_throttle SET locked_until = NULL"))
    locks = [
        min(FIRST_LOCK_SECONDS * 2**k, MAX_LOCK_SECONDS) for k in range(20 - FREE_FAILURES + 1)
    ]
    assert waits == [0] * (FREE_FAILURES - 1) + locks
    assert all(later >= earlier for earlier, later in pairwise(waits))
    # the 20th failure's lock in force: the right password is refused, unchecked
    with engine_for(site).begin() as conn:
        conn.execute(
            text(
                "UPDATE sign_in_throttle SET locked_until = now() + make_interval(secs => :s) "
                "WHERE key = 'pair:testclient|anna'"
            ),
            {"s": waits[-1]},
        )
    right = _try_sign_in(client, "anna", PASSWORD)
    assert right.status_code == 429 and "rdb_session" not in right.headers.get("set-cookie", "")
    told = int(re.search(r"in (\d+) Sekunden", right.text).group(1))  # type: ignore[union-attr]
    assert told >= waits[-1] - 2
    # the pair of address and name is locked, not only the address
    with engine_for(site).begin() as conn:
        conn.execute(text("DELETE FROM sign_in_throttle WHERE key LIKE 'addr:%'"))
    assert _try_sign_in(client, "anna", PASSWORD).status_code == 429
    _clear_throttle(site)
    assert _try_sign_in(client, "anna", PASSWORD).status_code == 303


def test_enumeration_covers_routes_added_later(site):
    """A page added under /officer (or reading the session anywhere) joins the checks: a
    route registered on a fresh app shows up in the enumeration's way of looking."""
    from fastapi import APIRouter

    app = create_app(engine_for(site), today=lambda: TODAY)
    router = APIRouter()

    @router.get("/somewhere/new")
    def new_page(user: SignedInDep) -> str:
        return "x"

    app.include_router(router)
    route = next(r for path, r in _routes(app) if path == "/somewhere/new")
    assert _reads_session(route.dependant)
