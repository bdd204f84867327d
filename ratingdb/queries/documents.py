"""Tabular documents (evaluations, rating lists, Karteikarten) as CSV and PDF (WO 6.5.2.2).

A :class:`Document` is a title, header lines (``label: value``) and a table, optionally a
rating chart and further tables (the Karteikarte's memberships). CSV: one header row with
the column names, then the rows of the main table in their spreadsheet form
(``csv_columns``/``csv_rows`` when given: one number per cell, ``1306-50`` as DWZ and index,
the Sonderwertung mark in its own column); UTF-8 without BOM, separator, numbers and dates
as the language writes them (German ``;``, ``2,5``, ``01.12.2026``; English ``,``, ``2.5``,
``2026-12-01``: :mod:`ratingdb.i18n`), an empty cell for a missing value, the header lines
not repeated, a text cell that would start a formula behind an apostrophe: a CSV is for
spreadsheets
(docs/data-exchange.md). PDF: A4 landscape, the title and header lines above the chart
and the tables, which span the width of the page (:func:`column_widths`),
the column header repeated on every page, a footer with the print date ("Stand") and
"page x of y". The texts are in
the language in force (:mod:`ratingdb.i18n`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ratingdb.csv_cells import neutral_row
from ratingdb.i18n import _, csv_delimiter, date_text
from ratingdb.queries.chart import ChartPoint, layout

#: the tables' font size and cell padding, in points
FONT_SIZE = 8
PADDING = 3


@dataclass
class Section:
    """A further table of a PDF after the main one (e.g. the Karteikarte's memberships)."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    left: frozenset[int] = frozenset()


@dataclass
class Document:
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    header: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: columns shown left-aligned in the PDF (the others are numbers, right-aligned)
    left: frozenset[int] = frozenset({1})
    #: a rating chart drawn above the table (PDF only), with its heading
    chart: list[ChartPoint] = field(default_factory=list)
    chart_title: str = ""
    #: further tables after the main one (PDF only)
    sections: list[Section] = field(default_factory=list)
    #: the main table for spreadsheets (CSV) when its cells differ from the display's
    csv_columns: tuple[str, ...] | None = None
    csv_rows: list[tuple[str, ...]] | None = None
    #: the print date of the PDF's footer ("Stand"; None: today)
    printed_on: date | None = None


def column_widths(
    rows: Sequence[Sequence[str]], left: frozenset[int], available: float,
    font: str = "Helvetica", size: float = FONT_SIZE,
) -> list[float]:  # fmt: skip
    """Widths that fill ``available`` points: each column gets its widest cell (header
    included, in bold) plus padding, and the rest of the line is shared in proportion. When
    the cells are wider than the page, the number columns keep their width and the text
    columns (``left``) share what remains (their cells wrap).

    >>> rows = [("#", "Name"), ("1", "Meyer, Anna")]
    >>> [round(w) for w in column_widths(rows, frozenset({1}), 400)]
    [68, 332]
    >>> [round(w) for w in column_widths(rows, frozenset({1}), 30)]  # the name wraps
    [10, 20]
    """
    from reportlab.pdfbase.pdfmetrics import stringWidth

    count = max(len(r) for r in rows)
    natural = [0.0] * count
    for k, row in enumerate(rows):
        face = f"{font}-Bold" if k == 0 else font
        for c, cell in enumerate(row):
            natural[c] = max(natural[c], stringWidth(str(cell), face, size) + 2 * PADDING)
    total = sum(natural)
    if total <= available:
        return [w * available / total for w in natural]
    fixed = sum(w for c, w in enumerate(natural) if c not in left)
    text = sum(w for c, w in enumerate(natural) if c in left)
    if not text or fixed >= available:
        return [w * available / total for w in natural]
    share = (available - fixed) / text
    return [w * share if c in left else w for c, w in enumerate(natural)]


def to_csv(doc: Document) -> str:
    """The main table for spreadsheets: ``csv_columns``/``csv_rows``, else the display's;
    every text cell of the rows that a spreadsheet would read as a formula neutralised
    (:mod:`ratingdb.csv_cells`; the column heads are ratingdb's own words, such as
    ``+/-``, which no spreadsheet runs)."""
    out = io.StringIO()
    plain = csv.writer(out, delimiter=csv_delimiter(), lineterminator="\n")
    # the writer quotes a cell with the separator, a quote or "\n", not one with a bare
    # "\r": such a row is written with every cell quoted, so that it reads back as one row
    quoted = csv.writer(out, delimiter=csv_delimiter(), lineterminator="\n", quoting=csv.QUOTE_ALL)
    plain.writerow(doc.columns if doc.csv_columns is None else doc.csv_columns)
    for row in doc.rows if doc.csv_rows is None else doc.csv_rows:
        cells = neutral_row(row)
        (quoted if any("\r" in str(c) for c in cells) else plain).writerow(cells)
    return out.getvalue()


def _table(
    columns: Sequence[str], rows: Sequence[Sequence[str]], left: frozenset[int], width: float
) -> Any:
    """A full-width table with the column header repeated on every page."""
    from xml.sax.saxutils import escape

    from reportlab.lib import colors
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, Table, TableStyle

    data = [list(columns), *[list(r) for r in rows]]
    widths = column_widths(data, left, width)
    cell = getSampleStyleSheet()["BodyText"].clone(
        "cell", fontName="Helvetica", fontSize=FONT_SIZE, leading=FONT_SIZE + 1.5
    )
    wrapped = [
        [
            Paragraph(escape(str(v)), cell)
            if k and c in left and widths[c] < _natural(str(v)) + 2 * PADDING
            else v
            for c, v in enumerate(row)
        ]
        for k, row in enumerate(data)
    ]
    table = Table(wrapped, colWidths=widths, repeatRows=1, hAlign="LEFT")
    style = [
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", FONT_SIZE),
        ("FONT", (0, 1), (-1, -1), "Helvetica", FONT_SIZE),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("ALIGN", (0, 0), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PADDING),
        ("RIGHTPADDING", (0, 0), (-1, -1), PADDING),
        ("TOPPADDING", (0, 0), (-1, -1), 1),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#eeeeee")]),
    ]
    style += [("ALIGN", (c, 0), (c, -1), "LEFT") for c in left]
    table.setStyle(TableStyle(style))
    return table


def _natural(text: str) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return float(stringWidth(text, "Helvetica", FONT_SIZE))


def chart_drawing(points: list[ChartPoint], width: float, height: float) -> Any:
    """The rating chart as a reportlab drawing (the geometry of the page's SVG)."""
    from reportlab.graphics.shapes import Circle, Drawing, Line, PolyLine, Rect, String
    from reportlab.lib import colors

    g = layout(points, width=width, height=height, margins=(34, 8, 6, 14))
    drawing = Drawing(width, height)
    blue, orange = colors.HexColor("#1565c0"), colors.HexColor("#ef6c00")
    grey = colors.HexColor("#dddddd")

    def y(rating: int) -> float:  # reportlab's y grows upwards
        return height - g.y(rating)

    for value in g.rating_ticks:
        drawing.add(Line(g.left, y(value), width - g.right, y(value), strokeColor=grey))
        drawing.add(String(g.left - 3, y(value) - 2.5, str(value), fontSize=7, textAnchor="end"))
    for tick, label in g.time_ticks:
        if g.first != g.last:
            drawing.add(Line(g.x(tick), g.bottom, g.x(tick), height - g.top, strokeColor=grey))
        drawing.add(String(g.x(tick), 3, label, fontSize=7, textAnchor="middle"))
    coords: list[float] = []
    for p in points:
        coords += [g.x(p.day), y(p.rating)]
    drawing.add(PolyLine(coords, strokeColor=blue, strokeWidth=1.2))
    for p in points:
        if p.kind == "evaluation":
            drawing.add(Circle(g.x(p.day), y(p.rating), 1.8, fillColor=blue, strokeColor=None))
        else:
            drawing.add(
                Rect(g.x(p.day) - 2.2, y(p.rating) - 2.2, 4.4, 4.4, fillColor=orange,
                     strokeColor=None)
            )  # fmt: skip
    return drawing


def to_pdf(doc: Document) -> bytes:
    from xml.sax.saxutils import escape

    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer

    buffer = io.BytesIO()
    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=8, leading=10)
    width = landscape(A4)[0] - 30 * mm
    printed = date_text(doc.printed_on or date.today())
    left_text = _("ratingdb - %(title)s - as of %(date)s") % {"title": doc.title, "date": printed}

    class NumberedCanvas(Canvas):  # type: ignore[misc]
        """Pages kept until the end, so that each footer can say "page x of y"."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self.saveState()
                self.setFont("Helvetica", 7)
                self.drawString(15 * mm, 8 * mm, left_text)
                page = _("page %(page)d of %(pages)d") % {"page": self._pageNumber, "pages": total}
                self.drawRightString(landscape(A4)[0] - 15 * mm, 8 * mm, page)
                self.restoreState()
                super().showPage()
            super().save()

    pdf = SimpleDocTemplate(
        buffer,
        pagesize=landscape(A4),
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=12 * mm,
        bottomMargin=15 * mm,
        title=doc.title,
        author="ratingdb",
    )
    story: list[Any] = [Paragraph(escape(doc.title), styles["Heading2"])]
    if doc.header:
        meta = "&nbsp;&nbsp;&nbsp;".join(f"<b>{escape(k)}:</b> {escape(v)}" for k, v in doc.header)
        story += [Paragraph(meta, small), Spacer(1, 4 * mm)]
    if doc.chart:
        story.append(
            KeepTogether(
                [
                    Paragraph(escape(doc.chart_title), styles["Heading4"]),
                    chart_drawing(doc.chart, width, 55 * mm),
                    Spacer(1, 4 * mm),
                ]
            )
        )
    story.append(_table(doc.columns, doc.rows, doc.left, width))
    if doc.notes:  # one paragraph: the legend stays on the table's page where it can
        story += [Spacer(1, 2 * mm), Paragraph(" · ".join(escape(n) for n in doc.notes), small)]
    for section in doc.sections:
        story += [
            Spacer(1, 4 * mm),
            KeepTogether(  # the heading never ends a page without its table
                [
                    Paragraph(escape(section.title), styles["Heading4"]),
                    _table(section.columns, section.rows, section.left, width),
                ]
            ),
        ]
    pdf.build(story, canvasmaker=NumberedCanvas)
    return buffer.getvalue()


def render(doc: Document, fmt: str) -> bytes:
    if fmt == "csv":
        return to_csv(doc).encode("utf-8")
    if fmt == "pdf":
        return to_pdf(doc)
    raise ValueError(f"unknown format {fmt!r}")


def cells(values: Sequence[object]) -> tuple[str, ...]:
    """A row's cells as text: a date in the language's form (:func:`ratingdb.i18n.date_text`),
    an empty cell for None; numbers with decimals are formatted by the caller
    (:func:`ratingdb.i18n.decimal` with the column's places)."""
    return tuple(
        "" if v is None else date_text(v) if isinstance(v, date) else str(v) for v in values
    )
