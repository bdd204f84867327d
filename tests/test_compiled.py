"""What setup.py compiles with Cython is what runs: every module of ``CYTHON_MODULES`` is
imported as an extension module, built from the source beside it (an edited module that
was not rebuilt fails here, with the command that rebuilds it)."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cython_modules() -> list[str]:
    """``CYTHON_MODULES`` as setup.py lists them (read, not imported: importing setup.py
    would run the build)."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "CYTHON_MODULES" for t in targets):
                assert node.value is not None
                return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py lists no CYTHON_MODULES")


def test_setup_compiles_the_performances_iteration() -> None:
    assert "ratingdb/rules/single_root.py" in cython_modules()


def test_every_cython_module_runs_compiled_from_its_current_source() -> None:
    for path in cython_modules():
        name = path.removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        built = Path(module.__file__ or "")
        assert built.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), (
            f"{name} is not compiled ({built}): pip install -e . builds it"
        )
        source = built.parent / Path(path).name
        if source.exists():  # a wheel may carry the extension only
            assert source.stat().st_mtime <= built.stat().st_mtime, (
                f"{source} is newer than {built.name}: rebuild with pip install -e ."
            )
