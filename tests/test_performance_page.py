"""The generated performance page (scripts/performance_page.py): what it writes for each
benchmark, and that docs/performance.md is its output."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@cache
def _script():
    spec = importlib.util.spec_from_file_location(
        "performance_page", ROOT / "scripts" / "performance_page.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_page_names_machine_date_command_load_and_output():
    page = _script()
    bench = page.Benchmark("rules", "The rules", "What it measures.", ("bench_rules.py", "--cpu"))
    failed = page.Benchmark("import", "Import", "Lists.", ("bench_import.py", "--players", "5"))
    text = page.render(
        datetime(2026, 12, 1, 9, 30, tzinfo=UTC),
        {"processor": "Test CPU", "cores": "2"},
        [page.Result(bench, "table: 1.0 ms", 3.2, 0.5, 1.5, 0),
         page.Result(failed, "Traceback ...", 1.0, 1.0, 1.0, 2)],
    )  # fmt: skip
    assert text.startswith(page.MARKER + "\n# Performance\n")
    assert "Measured on 2026-12-01 (UTC 09:30)" in text
    assert "| processor | Test CPU |" in text and "| cores | 2 |" in text
    assert "## The rules\n\nWhat it measures.\n" in text
    assert (
        "`python scripts/bench_rules.py --cpu` — 3 s in all; load average 0.5 before, 1.5 after:"
        in text
    )
    assert "```\ntable: 1.0 ms\n```" in text
    assert "**failed with exit code 2**" in text


def test_the_benchmarks_follow_the_options():
    page = _script()
    parser_args = ["--players", "1000", "--import-players", "500", "--curve", "10", "20"]
    chosen = page.benchmarks(page.arguments(parser_args))
    assert [b.name for b in chosen] == ["rules", "rules-mix", "recalc", "import", "curve"]
    assert chosen[2].argv == ("bench_recalc.py", "--players", "1000", "--years", "17")
    assert chosen[4].argv[:4] == ("bench_recalc.py", "--players", "10", "20")
    only = page.benchmarks(page.arguments(["--only", "import"]))
    assert [b.argv for b in only] == [("bench_import.py", "--players", "250000")]
    for b in chosen:
        assert (ROOT / "scripts" / b.argv[0]).is_file()


def test_docs_performance_is_the_generated_page():
    text = (ROOT / "docs" / "performance.md").read_text()
    page = _script()
    assert text.startswith(page.MARKER + "\n# Performance\n")
    assert "Measured on " in text and "| processor |" in text
    assert text.count("\n## ") >= 3  # the rules, the engine, the import
