#!/usr/bin/env python3
"""Load test of the web pages: Karteikarte and evaluation display under concurrent clients.

Starts ``ratingdb serve`` on a loopback port against the database (``--database-url``, else
``DATABASE_URL``, else the embedded server of ``RATINGDB_HOME``), picks random published
players with evaluations and random evaluated tournaments, and lets ``--clients`` concurrent
clients request each page kind ``--requests`` times (after a warm-up). A client waits
``--think`` seconds on average between its requests (0: back to back, which measures the
saturated server). Prints p50/p90/p99/max latency and throughput per page kind.

    python scripts/load_web.py --clients 50 --requests 3000 --think 0.5

Only 127.0.0.1 is contacted; every loop is bounded by a request count and ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time
from datetime import date

import httpx
import psutil
from sqlalchemy import text

from ratingdb.db.connection import connect

PAGES = {
    "card": "/players/{player}",
    "card-json": "/api/players/{player}",
    "evaluation": "/tournaments/{tournament}",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url(given: str | None) -> str:
    from ratingdb.db.connection import database_url as configured
    from ratingdb.db.connection import normalise_url

    url = normalise_url(given) if given else configured()
    return url.render_as_string(hide_password=False)


def samples(url: str, size: int, seed: int) -> tuple[list[int], list[str], dict[str, int]]:
    engine = connect(url)
    with engine.connect() as conn:
        conn.execute(text("SELECT setseed(:s)"), {"s": (seed % 1000) / 1000})
        players = (
            conn.execute(
                text(
                    "SELECT m.player_id FROM memberships m WHERE m.valid_from <= :d "
                    "AND (m.valid_to IS NULL OR m.valid_to >= :d) AND EXISTS (SELECT 1 FROM "
                    "rating_snapshots s WHERE s.player_id = m.player_id AND s.stored) "
                    "GROUP BY m.player_id ORDER BY random() LIMIT :n"
                ),
                {"d": date.today(), "n": size},
            )
            .scalars()
            .all()
        )
        tournaments = (
            conn.execute(
                text(
                    "SELECT t.code FROM tournaments t WHERE EXISTS (SELECT 1 FROM "
                    "rating_snapshots s WHERE s.tournament_id = t.id) ORDER BY random() LIMIT :n"
                ),
                {"n": size},
            )
            .scalars()
            .all()
        )
        size_info = {
            "players": conn.execute(text("SELECT count(*) FROM players")).scalar_one(),
            "tournaments": conn.execute(text("SELECT count(*) FROM tournaments")).scalar_one(),
            "snapshots": conn.execute(text("SELECT count(*) FROM rating_snapshots")).scalar_one(),
        }
    engine.dispose()
    return list(players), list(tournaments), size_info


def start_server(url: str, port: int, workers: int, timeout: float = 60) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": url}
    cmd = [sys.executable, "-m", "ratingdb.cli", "serve", "--port", str(port),
           "--workers", str(workers), "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"error: the server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/tournaments?limit=1").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"error: the server did not answer within {timeout:g} s")


class Connection:
    """A minimal HTTP/1.1 keep-alive client: a load generator must cost little CPU itself
    (httpx's async client cost more CPU per request than the server did)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> int:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await self.reader.readexactly(length)
        return status

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def load(
    port: int, paths: list[str], clients: int, think: float, max_seconds: float
) -> tuple[list[float], int, float]:
    """Request every path once with ``clients`` concurrent clients; latencies in ms."""
    latencies: list[float] = []
    errors = 0
    queue = list(reversed(paths))
    deadline = time.monotonic() + max_seconds

    async def client(rng: random.Random) -> None:
        nonlocal errors
        conn = Connection(port)
        if think:  # users arrive at random times, not all in the same millisecond
            await asyncio.sleep(rng.uniform(0, 2 * think))
        try:
            while queue and time.monotonic() < deadline:
                path = queue.pop()
                started = time.perf_counter()
                try:
                    ok = await conn.get(path) == 200
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    ok = False
                    conn.close()
                    conn = Connection(port)
                latencies.append((time.perf_counter() - started) * 1000)
                errors += not ok
                if think:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
        finally:
            conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(random.Random(k)) for k in range(clients)))
    return latencies, errors, time.perf_counter() - started


def cpu_seconds(server: subprocess.Popen[bytes]) -> dict[str, float]:
    """CPU time used so far by the server processes, PostgreSQL and this client."""

    def total(procs: list[psutil.Process]) -> float:
        out = 0.0
        for p in procs:
            try:
                t = p.cpu_times()
                out += t.user + t.system
            except psutil.Error:
                pass
        return out

    root = psutil.Process(server.pid)
    postgres = [p for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"]
    return {
        "server": total([root, *root.children(recursive=True)]),
        "postgres": total(postgres),
        "client": total([psutil.Process()]),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=2000, help="per page kind")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds between requests")
    parser.add_argument("--workers", type=int, default=2, help="server processes")
    parser.add_argument("--pages", default="card,evaluation", help=f"of {','.join(PAGES)}")
    parser.add_argument("--max-seconds", type=float, default=600, help="per page kind")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    url = database_url(args.database_url)
    players, tournaments, size = samples(url, 5000, args.seed)
    print(
        f"database: {size['players']:,} players, {size['tournaments']:,} tournaments, "
        f"{size['snapshots']:,} evaluations; sampled {len(players)} published players with "
        f"evaluations, {len(tournaments)} evaluated tournaments"
    )
    port = free_port()
    server = start_server(url, port, args.workers)
    rng = random.Random(args.seed)
    try:
        print(
            f"server: {args.workers} worker(s); {args.clients} concurrent clients, think time "
            f"{args.think:g} s, {args.requests} requests per page kind"
        )
        for kind in args.pages.split(","):
            pattern = PAGES[kind]

            def path(pattern: str = pattern) -> str:
                return pattern.format(
                    player=rng.choice(players), tournament=rng.choice(tournaments)
                )

            asyncio.run(load(port, [path() for _ in range(200)], args.clients, 0, 60))  # warm
            cpu_before = cpu_seconds(server)
            lat, errors, seconds = asyncio.run(
                load(
                    port,
                    [path() for _ in range(args.requests)],
                    args.clients,
                    args.think,
                    args.max_seconds,
                )
            )
            print(
                f"{kind:11} {len(lat):6d} requests {errors} errors  {len(lat) / seconds:7.1f} req/s"
                f"  p50 {percentile(lat, 50):6.1f} ms  p90 {percentile(lat, 90):6.1f} ms  "
                f"p99 {percentile(lat, 99):6.1f} ms  max {max(lat):6.1f} ms"
            )
            cpu = cpu_seconds(server)
            print(
                "            CPU per request: "
                + ", ".join(f"{k} {(cpu[k] - cpu_before[k]) * 1000 / len(lat):.1f} ms" for k in cpu)
            )
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
