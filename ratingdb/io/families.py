"""Which JSON reader parses a rule family's ``ratingdb evaluate`` input (by input shape,
see :mod:`ratingdb.rules`): tournaments (docs/evaluate.md), rating periods and online game
lists (docs/rules-elo.md). Every reader returns ``(inputs, was_array)`` and raises
:class:`~ratingdb.errors.InputError` with the JSON path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ratingdb.i18n import _
from ratingdb.io import elo_kbsb_json, elo_online_json, evaluate_json

PARSERS: dict[str, Callable[[Any], tuple[list[Any], bool]]] = {
    "tournament": evaluate_json.parse_document,
    "period": elo_kbsb_json.parse_document,
    "games": elo_online_json.parse_document,
}


def input_label(item: Any) -> str:
    """How an error names one input, in the language in force: tournament id, period id,
    or game list id."""
    tournament = getattr(item, "tournament", None)
    if tournament is not None:
        return _("tournament %(id)s") % {"id": tournament.id}
    period = getattr(item, "period", None)
    if period is not None:
        return _("period %(id)s") % {"id": period.id}
    games = getattr(item, "id", None)
    return _("games %(id)s") % {"id": games} if games else _("games")
