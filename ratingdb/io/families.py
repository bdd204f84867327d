"""Which JSON reader parses a rule family's ``ratingdb evaluate`` input (by input shape,
see :mod:`ratingdb.rules`): tournaments (docs/evaluate.md), rating periods and online game
lists (docs/rules-elo.md). Every reader returns ``(inputs, was_array)`` and raises
:class:`~ratingdb.errors.InputError` with the JSON path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ratingdb.io import elo_kbsb_json, elo_online_json, evaluate_json

PARSERS: dict[str, Callable[[Any], tuple[list[Any], bool]]] = {
    "tournament": evaluate_json.parse_document,
    "period": elo_kbsb_json.parse_document,
    "games": elo_online_json.parse_document,
}


def input_label(item: Any) -> str:
    """How an error names one input: tournament id, period id, or game list id."""
    for attr in ("tournament", "period"):
        info = getattr(item, attr, None)
        if info is not None:
            return f"{attr} {info.id}"
    return f"games {getattr(item, 'id', None) or ''}".strip()
