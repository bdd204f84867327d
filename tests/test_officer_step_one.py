"""All problems at the first step: what can be checked without the matching (VKZ missing or
unknown, scope, the one-year rule) is shown on the draft page at once, in German, and fixed
in place (VKZ, dates, "create the organisation") without losing who is who; a single-scope
officer's VKZ is the default; an automatic match can be overridden."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.engine import URL

from ratingdb.io import trf
from tests.submit_support import World, csrf_of, sign_in, submit_world
from tests.web_support import client_for


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    with submit_world(pg_server) as w:
        yield w


def _plain(world: World) -> bytes:
    """The world's TRF as a pairing program writes it: no ``###`` lines (no id, no VKZ)."""
    return b"\n".join(x for x in world.trf.splitlines() if not x.startswith(b"###")) + b"\n"


def _draft(client: Any, content: bytes) -> str:
    page = client.get("/officer/upload")
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text)},
        files={"file": ("plain.trf", content, "text/plain")},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"])


def _signed_in(world: World, name: str) -> Any:
    client = client_for(world.url)
    sign_in(client, name)
    return client


def _problems(page: str) -> list[str]:
    box = re.search(r'<div class="error" role="alert" id="step1-problems">(.*?)</div>', page, re.S)
    return re.findall(r'<li class="problem wrap">([^<]*)</li>', box.group(1)) if box else []


def test_a_plain_trf_without_vkz_is_fixed_in_place_keeping_who_is_who(world):
    client = _signed_in(world, "root")  # an administrator: no VKZ of his own to default to
    draft = _draft(client, _plain(world))
    page = client.get(draft)
    assert page.status_code == 200
    problems = _problems(page.text)
    assert len(problems) == 1 and "Die Datei nennt keine VKZ" in problems[0], problems
    assert 'id="what-if"' not in page.text and 'id="submit"' not in page.text
    # who is who first, then the VKZ: the choice stays
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text),
                f"c{world.ambiguous_rank}": f"p{world.right_player}"})  # fmt: skip
    unknown = client.post(f"{draft}/options", data={"csrf": csrf_of(page.text), "vkz": "Q9999"})
    assert unknown.status_code == 200  # followed to the draft
    assert any("Die VKZ Q9999 ist unbekannt" in p for p in _problems(unknown.text))
    fixed = client.post(f"{draft}/options", data={"csrf": csrf_of(page.text), "vkz": world.vkz,
                                                  "code": "PLAIN-1"})  # fmt: skip
    assert _problems(fixed.text) == []
    assert 'id="submit"' in fixed.text and 'id="what-if"' in fixed.text
    assert f'<tr class="decided" data-key="{world.ambiguous_rank}">' in fixed.text


def test_a_single_scope_officers_vkz_is_the_default(world):
    client = _signed_in(world, "anna")  # one organisation level: the tournament's club
    page = client.get(_draft(client, _plain(world)))
    assert _problems(page.text) == []
    assert f'placeholder="{world.vkz}"' in page.text or f'value="{world.vkz}"' in page.text


def test_scope_and_the_one_year_rule_show_at_once(world):
    client = _signed_in(world, "bert")  # VKZ prefix Z: the file's VKZ is not his
    page = client.get(_draft(client, world.trf))
    problems = _problems(page.text)
    assert any("außerhalb Ihrer Organisationsebenen (Z) (WO 6.3)" in p for p in problems)
    # the open participant is not decided yet: the problems come first anyway
    assert re.search(rf'<tr class="open" data-key="{world.ambiguous_rank}">', page.text)
    anna = _signed_in(world, "anna")
    t = trf.parse(world.trf.decode(), "web.trf")
    draft = _draft(anna, world.trf)
    page = anna.post(f"{draft}/options", data={"csrf": csrf_of(anna.get(draft).text),
                     "start": "2025-01-10", "end": "2025-01-12"})  # fmt: skip
    assert t.end.year >= 2025
    assert any("vor mehr als einem Jahr" in p and "(WO 6.2)" in p for p in _problems(page.text))
    # a date that is no date is refused with the field's name, nothing kept
    bad = anna.post(f"{draft}/options", data={"csrf": csrf_of(page.text), "end": "2025-13-01"})
    assert bad.status_code == 422


def test_an_automatic_match_can_be_overridden(world):
    client = _signed_in(world, "anna")
    draft = _draft(client, world.trf)
    page = client.get(draft)
    matched = re.findall(r'<tr class="matched" data-key="(\d+)">', page.text)
    assert matched
    key = matched[0]
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text), f"c{key}": "non"})
    page = client.get(draft)
    assert f'<tr class="decided" data-key="{key}">' in page.text
    row = re.search(rf'<tr class="decided" data-key="{key}">(.*?)</tr>', page.text, re.S)
    assert row and "Nichtmitglied" in row.group(1)


def test_the_officer_forms_answer_in_german(world):
    """The forms' own refusals in the page's language: no file chosen, a date that is no
    date, a deletion without its reason."""
    from sqlalchemy import text

    from tests.web_support import engine_for

    client = _signed_in(world, "anna")
    csrf = csrf_of(client.get("/officer/upload").text)
    answer = client.post("/officer/upload", data={"csrf": csrf})
    assert answer.status_code == 422 and "wählen Sie eine Datei" in answer.text
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf, "end": "2026-13-01"},
        files={"file": ("web.trf", world.trf, "text/plain")},
    )
    assert answer.status_code == 422 and "erwartet ein Datum JJJJ-MM-TT" in answer.text
    with engine_for(world.url).connect() as conn:
        code = conn.execute(
            text("SELECT code FROM tournaments WHERE vkz = :v ORDER BY end_date DESC LIMIT 1"),
            {"v": world.vkz},
        ).scalar_one()
    answer = client.post(f"/officer/tournaments/{code}/delete", data={"csrf": csrf, "reason": ""})
    assert answer.status_code == 422 and "Grund der Löschung" in answer.text
