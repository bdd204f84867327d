"""The README's example session: every command of its ``readme-example``
block runs on a fresh database with the files of ``examples/``, as a new user types it."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from tests.cli import run

ROOT = Path(__file__).parent.parent


def readme_commands() -> list[list[str]]:
    """The ``ratingdb`` lines of the code block after the ``readme-example`` marker."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- readme-example", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("ratingdb ")]


def test_the_readme_example_session_runs(scratch_db, monkeypatch):
    monkeypatch.chdir(ROOT)
    commands = readme_commands()
    assert commands[0] == ["db", "upgrade"] and len(commands) >= 8
    for path in (a for c in commands for a in c if a.startswith("examples/")):
        assert os.path.exists(path), path
    outputs = {}
    for args in commands:
        done = run(args, scratch_db, lang=None)  # as a user runs it: German
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr and "None" not in done.stdout, args
        outputs[" ".join(args[:2])] = done.stdout
    # the tournament file's players were matched by DSB id, the submission's new member and
    # guest took part, and the evaluation shows them
    assert "6 Spieler" in outputs["tournament import"] or "STM2026" in outputs["tournament import"]
    show = outputs["tournament show"]
    assert "Neumann, Tim" in show and "Gast, Gerd" in show and "Müller, Anna" in show
    assert "Wolf, Lea" in outputs["player card"]
    assert outputs["export list"].splitlines()[0].startswith("#;")  # German: ";"
