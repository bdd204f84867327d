"""Importing files: tournament files of every format (read here, stored by
:func:`ratingdb.services.tournaments.add_trf`), submission documents (JSON,
:func:`ratingdb.services.database.json_document`), the DSB member list and the DSB's club
and federation lists."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from sqlalchemy.orm import Session

from ratingdb.io.dsb_clubs import OrgRow
from ratingdb.io.dsb_list import ListRow
from ratingdb.io.trf import TrfTournament
from ratingdb.services.club_lists import ClubImport
from ratingdb.services.database import refusals_named
from ratingdb.services.member_list import ListImport

#: a tournament file as read, whatever its format (the readers' one read model)
TournamentFile = TrfTournament


def read_trf(
    raw: bytes,
    name: str,
    encoding: str | None = None,
    *,
    start: date | None = None,
    end: date | None = None,
    complete_rounds: bool = False,
) -> TournamentFile:
    """A tournament file – TRF16/TRF26, SwissChess SWT, DSB TournamentReport XML, DeWIS XML
    or SWI text, detected from the content; errors name ``name:line:column``, the element
    path or the byte offset and field (all of them at once). ``start``/``end`` replace the
    file's dates; ``complete_rounds`` leaves out TRF rounds that are paired but have no
    results yet."""
    from ratingdb.io.tournament_file import read_tournament

    return read_tournament(
        raw, name, encoding, start=start, end=end, complete_rounds=complete_rounds
    )


def read_player_list(raw: bytes, name: str, encoding: str = "cp1252") -> list[ListRow]:
    """The rows of a DSB member list (spieler.csv)."""
    from ratingdb.io.dsb_list import parse_list

    return parse_list(raw, name, encoding)


def import_player_list(
    session: Session,
    rows: Sequence[ListRow],
    list_date: date,
    name: str,
    *,
    partial: bool = False,
    force: bool = False,
    actor: str = "cli",
    progress: Callable[[int, int], None] | None = None,
) -> ListImport:
    """Upsert players, clubs and memberships (docs/data-exchange.md); a constraint the
    list violates is a Refused naming the file."""
    from pathlib import Path

    from ratingdb.services.member_list import import_list

    with refusals_named(name):
        return import_list(
            session, rows, list_date, Path(name).name, partial=partial, force=force,
            actor=actor, progress=progress,
        )  # fmt: skip


def read_club_lists(
    clubs: tuple[bytes, str], levels: tuple[bytes, str] | None, encoding: str = "cp1252"
) -> tuple[list[OrgRow], list[OrgRow]]:
    """The rows of ``vereine.csv`` and (optionally) ``verbaende.csv``: ``(data, name)`` each."""
    from ratingdb.io.dsb_clubs import parse_orgs

    club_rows = parse_orgs(clubs[0], clubs[1], encoding, clubs=True)
    level_rows = parse_orgs(levels[0], levels[1], encoding, clubs=False) if levels else []
    return club_rows, level_rows


def import_club_lists(
    session: Session,
    clubs: Sequence[OrgRow],
    levels: Sequence[OrgRow],
    name: str,
    *,
    actor: str = "cli",
    levels_name: str | None = None,
) -> ClubImport:
    """Names, kinds and the hierarchy of clubs and federation levels (organisations)."""
    from ratingdb.services.club_lists import import_orgs

    with refusals_named(name):
        return import_orgs(session, clubs, levels, name, actor=actor, levels_source=levels_name)
