"""The rating chart of the Karteikarte (WO 6.5.2.1 item 2): its points and its geometry,
shared by the page's inline SVG (:mod:`ratingdb.web.chart`) and the PDF
(:mod:`ratingdb.queries.documents`).

One point per stored evaluation, list takeover or rating adjustment (WO Anhang 4), in the
order of the Karteikarte. Time runs left to right (year or month ticks), the rating bottom to
top (ticks every 25 to 500 points, at most about six).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any


@dataclass(frozen=True, slots=True)
class ChartPoint:
    day: date
    rating: int
    index: int | None
    kind: str  # evaluation | takeover | adjustment
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.day,
            "rating": self.rating,
            "index": self.index,
            "kind": self.kind,
            "label": self.label,
        }


def chart_points(evaluations: list[dict[str, Any]]) -> list[ChartPoint]:
    """The rating after every stored evaluation, takeover and adjustment, in order."""
    points = []
    for e in evaluations:
        if not e.get("stored") or e.get("rating_new") is None:
            continue
        label = e.get("name") or e.get("tournament") or ""
        points.append(
            ChartPoint(e["end_date"], e["rating_new"], e.get("index_new"), e["kind"], label)
        )
    return points


def _tick_step(span: int) -> int:
    for step in (25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            return step
    return 1000


def _time_ticks(first: date, last: date, most: int) -> list[date]:
    years = [date(y, 1, 1) for y in range(first.year + 1, last.year + 1)]
    if len(years) >= 2:
        step = max(1, -(-len(years) // most))
        return years[::step]
    ticks = []
    y, m = first.year, first.month
    while True:
        m += 1
        if m > 12:
            y, m = y + 1, 1
        tick = date(y, m, 1)
        if tick > last:
            break
        ticks.append(tick)
    step = max(1, -(-len(ticks) // most))
    return ticks[::step]


@dataclass(frozen=True)
class Layout:
    """Where everything goes on a ``width`` x ``height`` canvas (y grows downwards)."""

    width: float
    height: float
    left: float
    right: float
    top: float
    bottom: float
    first: date
    last: date
    y_min: int
    y_max: int
    #: the rating grid lines
    rating_ticks: tuple[int, ...]
    #: the time grid lines with their labels (2025, or 03/25 within a year); one label at
    #: the middle when all points share a day
    time_ticks: tuple[tuple[date, str], ...]

    def x(self, day: date) -> float:
        plot = self.width - self.left - self.right
        if self.first == self.last:
            return self.left + plot / 2
        return self.left + plot * (day - self.first).days / (self.last - self.first).days

    def y(self, rating: int) -> float:
        plot = self.height - self.top - self.bottom
        return self.top + plot * (self.y_max - rating) / (self.y_max - self.y_min)


def layout(
    points: list[ChartPoint],
    *,
    width: float,
    height: float,
    margins: tuple[float, float, float, float],
    most_time_ticks: int = 8,
) -> Layout:
    """The geometry of a chart of ``points`` (at least one); ``margins``: left, right, top,
    bottom (room for the axis labels)."""
    first, last = points[0].day, points[-1].day
    low, high = min(p.rating for p in points), max(p.rating for p in points)
    step = _tick_step(max(high - low, 50))
    y_min = (low - step // 2) // step * step
    y_max = -(-(high + step // 2) // step) * step
    if first == last:
        time_ticks: tuple[tuple[date, str], ...] = ((first, first.isoformat()),)
    else:
        time_ticks = tuple(
            (t, str(t.year) if t.month == 1 else f"{t.month:02d}/{t.year % 100:02d}")
            for t in _time_ticks(first, last, most_time_ticks)
        )
    left, right, top, bottom = margins
    return Layout(
        width, height, left, right, top, bottom, first, last, y_min, y_max,
        tuple(range(y_min, y_max + 1, step)), time_ticks,
    )  # fmt: skip
