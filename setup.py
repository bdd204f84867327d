"""Build hook: the wheel carries the Alembic migrations (``migrations/`` at the top of the
repository) as ``ratingdb/_migrations``, so that an installed ratingdb can migrate its
database (``ratingdb db upgrade``, ``ratingdb demo``). ``ratingdb.db.migrate`` reads the
packaged copy when there is one and the repository's folder in a source checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithMigrations(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads migrations/ in place
        source = Path(__file__).parent / "migrations"
        target = Path(self.build_lib) / "ratingdb" / "_migrations"
        shutil.copytree(
            source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
        )


setup(cmdclass={"build_py": BuildWithMigrations})
