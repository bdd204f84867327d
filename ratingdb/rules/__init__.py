"""Pure rating mathematics, one module per rule family, no I/O.

Every family offers the same interface: ``evaluate(TournamentInput, parameters) ->
TournamentResult`` with a frozen parameter object (the Rechenmodul's numbers) that has
``to_dict``/``from_dict`` and ``with_precision``. :func:`get_family` looks one up by the
name used on the command line and in stored Rechenmodule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ratingdb.rules import dwz2026
from ratingdb.rules.model import TournamentInput, TournamentResult


@dataclass(frozen=True)
class RuleFamily:
    name: str
    description: str
    parameters: type
    evaluate: Callable[[TournamentInput, Any], TournamentResult]

    def default_parameters(self) -> Any:
        return self.parameters()


FAMILIES: dict[str, RuleFamily] = {
    dwz2026.RULES_NAME: RuleFamily(
        name=dwz2026.RULES_NAME,
        description="DWZ, DSB Wertungsordnung valid from the 2nd half of 2026",
        parameters=dwz2026.Dwz2026Parameters,
        evaluate=dwz2026.evaluate,
    ),
}


def get_family(name: str) -> RuleFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        raise KeyError(f"unknown rule family {name!r} (known: {known})") from None
