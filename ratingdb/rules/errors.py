"""Errors raised by the rules layer (part of the hierarchy of :mod:`ratingdb.errors`)."""

from __future__ import annotations

from ratingdb.errors import RatingdbError


class RulesError(RatingdbError):
    """A tournament cannot be evaluated under the rules (not an input-format problem)."""


class ConvergenceError(RulesError):
    """An iteration did not converge (WO Anhang 1.1.3): never loop forever."""

    def __init__(self, message: str, players: list[str]) -> None:
        super().__init__(message)
        self.players = players
