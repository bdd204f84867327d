"""Running the Alembic migrations of ``migrations/`` programmatically."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL

ROOT = Path(__file__).resolve().parents[2]


def alembic_config(url: URL) -> Config:
    """Alembic config for ``url`` (``%`` escaped as ``%%`` for the ini interpolation)."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    rendered = url.render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade(url: URL, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: URL, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


def current(url: URL) -> str | None:
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, pool

    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
