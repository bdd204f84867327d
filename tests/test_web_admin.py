"""Users and tokens on the command line, and anonymisation (WO 4.1.1): a former member's
personal data are replaced in every evaluation, and no number changes."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from sqlalchemy import text

from ratingdb.db.recalc import run_recalc
from tests.cli import Completed
from tests.cli import run as run_in
from tests.web_support import TODAY, bearer, client_for, engine_for, ok


def run(args: list[str], url: Any, input: str | bytes | None = None) -> Completed:
    """``ratingdb ARGS`` in the default language (German: the words these tests read;
    ``--lang en`` where a test reads English)."""
    return run_in(args, url, input, lang=None)


def test_user_commands(loaded):
    out = run_in(["user", "add", "anna", "--role", "officer"], loaded)  # English
    assert out.returncode == 2 and out.stderr.startswith("error: scope: an officer needs")
    assert "Traceback" not in out.stderr and out.stdout == ""
    ok(["user", "add", "anna", "--role", "officer", "--scope", "C0", "--scope", "B"], loaded)
    ok(["user", "add", "root", "--role", "admin", "--full-name", "Rating Admin"], loaded)
    token = ok(["user", "token", "anna", "--label", "laptop"], loaded).strip()
    assert token.startswith("rdb_") and len(token) > 40
    with engine_for(loaded).connect() as conn:
        stored = conn.execute(text("SELECT token_hash, prefix FROM api_tokens")).one()
    assert token not in stored.token_hash and token.startswith(stored.prefix)  # only a hash
    client = client_for(loaded)
    me = client.get("/api/me", headers=bearer(token)).json()
    assert me == {"name": "anna", "full_name": "", "role": "officer", "scopes": ["B", "C0"]}
    listing = json.loads(ok(["user", "list", "--json"], loaded))
    assert [(u["name"], u["active_tokens"]) for u in listing] == [("anna", 1), ("root", 0)]
    assert listing[0]["last_used_at"] is not None
    assert "1 Token von anna widerrufen" in ok(["user", "revoke", "anna"], loaded, lang=None)
    assert client.get("/api/me", headers=bearer(token)).status_code == 401
    nobody = run(["user", "token", "nobody"], loaded)
    assert nobody.stderr == "Fehler: user: kein Benutzer 'nobody'\n"
    log = client.get(
        "/api/admin/audit",
        params={"entity_id": "anna"},
        headers=bearer(ok(["user", "token", "root"], loaded).strip()),
    ).json()
    assert [e["action"] for e in log["items"]] == ["revoke", "token", "add"]  # fmt: skip


def _evaluations(url) -> list[dict]:
    rows = csv.DictReader(io.StringIO(ok(["export", "evaluations"], url)))
    return [{k: v for k, v in r.items() if k != "name"} | {"name": r["name"]} for r in rows]


def test_anonymise_keeps_every_number(loaded):
    ok(["recalc", "--quiet"], loaded)
    with engine_for(loaded).connect() as conn:
        former = conn.execute(
            text(
                "SELECT s.player_id, p.surname || ', ' || p.given_name FROM rating_snapshots s "
                "JOIN players p ON p.id = s.player_id WHERE s.stored AND NOT EXISTS "
                "(SELECT 1 FROM memberships m WHERE m.player_id = s.player_id AND "
                "(m.valid_to IS NULL OR m.valid_to >= :d)) "
                "GROUP BY s.player_id, p.surname, p.given_name ORDER BY count(*) DESC LIMIT 1"
            ),
            {"d": TODAY},
        ).one()
        member = conn.execute(
            text("SELECT player_id FROM memberships WHERE valid_to IS NULL LIMIT 1")
        ).scalar_one()
    pid, name = former
    before = _evaluations(loaded)
    ok(["user", "add", "root", "--role", "admin"], loaded)
    ok(["user", "add", "offi", "--role", "officer", "--scope", "A"], loaded)
    admin = bearer(ok(["user", "token", "root"], loaded).strip())
    officer = bearer(ok(["user", "token", "offi"], loaded).strip())
    client = client_for(loaded)
    path = f"/api/admin/players/{pid}/anonymise"
    assert client.post(path, headers=officer).status_code == 403
    assert client.post(f"/api/admin/players/{member}/anonymise", headers=admin).status_code == 422
    unknown = client.post("/api/admin/players/0/anonymise", headers=admin)  # as the card's 404
    assert unknown.status_code == 404 and "no player with id 0" in unknown.text
    done = client.post(path, headers=admin)
    assert done.status_code == 200, done.text
    assert done.json()["evaluations"] >= 1
    after = _evaluations(loaded)
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        if old["name"] == name and old["player_id"] == str(pid):
            assert new["name"] == "Anonymisiert, "
        else:
            assert new["name"] == old["name"]
        assert {k: v for k, v in old.items() if k != "name"} == {
            k: v for k, v in new.items() if k != "name"
        }
    card = client.get(f"/api/players/{pid}", headers=admin).json()
    assert card["player"]["name"] == "Anonymisiert" and card["player"]["anonymised"]
    assert card["player"]["dsb_id"] is None and card["player"]["fide_id"] is None
    with engine_for(loaded).connect() as conn:
        numbers = (
            conn.execute(
                text("SELECT member_number FROM memberships WHERE player_id = :p"), {"p": pid}
            )
            .scalars()
            .all()
        )
        person = conn.execute(
            text("SELECT sex, birth_date, birth_year FROM players WHERE id = :p"), {"p": pid}
        ).one()
    assert numbers and set(numbers) == {None}
    assert person.sex is None and person.birth_date is None
    assert person.birth_year is not None  # kept for the age class of later replays
    # a full replay from the stored data changes no rating
    report = run_recalc(engine_for(loaded), full=True, dry_run=True)
    assert report.ratings_changed == []
    # twice is an error; the CLI says so in one line
    again = run(["player", "anonymise", str(pid)], loaded)
    assert again.returncode == 2 and "bereits anonymisiert" in again.stderr
    log = client.get("/api/admin/audit", params={"entity_id": str(pid)}, headers=admin).json()
    assert [(e["action"], e["actor"]) for e in log["items"]] == [("anonymise", "root")]
    assert name.split(",")[0] not in json.dumps(log)  # the log keeps no name
