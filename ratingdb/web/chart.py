"""The rating chart of the Karteikarte as inline SVG, drawn on the server (WO 6.5.2.1 item 2).

One point (``circle.pt``) per stored evaluation, a square (``rect.event``) per list takeover
or rating adjustment (WO Anhang 4), joined by a line in the order of the Karteikarte. Time
runs left to right (year or month ticks), the rating bottom to top (ticks every 50, 100 or
200). Every mark has an SVG ``<title>`` (a tooltip without JavaScript) and the chart a
text description for screen readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any

from markupsafe import Markup

WIDTH, HEIGHT = 760, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 14, 30


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


def _time_ticks(first: date, last: date) -> list[date]:
    years = [date(y, 1, 1) for y in range(first.year + 1, last.year + 1)]
    if len(years) >= 2:
        step = max(1, len(years) // 8 + (1 if len(years) % 8 else 0))
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
    step = max(1, (len(ticks) + 7) // 8)
    return ticks[::step]


def rating_chart(points: list[ChartPoint], title: str) -> Markup:
    """The chart as an ``<svg>`` element (empty text when there is nothing to draw)."""
    if not points:
        return Markup("")
    first, last = points[0].day, points[-1].day
    days = max((last - first).days, 1)
    low, high = min(p.rating for p in points), max(p.rating for p in points)
    step = _tick_step(max(high - low, 50))
    y_min = (low - step // 2) // step * step
    y_max = -(-(high + step // 2) // step) * step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(day: date) -> float:
        if first == last:
            return LEFT + plot_w / 2
        return LEFT + plot_w * (day - first).days / days

    def y(rating: int) -> float:
        return TOP + plot_h * (y_max - rating) / (y_max - y_min)

    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-labelledby="chart-title chart-desc">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{len(points)} ratings from {first.isoformat()} to '
        f"{last.isoformat()}: from {points[0].rating} to {points[-1].rating}, lowest {low}, "
        f"highest {high}.</desc>",
    ]
    for value in range(y_min, y_max + 1, step):
        yy = y(value)
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end">{value}</text>'
        )
    if first != last:
        for tick in _time_ticks(first, last):
            xx = x(tick)
            text = str(tick.year) if tick.month == 1 else f"{tick.month:02d}/{tick.year % 100:02d}"
            out.append(
                f'<line class="grid" x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP}" '
                f'y2="{HEIGHT - BOTTOM}"/><text class="axis" x="{xx:.1f}" '
                f'y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{text}</text>'
            )
    else:
        out.append(
            f'<text class="axis" x="{x(first):.1f}" y="{HEIGHT - BOTTOM + 16}" '
            f'text-anchor="middle">{first.isoformat()}</text>'
        )
    coords = " ".join(f"{x(p.day):.1f},{y(p.rating):.1f}" for p in points)
    out.append(f'<polyline class="line" points="{coords}"/>')
    for p in points:
        rating = p.rating if p.index is None else f"{p.rating}-{p.index}"
        tip = escape(f"{p.day.isoformat()} {p.label}: {rating}")
        data = f'data-date="{p.day.isoformat()}" data-rating="{p.rating}"'
        if p.kind == "evaluation":
            out.append(
                f'<circle class="pt" cx="{x(p.day):.1f}" cy="{y(p.rating):.1f}" r="3.5" {data}>'
                f"<title>{tip}</title></circle>"
            )
        else:
            out.append(
                f'<rect class="event" x="{x(p.day) - 4:.1f}" y="{y(p.rating) - 4:.1f}" '
                f'width="8" height="8" {data}><title>{tip}</title></rect>'
            )
    out.append("</svg>")
    return Markup("".join(out))
