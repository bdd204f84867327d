"""The life-cycle numbers of a Rechenmodul: how long residual games, a former member's
ratings, a late membership and a DWZ stay valid (WO 4.1.1, 3.4.3; classic DWZ 6.1.1).

They are not rating mathematics: the replay engine applies them around the evaluation
(``ratingdb/engine/inputs.py``, ``ratingdb/engine/lifecycle.py``). Every family's
parameter class inherits them from :class:`Lifecycle`, so a stored Rechenmodul keeps them
next to its formula numbers (one flat JSON object, ``--set retention_years=…`` as before),
and the engine reads them as one value, ``parameters.lifecycle``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Lifecycle:
    """Life-cycle periods in years (0 = never, for ``rating_expiry_years``)."""

    #: WO 4.1.1: residual games are valid for this many years after their tournament's end
    residual_validity_years: int = 2
    #: WO 4.1.1: a former member's ratings are kept (and updated) this long after the last
    #: membership ended; afterwards the player is a textual participant
    retention_years: int = 5
    #: WO 3.4.3: tournaments ending up to this long before joining count for a new member
    late_member_years: int = 1
    #: classic DWZ 6.1.1: a DWZ without an evaluation for this many years is void
    #: (0 = never; WO 2026 and the other families keep a rating)
    rating_expiry_years: int = 0

    def __post_init__(self) -> None:
        for name in (
            "residual_validity_years",
            "retention_years",
            "late_member_years",
            "rating_expiry_years",
        ):
            value = getattr(self, name)
            if value < 0:
                raise ValueError(f"{name} cannot be negative, got {value}")

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
