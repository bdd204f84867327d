"""Tabular documents (evaluations, rating lists, Karteikarten) as CSV and PDF (WO 6.5.2.2).

A :class:`Document` is a title, header lines (``label: value``) and a table. CSV: one header
row with the column names, then the rows (UTF-8, comma-separated, the header lines are not
repeated: a CSV is for spreadsheets). PDF: A4 landscape, the title and header lines above the
table, the column header repeated on every page, a footer with the page number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Document:
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    header: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: columns shown left-aligned in the PDF (the others are numbers, right-aligned)
    left: frozenset[int] = frozenset({1})


def to_csv(doc: Document) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(doc.columns)
    writer.writerows(doc.rows)
    return out.getvalue()


def to_pdf(doc: Document) -> bytes:
    from xml.sax.saxutils import escape

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    buffer = io.BytesIO()
    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=8, leading=10)

    def footer(canvas, pdf) -> None:  # type: ignore[no-untyped-def]
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(15 * mm, 8 * mm, f"ratingdb - {doc.title}")
        canvas.drawRightString(landscape(A4)[0] - 15 * mm, 8 * mm, f"page {pdf.page}")
        canvas.restoreState()

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
    table = Table([list(doc.columns), *[list(r) for r in doc.rows]], repeatRows=1, hAlign="LEFT")
    style = [
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7.5),
        ("FONT", (0, 1), (-1, -1), "Helvetica", 7.5),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("ALIGN", (0, 0), (-1, -1), "RIGHT"),
        ("TOPPADDING", (0, 0), (-1, -1), 1),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#eeeeee")]),
    ]
    style += [("ALIGN", (c, 0), (c, -1), "LEFT") for c in doc.left]
    table.setStyle(TableStyle(style))
    story.append(table)
    for note in doc.notes:
        story += [Spacer(1, 2 * mm), Paragraph(escape(note), small)]
    pdf.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


def render(doc: Document, fmt: str) -> bytes:
    if fmt == "csv":
        return to_csv(doc).encode("utf-8")
    if fmt == "pdf":
        return to_pdf(doc)
    raise ValueError(f"unknown format {fmt!r}")


def cells(values: Sequence[object]) -> tuple[str, ...]:
    return tuple("" if v is None else str(v) for v in values)
