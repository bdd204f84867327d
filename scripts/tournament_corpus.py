#!/usr/bin/env python3
"""Read and round-trip every tournament file in a directory; print one table row per file.

    python scripts/tournament_corpus.py DIR [--encoding cp1252] [--complete-rounds]
                                            [--start YYYY-MM-DD --end YYYY-MM-DD]

Each file (TRF, SWI, DSB or DeWIS XML: detected from the content, as ``ratingdb tournament
import`` does) is read; an accepted one is written as TRF and read again. Columns: file,
program (guessed from the content), accepted, warnings, errors, the fields lost on the round
trip (:func:`ratingdb.io.trf.differences`: ``-`` when none) and how many players' points
column is kept (written points = the file's points column; only players whose file has one).
A file that is not valid in the file's own encoding is tried as windows-1252; ``--start`` /
``--end`` give dates to files without any (pairing programs' test files, some SWT files),
as ``tournament import`` does. The last line
sums up; the exit code is 0 (the table is the result)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import Any

# the reader of this checkout, not whichever ratingdb happens to be installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratingdb.errors import InputError
from ratingdb.io import trf
from ratingdb.io.tournament_file import read_tournament

#: (needle in the text, program): the first that matches names the program
SIGNS = (
    ("DSB_DWZ_TournamentReport", "DSB TournamentReport XML"),
    ("<dewis", "DeWIS XML (ChessLeagueManager)"),
    ("### ratingdb", "ratingdb"),
    ("\n182 Sharly Chess", "Sharly-Chess"),
    ("### TRF 2025 sample", "FIDE TRF-2025/26 sample"),
    ("DDD SSSS sTTT", "Swiss-Manager"),
    ("lichess.org", "lichess"),
    ("Vega", "Vega"),
    ("AutoTest Tournament", "bbpPairings / RTG generator"),
    ("Player0001", "JaVaFo RTG generator"),
    ("\n142 ", "TRF-2026 writer"),
    ("\nXXR", "JaVaFo / TRF(x)"),
    ("\nXXC", "JaVaFo / TRF(x)"),
)


def program(text: str, name: str) -> str:
    """The program that wrote a file, guessed from signs in its text."""
    for needle, who in SIGNS:
        if needle in text:
            return who
    if "062 " in text and "(" in text.split("062 ", 1)[1].split("\n", 1)[0]:
        return "Swiss-Manager"
    if name.lower().endswith(".swi"):
        return "SwissChess / SWI"
    if name.lower().endswith(".swt"):
        return "SwissChess SWT"
    return "unknown"


def row(
    path: Path, encoding: str | None, complete_rounds: bool, dates: tuple[date | None, ...]
) -> tuple[str, ...]:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    who = program(text, path.name)
    options: dict[str, Any] = {"complete_rounds": complete_rounds, "start": dates[0],
                               "end": dates[1]}  # fmt: skip
    try:
        try:
            t = read_tournament(raw, path.name, encoding, **options)
        except InputError as err:
            if encoding is None and "is not valid utf-8" in str(err):
                t = read_tournament(raw, path.name, "cp1252", **options)
            else:
                raise
    except InputError as err:
        problems = getattr(err, "problems", None) or [(err.location, err.message)]
        first = str(problems[0][1])[:60]
        return (path.name, who, "no", "-", str(len(problems)), first, "-")
    try:
        again = trf.parse(trf.write(t), "again.trf")
    except InputError as err:  # e.g. two games of one player in one round (an SWI writer)
        message = str(getattr(err, "problems", [("", err.message)])[0][1])[:60]
        return (path.name, who, "yes", str(len(t.warnings)), "0", f"TRF: {message}", "-")
    lost = ", ".join(trf.differences(t, again)) or "-"
    with_points = [p for p in t.players if p.points is not None]
    kept = sum(1 for p in with_points if again.player(p.start_rank).points == p.points)
    return (path.name, who, "yes", str(len(t.warnings)), "0", lost,
            f"{kept}/{len(with_points)}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--encoding", default=None)
    parser.add_argument("--complete-rounds", action="store_true")
    parser.add_argument("--start", type=date.fromisoformat, default=None)
    parser.add_argument("--end", type=date.fromisoformat, default=None)
    args = parser.parse_args()
    files = sorted(p for p in args.directory.rglob("*") if p.is_file() and p.stat().st_size)
    header = ("file", "program", "accepted", "warnings", "errors", "lost on round trip",
              "points kept")  # fmt: skip
    dates = (args.start, args.end)
    rows = [row(p, args.encoding, args.complete_rounds, dates) for p in files]
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    accepted = [r for r in rows if r[2] == "yes" and "/" in r[6]]
    kept = sum(int(r[6].split("/")[0]) for r in accepted)
    total = sum(int(r[6].split("/")[1]) for r in accepted)
    print(
        f"\n{sum(1 for r in rows if r[2] == 'yes')} of {len(rows)} files accepted; points "
        f"column kept for {kept} of "
        f"{total} players; {sum(1 for r in accepted if r[5] != '-')} files lost a field"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
