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
