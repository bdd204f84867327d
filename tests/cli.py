"""Running the command line as a user does: a subprocess with ``DATABASE_URL`` set."""

from __future__ import annotations

import os
import subprocess
import sys


def run(args: list[str], url, **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url.render_as_string(hide_password=False)}
    return subprocess.run(
        [sys.executable, "-m", "ratingdb.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        **kw,
    )


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
