"""What the replay engine stores per participant and tournament (a rating snapshot).

A snapshot output has exactly :data:`KEYS` (the columns of ``rating_snapshots``, see
docs/DESIGN.md for their meaning). The DWZ families produce it directly
(:meth:`PlayerResult.to_dict <ratingdb.rules.model.PlayerResult.to_dict>`); other tournament
families map their own results onto it in their ``snapshot`` modules. The engine only reads
``group``, ``stored``, ``rating_new``, ``index_new`` and ``new_residual_games`` to carry a
player's state; the rest is for displays. ``expected_games`` holds the P(D) of each of the
player's games in the tournament's game order (None: the game does not count; empty: no
W_e), as :attr:`PlayerResult.expected_games <ratingdb.rules.model.PlayerResult>`; the
scoresheet (WO Anhang 3.1.12) shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ratingdb.rules.model import TournamentInput

KEYS = (
    "group", "age_class", "rating_old", "index_old", "k", "opponents_avg", "score", "games",
    "expected", "performance", "exceptional", "start_value", "iteration_value", "rating_new",
    "index_new", "stored", "new_residual_games", "expected_games",
)  # fmt: skip

Outputs = Callable[[TournamentInput, Any], list[dict[str, Any]]]


def empty(**values: Any) -> dict[str, Any]:
    """A snapshot output with every key, ``values`` filled in, the rest empty."""
    out: dict[str, Any] = dict.fromkeys(KEYS)
    out.update(
        exceptional=False, stored=False, new_residual_games=[], score=0.0, games=0,
        expected_games=[],
    )  # fmt: skip
    out.update(values)
    return out


def from_tournament_result(evaluate: Callable[[TournamentInput, Any], Any]) -> Outputs:
    """Outputs of a family whose result is a TournamentResult (dwz2026, dwz-classic)."""

    def outputs(t: TournamentInput, params: Any) -> list[dict[str, Any]]:
        rows = []
        for p in evaluate(t, params).players:
            row = p.to_dict()
            del row["id"]
            row["expected_games"] = p.expected_games
            rows.append(row)
        return rows

    return outputs
