"""Pure rating mathematics, one module per rule family, no I/O.

Every family offers the same interface: ``evaluate(input, parameters) -> result`` with a
frozen parameter object (the Rechenmodul's numbers) that has ``to_dict``/``from_dict`` and
``with_precision``, and a result with ``to_dict(trace=...)``. The input has one of three
shapes (``RuleFamily.shape``):

* ``tournament``: one tournament (:class:`~ratingdb.rules.model.TournamentInput`), rated as a
  whole with first-rating iterations: dwz2026, dwz-classic, ingo;
* ``period``: every game between two rating lists, rated from the list before: elo-kbsb;
* ``games``: games in the order they ended, each rated at once: elo-online.

``outputs`` is how the replay engine runs a family on one tournament of the database
(one snapshot output per participant, :mod:`ratingdb.rules.snapshots`): the DWZ families
directly, Ingo through its snapshot mapping, online Elo rating the tournament's games one by
one, and the periodic KBSB Elo collecting a period's games and rating them at the next
list (``periodic``, see ratingdb/engine/periods.py). :func:`get_family` looks a
family up by the name used on the command line and in stored Rechenmodule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Protocol

from ratingdb.rules import dwz2026, dwz_classic, elo_kbsb, elo_online, ingo
from ratingdb.rules.elo_kbsb import engine as kbsb_engine
from ratingdb.rules.elo_online import tournament as online_tournament
from ratingdb.rules.ingo import snapshot as ingo_snapshot
from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import Precision
from ratingdb.rules.snapshots import Outputs, from_tournament_result

Shape = Literal["tournament", "period", "games"]


@dataclass(frozen=True)
class Periodic:
    """How the engine closes a rating period of a periodic family (ratingdb/engine/periods.py):
    ``period_of(day, params)`` -> (period start, next list date); ``close_period(rating,
    games_before, history, period_games, list_date, params)`` -> (rating, games after, keep
    the games)."""

    period_of: Callable[[date, Any], tuple[date, date]]
    close_period: Callable[..., tuple[int | None, int, bool]]


class Parameters(Protocol):
    """A Rechenmodul's numbers, as every family's frozen parameter dataclass offers them:
    the precision (``table`` or ``float``), the life-cycle numbers the engine applies
    (:mod:`ratingdb.rules.lifecycle`), and the JSON form stored with the Rechenmodul."""

    @property
    def precision(self) -> str: ...

    @property
    def lifecycle(self) -> Lifecycle: ...

    def to_dict(self) -> dict[str, Any]: ...

    def with_precision(self, precision: Precision) -> Parameters: ...


class ParameterClass(Protocol):
    """A family's parameter class: ``ParameterClass()`` gives the defaults of the rules,
    ``from_dict`` reads a stored Rechenmodul's JSON (ValueError naming a bad key,
    :mod:`ratingdb.rules.parameters`)."""

    def __call__(self) -> Parameters: ...

    def from_dict(self, data: dict[str, Any]) -> Parameters: ...


@dataclass(frozen=True)
class RuleFamily:
    name: str
    description: str
    parameters: ParameterClass
    evaluate: Callable[[Any, Any], Any]
    shape: Shape = "tournament"
    #: the replay engine's evaluation: a tournament -> one snapshot output per participant
    #: (ratingdb.rules.snapshots); None for a family the engine cannot run
    outputs: Outputs | None = None
    #: set for a family rated per period (the engine closes periods at list dates)
    periodic: Periodic | None = None

    @property
    def engine(self) -> bool:
        return self.outputs is not None

    def default_parameters(self) -> Parameters:
        return self.parameters()


FAMILIES: dict[str, RuleFamily] = {
    f.name: f
    for f in (
        RuleFamily(
            dwz2026.RULES_NAME,
            "DWZ, DSB Wertungsordnung valid from the 2nd half of 2026",
            dwz2026.Dwz2026Parameters,
            dwz2026.evaluate,
            outputs=from_tournament_result(dwz2026.evaluate),
        ),
        RuleFamily(
            dwz_classic.RULES_NAME,
            "classic DWZ (development coefficient E), the DSB's rules before 2026",
            dwz_classic.DwzClassicParameters,
            dwz_classic.evaluate,
            outputs=from_tournament_result(dwz_classic.evaluate),
        ),
        RuleFamily(
            ingo.RULES_NAME,
            "Ingo system (the DSB's rating before DWZ; lower is stronger)",
            ingo.IngoParameters,
            ingo.evaluate,
            outputs=ingo_snapshot.outputs,
        ),
        RuleFamily(
            elo_kbsb.RULES_NAME,
            "Elo of the Belgian federation KBSB (two lists a year)",
            elo_kbsb.KbsbParameters,
            elo_kbsb.evaluate,
            shape="period",
            outputs=kbsb_engine.outputs,
            periodic=Periodic(kbsb_engine.period_of, kbsb_engine.close_period),
        ),
        RuleFamily(
            elo_online.RULES_NAME,
            "Logistic Elo of an online server (rated game by game)",
            elo_online.OnlineEloParameters,
            elo_online.evaluate,
            shape="games",
            outputs=online_tournament.outputs,
        ),
    )
}


def get_family(name: str) -> RuleFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        raise KeyError(f"unknown rule family {name!r} (known: {known})") from None
