"""Input errors that name where the problem is (file, line/column or JSON path)."""

from __future__ import annotations


class InputError(Exception):
    """Bad input. ``location`` is a JSON path like ``$.games[3].result`` or ``line 3``."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.message = message
