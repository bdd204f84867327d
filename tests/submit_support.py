"""The world of the officer's submission tests: a small synthetic
federation, recalculated, with officers who sign in by password, and a real-format TRF of a
new tournament whose one player the import cannot decide (two database players share his
folded name and birth year).

The TRF is a stored tournament of the middle of the history written out again
(:func:`ratingdb.services.trf_import.export_trf`, the TRF writer) under a new id: its players are
established, later tournaments of theirs are replayed by the next run, and the what-if has
something to show."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.db.models import Player
from ratingdb.io import trf
from ratingdb.services.sign_in import set_password
from ratingdb.services.trf_import import FEDERATION, export_trf
from ratingdb.services.users import add_user
from tests import shared_files
from tests.web_support import TODAY, database, engine_for, ok

PASSWORD = "correct horse battery"
SWT_CORPUS = shared_files.CORPUS / "swt"
CODE = "WEB-1"


@dataclass
class World:
    url: URL
    scope: str  # the officer anna's VKZ prefix: the tournament's club
    vkz: str
    trf: bytes  # the new tournament
    ambiguous_rank: int
    ambiguous_name: str
    right_player: int  # who he is
    namesake: int  # the other player of that folded name and birth year
    other_scope: str  # bert's prefix, outside the tournament's VKZ


def _pick(session: Session) -> Any:
    """A club tournament in the middle of the history (later ones of its players exist)
    with at least 6 members, ending within the year before TODAY (WO 6.2)."""
    return session.execute(
        text(
            "SELECT t.code, t.vkz, t.end_date FROM tournaments t "
            "WHERE t.end_date BETWEEN :lo AND :hi AND length(t.vkz) = 5 "
            "AND (SELECT count(*) FROM participants p WHERE p.tournament_id = t.id "
            "     AND p.player_id IS NOT NULL) >= 6 "
            "ORDER BY t.end_date, t.code LIMIT 1"
        ),
        {"lo": TODAY - timedelta(days=330), "hi": TODAY - timedelta(days=60)},
    ).one()


def build(url: URL) -> World:
    """Users, passwords, the namesake and the TRF (see the module docstring)."""
    engine = engine_for(url)
    with Session(engine) as session, session.begin():
        code, vkz, _end = _pick(session)
        t = export_trf(session, code)
        # the first member with a GER record is found only by name and birth year ...
        found = [p for p in t.players if FEDERATION in p.national and p.birth_year]
        target = next((p for p in found if _unfold(p.name) != p.name), found[0])
        rec = target.national.pop(FEDERATION)
        target.fide_id = None
        assert rec.number
        right = session.execute(
            text(
                "SELECT pa.player_id FROM participants pa JOIN tournaments t "
                "ON t.id = pa.tournament_id WHERE t.code = :c ORDER BY pa.start_rank "
                "OFFSET :k LIMIT 1"
            ),
            {"c": code, "k": t.players.index(target)},
        ).scalar_one()
        surname, _, given = target.name.partition(",")
        # ... and a second player has that name (folded: an umlaut spelled out) and year
        twin = Player(
            surname=_unfold(surname.strip()), given_name=given.strip(),
            birth_year=target.birth_year, dsb_id="99990001",
        )  # fmt: skip
        session.add(twin)
        session.flush()
        namesake = twin.id
        for name, role, scopes in (("anna", "officer", [vkz]), ("bert", "officer", ["Z"]),
                                   ("root", "admin", [])):  # fmt: skip
            add_user(session, name, role, scopes, full_name=name.title())
            set_password(session, name, PASSWORD)
    t.meta = {"id": CODE, "vkz": vkz, "kind": "individual"}
    t.name = "Web-Turnier"
    t.other, t.records = {}, []
    text_ = trf.write(t)
    return World(url, vkz, vkz, text_.encode(), target.start_rank, target.name, right,
                 namesake, "Z")  # fmt: skip


def _unfold(surname: str) -> str:
    """The same name as another program may write it (ä → ae, ß → ss; else unchanged)."""
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        if a in surname:
            return surname.replace(a, b)
    return surname


@contextmanager
def submit_world(server: URL) -> Iterator[World]:
    with database(server, "web_submit") as url:
        ok(["synth", "--players", "60", "--years", "2", "--seed", "5"], url)
        ok(["recalc", "--quiet"], url)
        yield build(url)


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def sign_in(client: Any, name: str) -> None:
    csrf = csrf_of(client.get("/anmelden").text)
    answer = client.post(
        "/anmelden",
        data={"name": name, "password": PASSWORD, "csrf": csrf, "next": "/officer"},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
