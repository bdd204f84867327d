"""Build hook: the wheel carries the Alembic migrations (``migrations/`` at the top of the
repository) as ``ratingdb/_migrations``, so that an installed ratingdb can migrate its
database (``ratingdb db upgrade``, ``ratingdb demo``). ``ratingdb.db.migrate`` reads the
packaged copy when there is one and the repository's folder in a source checkout.

It also compiles the message catalogs (``ratingdb/locale/*/LC_MESSAGES/ratingdb.po``) into
the ``.mo`` files the wheel carries beside them (docs/i18n.md); an editable install or a
source checkout compiles the ``.po`` in memory instead (``ratingdb.i18n``).

It compiles the modules in :data:`CYTHON_MODULES` with Cython (their annotations are
Cython's pure-Python mode: the Python source is the only implementation). The extensions
are required: without a C compiler the install stops with one line that says so
(``BuildExtensions``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py


def compile_catalogs(locale: Path) -> None:
    """``ratingdb.mo`` beside every ``ratingdb.po`` under ``locale`` (Babel, no fuzzy)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(locale.glob("*/LC_MESSAGES/ratingdb.po")):
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parents[1].name, domain="ratingdb")
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)


class BuildWithMigrations(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads migrations/ and the .po files in place
        compile_catalogs(Path(self.build_lib) / "ratingdb" / "locale")
        source = Path(__file__).parent / "migrations"
        target = Path(self.build_lib) / "ratingdb" / "_migrations"
        shutil.copytree(
            source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
        )


class BuildExtensions(build_ext):
    """The extensions are part of the package: without a C compiler and Python's headers
    the install stops, with one line that says so (never a package without them)."""

    def run(self) -> None:
        from distutils.errors import CCompilerError, DistutilsExecError, DistutilsPlatformError

        try:
            super().run()
        except (CCompilerError, DistutilsExecError, DistutilsPlatformError, OSError) as e:
            raise SystemExit(
                "error: ratingdb's C extensions could not be built (a C compiler such as gcc "
                f"or clang and Python's development headers are needed): {e}"
            ) from None


#: Python modules compiled by Cython: the performances' iteration, the terms of a
#: first-rating group's equations, and the snapshot rows' COPY text with its JSON columns
#: (a full replay writes 1.2 million rows at 250,000 players)
CYTHON_MODULES = [
    "ratingdb/rules/single_root.py",
    "ratingdb/rules/group_terms.py",
    "ratingdb/db/snapshot_text.py",
    "ratingdb/db/snapshot_json.py",
]


def cython_extensions() -> list[Extension]:
    """:data:`CYTHON_MODULES` as extensions (Cython is a build requirement, pyproject.toml)."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        raise SystemExit(
            "error: ratingdb is compiled with Cython (pip installs it from pyproject.toml's "
            "build requirements; without build isolation: pip install 'cython>=3.1')"
        ) from None
    extensions = [
        Extension(
            path.removesuffix(".py").replace("/", "."),
            [path],
            # IEEE operations one by one, as Python computes them: no fused multiply-add
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"],
        )
        for path in CYTHON_MODULES
    ]
    return cythonize(extensions, language_level=3, quiet=True)  # type: ignore[no-any-return]


setup(
    cmdclass={"build_py": BuildWithMigrations, "build_ext": BuildExtensions},
    ext_modules=[*cython_extensions()],
)
