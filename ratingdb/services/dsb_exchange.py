"""The DSB exchange use cases: the DSB's TournamentReport XML (and the SWI text) into the
database, and a stored tournament out as TournamentReport XML.

Import goes through the TRF import (:mod:`ratingdb.services.trf_import`): the same matching of
players (DSB id, member number, FIDE id, name + birth year), the same submission path, all
or nothing in the caller's transaction. What the neutral model has no field for is kept in
the audit log: an ``import dsb-xml`` entry per import with the ``tournamentUUID``, the
``fileUUID`` and the ``tournamentType``. A file whose ``tournamentUUID`` was imported before
is a corrected file (the schema demands the same UUID): it replaces that tournament
(:func:`~ratingdb.services.trf_import.correct_trf`) instead of adding a second one.

Export: the stored tournament with the identifiers of its players at the end date (DSB id,
VKZ and member number of the membership, club name, birth date), FIDE id and the FIDE rating
the participant brought in (WO 4.1.2), and the ``tournamentUUID`` it was imported with –
else a UUID derived from the tournament id (``uuid5``), so that every export of one
tournament, before and after corrections, carries the same UUID. A new ``fileUUID`` per file.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry, Tournament
from ratingdb.db.store import find_tournament, load_participants
from ratingdb.io import dsb_xml
from ratingdb.io.trf import TrfTournament
from ratingdb.services.trf_import import Choice, Match, correct_trf, export_trf, import_trf

#: namespace of the UUIDs derived from tournament ids
NAMESPACE = uuid.UUID("6f0b3c4e-2d1a-5b7e-9c8d-0a1b2c3d4e5f")
ACTION = "import dsb-xml"


def derived_uuid(code: str) -> str:
    """The ``tournamentUUID`` of a tournament that came in without one."""
    return str(uuid.uuid5(NAMESPACE, f"ratingdb:{code}"))


def known_uuid(
    session: Session, tournament_uuid: str, t: TrfTournament | None = None
) -> str | None:
    """The code of the stored tournament last imported with this ``tournamentUUID`` – or,
    given the file's tournament ``t``, exported with it (a derived UUID: looked for among the
    tournaments with the file's name, start or end date)."""
    if t is not None:
        for (code,) in session.execute(
            text(
                "SELECT code FROM tournaments WHERE name = :n OR start_date = :s OR end_date = :e"
            ),
            {"n": t.name, "s": t.start, "e": t.end},
        ):
            if derived_uuid(code) == tournament_uuid.lower():
                return str(code)
    row = session.execute(
        text(
            "SELECT a.entity_id FROM audit_log a JOIN tournaments t ON t.code = a.entity_id "
            "WHERE a.action = :a AND lower(a.details->>'tournament_uuid') = lower(:u) "
            "ORDER BY a.id DESC LIMIT 1"
        ),
        {"a": ACTION, "u": tournament_uuid},
    ).first()
    return None if row is None else str(row[0])


def stored_vkz(session: Session, code: str) -> str | None:
    """The VKZ of stored tournament ``code`` (a corrected file keeps it)."""
    value = session.execute(text("SELECT vkz FROM tournaments WHERE code = :c"), {"c": code})
    return value.scalar()


def tournament_uuid(session: Session, code: str) -> str:
    """The UUID a tournament was imported with, else one derived from its id."""
    row = session.execute(
        text(
            "SELECT details->>'tournament_uuid' FROM audit_log WHERE action = :a "
            "AND entity_id = :c AND details ? 'tournament_uuid' ORDER BY id DESC LIMIT 1"
        ),
        {"a": ACTION, "c": code},
    ).first()
    return str(row[0]) if row and row[0] else derived_uuid(code)


def import_report(
    session: Session,
    report: dsb_xml.DsbReport,
    t: TrfTournament,
    *,
    code: str | None = None,
    vkz: str | None = None,
    kind: str | None = None,
    actor: str = "cli",
    choices: Mapping[int, Choice] | None = None,
) -> tuple[Tournament, list[Match], bool]:
    """Store a TournamentReport (already parsed and converted); returns the tournament, the
    matches, and whether it corrected an earlier import of the same ``tournamentUUID``."""
    existing = known_uuid(session, report.tournament_uuid, t)
    kind = kind or ("team" if report.team else "individual")
    if existing is not None and code in (None, existing):
        stored_vkz = session.execute(
            text("SELECT vkz FROM tournaments WHERE code = :c"), {"c": existing}
        ).scalar_one()
        stored, matches = correct_trf(
            session, t, existing, vkz=vkz or stored_vkz, kind=kind, actor=actor, choices=choices
        )
        corrected = True
    else:
        stored, matches = import_trf(
            session, t, code=code, vkz=vkz, kind=kind, actor=actor, choices=choices
        )
        corrected = False
    session.add(
        AuditEntry(
            actor=actor,
            action=ACTION,
            entity="tournament",
            entity_id=stored.code,
            change_point=None,
            details={
                "tournament_uuid": report.tournament_uuid,
                "file_uuid": report.header.file_uuid if report.header else None,
                "tournament_type": report.type,
                "corrected": corrected,
            },
        )
    )
    session.flush()
    return stored, matches, corrected


def import_tournament(
    session: Session,
    t: TrfTournament,
    *,
    code: str | None = None,
    vkz: str | None = None,
    kind: str | None = None,
    actor: str = "cli",
    choices: Mapping[int, Choice] | None = None,
) -> tuple[Tournament, list[Match]]:
    """Any file read by :func:`ratingdb.io.tournament_file.read_tournament`: a
    TournamentReport (``other`` holds its ``tournamentUUID``) through :func:`import_report`
    (a known UUID corrects – noted in ``t.warnings``), everything else through the TRF
    import. Same return value as :func:`~ratingdb.services.trf_import.import_trf`."""
    if "tournamentUUID" not in t.other:
        return import_trf(session, t, code=code, vkz=vkz, kind=kind, actor=actor, choices=choices)
    report = dsb_xml.DsbReport(
        tournament_uuid=t.other["tournamentUUID"],
        label=t.name,
        type=t.type,
        timecontrol=t.time_control,
        rounds=1,
        start=t.start,
        end=t.end,
        location=t.city,
        header=dsb_xml.DsbHeader("", "", "", t.other.get("fileUUID", "")),
    )
    stored, matches, corrected = import_report(
        session, report, t, code=code, vkz=vkz, kind=kind, actor=actor, choices=choices
    )
    if corrected:
        t.warnings.append(
            f"tournamentUUID {report.tournament_uuid} was imported before as {stored.code}: "
            "the file corrects that tournament"
        )
    return stored, matches


def export_report(
    session: Session, ident: str, *, sender: str = "ratingdb", system: str = "ratingdb"
) -> dsb_xml.DsbReport:
    """A stored tournament as a TournamentReport (see the module docstring)."""
    t = export_trf(session, ident, file_ranks=False)  # extra is keyed 1..n below
    t.games.sort(key=lambda g: (g.round, min(g.white, g.black)))  # as a reader expects them
    tid = find_tournament(session, ident)
    parts = load_participants(session, tid)
    rank = {p.id: k for k, p in enumerate(parts, start=1)}
    extra: dict[int, dict[str, Any]] = {}
    for r in session.execute(
        text(
            "SELECT pa.id, pa.computer, p.dsb_id, p.birth_date, m.member_number, o.vkz, "
            "o.name AS club FROM participants pa LEFT JOIN players p ON p.id = pa.player_id "
            "LEFT JOIN LATERAL (SELECT mm.member_number, mm.organisation_id FROM memberships mm "
            " WHERE mm.player_id = p.id AND mm.valid_from <= :end "
            " AND (mm.valid_to IS NULL OR mm.valid_to >= :end) "
            " ORDER BY mm.valid_from DESC LIMIT 1) m ON true "
            "LEFT JOIN organisations o ON o.id = m.organisation_id "
            "WHERE pa.tournament_id = :t"
        ),
        {"t": tid, "end": t.end},
    ):
        extra[rank[r.id]] = {
            "computer": r.computer,
            "dsb_id": r.dsb_id,
            "birth_date": r.birth_date,
            "member_number": r.member_number,
            "vkz": r.vkz,
            "club": r.club,
        }
    code = t.meta["id"]
    imported_type = session.execute(
        text(
            "SELECT details->>'tournament_type' FROM audit_log WHERE action = :a "
            "AND entity_id = :c ORDER BY id DESC LIMIT 1"
        ),
        {"a": ACTION, "c": code},
    ).scalar()
    if imported_type:
        t.type = imported_type
    if not t.city:
        t.city = (
            session.execute(
                text("SELECT name FROM organisations WHERE vkz = :v"), {"v": t.meta["vkz"]}
            ).scalar()
            or ""
        )
    return dsb_xml.from_tournament(
        t,
        tournament_uuid=tournament_uuid(session, code),
        kind=t.meta.get("kind", "individual"),
        extra=extra,
        head=dsb_xml.header(sender, system),
    )


def export_file(session: Session, ident: str) -> bytes:
    """A stored tournament as a TournamentReport XML file (UTF-8): ``ratingdb tournament
    export --format dsb-xml``."""
    return dsb_xml.write(export_report(session, ident))
