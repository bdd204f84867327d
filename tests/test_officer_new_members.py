"""Every id and field a tournament file has of a new person is stored with him: DSB id,
FIDE id, sex, birth date, FIDE federation and title, whether the officer makes him a new
member of a club on the pages or the import registers him by his ids."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.io import trf
from ratingdb.io.trf import NationalRecord
from ratingdb.services import tournaments
from ratingdb.services.trf_import import FEDERATION
from tests.submit_support import World, csrf_of, sign_in, submit_world
from tests.web_support import client_for, engine_for

#: the person the file brings (nobody of the database)
NEWCOMER = {
    "surname": "Zwetschgenbaum",
    "given_name": "Nora",
    "dsb_id": "NU4005017",
    "fide_id": 24681357,
    "sex": "f",
    "birth_date": date(2004, 3, 9),
    "birth_year": 2004,
    "federation": "AUT",
    "title": "WFM",
}
PLAYER = (
    "SELECT surname, given_name, dsb_id, fide_id, sex, birth_date, birth_year, federation, "
    "title FROM players WHERE surname = :s"
)


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    with submit_world(pg_server) as w:
        yield w


def _with_newcomer(world: World, code: str, surname: str) -> tuple[bytes, int]:
    """The world's TRF under id ``code`` with its last player replaced by the newcomer."""
    t = trf.parse(world.trf.decode(), "web.trf")
    p = t.players[-1]
    p.name = f"{surname}, {NEWCOMER['given_name']}"
    p.fide_id = _expected(surname)["fide_id"]
    p.sex, p.birth = "f", NEWCOMER["birth_date"]
    p.federation, p.title = str(NEWCOMER["federation"]), str(NEWCOMER["title"])
    number = _expected(surname)["dsb_id"]
    p.national = {
        FEDERATION: NationalRecord(FEDERATION, p.start_rank, None, "", number, "", None, 0)
    }
    t.meta = {**t.meta, "id": code}
    return trf.write(t).encode(), p.start_rank


def _stored(world: World, surname: str) -> dict[str, Any]:
    with engine_for(world.url).connect() as conn:
        row = conn.execute(text(PLAYER), {"s": surname}).mappings().one()
    return dict(row)


def _expected(surname: str) -> dict[str, Any]:
    return {
        **NEWCOMER,
        "surname": surname,
        "fide_id": int(str(NEWCOMER["fide_id"])) + sum(map(ord, surname)),
        "dsb_id": f"NU{sum(map(ord, surname)) % 100000:05d}17",
    }


def test_a_new_member_chosen_on_the_pages_keeps_every_field_of_the_file(world):
    surname = "Zwetschgenbaum"
    content, rank = _with_newcomer(world, "NEW-1", surname)
    client = client_for(world.url)
    sign_in(client, "anna")
    page = client.get("/officer/upload")
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text)},
        files={"file": ("new.trf", content, "text/plain")},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    draft = answer.headers["location"]
    page = client.get(draft)
    assert f'<tr class="open" data-key="{rank}">' in page.text
    answer = client.post(
        f"{draft}/choices",
        data={"csrf": csrf_of(page.text), f"c{rank}": "new", f"club{rank}": world.vkz,
              f"c{world.ambiguous_rank}": f"p{world.right_player}"},
        follow_redirects=False,
    )  # fmt: skip
    assert answer.status_code == 303
    page = client.get(draft)
    assert 'id="submit"' in page.text, page.text
    assert client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)},
                       follow_redirects=False).status_code == 303  # fmt: skip
    assert _stored(world, surname) == _expected(surname)


def test_a_person_the_import_registers_by_his_ids_keeps_every_field_of_the_file(world):
    surname = "Mirabellenbaum"
    content, _rank = _with_newcomer(world, "NEW-2", surname)
    parsed = trf.parse(content.decode(), "new.trf")
    with Session(engine_for(world.url)) as session, session.begin():
        tournaments.add_trf(session, parsed, vkz=world.vkz)
    assert _stored(world, surname) == _expected(surname)
