"""Printable reports (CSV or PDF) on the database: a tournament's evaluation, rating lists,
a Karteikarte (:mod:`ratingdb.queries.reports`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _, date_text
from ratingdb.io.player_files import FORMATS as PLAYER_FILE_FORMATS
from ratingdb.queries.documents import Document

__all__ = ["PLAYER_FILE_FORMATS", "player_file", "render_document"]


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


def player_file(
    engine: Engine,
    fmt: str,
    *,
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: date | None,
) -> bytes:
    """A club's or federation's members on ``day`` (default today) as a player file for
    pairing programs (:mod:`ratingdb.io.player_files`, one of its ``FORMATS``): one row per
    membership. No members is a NotFound, a bad selection an InputError."""
    from ratingdb.io import player_files
    from ratingdb.queries.reports import rating_list_rows

    day = day or date.today()
    with Session(engine) as session:
        try:
            rows = rating_list_rows(
                session, club=club, federation=federation, age_class=age_class, day=day,
                memberships=True,
            )  # fmt: skip
        except ValueError as err:
            raise InputError("", str(err)) from None
    if not rows:
        raise LookupError(
            _("no members in %(where)s on %(day)s")
            % {"where": club or f"{federation}*", "day": date_text(day)}
        )
    return player_files.write(fmt, rows, day)
