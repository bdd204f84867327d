"""Where the tests find the project's shared reference files: the real tournament files
(``corpus/``) and the DSB's specifications (``spec/``), read in place and never copied into
the repository.

``$RATINGDB_SHARED`` names the folder; without it, the first folder named ``shared`` with a
``corpus`` beside the repository or one of its parents (a git worktree sits one level deeper
than the main checkout). :func:`require` skips a test whose file is missing on a developer's
machine, and fails it in CI (``RATINGDB_CI``), where a missing file must not turn a test green.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _default() -> Path:
    here = Path(__file__).resolve().parent
    for parent in here.parents:
        if (parent / "shared" / "corpus").is_dir():
            return parent / "shared"
    return here.parents[1] / "shared"


SHARED = Path(os.environ["RATINGDB_SHARED"]) if os.environ.get("RATINGDB_SHARED") else _default()
CORPUS = SHARED / "corpus"
SPEC = SHARED / "spec"
DSB_XSD = SPEC / "DSB_DWZ_Tournament_2_5_1.xsd"


def require(path: Path) -> Path:
    """``path`` if it exists; else skip the test, or fail it in CI."""
    if not path.exists():
        message = f"the shared reference file {path} is not on this machine"
        if os.environ.get("RATINGDB_CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
