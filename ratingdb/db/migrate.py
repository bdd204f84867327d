"""Running the Alembic migrations of ``migrations/`` programmatically."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL

#: the migrations inside an installed wheel (copied there by setup.py) ...
PACKAGED = Path(__file__).resolve().parents[1] / "_migrations"
#: ... and in a source checkout (an editable install)
SOURCE = Path(__file__).resolve().parents[2] / "migrations"


class MigrationsMissing(RuntimeError):
    """Neither the packaged nor the source migrations exist (a broken installation)."""


def script_location() -> Path:
    """Where the Alembic scripts are: the wheel's copy, else the repository's folder."""
    for folder in (PACKAGED, SOURCE):
        if (folder / "env.py").is_file():
            return folder
    raise MigrationsMissing(
        f"the database migrations are missing (looked in {PACKAGED} and {SOURCE}): "
        "reinstall ratingdb"
    )


def _base_config() -> Config:
    """Alembic's configuration without an ini file (alembic.ini only serves developers who
    run the ``alembic`` command in the repository)."""
    config = Config()
    config.set_main_option("script_location", str(script_location()))
    return config


def alembic_config(url: URL) -> Config:
    """Alembic config for ``url`` (``%`` escaped as ``%%`` for the ini interpolation)."""
    config = _base_config()
    rendered = url.render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade(url: URL, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: URL, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


def current(url: URL) -> str | None:
    from alembic.runtime.migration import MigrationContext

    from ratingdb.db.connection import connect

    engine = connect(url)
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head() -> str:
    """The newest revision in ``migrations/``."""
    from alembic.script import ScriptDirectory

    revision = ScriptDirectory.from_config(_base_config()).get_current_head()
    assert revision is not None
    return revision


def down_revision(revision: str) -> str | None:
    """The revision before ``revision``."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_base_config()).get_revision(revision)
    down = script.down_revision if script is not None else None
    return down if isinstance(down, str) or down is None else down[0]
