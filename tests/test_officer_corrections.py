"""A correction changes exactly what the officer changed: the editor starts from the stored
submission with every field, an unchanged correction writes nothing, one flipped result
changes one game, a corrected file keeps what it does not carry, and the audit entry says
in words what changed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from ratingdb.io import trf
from ratingdb.services.trf_import import export_trf
from tests.builders import ok
from tests.submit_support import World, build, csrf_of, sign_in
from tests.web_support import client_for, database, engine_for

#: what a participant row of the stored submission holds
ROW = (
    "SELECT pa.start_rank, pa.player_id, pa.textual_name, pa.club_vkz, pa.rating_source, "
    "pa.external_rating, pa.external_index, pa.computer, pa.byes, pa.title, pa.federation "
    "FROM participants pa JOIN tournaments t ON t.id = pa.tournament_id WHERE t.code = :c "
    "ORDER BY pa.start_rank"
)
GAMES = (
    "SELECT g.round, w.start_rank, b.start_rank, g.result FROM games g "
    "JOIN participants w ON w.id = g.white_id JOIN participants b ON b.id = g.black_id "
    "JOIN tournaments t ON t.id = g.tournament_id WHERE t.code = :c ORDER BY 1, 2, 3"
)
WRITTEN = "SELECT (SELECT count(*) FROM change_points), (SELECT count(*) FROM audit_log)"


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    """The submission tests' world on a federation of 300 players (tournaments to spare)."""
    with database(pg_server, "corrections") as url:
        ok(["synth", "--players", "300", "--years", "2", "--seed", "5"], url)
        ok(["recalc", "--quiet"], url)
        yield build(url)


def _rows(world: World, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    with engine_for(world.url).connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql), params)]


def _code(world: World, offset: int = 0) -> str:
    """A tournament within the year (WO 6.2) with members in it."""
    return str(
        _rows(
            world,
            "SELECT t.code FROM tournaments t WHERE t.end_date >= '2025-11-22' "
            "AND (SELECT count(*) FROM participants p WHERE p.tournament_id = t.id "
            "     AND p.player_id IS NOT NULL) >= 3 ORDER BY t.end_date DESC, t.code "
            "OFFSET :o LIMIT 1",
            o=offset,
        )[0][0]
    )


#: one stored field per case, set on the tournament's first participant (SQL, then a full
#: run so that the stored evaluations fit it): each must survive a correction round trip
FIELDS = {
    "national entry rating with index": "rating_source = 'national', external_rating = 1655, "
    "external_index = 7",
    "FIDE entry rating": "rating_source = 'fide', external_rating = 1802, external_index = NULL",
    "club": "club_vkz = :vkz",
    "byes": """byes = '{"2": "H"}'""",
    "title": "title = 'FM'",
    "federation": "federation = 'AUT'",
}


def _set_field(world: World, code: str, assignment: str) -> None:
    with engine_for(world.url).begin() as conn:
        conn.execute(
            text(
                f"UPDATE participants SET {assignment} WHERE id = (SELECT pa.id FROM "
                "participants pa JOIN tournaments t ON t.id = pa.tournament_id "
                "WHERE t.code = :c AND pa.player_id IS NOT NULL ORDER BY pa.start_rank LIMIT 1)"
            ),
            {"c": code, "vkz": world.vkz},
        )
    ok(["recalc", "--full", "--quiet"], world.url)


def _edit(client: Any, code: str) -> str:
    page = client.get(f"/officer/upload?correct={code}")
    answer = client.post(
        f"/officer/tournaments/{code}/edit",
        data={"csrf": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"])


def _signed_in(world: World) -> Any:
    client = client_for(world.url)
    sign_in(client, "root")  # an administrator: every organisation level (WO 6.3)
    return client


def _exported(world: World, code: str) -> bytes:
    """The stored tournament ``code`` as ratingdb's own TRF export."""
    from sqlalchemy.orm import Session

    with engine_for(world.url).connect() as conn, Session(bind=conn) as session:
        return trf.write(export_trf(session, code)).encode()


def _uploaded_correction(world: World, code: str, content: bytes) -> tuple[Any, Any]:
    """``content`` uploaded as the correction of ``code`` by the administrator: the client
    and the upload's answer (a redirect to the draft)."""
    client = _signed_in(world)
    page = client.get(f"/officer/upload?correct={code}")
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text), "target": code},
        files={"file": (f"{code}.trf", content, "text/plain")},
        follow_redirects=False,
    )
    return client, answer


@pytest.mark.parametrize("field", list(FIELDS))
def test_an_unchanged_correction_in_the_editor_writes_nothing(world, field):
    """Taken over unchanged, the stored submission is "no change": nothing moves in the
    what-if, submitting writes no row, no change point, no audit entry."""
    code = _code(world)
    _set_field(world, code, FIELDS[field])
    before = _rows(world, ROW, c=code), _rows(world, GAMES, c=code), _rows(world, WRITTEN)
    client = _signed_in(world)
    draft = _edit(client, code)
    page = client.get(draft)
    assert page.status_code == 200, page.text
    assert 'id="what-if"' not in page.text
    assert 'id="unchanged"' in page.text, page.text
    answer = client.post(
        f"{draft}/submit", data={"csrf": csrf_of(page.text)}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert (_rows(world, ROW, c=code), _rows(world, GAMES, c=code),
            _rows(world, WRITTEN)) == before  # fmt: skip


def _flip(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[result]


def test_one_flipped_result_changes_that_game_only(world):
    """The correction writes that one result; every participant's row stays as stored; the
    audit entry names the round, the players and both results in words."""
    code = _code(world, 1)
    _set_field(world, code, FIELDS["national entry rating with index"])
    rows, games = _rows(world, ROW, c=code), _rows(world, GAMES, c=code)
    client = _signed_in(world)
    draft = _edit(client, code)
    page = client.get(draft)
    selects = re.findall(r'<select name="g(\d+)"[^>]*>(.*?)</select>', page.text, re.S)
    k, options = next(
        (int(n), o) for n, o in selects
        if re.search(r"<option selected>(1-0|0-1|1/2-1/2)</option>", o)
    )  # fmt: skip
    found = re.search(r"<option selected>([^<]+)</option>", options)
    assert found
    old = found.group(1)
    answer = client.post(
        f"{draft}/results", data={"csrf": csrf_of(page.text), f"g{k}": _flip(old)},
        follow_redirects=False,
    )  # fmt: skip
    assert answer.status_code == 303
    page = client.get(draft)
    assert 'id="unchanged"' not in page.text
    assert client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                       follow_redirects=False).status_code == 303  # fmt: skip
    assert _rows(world, ROW, c=code) == rows
    after = _rows(world, GAMES, c=code)
    changed = [(a, b) for a, b in zip(games, after, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][0][:3] == changed[0][1][:3]
    assert (changed[0][0][3], changed[0][1][3]) == (old, _flip(old))
    details = _rows(
        world,
        "SELECT details FROM audit_log WHERE entity_id = :c AND action = 'correct' "
        "ORDER BY id DESC LIMIT 1",
        c=code,
    )[0][0]
    assert len(details["changes"]) == 1, details
    sentence = details["changes"][0]
    assert f"{old} → {_flip(old)}" in sentence and str(changed[0][0][0]) in sentence


def test_a_corrected_file_keeps_the_stored_entry_rating_it_does_not_carry(world):
    """The stored tournament's TRF (no national rating, no index in it) uploaded as a
    correction: the entry rating given with the submission, its source and index stay."""
    code = _code(world, 2)
    _set_field(world, code, FIELDS["national entry rating with index"])
    rows = _rows(world, ROW, c=code)
    content = _exported(world, code)
    client, answer = _uploaded_correction(world, code, content)
    assert answer.status_code == 303, answer.text
    draft = answer.headers["location"]
    page = client.get(draft)
    assert page.status_code == 200, page.text
    assert 'class="open"' not in page.text  # who is who as stored
    assert 'id="what-if"' not in page.text  # nobody's rating moves
    answer = client.post(
        f"{draft}/submit", data={"csrf": csrf_of(page.text)}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    kept = {r[0]: r[1:7] for r in _rows(world, ROW, c=code)}
    assert kept == {r[0]: r[1:7] for r in rows}


def test_a_corrected_file_keeps_who_is_who_it_cannot_say(world):
    """A non-member of the stored tournament (no ids in the file) is decided as stored when
    the corrected file is uploaded: nobody is open, nothing of him changes."""
    code = _rows(
        world,
        "SELECT t.code FROM tournaments t WHERE t.end_date >= '2025-11-22' AND EXISTS ("
        "SELECT 1 FROM participants p WHERE p.tournament_id = t.id AND p.player_id IS NULL) "
        "ORDER BY t.end_date DESC LIMIT 1",
    )[0][0]
    rows = _rows(world, ROW, c=code)
    content = _exported(world, code)
    client, answer = _uploaded_correction(world, code, content)
    page = client.get(answer.headers["location"])
    assert 'class="open"' not in page.text and 'class="decided"' in page.text
    answer = client.post(
        f"{answer.headers['location']}/submit",
        data={"csrf": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    assert [r[1:3] for r in _rows(world, ROW, c=code)] == [r[1:3] for r in rows]


def test_a_reuploaded_export_is_no_change(world):
    """The TRF export of a tournament submitted without a file, uploaded again as its
    correction: what only the export wrote (the type record, start ranks 1..n, ``Z`` for the
    rounds without a game) is no change, so the draft says "no change" and submitting
    writes nothing: no row, no change point, no audit entry, the exchange data as stored."""
    code = _rows(
        world,
        "SELECT t.code FROM tournaments t WHERE t.end_date >= '2025-11-22' "
        "AND (t.exchange IS NULL OR t.exchange = '{}'::jsonb) AND NOT EXISTS ("
        " SELECT 1 FROM games g JOIN participants p ON p.id IN (g.white_id, g.black_id) "
        " WHERE g.tournament_id = t.id GROUP BY p.id, g.round HAVING count(*) > 1) "
        "AND (SELECT count(DISTINCT round) FROM games g WHERE g.tournament_id = t.id) > 2 "
        "ORDER BY t.end_date DESC, t.code LIMIT 1",
    )[0][0]
    exchange = "SELECT exchange FROM tournaments WHERE code = :c"
    before = (
        _rows(world, ROW, c=code), _rows(world, GAMES, c=code), _rows(world, WRITTEN),
        _rows(world, exchange, c=code),
    )  # fmt: skip
    content = _exported(world, code)
    assert b" Z" in content  # rounds without a game written as Z
    client, answer = _uploaded_correction(world, code, content)
    assert answer.status_code == 303, answer.text
    draft = answer.headers["location"]
    page = client.get(draft)
    assert 'id="unchanged"' in page.text, page.text
    answer = client.post(
        f"{draft}/submit", data={"csrf": csrf_of(page.text)}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    assert (
        _rows(world, ROW, c=code), _rows(world, GAMES, c=code), _rows(world, WRITTEN),
        _rows(world, exchange, c=code),
    ) == before  # fmt: skip
