"""The evaluation order of WO 2.2.3 as one type, with its SQL and JSON forms.

WO 2.2.3 evaluates tournaments "in der Reihenfolge ihres Enddatums, bei gleichem Enddatum in
der Reihenfolge ihres Anfangsdatums, bei gleichem Anfangsdatum in der Reihenfolge der VKZ
des Ausrichters, danach in der Reihenfolge der Bearbeitung". :class:`OrderKey` holds exactly
these fields, in this order, and the tournament id last so that two keys are never equal:

``end``
    the tournament's last day (``tournaments.end_date``);
``start``
    its first day (``tournaments.start_date``);
``vkz``
    the organiser's VKZ as a string, compared character by character (Python's string
    order; PostgreSQL sorts the column in the "C" collation, which is the same order);
``processed_at``
    when the tournament was (last) submitted (``tournaments.processed_at``);
``id``
    the tournament's id, a tie-break the WO does not need but a total order does.

The same key is written three ways: as a Python value (compared with ``<``), as SQL (the
column list :data:`ORDER_COLUMNS` and row comparisons with :meth:`OrderKey.sql_params`) and
as JSON (stored in ``change_points.hold_key``). Keys written before this type existed carry
a constant ``0`` as their second element; :meth:`OrderKey.from_json` reads both forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

#: the key's columns of ``tournaments t``, ascending
ORDER_COLUMNS = "t.end_date, t.start_date, t.vkz, t.processed_at, t.id"
#: the same, descending (the latest tournament first)
ORDER_DESC = "t.end_date DESC, t.start_date DESC, t.vkz DESC, t.processed_at DESC, t.id DESC"
_PLACEHOLDERS = "(:k_end, :k_start, :k_vkz, :k_proc, :k_id)"
#: SQL condition: the tournament ``t`` is at or after the key in :meth:`OrderKey.sql_params`
KEY_AT_LEAST = f"({ORDER_COLUMNS}) >= {_PLACEHOLDERS}"
#: SQL condition: the tournament ``t`` is before the key in :meth:`OrderKey.sql_params`
KEY_BELOW = f"({ORDER_COLUMNS}) < {_PLACEHOLDERS}"
#: SQL condition: the tournament ``t`` is after the key in :meth:`OrderKey.sql_params`
KEY_ABOVE = f"({ORDER_COLUMNS}) > {_PLACEHOLDERS}"


@dataclass(frozen=True, slots=True, order=True)
class OrderKey:
    """A tournament's place in the evaluation order (WO 2.2.3); see the module text."""

    end: date
    start: date
    vkz: str
    processed_at: datetime
    id: int

    def sql_params(self) -> dict[str, Any]:
        """Bind parameters for :data:`KEY_AT_LEAST` and :data:`KEY_BELOW`."""
        return {
            "k_end": self.end,
            "k_start": self.start,
            "k_vkz": self.vkz,
            "k_proc": self.processed_at,
            "k_id": self.id,
        }

    def to_json(self) -> list[Any]:
        """``[end, start, vkz, processed_at, id]`` with dates and times as ISO strings."""
        return [
            self.end.isoformat(),
            self.start.isoformat(),
            self.vkz,
            self.processed_at.isoformat(),
            self.id,
        ]

    @classmethod
    def from_json(cls, data: list[Any]) -> OrderKey:
        """Read :meth:`to_json`'s form, or the older one with a constant ``0`` second."""
        if len(data) == 6:  # written before OrderKey: [end, 0, start, vkz, processed, id]
            data = [data[0], *data[2:]]
        end, start, vkz, processed, tid = data
        return cls(
            date.fromisoformat(end),
            date.fromisoformat(start),
            vkz,
            datetime.fromisoformat(processed),
            int(tid),
        )
