"""Write tests/data/swt/swtparser-samples.json: our own compact expectations for the sample
files of fnogatz/swtparser.js, taken from that repository's expected JSON (test/JSON/*.json).

Usage: python scripts/swt_expectations.py [GIT_DIR]

GIT_DIR is a clone or mirror of github.com/fnogatz/swtparser.js (default: the fetched mirror
/work/.mirror/fnogatz+swtparser.js/repo). Only what tests/test_swt.py asserts is kept (names,
card totals, and per player and round: colour, opponent, result, forfeit); the sample files
and their JSON stay in that repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DEFAULT = "/work/.mirror/fnogatz+swtparser.js/repo"
SAMPLES = ("SwissIndividual", "SwissTeam")
OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "swt" / "swtparser-samples.json"
#: selection 4002 (result): value modulo 4 -> points × 2 (0 = no result)
RESULT = {1: 0, 2: 1, 3: 2}


def show(git_dir: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"HEAD:{path}"], check=True, capture_output=True
    ).stdout


def expectations(doc: dict) -> dict:
    players = [
        {"id": int(p["2020"], 16), "name": p["2000"], "points2": p["2030"]} for p in doc["players"]
    ]
    pairings: dict[str, list[list[object]]] = {}
    for rec in doc["pairings_players"]:
        colour = {"4000-1": "w", "4000-2": "b", "4000-3": "w-bye", "4000-4": "b-bye"}.get(
            rec["4000"], "?"
        )
        value = int(rec["4002"].split("-")[1])
        status = rec["4005"].split("-")[1] if rec.get("4005") else "0"
        pairings.setdefault(str(int(rec["player"], 16)), []).append(
            [
                rec["round"],
                colour,
                int(rec["4001"], 16),
                RESULT.get(value % 4),
                "forfeit" if status in ("1", "4") else "",
            ]
        )
    return {"players": players, "pairings": pairings}


def main() -> None:
    git_dir = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    commit = subprocess.run(
        ["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True, capture_output=True,
        text=True,
    ).stdout.strip()  # fmt: skip
    out = {
        "source": f"github.com/fnogatz/swtparser.js@{commit} test/JSON/*.json",
        "samples": {
            name: expectations(json.loads(show(git_dir, f"test/JSON/{name}.json")))
            for name in SAMPLES
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
