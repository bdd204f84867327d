"""Uploads that cannot flood the server (docs/web.md, "Request bodies"): a file with
100,000 problems is answered within seconds with its first 100 and one "and N more" line,
while pages read at the same time stay under a second; a file that costs more than its
time budget is refused naming the file, in the user's language, nothing written; the
reading runs as heavy work, bounded with the what-ifs (503 with Retry-After beyond it)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb import budget
from ratingdb.services.users import add_user, issue_token
from ratingdb.web.app import create_app
from ratingdb.web.offload import RETRY_AFTER
from tests.cli import run
from tests.web_support import TODAY, bearer, database, engine_for, ok, served

PASSWORD = "correct horse battery"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "stadtmeisterschaft-2026.trf"
#: reads that must stay fast while the server reads a flood: search, Karteikarte, lists
SLOW_READ = 1.0


def faulty_trf(lines: int) -> bytes:
    """The example tournament and ``lines`` player lines whose FIDE id is no number (two
    problems each: the id, and the column it runs into)."""
    head = EXAMPLE.read_text(encoding="utf-8")
    bad = "".join(
        f"001 {n + 7:4d} m    Spieler{n}, Eva".ljust(57) + "XXXX     1975/00/00  0.0\n"
        for n in range(lines)
    )
    return (head + bad).encode()


def faulty_report(attributes: int) -> bytes:
    """A TournamentReport (DSB XML) of the example with as many more players as start
    ranks allow, together with ``attributes`` attributes the schema does not allow (the
    check finds one problem for each)."""
    from ratingdb.io import dsb_xml
    from ratingdb.services.imports import read_trf

    t = read_trf(EXAMPLE.read_bytes(), EXAMPLE.name)
    xml = dsb_xml.write(dsb_xml.from_tournament(t, tournament_uuid=dsb_xml.new_uuid())).decode()
    players = range(7, 10_000)
    each = -(-attributes // len(players))
    extra = "".join(
        "<player " + " ".join(f'a{k}="{k}"' for k in range(each)) + ">"
        f"<tournamentPlayerNumber>{n}</tournamentPlayerNumber>"
        f"<surname>S{n}</surname><forename>E</forename><dobYear>1990</dobYear></player>"
        for n in players
    )
    return xml.replace("</players>", extra + "</players>").encode()


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[dict[str, Any]]:
    with database(pg_server, "web_floods") as url:
        ok(["synth", "--players", "40", "--years", "1", "--seed", "5"], url)
        ok(["recalc", "--quiet"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"])
            token = issue_token(session, "anna")
        out = run(["user", "password", "anna", "--password-stdin"], url, input=PASSWORD + "\n")
        assert out.returncode == 0, out.stderr
        with engine_for(url).connect() as conn:
            players = conn.execute(
                text("SELECT player_id FROM rating_snapshots WHERE stored ORDER BY 1 LIMIT 5")
            ).scalars().all()  # fmt: skip
        pages = ["/players?q=a", "/lists", "/tournaments"]
        pages += [f"/players/{p}" for p in players]
        yield {"url": url, "token": token, "pages": pages}


@contextmanager
def server(url: Any, *, offload: int = 1) -> Iterator[str]:
    """The app as ``ratingdb serve`` builds it (threads, the worker process), without the
    page cache: every read is computed."""
    engine = create_engine(url, pool_size=4, max_overflow=4, pool_timeout=5)
    app = create_app(engine, today=lambda: TODAY, threads=4, offload=offload)
    try:
        with served(app) as base:
            yield base
    finally:
        engine.dispose()


@contextmanager
def reading(base: str, pages: list[str], readers: int = 4) -> Iterator[list[Any]]:
    """``readers`` threads reading ``pages`` in turn while the block runs; yields the list
    of (page, seconds, status) they fill."""
    times: list[tuple[str, float, int]] = []
    stop = threading.Event()

    def read(k: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            n = k
            while not stop.is_set():
                page = pages[n % len(pages)]
                started = time.perf_counter()
                status = client.get(page).status_code
                times.append((page, time.perf_counter() - started, status))
                n += 1
                stop.wait(0.05)  # a visitor's pace, not a load test

    threads = [threading.Thread(target=read, args=(k,)) for k in range(readers)]
    for t in threads:
        t.start()
    try:
        yield times
    finally:
        stop.set()
        for t in threads:
            t.join(60)


def warm(client: httpx.Client, token: str) -> None:
    """One faulty file through the worker process (started with the server, it imports
    ratingdb first), so that the measured upload does not wait for its start."""
    r = client.post("/api/what-if/tournaments/trf", params={"filename": "warm.trf"},
                    content=faulty_trf(3), headers=bearer(token))  # fmt: skip
    assert r.status_code == 422, r.text


def posted(base: str, token: str, path: Path, endpoint: str) -> tuple[int, bytes, float]:
    """``path`` POSTed to ``endpoint`` by curl, another process (as a server's clients are:
    an upload sent from the test's own threads would take the server's interpreter lock);
    the status, the body and the seconds until the answer."""
    answer = path.with_suffix(".answer")
    started = time.perf_counter()
    done = subprocess.run(
        ["curl", "-s", "-o", str(answer), "-w", "%{http_code}", "--max-time", "120",
         "-H", "Expect:",
         "-H", f"Authorization: Bearer {token}", "--data-binary", f"@{path}",
         f"{base}{endpoint}?filename={path.name}"],
        capture_output=True, text=True, timeout=150, check=True,
    )  # fmt: skip
    return int(done.stdout), answer.read_bytes(), time.perf_counter() - started


def test_100000_problems_are_answered_within_seconds_while_pages_stay_fast(site, tmp_path):
    """A TRF file with 100,000 faulty lines (about 290,000 problems) and a TournamentReport
    with 100,000 faulty attributes (the schema check took 151 s for 40,000): each answered
    422 within seconds with the first 100 problems and one line for the rest, while four
    threads read the search, the Karteikarten and the lists, every read under a second."""
    floods = {"flood.trf": faulty_trf(100_000), "flood.xml": faulty_report(100_000)}
    for name, data in floods.items():
        (tmp_path / name).write_bytes(data)
    with server(site["url"]) as base, httpx.Client(base_url=base, timeout=120) as client:
        warm(client, site["token"])
        with reading(base, site["pages"]) as times:
            time.sleep(0.5)
            answers = {
                name: posted(base, site["token"], tmp_path / name, "/api/what-if/tournaments/trf")
                for name in floods
            }
            time.sleep(0.5)
    for name, (status, body, seconds) in answers.items():
        assert status == 422, body[:500]
        assert seconds < 20, f"{name}: {seconds:.1f} s"
        errors = json.loads(body)["errors"]
        assert len(body) < 60_000 and len(errors) <= 101
        place = name if name.endswith(".trf") else "/DSB_DWZ_TournamentReport/players/player["
        assert all(place in e["location"] for e in errors[:-1]), errors[:3]
        size = len(floods[name]) // 1024
        print(f"{name}: {size} KiB, 422 in {seconds:.2f} s, {len(body)} bytes")
    trf_errors = json.loads(answers["flood.trf"][1])["errors"]
    assert re.fullmatch(r"and \d+ more problems", trf_errors[-1]["message"])
    assert int(trf_errors[-1]["message"].split()[1]) >= 200_000 - 100
    xml_errors = json.loads(answers["flood.xml"][1])["errors"]
    assert "attribute 'a0' not allowed" in xml_errors[0]["message"]
    assert re.fullmatch(r"and \d+ more problems", xml_errors[-1]["message"])
    assert times and all(status == 200 for _, _, status in times)
    slowest = max(times, key=lambda t: t[1])
    print(f"{len(times)} reads meanwhile, slowest {slowest[1]:.3f} s ({slowest[0]})")
    assert slowest[1] < SLOW_READ, slowest


def test_a_file_past_its_time_budget_is_refused_naming_the_file(site, monkeypatch):
    """Reading stops when it has used its CPU time (here 0.02 s instead of 10 s): a 422
    naming the file in the page's language (German by default, English on request), and
    no draft is written."""
    from fastapi.testclient import TestClient

    monkeypatch.setattr(budget, "SECONDS", 0.02)
    url = site["url"]
    browser = TestClient(create_app(engine_for(url), today=lambda: TODAY))
    page = browser.get("/anmelden").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    answer = browser.post("/anmelden", data={"name": "anna", "password": PASSWORD,
                                             "csrf": csrf}, follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/officer").text).group(1)  # type: ignore[union-attr]

    def drafts() -> int:
        with engine_for(url).connect() as conn:
            return conn.execute(text("SELECT count(*) FROM web_drafts")).scalar_one()

    before = drafts()
    files = {"file": ("langsam.trf", faulty_trf(20_000), "text/plain")}
    r = browser.post("/officer/upload", data={"csrf": csrf}, files=files)
    assert r.status_code == 422
    assert "langsam.trf" in r.text and "Sekunden Rechenzeit" in r.text
    assert "nichts wurde gespeichert" in r.text and "seconds" not in r.text
    r = browser.post("/officer/upload", data={"csrf": csrf}, files=files, params={"lang": "en"})
    assert r.status_code == 422
    assert "langsam.trf" in r.text and "seconds of the server" in r.text
    # the API alike (English), and a file within the budget is read as before
    api = TestClient(create_app(engine_for(url), today=lambda: TODAY))
    r = api.post("/api/what-if/tournaments/trf", params={"filename": "langsam.trf"},
                 content=faulty_trf(20_000), headers=bearer(site["token"]))  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["location"] == "langsam.trf"
    assert "too large or has too many faults" in r.json()["errors"][0]["message"]
    assert drafts() == before


def test_a_drafts_file_is_read_again_within_the_same_budget(site, monkeypatch):
    """A draft keeps its file and reads it on every view: within the same time budget, so
    a view past it is the upload's 422 naming the file, not a read thread held for long."""
    from fastapi.testclient import TestClient

    browser = TestClient(create_app(engine_for(site["url"]), today=lambda: TODAY))
    page = browser.get("/anmelden").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    browser.post("/anmelden", data={"name": "anna", "password": PASSWORD, "csrf": csrf})
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/officer").text).group(1)  # type: ignore[union-attr]
    r = browser.post("/officer/upload", data={"csrf": csrf, "example": EXAMPLE.name},
                     follow_redirects=False)  # fmt: skip
    assert r.status_code == 303, r.text[:300]
    draft = r.headers["location"]
    assert browser.get(draft).status_code == 200
    monkeypatch.setattr(budget, "SECONDS", 0)
    r = browser.get(draft)
    assert r.status_code == 422
    assert EXAMPLE.name in r.text and "Sekunden Rechenzeit" in r.text


def test_problems_beyond_the_first_hundred_are_counted_not_kept():
    """The readers' problem list keeps 100 and counts the rest; the budget is CPU time of
    the reading thread, checked as problems arrive."""
    problems = budget.Problems()
    for n in range(250):
        problems.append((f"f.trf:{n}", "bad"))
    assert len(problems) == budget.MAX_PROBLEMS and problems.more == 150
    assert problems.found == 250
    with budget.reading("f.trf", seconds=0.01), pytest.raises(budget.TooSlow) as info:
        while True:
            budget.Problems().append(("f.trf", "bad"))
    assert info.value.location == "f.trf"
    budget.check()  # outside a reading nothing is timed


def test_the_schema_check_stops_after_the_first_problems():
    """Each problem costs the TournamentReport's schema check milliseconds: it stops at the
    limit and says so, in the language in force."""
    from ratingdb import i18n
    from ratingdb.io import dsb_xml

    if dsb_xml.schema_path() is None:
        pytest.fail("the DSB's XSD is part of the rules documents (ratingdb/io/dsb_xml.py)")
    with i18n.use("en"):
        found = dsb_xml.xsd_problems(faulty_report(2_000))
    assert found is not None and len(found) == budget.MAX_PROBLEMS
    assert "'a0' attribute not allowed" in found[0][1]
    assert found[-1] == ("/", "the check stopped after 99 problems; the file may have more")


def _read_on_a_timer(data: bytes) -> tuple[float, str | None]:
    """The schema check of ``data`` within a 0.2 s budget: its CPU seconds and the place
    :class:`budget.TooSlow` named (None if the check ended)."""
    from ratingdb.io import dsb_xml

    started = time.process_time()
    try:
        with budget.reading("timer.xml", seconds=0.2):
            dsb_xml.xsd_problems(data)
    except budget.TooSlow as err:
        return time.process_time() - started, err.location
    return time.process_time() - started, None


def test_a_library_without_checks_is_stopped_by_the_cpu_timer():
    """In the main thread of a process of its own, as the server's reader process, the
    budget is a timer of CPU time: it stops a reading inside the schema library, which
    calls no check of ours, long before the library would end (the whole check of this
    file takes about 1.7 s of CPU)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    data = faulty_report(20_000)
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as reader:
        seconds, location = reader.submit(_read_on_a_timer, data).result(timeout=120)
    assert location == "timer.xml"
    assert seconds < 1


def test_uploads_beyond_the_heavy_limit_are_answered_503_while_pages_stay_fast(site, tmp_path):
    """Twenty faulty uploads at once (from other processes, as a server's clients are):
    the server reads eight (one at a time, in its reader process) and answers the others
    503 with Retry-After before reading their bodies; reads go on under a second."""
    path = tmp_path / "many.trf"
    path.write_bytes(faulty_trf(20_000))
    with server(site["url"]) as base, httpx.Client(base_url=base, timeout=120) as client:
        warm(client, site["token"])
        with reading(base, site["pages"]) as times:
            curl = ["curl", "-s", "-o", "/dev/null", "-D", "-", "--max-time", "120",
         "-H", "Expect:",
                    "-H", f"Authorization: Bearer {site['token']}", "--data-binary",
                    f"@{path}", f"{base}/api/tournaments/trf?filename=many.trf"]  # fmt: skip
            uploads = [subprocess.Popen(curl, stdout=subprocess.PIPE, text=True) for _ in range(20)]
            heads = [upload.communicate(timeout=150)[0] for upload in uploads]
    statuses = [int(head.split()[1]) for head in heads]
    refused = [head for head, status in zip(heads, statuses, strict=True) if status == 503]
    print(f"{len(refused)} of 20 uploads 503, slowest read {max(t for _, t, _ in times):.3f} s")
    assert set(statuses) == {422, 503} and len(refused) >= 20 - 8
    assert all(f"retry-after: {RETRY_AFTER}" in head.lower() for head in refused)
    assert times and max(t for _, t, _ in times) < SLOW_READ


def test_a_body_sent_byte_by_byte_is_answered_408_while_pages_stay_fast(site, monkeypatch):
    """A slow loris: a body that pauses (here more than 1 s) or dribbles on past its whole
    time (here 3 s) is answered 408 in the request's language and its connection closed;
    pages are read meanwhile."""
    import socket

    from ratingdb.web import bodies

    monkeypatch.setattr(bodies, "BODY_PAUSE", 1)
    monkeypatch.setattr(bodies, "BODY_SECONDS", 3)
    with server(site["url"], offload=0) as base:
        host, port = base.removeprefix("http://").split(":")

        def slow(path: bytes, dribble: bool) -> tuple[bytes, float]:
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(
                    b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: "
                    b"application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\na"
                )
                started = time.perf_counter()
                answer = b""
                s.settimeout(0.5 if dribble else 10)
                while True:
                    try:
                        part = s.recv(65536)
                    except TimeoutError:  # nothing yet: one more byte (a dribbling client)
                        s.sendall(b"a")
                        continue
                    except ConnectionResetError:
                        break
                    if not part:
                        break
                    answer += part
                return answer, time.perf_counter() - started

        with reading(base, site["pages"], readers=2) as times:
            paused, after = slow(b"/rechner", dribble=False)
            dribbled, whole = slow(b"/api/calc", dribble=True)
    assert paused.startswith(b"HTTP/1.1 408") and 0.9 < after < 3, (paused[:200], after)
    assert b"connection: close" in paused.lower()
    assert "der Inhalt der Anfrage stockte länger als 1 Sekunden".encode() in paused
    assert dribbled.startswith(b"HTTP/1.1 408") and 2.5 < whole < 6, (dribbled[:200], whole)
    assert b"the request's body took more than 3 seconds to arrive" in dribbled
    assert times and max(t for _, t, _ in times) < SLOW_READ


def test_bodies_built_to_exhaust_a_parser_are_refused_with_422(site):
    """Deep nesting, a huge single line, tens of thousands of form fields: each a 422 that
    names the body, at once, never a 500 or a parser's recursion."""
    from fastapi.testclient import TestClient

    client = TestClient(create_app(engine_for(site["url"]), today=lambda: TODAY))
    me = {**bearer(site["token"]), "content-type": "application/json"}
    deep = "[" * 200_000 + "]" * 200_000
    r = client.post("/api/tournaments", content=deep, headers=me)
    assert r.status_code == 422 and "nested deeper than 64 levels" in r.text
    r = client.post("/api/calc", content='{"a":' * 100_000 + "1" + "}" * 100_000,
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["location"] == "body"
    started = time.perf_counter()
    r = client.post("/api/what-if/tournaments/trf", params={"filename": "line.trf"},
                    content=b"012 " + b"x" * 15_000_000, headers=bearer(site["token"]))  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["location"].startswith("line.trf")
    assert time.perf_counter() - started < 20
    fields = "&".join(f"f{k}=" for k in range(100_000))
    form = {"content-type": "application/x-www-form-urlencoded"}
    for path in ("/rechner", "/anmelden"):
        r = client.post(path, content=fields[:1_000_000], headers=form)
        assert r.status_code == 422, (path, r.status_code)
        assert "Der Inhalt der Anfrage ist nicht lesbar" in r.text, path
    many = {f"f{k}": (None, "x") for k in range(5000)}
    r = client.post("/rechner", files=many)
    assert r.status_code == 422


@pytest.mark.parametrize("width", (390, 1280))
def test_the_upload_page_shows_a_flood_as_its_first_problems_in_german(site, tmp_path, width):
    """In Chromium: the upload page answers a file with 100,000 faulty lines with its first
    100 problems and "und N weitere Probleme", within the page's width."""
    from playwright.sync_api import sync_playwright

    from tests.test_web_browser import CHROMIUM
    from tests.test_web_layout import OVERFLOW
    from tests.web_support import ARTIFACTS

    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is needed (apt-get install chromium)")
    with server(site["url"]) as base, sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = chromium.new_context(viewport={"width": width, "height": 900},
                                    locale="de-DE").new_page()  # fmt: skip
        page.goto(base + "/officer")
        page.fill("input[name=name]", "anna")
        page.fill("input[name=password]", PASSWORD)
        page.click("form[action='/anmelden'] button[type=submit]")
        page.wait_for_url(base + "/officer")
        measured = {}
        floods = {"flood.trf": faulty_trf(100_000), "flood.xml": faulty_report(100_000)}
        for name, data in floods.items():
            page.goto(base + "/officer/upload")
            page.set_input_files("input[name=file]", files=[
                {"name": name, "mimeType": "text/plain", "buffer": data}])  # fmt: skip
            page.click("form.stack button[type=submit]")
            page.wait_for_selector("#problems", timeout=60_000)
            rows = page.locator("table#problem-list tr.problem")
            assert rows.count() == 101, name
            last = rows.last.inner_text().split("\t")[-1].strip()
            assert re.fullmatch(r"und \d+ weitere Probleme", last), last
            measured[name] = page.evaluate(OVERFLOW)
            screens = ARTIFACTS / "screens"
            screens.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screens / f"officer-flood-{name}-{width}.png"))
        chromium.close()
    for name, m in measured.items():
        assert m["scrollWidth"] <= m["innerWidth"], (name, m)
        assert m["bad"] == [], (name, m)
