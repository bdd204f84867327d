"""`ratingdb db …` against a real server: migrations via DATABASE_URL, the embedded server's
start/status/stop in a private RATINGDB_HOME, and recovery from dead handle pids."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from ratingdb.cli import main
from ratingdb.db import embedded, migrate


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ratingdb.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "RATINGDB_LANG": "en", **env},
        timeout=120,
    )


def test_upgrade_current_downgrade_via_database_url(scratch_db):
    env = {"DATABASE_URL": scratch_db.render_as_string(hide_password=False)}
    assert run(["db", "current"], env).stdout.strip() == "base (empty database)"
    up = run(["db", "upgrade"], env)
    assert up.returncode == 0, up.stderr
    assert up.stdout.strip() == f"database at revision {migrate.head()}"
    assert run(["db", "current"], env).stdout.strip() == migrate.head()
    down = run(["db", "downgrade", "-1"], env)
    assert down.stdout.strip() == f"database at revision {migrate.down_revision(migrate.head())}"
    url = run(["db", "url"], env).stdout.strip()
    assert url.startswith("postgresql+psycopg://") and scratch_db.database in url


def test_bad_database_url_is_a_clear_error():
    result = run(["db", "current"], {"DATABASE_URL": "mysql://x@localhost/db"})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: DATABASE_URL:") and "Traceback" not in result.stderr


def test_unreachable_database_is_a_clear_error():
    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    result = run(["db", "upgrade"], {"DATABASE_URL": url})
    assert result.returncode == 2
    assert "cannot connect" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture
def private_home():
    home = Path(tempfile.mkdtemp(prefix="ratingdb-home-"))
    yield home
    embedded.stop(home)
    shutil.rmtree(home, ignore_errors=True)


def test_embedded_start_status_stop(private_home):
    env = {"RATINGDB_HOME": str(private_home), "RATINGDB_LANG": "en"}
    env_no_url = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | env
    runner = CliRunner()
    assert "not initialised" in runner.invoke(main, ["db", "status"], env=env_no_url).output
    started = run(["db", "start"], env)
    assert started.returncode == 0, started.stderr
    assert "running" in started.stdout
    # the server outlives the command that started it, and other commands attach to it
    assert "running" in run(["db", "status"], env).stdout
    assert run(["db", "upgrade"], env).stdout.strip() == f"database at revision {migrate.head()}"
    assert "running" in run(["db", "status"], env).stdout
    # `db url` shows the socket folder as a path, and the printed URL is one to copy
    url = run(["db", "url"], env).stdout.strip()
    assert "%2F" not in url and f"host={private_home}/" in url
    copied = run(["db", "current"], {**env, "DATABASE_URL": url})
    assert copied.returncode == 0 and copied.stdout.strip() == migrate.head()
    assert run(["db", "stop"], env).stdout.strip() == "embedded PostgreSQL stopped"
    assert "stopped" in run(["db", "status"], env).stdout


def test_on_demand_server_stops_with_its_last_user(private_home):
    env = {"RATINGDB_HOME": str(private_home)}
    assert run(["db", "upgrade"], env).returncode == 0
    assert "stopped" in run(["db", "status"], env).stdout


def test_serve_stops_the_server_it_started(private_home):
    """``ratingdb serve`` on the embedded server: started on demand, stopped when the web
    server stops (Ctrl-C, or SIGTERM as a service manager sends it); a server kept by ``db
    start`` stays up."""
    import signal
    import socket
    import time
    import urllib.request

    env = {"RATINGDB_HOME": str(private_home)}
    assert run(["db", "upgrade"], env).returncode == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def serve_once(sig: int = signal.SIGINT) -> None:
        # Ctrl-C as a terminal delivers it, also when the tests themselves run with SIGINT
        # ignored (nohup, a background job): an ignored signal is inherited across exec, a
        # handler is not, so the server starts with Python's own Ctrl-C handling
        before = signal.getsignal(signal.SIGINT)
        if before is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "ratingdb.cli", "serve", "--port", str(port)],
                env={**{k: v for k, v in os.environ.items() if k != "DATABASE_URL"}, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        finally:
            signal.signal(signal.SIGINT, before)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                        assert r.status == 200
                        break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline
                    time.sleep(0.5)
            assert "running" in embedded.status(private_home)
            proc.send_signal(sig)
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()

    serve_once()
    assert embedded.status(private_home) == "stopped"
    serve_once(signal.SIGTERM)
    assert embedded.status(private_home) == "stopped"
    assert run(["db", "start"], env).returncode == 0
    serve_once()
    assert "running" in embedded.status(private_home)


def test_dead_pids_are_dropped(private_home):
    pgdata = embedded.data_dir(private_home)
    pgdata.mkdir(parents=True)
    handles = pgdata / ".handle_pids.json"
    dead = 2**22 + 12345  # above the default pid_max
    handles.write_text(json.dumps([dead, os.getpid()]))
    assert embedded.drop_dead_pids(pgdata) == [dead]
    assert json.loads(handles.read_text()) == [os.getpid()]


def wal_level(env: dict[str, str]) -> str:
    """The embedded server's ``wal_level``, asked by ``ratingdb db url``'s URL."""
    import psycopg

    url = run(["db", "url"], env).stdout.strip().replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW wal_level").fetchone()
    assert row is not None
    return str(row[0])


def test_the_embedded_server_keeps_the_wal_crash_recovery_needs(private_home):
    """A new embedded server starts with ``wal_level = minimal`` (ratingdb/db/embedded.py:
    the first replay's snapshots written without WAL); a data folder made before has the
    settings added at its next start, once."""
    env = {"RATINGDB_HOME": str(private_home)}
    assert run(["db", "start"], env).returncode == 0
    assert wal_level(env) == "minimal"
    conf = embedded.data_dir(private_home) / "postgresql.conf"
    assert conf.read_text().count(embedded.SETTINGS_MARK) == 1
    assert run(["db", "stop"], env).returncode == 0
    # as a folder made by an earlier ratingdb: PostgreSQL's defaults
    text = conf.read_text()
    conf.write_text(text[: text.index(embedded.SETTINGS_MARK)])
    assert run(["db", "start"], env).returncode == 0
    assert wal_level(env) == "minimal"
    assert run(["db", "stop"], env).returncode == 0
    assert run(["db", "start"], env).returncode == 0
    assert conf.read_text().count(embedded.SETTINGS_MARK) == 1
    assert not embedded.configure(embedded.data_dir(private_home))


def test_settings_made_by_hand_stay(tmp_path):
    """A server someone set up to stream its WAL to a standby (``wal_level`` or
    ``max_wal_senders`` in ``postgresql.conf`` or by ``ALTER SYSTEM``) keeps its settings;
    PostgreSQL's commented defaults are no such setting."""
    conf = tmp_path / "postgresql.conf"
    defaults = "#wal_level = replica\t\t# minimal, replica, or logical\n#max_wal_senders = 10\n"
    conf.write_text(defaults)
    assert embedded.configure(tmp_path) and not embedded.configure(tmp_path)
    assert conf.read_text().count("wal_level = 'minimal'") == 1
    for by_hand in ("postgresql.conf", "postgresql.auto.conf"):
        conf.write_text(defaults)
        (tmp_path / by_hand).write_text(
            (defaults if by_hand == "postgresql.conf" else "") + "  max_wal_senders = 5\n"
        )
        assert not embedded.configure(tmp_path)
        assert embedded.SETTINGS_MARK not in conf.read_text()
        (tmp_path / "postgresql.auto.conf").unlink(missing_ok=True)


@pytest.mark.parametrize("content", ["", "[12"])
def test_an_empty_or_broken_handle_file_means_no_handles(private_home, content):
    """A kill while the wheel wrote its handle file left it empty or cut: commands work,
    with one warning line, and the file is whole again."""
    env = {"RATINGDB_HOME": str(private_home)}
    assert run(["db", "start"], env).returncode == 0
    handles = embedded.data_dir(private_home) / embedded.HANDLES
    handles.write_text(content)
    done = run(["db", "upgrade"], env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "DATABASE_URL" not in done.stderr
    assert done.stderr.count("\n") <= 1, done.stderr
    assert isinstance(json.loads(handles.read_text()), list)
    assert run(["db", "stop"], env).returncode == 0


def test_the_handle_file_is_written_whole(tmp_path):
    path = tmp_path / embedded.HANDLES
    embedded.write_handles(path, [1, 2, 3])
    assert json.loads(path.read_text()) == [1, 2, 3]
    assert [p.name for p in tmp_path.iterdir()] == [embedded.HANDLES]  # no temporary left
    assert embedded.read_handles(tmp_path / "missing.json") == []
    for broken in ("{}", '["x"]', "\x00\x00", "[true]"):
        path.write_text(broken)
        assert embedded.read_handles(path) == []


def test_a_killed_server_gives_one_line(private_home):
    """kill -9 of the embedded server under a command: every later command answers with
    at most one line on stderr (or works, the server started again), never a traceback."""
    import signal
    import time

    env = {"RATINGDB_HOME": str(private_home)}
    assert run(["db", "start"], env).returncode == 0
    pid = int((embedded.data_dir(private_home) / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)
    time.sleep(1)
    for args in (["db", "status"], ["db", "upgrade"], ["db", "current"], ["db", "stop"]):
        done = run(args, env)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") <= 1, (args, done.stderr)
