"""The life-cycle numbers of a Rechenmodul: how long residual games, a former member's
ratings, a late membership and a DWZ stay valid (WO 4.1.1, 3.4.3; classic DWZ 6.1.1).

They are not rating mathematics: the replay engine applies them around the evaluation
(``ratingdb/engine/inputs.py``, ``ratingdb/engine/lifecycle.py``). Every family's
parameter class inherits them from :class:`Lifecycle`, so a stored Rechenmodul keeps them
next to its formula numbers (one flat JSON object, ``--set retention_years=…`` as before),
and the engine reads them as one value, ``parameters.lifecycle``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

from pydantic.dataclasses import dataclass

from ratingdb.rules.parameters import SCHEMA, In

#: a period in years: 0 (at once, or never for ``rating_expiry_years``) to a century (the
#: KBSB family keeps a formula-1 player's games for 100 years); a longer one is no rule
YEARS = In(0, 100, "years: 0 to a century")


@dataclass(frozen=True, config=SCHEMA)
class Lifecycle:
    """Life-cycle periods in years (0 = never, for ``rating_expiry_years``)."""

    #: WO 4.1.1: residual games are valid for this many years after their tournament's end
    residual_validity_years: Annotated[int, YEARS] = 2
    #: WO 4.1.1: a former member's ratings are kept (and updated) this long after the last
    #: membership ended; afterwards the player is a textual participant
    retention_years: Annotated[int, YEARS] = 5
    #: WO 3.4.3: tournaments ending up to this long before joining count for a new member
    late_member_years: Annotated[int, YEARS] = 1
    #: classic DWZ 6.1.1: a DWZ without an evaluation for this many years is void
    #: (0 = never; WO 2026 and the other families keep a rating)
    rating_expiry_years: Annotated[int, YEARS] = 0

    def __post_init__(self) -> None:
        """Cross-field checks of a family (each field's own range is its schema's)."""

    @cached_property
    def lifecycle(self) -> Lifecycle:
        """The life-cycle numbers alone (a family's parameters carry more); built once per
        parameter object, since the engine asks for them for every participant."""
        return Lifecycle(
            self.residual_validity_years,
            self.retention_years,
            self.late_member_years,
            self.rating_expiry_years,
        )
