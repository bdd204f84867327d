#!/usr/bin/env python3
"""Benchmark of the data exchange: the DSB member list and a TRF tournament.

Prints wall times of: importing a member list of N players into an empty database (every
player new, every DWZ taken over), importing the next list (2 % left, 2 % joined, the rest
unchanged), parsing + importing a 300-player, 9-round Swiss tournament as TRF26 with GER
records, and exporting it again.

    python scripts/bench_import.py --players 250000

Without DATABASE_URL it starts a private embedded PostgreSQL in a temporary folder.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import date

from sqlalchemy.orm import Session

from ratingdb.db import migrate
from ratingdb.db.connection import connect, scratch_server
from ratingdb.io.dsb_list import parse_list
from ratingdb.io.trf import NationalRecord, TrfGame, TrfPlayer, TrfTournament, parse, write
from ratingdb.services.member_list import import_list
from ratingdb.services.trf_import import export_trf, import_trf

HEADER = (
    "ID,VKZ,Mgl-Nr,Status,Spielername,Geschlecht,Spielberechtigung,Geburtsjahr,"
    "Letzte-Auswertung,DWZ,Index,FIDE-Elo,FIDE-Titel,FIDE-ID,FIDE-Land"
)


def member_list(ids: list[int], rng: random.Random) -> bytes:
    rows = [HEADER]
    for pid in ids:
        club = f"C{pid % 2000:04d}"
        rated = pid % 7 != 0
        own = random.Random(pid)  # the same DWZ in every list
        dwz = f"{own.randint(800, 2400)},{own.randint(1, 60)}" if rated else ","
        rows.append(
            f'{pid},{club},{pid // 2000 + 1},A,"Spieler{pid},Vorname",M,D,'
            f"{1940 + pid % 70},,{dwz},,,,"
        )
    return ("\r\n".join(rows) + "\r\n").encode("cp1252")


def swiss(ids: list[int], rng: random.Random) -> TrfTournament:
    players = []
    for rank, pid in enumerate(ids, start=1):
        p = TrfPlayer(rank, "m", "", f"Spieler{pid}, Vorname", None, "GER", None,
                      1940 + pid % 70, None, None, [], 0)  # fmt: skip
        p.national["GER"] = NationalRecord("GER", rank, None, "", str(pid), "", None, 0)
        players.append(p)
    games = []
    for rnd in range(1, 10):
        order = list(range(1, len(ids) + 1))
        rng.shuffle(order)
        for k in range(0, len(order) - 1, 2):
            games.append(
                TrfGame(rnd, order[k], order[k + 1], rng.choice(["1-0", "0-1", "1/2-1/2"]))
            )
    return TrfTournament("bench", "Bench Open", date(2026, 9, 1), date(2026, 9, 9),
                         players=players, games=games)  # fmt: skip


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    print(f"{label:58} {time.perf_counter() - start:8.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--players", type=int, default=20000)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    args = parser.parse_args()
    rng = random.Random(1)
    with scratch_server(args.database_url) as url:
        migrate.upgrade(url)
        engine = connect(url)
        ids = list(range(100001, 100001 + args.players))
        first = member_list(ids, rng)
        rows = timed(f"parse member list ({len(ids)} rows, {len(first) // 1024} KiB)",
                     lambda: parse_list(first, "a.csv"))  # fmt: skip

        def load(rows, day):  # type: ignore[no-untyped-def]
            with Session(engine) as session, session.begin():
                return import_list(session, rows, day, "list.csv")

        report = timed("import it into the empty database", lambda: load(rows, date(2026, 1, 1)))
        print("   ", report.summary())
        keep = [pid for pid in ids if rng.random() > 0.02]
        joined = list(range(ids[-1] + 1, ids[-1] + 1 + args.players // 50))
        second = parse_list(member_list(keep + joined, rng), "b.csv")
        report = timed("import the next list (2 % left, 2 % joined)",
                       lambda: load(second, date(2026, 7, 1)))  # fmt: skip
        print("   ", report.summary())
        t = swiss(rng.sample(keep, 300), rng)
        text = write(t)
        parsed = timed(
            "parse a 300-player, 9-round TRF26 (1350 games)", lambda: parse(text, "s.trf")
        )

        def store():  # type: ignore[no-untyped-def]
            with Session(engine) as session, session.begin():
                return import_trf(session, parsed, code="BENCH", vkz="C0001")

        timed("import it (match 300 players by DSB id, write)", store)

        def export():  # type: ignore[no-untyped-def]
            with Session(engine) as session:
                return write(export_trf(session, "BENCH"))

        again = timed("export it as TRF26", export)
        assert parse(again, "again.trf").games == parsed.games
        engine.dispose()


if __name__ == "__main__":
    main()
