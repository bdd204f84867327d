"""The officer's overview, the runs and the admin pages: users (create,
scope, password, tokens) and the audit log, by the same functions as the command line;
officers are refused the admin pages, anonymous visitors are sent to sign in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

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
    added = ok(["user", "add", "carl", "--role", "officer", "--scope", "A"], site, lang=None)
    assert added == "Referent carl für A angelegt; ein Token gibt `ratingdb user token carl`\n"
    out = run(["user", "scope", "carl", "--scope", "B", "--scope", "A1", "--scope", "B"], site)
    assert (out.returncode, out.stdout) == (0, "carl ist jetzt zuständig für A1, B\n"), out.stderr
    bad = run(["user", "scope", "carl", "--scope", "A 1"], site)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == (
        "Fehler: scope: ein VKZ-Präfix hat 1 bis 10 Buchstaben oder Ziffern: 'A 1'\n"
    )
    bad = run(["user", "scope", "root", "--scope", "A"], site)
    assert bad.stderr == (
        "Fehler: scope: ein Administrator handelt für jede VKZ: keine Präfixe angeben\n"
    )
    assert run(["user", "scope", "nobody", "--scope", "A"], site).stderr == (
        "Fehler: user: kein Benutzer 'nobody'\n"
    )
    generated = ok(["user", "password", "carl", "--generate"], site).strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", generated)
    signed_in(site, "carl", generated)  # the printed password signs in
    assert _audit(site, "carl") == [
        ("cli", "add", {"role": "officer", "scopes": ["A"]}),
        ("cli", "scope", {"scopes": ["A1", "B"], "before": ["A"]}),
        ("cli", "password", {"generated": True}),
    ]


def _rows(page: str, table: str) -> list[list[str]]:
    """The cells (tags stripped) of each body row of table ``#table``, without the details
    line that repeats a row's other cells on a phone (``<span class="sub">``, last in its
    cell)."""
    body = page.split(f'<table id="{table}">', 1)[1].split("</table>", 1)[0]
    body = re.sub(r'<span class="sub">.*?(?=</td>)', "", body.split("<tbody>", 1)[1], flags=re.S)
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


@pytest.fixture(scope="module")
def late(site, tmp_path_factory) -> str:
    """A tournament of region A submitted on the command line, not yet evaluated."""
    import json

    from tests.web_support import document

    with engine_for(site).connect() as conn:
        code = conn.execute(
            text(
                "SELECT code FROM tournaments WHERE vkz LIKE 'A%' AND status = 'evaluated' "
                "ORDER BY end_date DESC, id DESC LIMIT 1"
            )
        ).scalar_one()
    doc = document(site, code, id="LATE-A", name="Spätes Turnier A")
    path = tmp_path_factory.mktemp("late") / "late.json"
    path.write_text(json.dumps(doc, default=str))
    ok(["tournament", "add", str(path)], site)
    return "LATE-A"


def test_overview_pending_failed_evaluated(site, late):
    """The officer's tournaments by state: pending after submitting, failed with the run's
    reason and a link to the run, evaluated after the next run (with the run's changes)."""
    anna = signed_in(site, "anna")
    page = anna.get("/officer?state=pending")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    rows = _rows(page.text, "tournaments")
    assert [r[0] for r in rows] == ["Spätes Turnier A LATE-A"] and rows[0][3] == "offen"
    assert "offen (1)" in page.text
    # a run that failed at this tournament: the reason and the run on the overview
    with engine_for(site).begin() as conn:
        failed = conn.execute(
            text(
                "INSERT INTO recalc_runs (finished_at, status, message, failed_tournament) "
                "VALUES (now(), 'failed', 'the rules refused a game', 'LATE-A') RETURNING id"
            )
        ).scalar_one()
    page = anna.get("/officer?state=failed")
    rows = _rows(page.text, "tournaments")
    assert len(rows) == 1
    assert rows[0][3] == f"fehlgeschlagen (Lauf {failed})the rules refused a game"
    assert f'href="/officer/runs/{failed}"' in page.text
    assert "Keine Turniere in diesem Zustand." in anna.get("/officer?state=pending").text
    run_page = anna.get(f"/officer/runs/{failed}")
    assert "LATE-A: the rules refused a game" in run_page.text
    assert "bleiben für den nächsten Lauf offen" in run_page.text
    # the next run evaluates it
    ok(["recalc", "--quiet"], site)
    page = anna.get("/officer")
    rows = {r[0]: r for r in _rows(page.text, "tournaments")}
    assert rows["Spätes Turnier A LATE-A"][3] == "ausgewertet"
    runs = _rows(page.text, "runs")
    assert runs[0][0] == str(failed + 1) and runs[0][2] == "erfolgreich"
    # bert (region B) does not see it among his tournaments (the runs are everybody's)
    bert = _rows(signed_in(site, "bert").get("/officer").text, "tournaments")
    assert bert and not any("LATE-A" in r[0] for r in bert)


def test_run_page_lists_every_change_as_the_command_line(site, late):
    """``/officer/runs/N`` lists exactly the players of ``ratingdb runs --changes N``, old
    and new DWZ, published ones linked to their Karteikarte."""
    import json

    with engine_for(site).connect() as conn:
        run_id = conn.execute(
            text("SELECT max(id) FROM recalc_runs WHERE status = 'succeeded'")
        ).scalar_one()
    expected = json.loads(ok(["runs", "--changes", str(run_id), "--json"], site))
    assert expected, "the run changed players"
    page = signed_in(site, "bert").get(f"/officer/runs/{run_id}")
    assert page.status_code == 200
    rows = _rows(page.text, "changes")

    def dwz(rating, index):  # type: ignore[no-untyped-def]
        return "–" if rating is None else f"{rating}-{index}" if index is not None else str(rating)

    assert [(int(r[0]), r[2], r[3]) for r in rows] == [
        (c["player_id"], dwz(c["rating_before"], c["index_before"]),
         dwz(c["rating_after"], c["index_after"]))
        for c in expected
    ]  # fmt: skip
    for c, row in zip(expected, rows, strict=True):
        assert row[4] == (f"{c['delta']:+d}" if c["delta"] else "0" if c["delta"] == 0 else "")
        assert row[1].startswith(c["name"])
    linked = set(map(int, re.findall(r'href="/players/(\d+)"', page.text)))
    assert linked and linked <= {c["player_id"] for c in expected}
    assert signed_in(site, "anna").get("/officer/runs/999999").status_code == 404
    listing = signed_in(site, "anna").get("/officer/runs")
    assert _rows(listing.text, "runs")[0][0] == str(run_id)


def test_admin_adds_a_user_with_a_generated_password(site):
    root = signed_in(site, "root")
    page = root.get("/admin/users")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert [r[0] for r in _rows(page.text, "users")][:3] == ["anna", "bert", "carl"]
    csrf = _csrf(page.text)
    form = {"csrf": csrf, "name": "dora", "full_name": "Dora D", "role": "officer",
            "scopes": "C03, C1;C1", "password": "generate"}  # fmt: skip
    answer = root.post("/admin/users", data=form)
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    assert "Der Benutzer wurde angelegt." in answer.text
    generated = re.search(r'<code class="secret">([^<]+)</code>', answer.text).group(1)  # type: ignore[union-attr]
    assert re.search(r'id="scopes">C03, C1<', answer.text)
    assert _audit(site, "dora") == [
        ("root", "add", {"role": "officer", "scopes": ["C03", "C1"]}),
        ("root", "password", {"generated": True}),
    ]
    dora = signed_in(site, "dora", generated)
    assert "Wertungsreferent für VKZ C03, C1" in dora.get("/officer").text
    # the password is shown once: the user's page does not show it again
    assert generated not in root.get("/admin/users/dora").text
    # a name taken, a bad prefix, an admin with prefixes: 422 with the message, nothing written
    for changes, message in (
        ({}, "name: einen Benutzer &#39;dora&#39; gibt es bereits"),
        (
            {"name": "emil", "scopes": "C0 3!"},
            "ein VKZ-Präfix hat 1 bis 10 Buchstaben oder Ziffern: &#39;3!&#39;",
        ),
        ({"name": "emil", "role": "admin"}, "ein Administrator handelt für jede VKZ"),
        ({"name": "emil", "scopes": ""}, "mindestens ein VKZ-Präfix (WO 6.3)"),
        ({"name": "emil", "role": "boss", "scopes": ""}, "erwartet: eine von officer, admin"),
        ({"name": "emil", "full_name": "x" * 201}, "höchstens 200 Zeichen"),
    ):
        answer = root.post("/admin/users", data=form | changes)
        assert answer.status_code == 422 and message in answer.text, (changes, answer.text)
    assert _audit(site, "emil") == []
    # an admin without a generated password: to the user's page
    answer = root.post("/admin/users", data={"csrf": csrf, "name": "emil", "role": "admin"},
                       follow_redirects=False)  # fmt: skip
    assert (
        answer.status_code == 303 and answer.headers["location"] == "/admin/users/emil?done=added"
    )
    page = root.get("/admin/users/emil?done=added").text
    assert "keines: kann sich auf den Seiten nicht anmelden" in page


def test_admin_changes_scope_password_and_tokens(site):
    from ratingdb.services.users import issue_token
    from tests.web_support import bearer

    with Session(engine_for(site)) as session, session.begin():
        laptop = issue_token(session, "bert", label="laptop")
        script = issue_token(session, "bert", label="script")
    root = signed_in(site, "root")
    bert = signed_in(site, "bert")
    page = root.get("/admin/users/bert")
    csrf = _csrf(page.text)
    tokens = _rows(page.text, "tokens")
    assert [(r[0], r[1]) for r in tokens] == [
        (script[:12] + "…", "script"),
        (laptop[:12] + "…", "laptop"),
    ]
    # scope
    answer = root.post("/admin/users/bert/scopes", data={"csrf": csrf, "scopes": "B0 C"},
                       follow_redirects=False)  # fmt: skip
    assert answer.headers["location"] == "/admin/users/bert?done=scopes"
    assert "Die VKZ-Präfixe wurden geändert." in root.get(answer.headers["location"]).text
    assert "Wertungsreferent für VKZ B0, C" in bert.get("/officer").text  # at once
    bad = root.post("/admin/users/bert/scopes", data={"csrf": csrf, "scopes": ""})
    assert bad.status_code == 422 and "braucht mindestens ein VKZ-Präfix" in bad.text
    # one token revoked by its prefix, then all
    client = client_for(site)
    answer = root.post("/admin/users/bert/revoke", data={"csrf": csrf, "token": laptop[:12]},
                       follow_redirects=False)  # fmt: skip
    assert answer.headers["location"] == "/admin/users/bert?done=revoked&revoked=1"
    assert "1 Token wurde widerrufen." in root.get(answer.headers["location"]).text
    assert client.get("/api/me", headers=bearer(laptop)).status_code == 401
    assert client.get("/api/me", headers=bearer(script)).status_code == 200
    root.post("/admin/users/bert/revoke", data={"csrf": csrf})
    assert client.get("/api/me", headers=bearer(script)).status_code == 401
    states = [r[4] for r in _rows(root.get("/admin/users/bert").text, "tokens")]
    assert all(s.startswith("widerrufen am ") for s in states)
    # a password typed twice; a mismatch and a short one are refused
    new = "a new password for bert"
    form = {"csrf": csrf, "mode": "set", "password": new, "repeated": new + "x"}
    bad = root.post("/admin/users/bert/password", data=form)
    assert bad.status_code == 422 and "die beiden Passwörter unterscheiden sich" in bad.text
    form = {"csrf": csrf, "mode": "set", "password": "short", "repeated": "short"}
    bad = root.post("/admin/users/bert/password", data=form)
    assert bad.status_code == 422 and "ein Passwort hat 10 bis 1000 Zeichen" in bad.text
    assert bert.get("/officer", follow_redirects=False).status_code == 200  # still signed in
    answer = root.post("/admin/users/bert/password",
                       data={"csrf": csrf, "mode": "set", "password": new, "repeated": new},
                       follow_redirects=False)  # fmt: skip
    assert answer.headers["location"] == "/admin/users/bert?done=password"
    assert bert.get("/officer", follow_redirects=False).status_code == 303  # his session ended
    signed_in(site, "bert", new)
    assert [a for a in _audit(site, "bert") if a[0] == "root"] == [
        ("root", "scope", {"scopes": ["B0", "C"], "before": ["B"]}),
        ("root", "revoke", {"prefix": laptop[:12], "tokens": 1}),
        ("root", "revoke", {"prefix": None, "tokens": 1}),
        ("root", "password", {}),
    ]
    # an unknown user
    assert root.get("/admin/users/nobody").status_code == 404
    assert root.post("/admin/users/nobody/revoke", data={"csrf": csrf}).status_code == 404


def test_audit_log_paged_and_filtered(site):
    root = signed_in(site, "root")
    with engine_for(site).begin() as conn:
        conn.execute(
            text(
                "INSERT INTO audit_log (actor, action, entity, entity_id, change_point) "
                "SELECT 'paging', 'add', 'tournament', 'T' || k, DATE '2026-01-01' + k "
                "FROM generate_series(1, 120) AS k"
            )
        )
    page = root.get("/admin/audit?actor=paging")
    assert page.status_code == 200 and "120 Einträge" in page.text
    rows = _rows(page.text, "audit")
    assert len(rows) == 50 and {r[1] for r in rows} == {"paging"}
    assert "1–50 von 120" in page.text and 'href="?actor=paging&amp;offset=50"' in page.text
    last = _rows(root.get("/admin/audit?actor=paging&offset=100").text, "audit")
    assert len(last) == 20 and last[-1][3] == "tournament T1" and last[-1][4] == "02.01.2026"
    one = _rows(root.get("/admin/audit?entity_id=T7").text, "audit")
    assert [(r[1], r[2], r[3]) for r in one] == [("paging", "add", "tournament T7")]
    mine = _rows(root.get("/admin/audit?actor=root&entity_id=bert").text, "audit")
    assert mine and all(r[1] == "root" and r[3] == "user bert" for r in mine)
    assert "Keine Einträge." in root.get("/admin/audit?actor=nobody").text


def test_admin_pages_refused_to_officers_and_visitors(site):
    """An officer gets the 403 page on every admin page and form (with his valid CSRF
    token); a visitor without a session is sent to sign in, back to the page afterwards."""
    anna = signed_in(site, "anna")
    csrf = _csrf(anna.get("/officer").text)
    visitor = client_for(site)
    for path in ("/admin/users", "/admin/users/anna", "/admin/audit?actor=root"):
        refused = anna.get(path)
        assert refused.status_code == 403 and "nur für Administratoren" in refused.text, path
        answer = visitor.get(path, follow_redirects=False)
        assert answer.status_code == 303, path
        assert answer.headers["location"] == "/anmelden?next=" + path.replace("?", "%3F").replace(
            "=", "%3D"
        )
    for path in ("/admin/users", "/admin/users/anna/scopes", "/admin/users/anna/password",
                 "/admin/users/bert/revoke"):  # fmt: skip
        data = {"csrf": csrf, "name": "evil", "role": "admin", "scopes": "A B", "mode": "generate"}
        assert anna.post(path, data=data).status_code == 403, path
    assert _audit(site, "evil") == [] and [a for a in _audit(site, "anna") if a[0] == "anna"] == []
    # the visitor lands on the sign-in page and comes back after signing in
    page = visitor.get("/admin/audit?actor=root")
    assert "Anmelden" in page.text and 'name="next" value="/admin/audit?actor=root"' in page.text
