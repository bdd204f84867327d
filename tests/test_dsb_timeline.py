"""The DSB timeline as data (ratingdb/data/dsb-timeline.json) and `ratingdb evaluate
--rechenmodul`."""

from __future__ import annotations

import importlib.util
import json
from datetime import date

from click.testing import CliRunner

from ratingdb.cli import main
from ratingdb.rules import dsb_timeline, get_family
from ratingdb.rules.dwz_classic.versions import VERSIONS
from tests.conftest import DATA

ROOT = DATA.parents[1]

EXAMPLE = str(ROOT / "ratingdb" / "data" / "wo-2026-example.json")


def test_timeline_dates_and_parameters():
    entries = dsb_timeline.rechenmodule()
    assert [(e.version, e.valid_from.isoformat()) for e in entries] == [
        ("dwz-elobase", "1993-01-01"),
        ("dwz-wo2002", "2002-05-09"),
        ("dwz-2014", "2011-01-01"),
        ("dwz-2016", "2016-08-01"),
        ("2026.1", "2026-06-08"),
    ]
    for entry in entries:  # every stored parameter set is valid; the classic ones complete
        params = get_family(entry.family).parameters.from_dict(entry.parameters)
        if entry.family == "dwz-classic":
            assert params == VERSIONS[entry.version]
            assert params.to_dict() == entry.parameters
    spec = importlib.util.spec_from_file_location(
        "m0002", ROOT / "migrations" / "versions" / "0002_seed_dwz2026_rechenmodul.py"
    )
    assert spec and spec.loader
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    assert entries[-1].parameters == seed.PARAMETERS  # the 2026 version is the seeded one
    (umstufung,) = dsb_timeline.adjustments()
    assert (umstufung.effective_on, umstufung.formula) == (date(2026, 6, 7), "dwz-2026-umstufung")


def test_at_and_find():
    assert dsb_timeline.at(date(1980, 1, 1)).version == "dwz-elobase"  # before: the oldest
    assert dsb_timeline.at(date(2002, 5, 8)).version == "dwz-elobase"
    assert dsb_timeline.at(date(2002, 5, 9)).version == "dwz-wo2002"
    assert dsb_timeline.at(date(2010, 12, 31)).version == "dwz-wo2002"
    assert dsb_timeline.at(date(2016, 7, 31)).version == "dwz-2014"
    assert dsb_timeline.at(date(2026, 6, 7)).version == "dwz-2016"
    assert dsb_timeline.at(date(2026, 6, 8)).version == "2026.1"
    assert dsb_timeline.find("dwz2026/2026.1").version == "2026.1"


def evaluate(*args: str):
    return CliRunner().invoke(main, ["evaluate", EXAMPLE, *args])


def test_evaluate_default_is_unchanged_and_rechenmodul_picks_a_version():
    default = json.loads(evaluate().output)
    assert default["rules"] == "dwz2026" and "rechenmodul" not in default
    auto = json.loads(evaluate("--rechenmodul", "auto").output)  # ends 2026-12-12
    assert auto["rechenmodul"] == "2026.1" and auto["players"] == default["players"]
    old = json.loads(evaluate("--rechenmodul", "dwz-2014").output)
    assert (old["rules"], old["rechenmodul"], old["precision"]) == (
        "dwz-classic",
        "dwz-2014",
        "float",
    )
    # player A (adult, 2220-31): E capped at 30 (E0 = 2.22^4 + 15 = 39.3)
    assert old["players"][0]["e"] == 30 and old["players"][0]["rating_new"] == 2238
    table = evaluate("--rechenmodul", "dwz-2014", "--format", "table").output
    assert "Rechenmodul: dwz-2014" in table.splitlines()[0]
    bad = evaluate("--rechenmodul", "dwz-1999")
    assert bad.exit_code == 2 and "unbekanntes Rechenmodul 'dwz-1999'" in bad.output
