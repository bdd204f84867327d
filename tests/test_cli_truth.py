"""A command line that tells the truth: every command's typical invocation
prints no Python ``None`` and no traceback, and the progress bar of a run counts the
tournaments it re-evaluates (none at all when there is nothing to do)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from ratingdb.cli import main
from tests.cli import run

ROOT = Path(__file__).parent.parent
DSB = ROOT / "tests" / "data" / "dsb"

#: commands not run here, and where they are tested
ELSEWHERE = {
    "db start": "tests/test_db_cli.py (a private embedded server)",
    "db stop": "tests/test_db_cli.py",
    "db downgrade": "tests/test_db_cli.py, tests/test_db_migrations.py",
    "serve": "tests/test_db_cli.py (serve stops the server it started)",
    "demo": ".ci/run (the installed wheel runs it)",
    "user password": "tests/test_web_sign_in.py (hidden prompt and --password-stdin)",
}

#: the session: a database built from examples/, then every other command as a user types it
SESSION: list[list[str]] = [
    ["db", "upgrade"],
    ["db", "current"],
    ["db", "url"],
    ["db", "status"],
    ["evaluate", "examples/wo-2026-example.json", "--format", "table"],
    ["calc", "--rating", "1500", "--index", "10", "--born", "1990", "--opponent", "1600:1"],
    ["clubs", "import", str(DSB / "vereine-current.csv"), str(DSB / "verbaende-current.csv")],
    ["clubs", "list"],
    ["players", "import", "examples/spieler.csv", "--date", "2026-08-03"],
    ["tournament", "import", "examples/stadtmeisterschaft-2026.trf"],
    ["tournament", "add", "examples/herbstopen-2026.json"],
    ["recalc", "--dry-run"],
    ["recalc"],
    ["recalc"],  # nothing pending
    ["runs"],
    ["runs", "--problems"],
    ["tournament", "list"],
    ["tournament", "show", "FO2026"],
    ["tournament", "export", "FO2026", "--format", "trf"],
    ["tournament", "export", "FO2026", ">", "{tmp}/fo.json"],
    ["tournament", "correct", "FO2026", "{tmp}/fo.json"],
    ["player", "search", "Mueller"],
    ["player", "search", "C0327-3"],
    ["player", "card", "Wolf, Lea"],
    ["player", "card", "8"],  # no DWZ yet
    ["player", "join", "8", "--club", "C0327", "--from", "2026-10-20"],
    ["player", "leave", "8", "--club", "C0327", "--on", "2026-11-01"],
    ["player", "leave", "8", "--club", "C0401", "--on", "2026-11-01"],
    ["recalc", "--quiet"],
    ["export", "evaluation", "FO2026", "--format", "csv"],
    ["export", "evaluations"],
    ["export", "list", "--club", "C0327", "--format", "csv"],
    ["rechenmodul", "list"],
    ["rechenmodul", "show", "2026.1"],
    ["rechenmodul", "add", "--version", "2026.2", "--valid-from", "2026-11-01", "--set", "r=0.08"],
    ["adjustment", "list"],
    ["adjustment", "add", "--date", "2026-11-15", "--keep-index"],
    ["user", "add", "anna", "--role", "officer", "--scope", "C0327"],
    ["user", "token", "anna"],
    ["user", "scope", "anna", "--scope", "C0327", "--scope", "C04"],
    ["user", "password", "anna", "--generate"],
    ["user", "list"],
    ["user", "revoke", "anna"],
    ["user", "role", "anna", "--role", "admin"],
    ["user", "role", "anna", "--role", "officer", "--scope", "C0327"],
    ["user", "disable", "anna"],
    ["user", "enable", "anna"],
    ["recalc", "--dry-run"],
    ["recalc"],
    ["runs"],
    ["tournament", "delete", "STM2026"],
    ["recalc"],
    ["runs"],
    ["player", "anonymise", "8"],
    ["synth", "--players", "40", "--years", "1", "--seed", "5"],
]


def leaf_commands(group: click.Group, path: tuple[str, ...] = ()) -> set[str]:
    out: set[str] = set()
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            out |= leaf_commands(cmd, (*path, name))
        else:
            out.add(" ".join((*path, name)))
    return out


def test_every_command_is_run_here_or_elsewhere():
    leaves = leaf_commands(main)
    ran = {" ".join(a[:2]) if " ".join(a[:2]) in leaves else a[0] for a in SESSION}
    assert leaves - ran - set(ELSEWHERE) == set()


def test_no_command_prints_none(scratch_db, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    failures = []
    for template in SESSION:
        args = [a.replace("{tmp}", str(tmp_path)) for a in template]
        target = None
        if ">" in args:
            args, target = args[: args.index(">")], Path(args[-1])
        done = run(args, scratch_db)
        if target is not None:
            target.write_text(done.stdout, encoding="utf-8")
        said = done.stdout + done.stderr
        if done.returncode != 0 or re.search(r"\bNone\b", said) or "Traceback" in said:
            failures.append((args, done.returncode, said[-600:]))
    assert failures == []


def test_the_progress_bar_counts_what_is_re_evaluated(scratch_db, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    start = SESSION.index(["players", "import", "examples/spieler.csv", "--date", "2026-08-03"])
    for args in [SESSION[0], *SESSION[start : start + 3]]:
        assert run(args, scratch_db).returncode == 0
    first = run(["recalc"], scratch_db)
    assert "recalculating" in first.stderr
    assert re.search(r"2 re-evaluated, 2/2 checked", first.stderr), first.stderr
    empty = run(["recalc"], scratch_db)
    assert empty.stdout.strip() == "nothing to recalculate: no pending changes"
    assert empty.stderr == ""  # no bar, no "0/?"
    # a corrected result in the later tournament: the run walks from its end and
    # re-evaluates it alone, and the bar says so
    doc = json.loads(run(["tournament", "export", "FO2026"], scratch_db).stdout)
    doc["games"][0]["result"] = "0-1"
    corrected = tmp_path / "fo.json"
    corrected.write_text(json.dumps(doc), encoding="utf-8")
    assert run(["tournament", "correct", "FO2026", str(corrected)], scratch_db).returncode == 0
    again = run(["recalc"], scratch_db)
    assert "1 re-evaluated, 1/1 checked" in again.stderr, again.stderr
    assert "re-evaluated 1 of 2 tournaments (from 2026-10-18)" in again.stdout
