"""Input errors that name where the problem is (file, line/column or JSON path).

:class:`InputError` lives in :mod:`ratingdb.errors` (the one error hierarchy); this module
keeps the name importable for the readers in ``ratingdb.io``.
"""

from __future__ import annotations

from ratingdb.errors import InputError

__all__ = ["InputError"]
