"""Running the command line as a user does, in-process with click's CliRunner and
``DATABASE_URL`` set (a subprocess costs ~2 s of imports per call; the process boundary
itself is tested in tests/test_db_cli.py and the ``python -m`` smoke tests)."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from click.testing import CliRunner

from ratingdb.cli import main

#: the command line's "today" in the tests (``RATINGDB_TODAY``, ratingdb/plausibility.py): the
#: worked example of WO Anhang 3.1 ends 2026-12-12 and may only be submitted once it ended
TODAY = "2026-12-31"


@dataclass(frozen=True)
class Completed:
    """What a finished command left: exit code, stdout, stderr (as subprocess gives)."""

    returncode: int
    stdout: str
    stderr: str


def run(
    args: list[str], url: Any, input: str | bytes | None = None, lang: str | None = "en"
) -> Completed:
    """``ratingdb ARGS`` against the database at ``url``, in English unless ``lang`` names
    another language (``RATINGDB_LANG``; ``None``: the command line's default, German). An
    exception that escapes the command is rendered into stderr as the traceback a user
    would see, exit code 1, so tests that assert "no traceback" still see one."""
    env = {"DATABASE_URL": url.render_as_string(hide_password=False), "RATINGDB_TODAY": TODAY}
    if lang is not None:
        env["RATINGDB_LANG"] = lang
    result = CliRunner().invoke(main, args, env=env, input=input, catch_exceptions=True)
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(result.exception)
        )
        code = code or 1
    return Completed(code, result.stdout, stderr)


def wo_2026_throughout(url) -> None:  # type: ignore[no-untyped-def]
    """The world of the worked example of WO Anhang 3.1: every rating (the residual games of
    2025 included) is already on the 2026 scale. A fresh database follows the DSB timeline
    (migration 0007: old rules until 2026-06-07, the Umstufung, WO 2026 from 2026-06-08), so
    the example's 2025 history gets WO 2026 from 2024 and the Umstufung is removed."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM rating_adjustments"))
    engine.dispose()
    out = run(["rechenmodul", "add", "--family", "dwz2026", "--version", "wo-example",
               "--valid-from", "2024-01-01"], url)  # fmt: skip
    assert out.returncode == 0, out.stderr
