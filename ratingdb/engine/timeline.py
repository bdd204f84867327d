"""The Rechenmodul timeline (WO Anhang 1.2): each tournament is evaluated with the version
valid at its end date."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules import Parameters, RuleFamily, get_family
from ratingdb.rules.lifecycle import Lifecycle


@dataclass(frozen=True)
class RechenmodulVersion:
    family: str
    version: str
    valid_from: date
    parameters: Parameters

    @cached_property
    def key(self) -> str:
        """``family/version`` (made once: a replay asks for it for every participant)."""
        return f"{self.family}/{self.version}"

    @property
    def rules(self) -> RuleFamily:
        return get_family(self.family)

    @property
    def lifecycle(self) -> Lifecycle:
        """The version's life-cycle numbers (ratingdb.rules.lifecycle)."""
        return self.parameters.lifecycle

    @classmethod
    def from_stored(
        cls, family: str, version: str, valid_from: date, parameters: dict[str, Any]
    ) -> RechenmodulVersion:
        """A version as stored (``rechenmodule.parameters``), validated by the same schema as
        every new one (:mod:`ratingdb.rules.parameters`): a row that would break a run is
        a RulesError naming the version, before any tournament is evaluated."""
        try:
            params = get_family(family).parameters.from_dict(parameters)
        except (KeyError, ValueError) as err:
            raise RulesError(f"Rechenmodul {family}/{version}: {err.args[0]}") from None
        return cls(family, version, valid_from, params)


class Timeline:
    """Versions ordered by valid-from date; ``at(d)`` is the one valid on day d."""

    def __init__(self, versions: list[RechenmodulVersion]) -> None:
        if not versions:
            raise ValueError("no Rechenmodul is defined")
        self.versions = sorted(versions, key=lambda v: v.valid_from)
        self._starts = [v.valid_from for v in self.versions]

    def at(self, day: date) -> RechenmodulVersion:
        pos = bisect.bisect_right(self._starts, day) - 1
        # before the first version: the first one applies (a history imported from earlier
        # times is evaluated with the oldest rules known)
        return self.versions[max(pos, 0)]
