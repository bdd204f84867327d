"""Printable reports (CSV or PDF) on the database: a tournament's evaluation, rating lists,
a Karteikarte (:mod:`ratingdb.queries.reports`)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.queries.documents import Document


def render_document(engine: Engine, build: Callable[[Session], Document], fmt: str) -> bytes:
    """Build a report and render it as ``fmt``; a missing tournament or player is a
    NotFound, a bad selection (age class, club or federation) an InputError."""
    from ratingdb.queries.documents import render

    with Session(engine) as session:
        try:
            doc = build(session)
        except ValueError as err:
            raise InputError("", str(err)) from None
    return render(doc, fmt)
