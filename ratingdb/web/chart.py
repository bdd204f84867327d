"""The rating chart of the Karteikarte as inline SVG, drawn on the server (WO 6.5.2.1 item 2;
points and geometry: :mod:`ratingdb.queries.chart`).

One point (``circle.pt``) per stored evaluation, a square (``rect.event``) per list takeover
or rating adjustment (WO Anhang 4), joined by a line in the order of the Karteikarte. Every
mark has an SVG ``<title>`` (a tooltip without JavaScript) and the chart a text description
for screen readers. The SVG scales with its ``viewBox`` to the width of the page; on a phone
the stylesheet enlarges the labels and points (base.html) so that they stay readable.
"""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from ratingdb.i18n import _
from ratingdb.queries.chart import ChartPoint, chart_points, layout

__all__ = ["ChartPoint", "chart_points", "rating_chart"]

WIDTH, HEIGHT = 760, 260
#: left, right, top, bottom: room for labels up to twice the desktop size (phones)
MARGINS = (60, 20, 14, 34)


def rating_chart(points: list[ChartPoint], title: str) -> Markup:
    """The chart as an ``<svg>`` element (empty text when there is nothing to draw)."""
    if not points:
        return Markup("")
    g = layout(points, width=WIDTH, height=HEIGHT, margins=MARGINS)
    low, high = min(p.rating for p in points), max(p.rating for p in points)
    description = _(
        "%(count)d ratings from %(first)s to %(last)s: from %(start)d to %(end)d, lowest "
        "%(low)d, highest %(high)d."
    ) % {
        "count": len(points),
        "first": g.first.isoformat(),
        "last": g.last.isoformat(),
        "start": points[0].rating,
        "end": points[-1].rating,
        "low": low,
        "high": high,
    }
    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-labelledby="chart-title chart-desc">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{escape(description)}</desc>',
    ]
    right, bottom = WIDTH - g.right, HEIGHT - g.bottom
    for value in g.rating_ticks:
        yy = g.y(value)
        out.append(
            f'<line class="grid" x1="{g.left}" x2="{right}" y1="{yy:.1f}" y2="{yy:.1f}"/>'
            f'<text class="axis" x="{g.left - 6}" y="{yy:.1f}" text-anchor="end" '
            f'dominant-baseline="middle">{value}</text>'
        )
    for tick, text in g.time_ticks:
        xx = g.x(tick)
        if g.first != g.last:
            out.append(
                f'<line class="grid" x1="{xx:.1f}" x2="{xx:.1f}" y1="{g.top}" y2="{bottom}"/>'
            )
        out.append(
            f'<text class="axis" x="{xx:.1f}" y="{bottom + 6}" text-anchor="middle" '
            f'dominant-baseline="hanging">{text}</text>'
        )
    coords = " ".join(f"{g.x(p.day):.1f},{g.y(p.rating):.1f}" for p in points)
    out.append(f'<polyline class="line" points="{coords}"/>')
    for p in points:
        rating = p.rating if p.index is None else f"{p.rating}-{p.index}"
        tip = escape(f"{p.day.isoformat()} {p.label}: {rating}")
        data = f'data-date="{p.day.isoformat()}" data-rating="{p.rating}"'
        if p.kind == "evaluation":
            out.append(
                f'<circle class="pt" cx="{g.x(p.day):.1f}" cy="{g.y(p.rating):.1f}" r="3.5" '
                f"{data}><title>{tip}</title></circle>"
            )
        else:
            out.append(
                f'<rect class="event" x="{g.x(p.day) - 4:.1f}" y="{g.y(p.rating) - 4:.1f}" '
                f'width="8" height="8" {data}><title>{tip}</title></rect>'
            )
    out.append("</svg>")
    return Markup("".join(out))
