"""What the replay engine stores per participant and tournament (a rating snapshot).

A snapshot output is a :class:`SnapshotOutput` (the output columns of
``rating_snapshots``). The DWZ families produce it from their result
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
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any

from ratingdb.rules.model import PlayerResult, TournamentInput, pickled_by_fields

Number = int | float


@pickled_by_fields
@dataclass(slots=True)
class SnapshotOutput:
    """One participant's outputs of one evaluation, as stored in ``rating_snapshots``.
    Not frozen, though nothing changes one once it is made: a full replay makes one per
    participant in its worker and again in its own process, 0.2 µs each where a frozen
    dataclass's 18 ``object.__setattr__`` calls take 1.5 µs (1.2 million participants at
    250,000 players). It holds lists, so it was never hashable.

    ``group`` is the WO 3.4/3.5 group (``established``, ``first_stage``,
    ``second_stage``, ``remaining``, ``unrated``, … per family); ``rating_old``/
    ``index_old`` R_0 and its index; ``k`` the development coefficient (E in classic
    DWZ); ``opponents_avg`` R_c; ``score``/``games`` W and n; ``expected`` W_e;
    ``performance`` R_h; ``exceptional`` the Sonderwertung; ``start_value`` and
    ``iteration_value`` a first rating's R_i and its iterated value; ``rating_new``/
    ``index_new`` R_n and its index; ``stored`` whether R_n becomes the player's rating;
    ``new_residual_games`` the Restpartien this tournament created (JSON objects with
    ``opponent_rating``, ``score``, ``date``); ``expected_games`` each game's P(D).
    """

    group: str | None = None
    age_class: str | None = None
    rating_old: int | None = None
    index_old: int | None = None
    k: Number | None = None
    opponents_avg: int | None = None
    score: float = 0.0
    games: int = 0
    expected: Number | None = None
    performance: int | None = None
    exceptional: bool = False
    start_value: int | None = None
    iteration_value: int | None = None
    rating_new: int | None = None
    index_new: int | None = None
    stored: bool = False
    new_residual_games: list[dict[str, Any]] = field(default_factory=list)
    expected_games: list[float | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with exactly :data:`KEYS` (the form displays and
        :meth:`PlayerResult.from_dict <ratingdb.rules.model.PlayerResult.from_dict>` read)."""
        out = {name: getattr(self, name) for name in KEYS}
        out["new_residual_games"] = list(self.new_residual_games)
        out["expected_games"] = list(self.expected_games)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SnapshotOutput:
        """From a family result's dict; keys other than :data:`KEYS` (``id``, traces) are
        not outputs of a snapshot and are left out."""
        return cls(**{k: data[k] for k in KEYS if k in data})


#: the output columns, in the order of ``rating_snapshots``
KEYS = tuple(f.name for f in fields(SnapshotOutput))

Outputs = Callable[[TournamentInput, Any], list[SnapshotOutput]]


def empty(**values: Any) -> SnapshotOutput:
    """A snapshot output with ``values`` filled in, the rest empty."""
    return SnapshotOutput(**values)


#: the float of each Decimal a DWZ result holds (K or E, the score, W_e: a few thousand
#: values, most of them the very objects the rules keep made), converted once: ``float()``
#: of a Decimal goes through its text (0.22 µs against 0.08 µs, three a snapshot); bounded
_FLOATS: dict[Decimal, float] = {}
_FLOATS_SIZE = 1 << 16


def as_float(value: Decimal | float) -> float:
    """``float(value)``, a Decimal's looked up in :data:`_FLOATS` first. Only finite
    non-zero Decimals go in (-0 and 0 are one key with two floats; a NaN is never equal),
    so a hit is always the float of the value asked for."""
    if type(value) is not Decimal:
        return float(value)
    try:
        found = _FLOATS.get(value)
    except TypeError:  # a signalling NaN cannot be hashed: float() says what it says
        return float(value)
    if found is not None:
        return found
    found = float(value)
    if value and value.is_finite():
        if len(_FLOATS) >= _FLOATS_SIZE:
            _FLOATS.clear()
        _FLOATS[value] = found
    return found


def of_result(p: PlayerResult) -> SnapshotOutput:
    """A DWZ player's result as a snapshot output: what
    ``SnapshotOutput.from_dict(p.to_dict())`` gives with ``expected_games`` added
    (``tests/test_snapshot_outputs.py`` compares the two), without the dictionary between."""
    return SnapshotOutput(
        p.group,
        p.age_class,
        p.rating_old,
        p.index_old,
        None if p.k is None else as_float(p.k),
        p.opponents_avg,
        as_float(p.score),
        p.games,
        None if p.expected is None else as_float(p.expected),
        p.performance,
        p.exceptional,
        p.start_value,
        p.iteration_value,
        p.rating_new,
        p.index_new,
        p.stored,
        [g.to_dict() for g in p.new_residual_games],
        p.expected_games,
    )


def from_tournament_result(evaluate: Callable[..., Any]) -> Outputs:
    """Outputs of a family whose result is a TournamentResult (dwz2026, dwz-classic),
    evaluated without the trace (``traced=False``: a snapshot stores none)."""

    def outputs(t: TournamentInput, params: Any) -> list[SnapshotOutput]:
        return [of_result(p) for p in evaluate(t, params, traced=False).players]

    return outputs
