"""The officer's submission pages over HTTP: upload, who is who, what
changes, submit, correct, delete; sessions, CSRF, scope and the one-year window as the API."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from tests.submit_support import CODE, World, csrf_of, sign_in, submit_world
from tests.test_change_report import difference, exported
from tests.web_support import bearer, client_for, document, engine_for, user_token

DATA = Path(__file__).parent / "data" / "trf"


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    with submit_world(pg_server) as w:
        yield w


def _signed_in(world: World, name: str = "anna") -> Any:
    client = client_for(world.url)
    sign_in(client, name)
    return client


def _upload(client: Any, content: bytes, name: str = "web.trf", **fields: str) -> Any:
    csrf = csrf_of(client.get("/officer/upload").text)
    return client.post(
        "/officer/upload",
        data={"csrf": csrf, **fields},
        files={"file": (name, content, "application/octet-stream")},
        follow_redirects=False,
    )


def _draft(client: Any, content: bytes, **fields: str) -> str:
    answer = _upload(client, content, **fields)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"])


def _rows(page: str, table: str) -> list[str]:
    body = re.search(rf'<table id="{table}">(.*?)</table>', page, re.S)
    assert body, page
    return [
        html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip())
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)[1:]
    ]


def _moved(page: str) -> dict[int, tuple[str, str]]:
    """The what-if table: player id -> (next run without, with the change)."""
    out = {}
    for m in re.finditer(
        r'<tr class="moved" data-player="(\d+)">.*?<td class="old">([^<]*)</td>'
        r'<td class="new">([^<]*)</td>',
        page,
        re.S,
    ):
        out[int(m.group(1))] = (m.group(2), m.group(3))
    return out


def _dwz(value: tuple[int | None, int | None]) -> str:
    rating, index = value
    return "–" if rating is None else (str(rating) if index is None else f"{rating}-{index}")


def _count(world: World, sql: str, **params: Any) -> int:
    with engine_for(world.url).connect() as conn:
        return int(conn.execute(text(sql), params).scalar_one())


def test_pages_need_a_session(world):
    client = client_for(world.url)
    for path in ("/officer/upload", "/officer/drafts/abc", f"/officer/tournaments/{CODE}/delete"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 303, path
        assert answer.headers["location"].startswith("/anmelden?next=/officer/"), path
    for path in ("/officer/upload", "/officer/drafts/abc/choices", "/officer/drafts/abc/submit",
                 "/officer/drafts/abc/discard", f"/officer/tournaments/{CODE}/delete"):  # fmt: skip
        answer = client.post(path, data={"csrf": "x"}, follow_redirects=False)
        assert answer.status_code == 401, path
        assert "<html" in answer.text  # a page, not JSON


def test_no_form_is_accepted_without_its_csrf_token(world):
    client = _signed_in(world)
    draft = _draft(client, world.trf)
    drafts_before = _count(world, "SELECT count(*) FROM web_drafts")
    forms = {
        "/officer/upload": {"example": "stadtmeisterschaft-2026.trf"},
        f"{draft}/choices": {f"c{world.ambiguous_rank}": "non"},
        f"{draft}/submit": {},
        f"{draft}/discard": {},
        "/officer/tournaments/NOPE/delete": {"reason": "test"},
    }
    for path, data in forms.items():
        for token in ({}, {"csrf": "forged"}):
            answer = client.post(path, data={**data, **token}, follow_redirects=False)
            assert answer.status_code == 403, (path, token, answer.text)
            assert "Seite neu laden" in answer.text  # the German page's message
    assert _count(world, "SELECT count(*) FROM web_drafts") == drafts_before
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = :c", c=CODE) == 0
    # another officer cannot open anna's draft
    assert _signed_in(world, "bert").get(draft).status_code == 404


def test_a_bad_file_lists_every_problem_and_stores_nothing(world):
    client = _signed_in(world)
    drafts_before = _count(world, "SELECT count(*) FROM web_drafts")
    answer = _upload(client, (DATA / "three-errors.trf").read_bytes(), "three-errors.trf",
                     code="X-1", vkz=world.vkz)  # fmt: skip
    assert answer.status_code == 422
    problems = _rows(answer.text, "problem-list")
    assert len(problems) == 3, problems
    assert all(re.match(r"three-errors\.trf:\d+:\d+ ", p) for p in problems), problems
    # what the API says about the same file, line by line, asked in the page's language
    token = user_token(world.url, "api-root", "admin")
    api = client.post(
        "/api/tournaments/trf", params={"id": "X-1", "vkz": world.vkz, "lang": "de",
                                        "filename": "three-errors.trf"},
        content=(DATA / "three-errors.trf").read_bytes(), headers=bearer(token),
    )  # fmt: skip
    assert api.status_code == 422
    assert problems == [f"{e['location']} {e['message']}" for e in api.json()["errors"]]
    # binary garbage, an empty file, no file, a bad date: 4xx pages, never 500
    for content, fields in ((b"\x00\x01garbage" * 50, {}), (b"", {}), (b"{", {}),
                            (world.trf, {"end": "2026-13-01"})):  # fmt: skip
        answer = _upload(client, content, **fields)
        assert 400 <= answer.status_code < 500, (content[:10], answer.text)
        assert 'id="problems"' in answer.text
    assert _count(world, "SELECT count(*) FROM web_drafts") == drafts_before


def test_out_of_scope_or_window_is_shown_at_once_and_refused_as_the_api(world):
    client = _signed_in(world, "bert")  # VKZ prefix Z: the tournament's VKZ is not his
    page = client.get(_draft(client, world.trf))
    all_non = {f"c{world.ambiguous_rank}": "non", "csrf": csrf_of(page.text)}
    client.post(page.url.path + "/choices", data=all_non)
    page = client.get(page.url.path)  # the problem at the first step, in German
    assert "außerhalb Ihrer Organisationsebenen (Z) (WO 6.3)" in page.text
    token = user_token(world.url, "api-bert", "officer", ["Z"])
    api = client.post("/api/what-if/tournaments/trf", params={"lang": "de"}, content=world.trf,
                      headers=bearer(token))  # fmt: skip
    assert api.status_code == 403
    message = api.json()["error"]  # asked in the page's language: the page says the same
    assert "außerhalb Ihrer Organisationsebenen (Z) (WO 6.3)" in message
    assert 'id="submit"' not in page.text
    answer = client.post(page.url.path + "/submit", data={"csrf": csrf_of(page.text)})
    assert answer.status_code == 403 and message in answer.text
    # anna's own VKZ, but more than a year ago (WO 6.2)
    anna = _signed_in(world)
    old = {"start": "2025-01-10", "end": "2025-01-12"}
    page = anna.get(_draft(anna, world.trf, **old))
    anna.post(page.url.path + "/choices", data=all_non | {"csrf": csrf_of(page.text)})
    page = anna.get(page.url.path)
    token = user_token(world.url, "api-anna", "officer", [world.scope])
    api = anna.post("/api/what-if/tournaments/trf", params=old, content=world.trf,
                    headers=bearer(token))  # fmt: skip
    assert api.status_code == 403 and "more than one year ago" in api.json()["error"]
    assert "vor mehr als einem Jahr" in page.text and 'id="submit"' not in page.text
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = :c", c=CODE) == 0


def test_upload_decide_what_if_submit_evaluated_at_once(world):
    """The whole path over HTTP; submitting runs the recalculation at once, and the what-if
    shown is the difference of the exports before the submission and after that run
    (change-report property, through the page)."""
    client = _signed_in(world)
    draft = _draft(client, world.trf)
    page = client.get(draft)
    assert page.status_code == 200
    # who is who: the file's player is open, with both namesakes as candidates
    assert re.search(rf'<tr class="open" data-key="{world.ambiguous_rank}">', page.text)
    row = re.search(rf'<fieldset class="decide open" id="decide-{world.ambiguous_rank}".*?'
                    r"</fieldset>", page.text, re.S)  # fmt: skip
    assert row, page.text
    assert f'value="p{world.right_player}"' in row.group(0)
    assert f'value="p{world.namesake}"' in row.group(0)
    assert 'id="what-if"' not in page.text and 'id="submit"' not in page.text
    refused = client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)})
    assert refused.status_code == 422 and world.ambiguous_name in refused.text
    # the others were matched by the import, with how
    assert "ZPS" in page.text or "DSB" in page.text
    # decide: he is the right player
    csrf = csrf_of(page.text)
    answer = client.post(f"{draft}/choices", data={"csrf": csrf,
                         f"c{world.ambiguous_rank}": f"p{world.right_player}"},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    page = client.get(draft)
    assert page.status_code == 200 and 'id="submit"' in page.text
    shown = _moved(page.text)
    assert shown and world.right_player in shown
    before = exported(engine_for(world.url))
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = :c", c=CODE) == 0
    answer = client.post(f"{draft}/submit", data={"csrf": csrf}, follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"/officer/done/{CODE}?action=add&run=")
    done = client.get(answer.headers["location"])  # evaluated at once (WO 6.4.3)
    assert 'id="evaluated"' in done.text and '<table id="evaluation">' in done.text
    # the choices are kept with the submission
    with engine_for(world.url).connect() as conn:
        player = conn.execute(
            text("SELECT pa.player_id FROM participants pa JOIN tournaments t ON t.id = "
                 "pa.tournament_id WHERE t.code = :c AND pa.start_rank = :r"),
            {"c": CODE, "r": world.ambiguous_rank},
        ).scalar_one()  # fmt: skip
        kept = conn.execute(
            text("SELECT actor, details FROM audit_log WHERE action = 'who is who' "
                 "AND entity_id = :c"), {"c": CODE},
        ).one()  # fmt: skip
    assert player == world.right_player
    assert kept.actor == "anna"
    chosen = [m for m in kept.details["matches"] if m["start_rank"] == world.ambiguous_rank]
    assert chosen == [{"start_rank": world.ambiguous_rank, "name": world.ambiguous_name,
                       "player_id": world.right_player, "how": "chosen"}]  # fmt: skip
    assert _count(world, "SELECT count(*) FROM web_drafts WHERE id = :i",
                  i=draft.rsplit("/", 1)[1]) == 0  # fmt: skip
    overview = client.get("/officer").text  # no nightly run needed
    assert re.search(rf'href="/tournaments/{CODE}".*?state-evaluated', overview, re.S)
    assert client.get(f"/tournaments/{CODE}").status_code == 200
    expected = difference(before, exported(engine_for(world.url)))
    assert shown == {pid: (_dwz(old), _dwz(new)) for pid, (old, new) in expected.items()}


def test_correct_by_upload_and_delete_with_reason(world):
    client = _signed_in(world)
    if _count(world, "SELECT count(*) FROM tournaments WHERE code = :c", c=CODE) == 0:
        pytest.skip("needs the submission of the test above")
    # a correction: the same file with the first game's result turned round
    lines = world.trf.decode().splitlines()
    page = client.get(f"/officer/upload?correct={CODE}")
    assert page.status_code == 200 and f'name="target" value="{CODE}"' in page.text
    corrected = "\n".join(_flip_first_game(lines)).encode()
    answer = client.post("/officer/upload", data={"csrf": csrf_of(page.text), "target": CODE},
                         files={"file": ("fixed.trf", corrected, "text/plain")},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303, answer.text
    draft = answer.headers["location"]
    page = client.get(draft)
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text),
                f"c{world.ambiguous_rank}": f"p{world.right_player}"})  # fmt: skip
    page = client.get(draft)
    assert page.status_code == 200 and _moved(page.text), page.text
    assert client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                       follow_redirects=False).status_code == 303  # fmt: skip
    with engine_for(world.url).connect() as conn:
        actions = conn.execute(
            text("SELECT action FROM audit_log WHERE entity_id = :c ORDER BY id"), {"c": CODE}
        ).scalars().all()  # fmt: skip
    assert actions[-2:] == ["correct", "who is who"]
    # delete: the what-if first, then a reason
    page = client.get(f"/officer/tournaments/{CODE}/delete")
    assert page.status_code == 200 and _moved(page.text)
    csrf = csrf_of(page.text)
    answer = client.post(f"/officer/tournaments/{CODE}/delete", data={"csrf": csrf, "reason": ""})
    assert answer.status_code == 422
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = :c", c=CODE) == 1
    answer = client.post(f"/officer/tournaments/{CODE}/delete",
                         data={"csrf": csrf, "reason": "double submission"},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    with engine_for(world.url).connect() as conn:
        entry = conn.execute(
            text("SELECT actor, details FROM audit_log WHERE entity_id = :c AND action = "
                 "'delete'"), {"c": CODE},
        ).one()  # fmt: skip
    assert entry.actor == "anna" and entry.details["reason"] == "double submission"
    # bert may not even look at the deletion of a tournament outside his VKZ prefixes
    stored = _count(world, "SELECT count(*) FROM tournaments WHERE vkz = :v", v=world.vkz)
    assert stored > 0
    with engine_for(world.url).connect() as conn:
        other = conn.execute(text("SELECT code FROM tournaments WHERE vkz = :v LIMIT 1"),
                             {"v": world.vkz}).scalar_one()  # fmt: skip
    page = _signed_in(world, "bert").get(f"/officer/tournaments/{other}/delete")
    assert page.status_code == 403 and "(WO 6.3)" in page.text


def _flip_first_game(lines: list[str]) -> list[str]:
    """Turn the result of the first rated game of the file round (both lines)."""
    flip = {"1": "0", "0": "1"}
    players = [k for k, line in enumerate(lines) if line.startswith("001")]
    first = lines[players[0]]
    opponent = int(first[91:95])
    result = first[98]
    assert result in flip, first
    out = list(lines)
    out[players[0]] = first[:98] + flip[result] + first[99:]
    other = next(k for k in players if int(lines[k][4:8]) == opponent)
    out[other] = lines[other][:98] + flip[lines[other][98]] + lines[other][99:]
    return out


def test_correct_by_editing_the_stored_results(world):
    """A correction without a file: the stored submission itself, who is who as stored;
    unchanged it changes nothing, one result turned round moves ratings."""
    client = _signed_in(world)
    with engine_for(world.url).connect() as conn:
        code = conn.execute(
            text("SELECT code FROM tournaments WHERE vkz = :v AND end_date >= :d "
                 "ORDER BY end_date DESC LIMIT 1"), {"v": world.vkz, "d": "2025-12-01"},
        ).scalar_one()  # fmt: skip
    page = client.get(f"/officer/upload?correct={code}")
    assert 'id="edit-stored"' in page.text
    answer = client.post(f"/officer/tournaments/{code}/edit", data={"csrf": csrf_of(page.text)},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    draft = answer.headers["location"]
    page = client.get(draft)
    assert page.status_code == 200, page.text
    assert 'class="open"' not in page.text  # who is who as stored
    assert 'id="unchanged"' in page.text  # the stored submission itself: no change
    games = re.findall(r'<select name="g(\d+)"[^>]*>(.*?)</select>', page.text, re.S)
    assert games
    first = re.search(r"<option selected>([^<]+)</option>", games[0][1])
    assert first
    flipped = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[html.unescape(first.group(1))]
    assert client.post(f"{draft}/results", data={"csrf": csrf_of(page.text), "g0": "9-9"}
                       ).status_code == 422  # fmt: skip
    answer = client.post(f"{draft}/results", data={"csrf": csrf_of(page.text), "g0": flipped},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    page = client.get(draft)
    assert page.status_code == 200 and _moved(page.text)
    assert client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                       follow_redirects=False).status_code == 303  # fmt: skip
    with engine_for(world.url).connect() as conn:
        action = conn.execute(
            text("SELECT action FROM audit_log WHERE entity_id = :c AND action <> 'who is who' "
                 "ORDER BY id DESC LIMIT 1"), {"c": code},
        ).scalar_one()  # fmt: skip
        result = conn.execute(
            text("SELECT g.result FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                 "WHERE t.code = :c ORDER BY g.round, g.id LIMIT 1"), {"c": code},
        ).scalar_one()  # fmt: skip
    assert action == "correct"
    assert result == flipped


def test_a_submission_document_goes_the_same_way(world):
    """A JSON submission (the API's format): who is who comes from the document; an example
    whose VKZ is unknown is refused on the draft page with the document's path."""
    import json

    client = _signed_in(world)
    doc = document(world.url, _latest(world), id="JSON-1", name="JSON-Turnier")
    page = client.get(_draft(client, json.dumps(doc).encode(), name="json-1.json"))
    assert page.status_code == 200, page.text
    assert "(json)" in page.text and 'class="open"' not in page.text
    assert page.text.count('<tr class="document"') == len(doc["players"])
    assert _moved(page.text) or 'id="no-change"' in page.text
    answer = client.post(page.url.path + "/submit", data={"csrf": csrf_of(page.text)},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = 'JSON-1'") == 1
    # the example of examples/: its club C0401 is no organisation of this database
    root = _signed_in(world, "root")
    csrf = csrf_of(root.get("/officer/upload").text)
    answer = root.post("/officer/upload", data={"csrf": csrf, "example": "herbstopen-2026.json"},
                       follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    page = root.get(answer.headers["location"])  # refused at the first step, in German
    assert 'id="step1-problems"' in page.text and "ist unbekannt" in page.text
    assert 'id="submit"' not in page.text


def _latest(world: World) -> str:
    with engine_for(world.url).connect() as conn:
        return str(
            conn.execute(
                text("SELECT code FROM tournaments WHERE vkz = :v AND code LIKE 'S%' "
                     "ORDER BY end_date DESC LIMIT 1"), {"v": world.vkz},
            ).scalar_one()
        )  # fmt: skip


def test_a_new_member_only_in_a_club_of_the_officer(world):
    """Deciding "new member": the club must lie within the officer's VKZ prefixes (WO 6.3,
    the check of submission documents, same message); in his own club the what-if shows the
    new player, and submitting creates him with his membership."""
    client = _signed_in(world)
    # the file without its id lines: the form gives a new id
    lines = [line for line in world.trf.decode().splitlines() if not line.startswith("###")]
    draft = _draft(client, "\n".join(lines).encode(), code="WEB-NEW", vkz=world.vkz)
    page = client.get(draft)
    key = f"c{world.ambiguous_rank}"
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text), key: "new",
                f"club{world.ambiguous_rank}": "Z9999"})  # fmt: skip
    page = client.get(draft)
    assert page.status_code == 403
    assert "Mitglied des Vereins Z9999 liegt außerhalb Ihrer" in page.text
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text), key: "new",
                f"club{world.ambiguous_rank}": world.vkz})  # fmt: skip
    page = client.get(draft)
    assert page.status_code == 200 and 'id="submit"' in page.text
    players = _count(world, "SELECT count(*) FROM players")
    answer = client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    assert _count(world, "SELECT count(*) FROM players") == players + 1
    with engine_for(world.url).connect() as conn:
        new = conn.execute(
            text("SELECT p.surname, p.given_name, p.birth_year, o.vkz, m.valid_from, t.start_date "
                 "FROM participants pa JOIN tournaments t ON t.id = pa.tournament_id "
                 "JOIN players p ON p.id = pa.player_id JOIN memberships m ON m.player_id = p.id "
                 "JOIN organisations o ON o.id = m.organisation_id "
                 "WHERE t.code = 'WEB-NEW' AND pa.start_rank = :r"), {"r": world.ambiguous_rank},
        ).one()  # fmt: skip
        how = conn.execute(
            text("SELECT details FROM audit_log WHERE action = 'who is who' "
                 "AND entity_id = 'WEB-NEW'")
        ).scalar_one()  # fmt: skip
    assert f"{new.surname}, {new.given_name}" == world.ambiguous_name
    assert new.vkz == world.vkz and new.valid_from == new.start_date
    chosen = next(m for m in how["matches"] if m["start_rank"] == world.ambiguous_rank)
    assert chosen["how"] == "new member" and chosen["player_id"] is not None


def test_what_if_and_submit_in_the_officer_worker(world):
    """Under ``ratingdb serve`` the officer's what-ifs and writes run in the worker process
    (ratingdb/web/offload.py), the API's and the pages' alike: the plan, the answer and a
    refusal travel there and back."""
    from fastapi.testclient import TestClient

    from ratingdb.web.app import create_app
    from tests.web_support import TODAY

    app = create_app(engine_for(world.url), today=lambda: TODAY, offload=1)
    with TestClient(app) as client:
        assert app.state.offload is not None
        sign_in(client, "anna")
        lines = [line for line in world.trf.decode().splitlines() if not line.startswith("###")]
        draft = _draft(client, "\n".join(lines).encode(), code="WEB-OFF", vkz=world.vkz)
        page = client.get(draft)
        client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text),
                    f"c{world.ambiguous_rank}": f"p{world.right_player}"})  # fmt: skip
        page = client.get(draft)
        assert page.status_code == 200 and _moved(page.text), page.text
        answer = client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                             follow_redirects=False)  # fmt: skip
        assert answer.status_code == 303
        assert _count(world, "SELECT count(*) FROM tournaments WHERE code = 'WEB-OFF'") == 1
        # a refusal inside the plan comes back from the worker as the same page
        draft = _draft(client, "\n".join(lines).encode(), code="WEB-OFF2", vkz=world.vkz)
        page = client.get(draft)
        rank = world.ambiguous_rank
        client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text), f"c{rank}": "new",
                                              f"club{rank}": "Z9999"})  # fmt: skip
        page = client.get(draft)
        assert page.status_code == 403
        assert "Mitglied des Vereins Z9999 liegt außerhalb Ihrer" in page.text
        # the worker answers in the request's language: the API's English, not the default
        import json

        from tests.test_size_bounds import document

        token = user_token(world.url, "worker-officer", "officer", [world.vkz])
        answer = client.post("/api/what-if/tournaments", content=json.dumps(document(6000)),
                             headers=bearer(token))  # fmt: skip
        assert answer.status_code == 422, answer.text
        assert answer.json()["errors"][0]["message"].startswith(
            "6000 players, above the bound of 5000 players per tournament"
        )
