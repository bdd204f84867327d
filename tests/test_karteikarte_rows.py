"""Published DeWIS Karteikarte rows, evaluated with the default DSB timeline.

Each fixture in tests/data/karteikarte/ is a ``ratingdb evaluate`` input built by
scripts/karteikarte_fixtures.py from one published row (source, assumptions and what it
tests are in the fixture's ``source`` and ``note``). The opponents are not published: they
are constructed so that the published W_e comes out, except where a source names them
(DP-8, DP-10, DP-AKT). ``--rechenmodul auto`` must reproduce every published new DWZ and
index exactly, and the published W_e to three decimals.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from ratingdb.cli import main
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules import dsb_timeline, get_family
from ratingdb.rules.adjustments import formula
from ratingdb.rules.dwz_classic.versions import CLASSIC
from tests.conftest import DATA

FIXTURES = sorted((DATA / "karteikarte").glob("*.json"))
#: WO 2026 table precision sums P(D) in thousandths (4.345); nu publishes the unrounded
#: sum 4.344 - the new DWZ is the same (docs/engine.md, "Texts and published numbers")
WE_TOLERANCE = {"DP-AKT": 0.001}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_fixtures_cover_every_rule():
    notes = " ".join(load(p)["note"] for p in FIXTURES)
    assert len(FIXTURES) >= 12
    for feature in ("youth acceleration", "braking supplement", "5 * index", "E <= 30",
                    "index 6", "WO 2026"):  # fmt: skip
        assert feature in notes, feature
    for path in FIXTURES:
        doc = load(path)
        assert doc["source"] and "J=" in doc["note"]
        assert "opponents constructed" in doc["note"] or "opponents as published" in doc["note"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_published_row_is_reproduced_with_the_auto_timeline(path: Path):
    doc = load(path)
    out = CliRunner().invoke(main, ["evaluate", str(path), "--rechenmodul", "auto"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    player = result["players"][0]
    published = doc["published"]
    assert (player["rating_new"], player["index_new"]) == (
        published["rating_new"],
        published["index_new"],
    )
    assert (player["games"], player["score"]) == (published["games"], published["score"])
    tolerance = WE_TOLERANCE.get(path.stem, 0)
    assert abs(player["expected"] - published["expected"]) <= tolerance + 1e-9
    end = date.fromisoformat(doc["tournament"]["end"])
    assert result["rechenmodul"] == dsb_timeline.at(end).version
    expected_version = "2026.1" if end >= date(2026, 6, 8) else "dwz-2014"
    if end >= date(2016, 8, 1) and end < date(2026, 6, 8):
        expected_version = "dwz-2016"
    assert result["rechenmodul"] == expected_version


def test_the_classic_rules_miss_the_youth_and_braking_rows():
    """The E of the 1990s text (no fB, no SBr) gives other numbers for these rows: the
    published rows of 2011-2013 were rated with the 2014 formulas."""
    family = get_family("dwz-classic")
    missed = []
    for key in ("TIS-4", "TIS-6", "LEH-2", "LEH-6"):
        doc = load(DATA / "karteikarte" / f"{key}.json")
        params = replace(CLASSIC, precision="float", probability="normal")
        result = family.evaluate(parse_tournament(doc), params)
        if result.players[0].rating_new != doc["published"]["rating_new"]:
            missed.append(key)
    assert missed == ["TIS-4", "TIS-6", "LEH-2", "LEH-6"]


@pytest.mark.parametrize(
    ("source", "old", "new"),
    [
        # Samson1964/contao-wertungsportal-bundle CHANGELOG.md v1.15.0: NU4342718
        ("NU4342718", (1366, 21), (1634, 22)),
        # Karteikarte NU4241593 row 11 (Schachverein-Dresden-Striesen.github.io @27c6a7a)
        ("NU4241593", (2063, 15), (2080, 16)),
    ],
)
def test_published_umstufung_rows(source, old, new):
    """WO Anhang 4: 0.64 * 1366 + 760 = 1634.24 -> 1634; 0.64 * 2063 + 760 = 2080.32 -> 2080;
    the index advances by one (the timeline's adjustment raises it)."""
    (umstufung,) = dsb_timeline.adjustments()
    assert umstufung.effective_on.isoformat() == "2026-06-07" and umstufung.raises_index
    rating, index = old
    assert (formula(umstufung.formula)(rating), index + 1) == new, source
