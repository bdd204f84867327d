#!/usr/bin/env python3
"""Time of each DeWIS SOAP operation on a running ``ratingdb serve`` (docs/dewis.md, "Speed").

The arguments come from the server's own JSON API (the best player of the federation, his
club, the newest tournament, the commonest surname among the top list); each operation is
called once (a miss of the page cache: the time of the database work) and then ``--repeat``
times (hits: the time of the cache and the client). Prints a Markdown table.

    ratingdb serve --port 8000 &
    python scripts/bench_dewis.py --url http://127.0.0.1:8000 --repeat 20

Only 127.0.0.1 is contacted; every loop is bounded by ``--repeat``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from urllib.parse import urlparse

import httpx

ENVELOPE = (
    '<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope '
    'xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="https://soap" '
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><SOAP-ENV:Body>'
    "<ns1:{op}>{args}</ns1:{op}></SOAP-ENV:Body></SOAP-ENV:Envelope>"
)


def call(operation: str, *args: object) -> bytes:
    parts = "".join(
        f'<param{i} xsi:type="xsd:{"int" if isinstance(v, int) else "string"}">{v}</param{i}>'
        for i, v in enumerate(args)
    )
    return ENVELOPE.format(op=operation, args=parts).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--repeat", type=int, default=20)
    options = parser.parse_args()
    if urlparse(options.url).hostname not in ("127.0.0.1", "localhost"):
        sys.exit("error: --url must be a loopback address")
    soap = options.url.rstrip("/") + "/services/soap/index.php"
    with httpx.Client(base_url=options.url, timeout=120) as client:
        top = client.get("/api/lists/top", params={"organisation": "000", "limit": 200}).json()
        best = top["rows"][0]
        surname = Counter(r["surname"] for r in top["rows"]).most_common(1)[0][0]
        newest = client.get("/api/tournaments", params={"limit": 1}).json()["items"][0]
        year = str(newest["end_date"])[:4]
        calls = {
            f"searchByName({surname}, '', 0, 500)": call("searchByName", surname, "", 0, 500),
            f"tournamentCardForId({best['player_id']})": call(
                "tournamentCardForId", best["player_id"]
            ),
            f"unionRatingList({best['vkz']})": call("unionRatingList", best["vkz"]),
            "bestOfFederation(00000, 100)": call("bestOfFederation", "00000", 100),
            f"tournamentsByPeriod({year})": call(
                "tournamentsByPeriod", f"{year}-01-01", f"{year}-12-31", "000"
            ),
            f"tournament({newest['code']})": call("tournament", newest["code"]),
            f"tournamentPairings({newest['code']})": call("tournamentPairings", newest["code"]),
            "organizations(00000)": call("organizations", "00000"),
        }
        client.post(soap, content=call("ratingOfficer", 1))  # warm-up: the first call's imports
        print("| call | answer | first call | repeated (median) |")
        print("|---|---|---|---|")
        for name, body in calls.items():
            started = time.perf_counter()
            first = client.post(soap, content=body)
            took = (time.perf_counter() - started) * 1000
            if first.status_code != 200 or "<faultstring>" in first.text:
                sys.exit(f"error: {name}: {first.status_code} {first.text[:200]}")
            again = []
            for _ in range(max(1, options.repeat)):
                started = time.perf_counter()
                client.post(soap, content=body)
                again.append((time.perf_counter() - started) * 1000)
            print(
                f"| `{name}` | {len(first.content):,} B | {took:.0f} ms "
                f"({first.headers.get('x-cache', '-')}) | {statistics.median(again):.1f} ms |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
