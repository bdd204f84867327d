"""The DWZ core's passes over the players in C (``ratingdb/rules/_fastdwz.c``).

``table`` is the extension module that setup.py builds: the rated games of a tournament,
the established players' pass (both precisions), the table precision's performances and
the table iteration of one player, each the Python version's values. None where it is
not built (no C compiler): the DWZ core then computes the same numbers in Python. Every
user reads ``compiled.table`` when it runs, so that a test can switch the extension off
in one place.
"""

from __future__ import annotations

from types import ModuleType

table: ModuleType | None
try:
    from ratingdb.rules import _fastdwz as table
except ImportError:  # pragma: no cover - an install without a C compiler
    table = None
