#!/usr/bin/env python3
"""Mixed load on the web service: public reads and officer writes at the same time.

Starts ``ratingdb serve`` on a loopback port against the database (``--database-url``, else
``DATABASE_URL``, else the embedded server of ``RATINGDB_HOME``), creates an officer whose
prefixes cover every tournament (``load-officer-<seed>``, with a fresh token), and runs
``--clients`` concurrent clients for ``--seconds``:

* readers (all but ``--writers``): a Karteikarte (JSON or page), an evaluation (JSON or
  page), the tournament list or a rating list, with a mean think time of ``--think`` s;
* writers (``--writers``): the officer's API on recent tournaments (ended within a year, as
  WO 6.2 allows): a what-if correction (PUT), a correction with the stored data (PUT), a
  what-if deletion, and a new tournament (POST) deleted again (DELETE), several writers on
  the same few tournaments so that their writes meet.

Reports the status counts per request kind; the latency of the reads, of all writes, and
of the edits (PUT, POST, DELETE) and what-ifs apart (p50/p90/p95/p99/max); the answers
from the page cache (``X-Cache: hit``); the number of server errors (5xx) and of
connections the server dropped; the server's own figures of the reads from their
``Server-Timing`` header (time in the app, waiting for a thread, in a thread, in the
database, the thread's CPU; per kind the means of the answers not from the cache), so that
the client's share of a latency can be told from the server's; with ``--slowest N`` the N
slowest reads with their server figures; and exits with 1 if any request was answered
with a 5xx.

The first ``--warmup`` seconds (default 10) run the same load uncounted, except for server
errors: a server just started compiles its templates, opens its connections and parses
its Rechenmodule at the first requests, and all 50 clients' first requests arrive within a
second, all missing the empty page cache. That burst is not the steady state a running
server is in, and it alone made the p99 of a 60 s run (its 50 slowest reads were all in
the first 3.4 s, up to 2.6 s each); ``--warmup 0`` measures it too.
The database keeps what the writes leave (each correction writes the tournament's own data
back; each added tournament is deleted again; both leave change points for the next run).

    python scripts/load_mixed.py --clients 50 --writers 6 --seconds 60 --think 0.5

Only 127.0.0.1 is contacted; every loop ends at ``--warmup`` + ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.connection import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_web import database_url, free_port, percentile, start_server

READS = {
    "card-json": "/api/players/{player}",
    "card": "/players/{player}",
    "evaluation-json": "/api/tournaments/{tournament}",
    "evaluation": "/tournaments/{tournament}",
    "tournaments": "/api/tournaments?limit=30",
    "list": "/api/lists?club={club}",
}


class Connection:
    """A minimal HTTP/1.1 keep-alive client (cheap for the load generator): any method, a
    JSON body, a bearer token; notices a connection the server closed."""

    def __init__(self, port: int, token: str = "") -> None:
        self.port, self.token = port, token
        self.hit = False  # whether the last answer came from the page cache (X-Cache: hit)
        self.timing: dict[str, float] = {}  # the last answer's Server-Timing (ms)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, bool]:
        """(status, whether the server announced ``Connection: close``)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw.split(b" ", 2)[1])
        length, closing, self.hit, self.timing = 0, False, False, {}
        for line in raw.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                closing = True
            elif name == b"x-cache":
                self.hit = value.strip() == b"hit"
            elif name == b"server-timing":
                self.timing = server_timing(value)
        await self.reader.readexactly(length)
        if closing:
            self.close()
        return status, closing

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def server_timing(value: bytes) -> dict[str, float]:
    """``{"app": 12.3, "queue": 0.4, ..., "trips": 1}`` of a ``Server-Timing`` header (ms;
    ``trips``: the database round trips, from the description of ``db``)."""
    out = {}
    for metric in value.decode("latin-1").split(","):
        name, *params = (part.strip() for part in metric.split(";"))
        for param in params:
            key, _, raw = param.partition("=")
            if key == "dur":
                out[name] = float(raw)
            elif key == "desc" and name == "db":
                out["trips"] = float(raw.strip('"').split()[0])
    return out


def prepare(url: str, seed: int, today: date) -> dict[str, Any]:
    """Read targets, the officer's token and the documents of recent tournaments."""
    from ratingdb.queries.tournament import submission_document
    from ratingdb.services.users import add_user, issue_token

    engine = connect(url)
    rng = random.Random(seed)
    with Session(engine) as session, session.begin():
        players = session.execute(
            text(
                "SELECT DISTINCT s.player_id FROM rating_snapshots s JOIN memberships m ON "
                "m.player_id = s.player_id WHERE s.stored AND m.valid_to IS NULL LIMIT 3000"
            )
        ).scalars().all()  # fmt: skip
        evaluated = session.execute(
            text(
                "SELECT t.code FROM tournaments t WHERE EXISTS (SELECT 1 FROM rating_snapshots "
                "s WHERE s.tournament_id = t.id) LIMIT 3000"
            )
        ).scalars().all()  # fmt: skip
        clubs = session.execute(
            text("SELECT vkz FROM organisations WHERE kind = 'club' LIMIT 500")
        ).scalars().all()  # fmt: skip
        recent = session.execute(
            text(
                "SELECT code FROM tournaments WHERE end_date >= :d AND end_date <= :t "
                "ORDER BY end_date DESC LIMIT 12"
            ),
            {"d": today - timedelta(days=360), "t": today},
        ).scalars().all()  # fmt: skip
        prefixes = sorted(set(session.execute(text("SELECT left(vkz, 1) FROM tournaments"))
                              .scalars()))  # fmt: skip
        name = f"load-officer-{seed}"
        if session.scalar(text("SELECT id FROM users WHERE name = :n"), {"n": name}) is None:
            add_user(session, name, "officer", prefixes, full_name="Load Officer")
        token = issue_token(session, name, label="load_mixed")
        documents = {code: submission_document(session, code) for code in recent}
        size = {
            t: session.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
            for t in ("players", "tournaments", "rating_snapshots")
        }
    engine.dispose()
    if len(documents) < 2:
        raise SystemExit("error: fewer than 2 tournaments ended within the last year to write on")
    rng.shuffle(players)
    return {
        "players": players, "tournaments": evaluated, "clubs": clubs, "token": token,
        "documents": documents, "size": size,
    }  # fmt: skip


async def run(port: int, args: argparse.Namespace, world: dict[str, Any]) -> dict[str, Any]:
    counts: Counter[tuple[str, int]] = Counter()
    read_ms: list[float] = []
    write_ms: list[float] = []
    by_kind: dict[str, list[float]] = {}
    dropped = 0
    hits: Counter[str] = Counter()
    server: dict[str, list[float]] = {}  # the reads' Server-Timing figures
    server_by_kind: dict[str, list[dict[str, float]]] = {}  # of the reads not from the cache
    began = time.monotonic()
    counted_from = began + args.warmup  # the first seconds warm the server up, uncounted
    deadline = counted_from + args.seconds
    slow: list[tuple[float, float, str, bool, dict[str, float]]] = []
    warm = [0, 0]  # the warm-up's requests: answered without and with a server error
    codes = list(world["documents"])[: max(2, args.hot)]

    async def call(conn: Connection, kind: str, method: str, path: str, body: Any = None) -> int:
        nonlocal dropped
        started = time.perf_counter()
        try:
            status, _ = await conn.request(method, path, body)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            status = 0  # the server closed the connection without saying so
            dropped += 1
            conn.close()
        elapsed = (time.perf_counter() - started) * 1000
        if time.monotonic() - elapsed / 1000 < counted_from:
            warm[status >= 500] += 1  # asked during the warm-up: only errors are reported
            return status
        (read_ms if method == "GET" else write_ms).append(elapsed)
        by_kind.setdefault(kind, []).append(elapsed)
        counts[(kind, status)] += 1
        hits[kind] += conn.hit
        if method == "GET":
            at = time.monotonic() - elapsed / 1000 - counted_from
            slow.append((elapsed, at, kind, conn.hit, dict(conn.timing)))
            if len(slow) > 4 * max(1, args.slowest):
                slow.sort(key=lambda x: -x[0])
                del slow[max(1, args.slowest) :]
        if method == "GET" and conn.timing:
            for name, ms in conn.timing.items():
                server.setdefault(name, []).append(ms)
            if not conn.hit:
                server_by_kind.setdefault(kind, []).append(conn.timing)
            server.setdefault("client - app", []).append(elapsed - conn.timing.get("app", 0))
        return status

    async def reader(k: int) -> None:
        rng = random.Random(args.seed * 1000 + k)
        conn = Connection(port)
        await asyncio.sleep(rng.uniform(0, 2 * args.think))
        while time.monotonic() < deadline:
            kind = rng.choice(list(READS))
            path = READS[kind].format(
                player=rng.choice(world["players"]),
                tournament=rng.choice(world["tournaments"]),
                club=rng.choice(world["clubs"] or ["000"]),
            )
            await call(conn, kind, "GET", path)
            await asyncio.sleep(rng.uniform(0, 2 * args.think))
        conn.close()

    async def writer(k: int) -> None:
        rng = random.Random(args.seed * 7000 + k)
        conn = Connection(port, world["token"])
        n = 0
        await asyncio.sleep(rng.uniform(0, 2 * args.think))
        while time.monotonic() < deadline:
            code = rng.choice(codes)
            doc = world["documents"][code]
            op = rng.randrange(5)
            if op == 0:
                await call(conn, "what-if PUT", "PUT", f"/api/what-if/tournaments/{code}", doc)
            elif op == 1:
                await call(conn, "PUT", "PUT", f"/api/tournaments/{code}", doc)
            elif op == 2:
                await call(conn, "what-if DELETE", "DELETE", f"/api/what-if/tournaments/{code}")
            else:
                n += 1
                new = json.loads(json.dumps(doc))
                new["tournament"]["id"] = f"LOAD-{args.seed}-{k}-{n}"
                status = await call(conn, "POST", "POST", "/api/tournaments", new)
                if status == 201:
                    await call(
                        conn, "DELETE", "DELETE", f"/api/tournaments/{new['tournament']['id']}"
                    )
            await asyncio.sleep(rng.uniform(0, 2 * args.think))
        conn.close()

    writers = min(args.writers, args.clients)
    await asyncio.gather(
        *(writer(k) for k in range(writers)),
        *(reader(k) for k in range(args.clients - writers)),
    )
    return {
        "counts": counts, "read_ms": read_ms, "write_ms": write_ms, "by_kind": by_kind,
        "dropped": dropped, "hits": hits, "server": server, "server_by_kind": server_by_kind,
        "seconds": time.monotonic() - counted_from, "warmup": args.warmup,
        "slow": sorted(slow, key=lambda x: -x[0])[: args.slowest], "warm": warm,
    }  # fmt: skip


def _server_means(timings: list[dict[str, float]]) -> str:
    """The mean server figures of a kind's answers not from the cache (ms)."""
    if not timings:
        return ""
    mean = {
        k: sum(t.get(k, 0) for t in timings) / len(timings) for k in ("app", "db", "cpu", "trips")
    }
    return (
        f"  server: app {mean['app']:.1f}, db {mean['db']:.1f} in {mean['trips']:.1f} trips, "
        f"cpu {mean['cpu']:.1f}"
    )


def report(result: dict[str, Any], args: argparse.Namespace, world: dict[str, Any]) -> int:
    counts: Counter[tuple[str, int]] = result["counts"]
    size = world["size"]
    print(
        f"database: {size['players']:,} players, {size['tournaments']:,} tournaments, "
        f"{size['rating_snapshots']:,} evaluations; {args.clients} clients ({args.writers} "
        f"writing on {min(args.hot, len(world['documents']))} tournaments) for "
        f"{result['seconds']:.0f} s after a warm-up of {result['warmup']:g} s "
        f"({sum(result['warm'])} requests, 5xx: {result['warm'][1]}), think time {args.think:g} s"
    )
    kinds = sorted({k for k, _ in counts})
    for kind in kinds:
        statuses = sorted((s, n) for (k, s), n in counts.items() if k == kind)
        ms = result["by_kind"].get(kind) or [0.0]
        print(
            f"  {kind:16} "
            + "  ".join(f"{s or 'dropped'}: {n}" for s, n in statuses).ljust(24)
            + f" p50 {percentile(ms, 50):6.1f}  p90 {percentile(ms, 90):6.1f}  "
            f"p99 {percentile(ms, 99):6.1f}  max {max(ms):6.1f} ms"
            + (f"  cached {result['hits'][kind]}" if result["hits"][kind] else "")
            + _server_means(result["server_by_kind"].get(kind, []))
        )
    reads, writes = result["read_ms"], result["write_ms"]
    total = sum(counts.values())
    errors = sum(n for (_, s), n in counts.items() if s >= 500)
    print(f"requests: {total} ({total / result['seconds']:.1f}/s); 5xx: {errors}; "
          f"connections dropped without 'Connection: close': {result['dropped']}")  # fmt: skip
    by_kind = result["by_kind"]
    edits = [ms for kind in ("PUT", "POST", "DELETE") for ms in by_kind.get(kind, [])]
    what_ifs = [ms for kind, values in by_kind.items() if kind.startswith("what-if")
                for ms in values]  # fmt: skip
    hits = sum(result["hits"].values())
    if reads:
        print(f"page cache: {hits} of {len(reads)} reads ({100 * hits / len(reads):.0f} %)")
    for label, values in (
        ("reads", reads), ("writes", writes), ("edits", edits), ("what-ifs", what_ifs)
    ):  # fmt: skip
        if values:
            print(
                f"{label:8} {len(values):5d}  p50 {percentile(values, 50):7.1f} ms  "
                f"p90 {percentile(values, 90):7.1f} ms  p95 {percentile(values, 95):7.1f} ms  "
                f"p99 {percentile(values, 99):7.1f} ms  "
                f"max {max(values):7.1f} ms"
            )
    if result["server"]:
        print("reads on the server (Server-Timing; 'client - app': the rest of the latency the")
        print("client saw, i.e. the network, the server's event loop and the client itself):")
        for name, values in result["server"].items():
            unit = "" if name == "trips" else " ms"  # trips: database round trips
            print(
                f"  {name:12} p50 {percentile(values, 50):7.1f}{unit}  "
                f"p90 {percentile(values, 90):7.1f}{unit}  "
                f"p99 {percentile(values, 99):7.1f}{unit}  "
                f"max {max(values):7.1f}{unit}  mean {sum(values) / len(values):6.1f}{unit}"
            )
    for ms, at, kind, hit, timing in result["slow"]:
        print(
            f"  slow read {ms:7.1f} ms at {at:5.1f} s  {kind:16} {'hit ' if hit else 'miss'}  "
            + " ".join(f"{k} {v:.0f}" for k, v in timing.items())
        )
    return 1 if errors or result["warm"][1] or result["dropped"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--writers", type=int, default=6, help="of the clients")
    parser.add_argument("--hot", type=int, default=3, help="tournaments the writers share")
    parser.add_argument("--seconds", type=float, default=60, help="measured, after the warm-up")
    parser.add_argument(
        "--warmup", type=float, default=10,
        help="seconds of the same load first, not counted (a server just started compiles "
        "its templates, opens its connections and fills its cache)",
    )  # fmt: skip
    parser.add_argument("--slowest", type=int, default=0, help="list the N slowest reads")
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds between requests")
    parser.add_argument("--workers", type=int, default=2, help="server processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start-seconds", type=float, default=300, help="for the server")
    parser.add_argument(
        "--port", type=int, default=None, help="load a server already running on this port"
    )
    args = parser.parse_args()

    url = database_url(args.database_url)
    world = prepare(url, args.seed, date.today())
    if args.port is not None:
        return report(asyncio.run(run(args.port, args, world)), args, world)
    port = free_port()
    server = start_server(url, port, args.workers, timeout=args.start_seconds)
    try:
        result = asyncio.run(run(port, args, world))
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except Exception:
            server.kill()
    return report(result, args, world)


if __name__ == "__main__":
    sys.exit(main())
