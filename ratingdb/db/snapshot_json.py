# cython: annotation_typing=False
"""The JSON columns of ``rating_snapshots``, encoded fast.

A full replay writes three JSON values per snapshot (``residual_in``,
``new_residual_games``, ``expected_games``): about a million per 60,000-player federation.
``json.dumps`` with compact separators builds a new encoder for every call, which cost the
writer thread (ratingdb/db/stream.py) more Python time than everything else it does. The
functions here give the text ``json.dumps(value, separators=(",", ":"))`` gives, character
for character (``tests/test_snapshot_json.py`` compares them), but

* an empty list or tuple is the constant ``[]`` (most snapshots hold no residual games and create
  none);
* held residual games are written straight from their fields;
* the P(D) of ``expected_games`` come from a few thousand rating differences, so each
  float's text is made once and then looked up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ratingdb.engine.model import ResidualEntry

EMPTY = "[]"
#: one encoder for everything else (``json.dumps`` with arguments makes one per call)
_ENCODER = json.JSONEncoder(separators=(",", ":"))
#: float -> its JSON text; bounded (cleared when full)
FLOAT_TEXT: dict[float, str] = {}
FLOAT_CACHE_SIZE = 1 << 16


def compact(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"))``."""
    if not value and isinstance(value, (list, tuple)):
        return EMPTY
    return _ENCODER.encode(value)


def residual_json(entries: Sequence[ResidualEntry]) -> str:
    """The held residual games as stored in ``residual_in``: the JSON of
    :meth:`ResidualEntry.as_json <ratingdb.engine.model.ResidualEntry.as_json>` of each."""
    if not entries:
        return EMPTY
    return (
        "["
        + ",".join(
            [
                f'{{"created_by":{r.created_by},"seq":{r.seq},'
                f'"opponent_rating":{r.opponent_rating},"score":"{r.score}",'
                f'"played_on":"{r.played_on.isoformat()}"}}'
                for r in entries
            ]
        )
        + "]"
    )


def floats_json(values: Sequence[float | None]) -> str:
    """A list of floats (or None) such as ``expected_games``; anything else in it is
    encoded by :func:`compact`."""
    texts = FLOAT_TEXT
    out: list[str] = []
    for x in values:
        if x is None:
            out.append("null")
            continue
        if type(x) is not float:
            return compact(list(values))
        text = texts.get(x)
        if text is None or not x:  # 0.0 and -0.0 are equal keys with other texts
            if x != x or x in (float("inf"), float("-inf")):
                return compact(list(values))  # NaN, Infinity: as json.dumps writes them
            text = float.__repr__(x)
            if len(texts) >= FLOAT_CACHE_SIZE:
                texts.clear()
            texts[x] = text
        out.append(text)
    return "[" + ",".join(out) + "]" if out else EMPTY
