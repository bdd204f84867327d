"""The DSB's DWZ timeline as data (``ratingdb/data/dsb-timeline.json``).

One file is the source of every database's default Rechenmodule and rating adjustments
(migration 0007 seeds them from it) and of ``ratingdb evaluate --rechenmodul auto``, which
needs no database. Each Rechenmodul is valid from its date (a tournament's end date picks
it, WO Anhang 1.2); the adjustment is the Umstufung of WO Anhang 4. Dates and sources:
docs/engine.md, "The DSB timeline".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class TimelineEntry:
    family: str
    version: str
    valid_from: date
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class TimelineAdjustment:
    name: str
    effective_on: date
    formula: str
    raises_index: bool


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    text = resources.files("ratingdb").joinpath("data/dsb-timeline.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def rechenmodule() -> tuple[TimelineEntry, ...]:
    """The versions in order of their valid-from date."""
    entries = (
        TimelineEntry(
            r["family"],
            r["version"],
            date.fromisoformat(r["valid_from"]),
            r["description"],
            dict(r["parameters"]),
        )
        for r in _raw()["rechenmodule"]
    )
    return tuple(sorted(entries, key=lambda e: e.valid_from))


def adjustments() -> tuple[TimelineAdjustment, ...]:
    return tuple(
        TimelineAdjustment(
            a["name"], date.fromisoformat(a["effective_on"]), a["formula"], a["raises_index"]
        )
        for a in _raw()["adjustments"]
    )


def find(key: str) -> TimelineEntry:
    """A version by ``version`` or ``family/version``; KeyError names the known keys."""
    for entry in rechenmodule():
        if key in (entry.version, f"{entry.family}/{entry.version}"):
            return entry
    known = ", ".join(e.version for e in rechenmodule())
    raise KeyError(f"unknown Rechenmodul {key!r} (known: auto, {known})")


def at(day: date) -> TimelineEntry:
    """The version valid at ``day``; before the first one, the first (as the engine)."""
    entries = rechenmodule()
    valid = [e for e in entries if e.valid_from <= day]
    return valid[-1] if valid else entries[0]
