"""Bulk loading of a whole federation (synthetic or imported) with COPY."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.synth import Federation

TABLES_WITH_IDS = (
    "organisations",
    "players",
    "memberships",
    "tournaments",
    "participants",
    "games",
)


def copy_rows(
    session: Session, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
) -> int:
    raw = session.connection().connection.driver_connection
    assert raw is not None
    count = 0
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as cp:
        for row in rows:
            cp.write_row(row)
            count += 1
    return count


def next_ids(session: Session) -> dict[str, int]:
    return {
        table: session.execute(text(f"SELECT coalesce(max(id), 0) FROM {table}")).scalar_one()
        for table in TABLES_WITH_IDS
    }


def fix_sequences(session: Session) -> None:
    for table in TABLES_WITH_IDS:
        session.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"
            )
        )


def load_federation(session: Session, fed: Federation) -> dict[str, int]:
    """Insert clubs, players, memberships, tournaments, participants and games; mark a full
    replay as pending. Returns row counts."""
    base = next_ids(session)
    # organisations: federation, regions, districts, clubs (VKZ hierarchy, WO 6.3)
    orgs: dict[str, tuple[int, str, str, int | None]] = {}
    existing = {r.vkz: r.id for r in session.execute(text("SELECT id, vkz FROM organisations"))}
    next_org = base["organisations"]

    def org(vkz: str, name: str, kind: str, parent: str | None) -> None:
        nonlocal next_org
        if vkz in existing or vkz in orgs:
            return
        next_org += 1
        parent_id = None if parent is None else (existing.get(parent) or orgs[parent][0])
        orgs[vkz] = (next_org, name, kind, parent_id)

    org("000", "Deutscher Schachbund", "federation", None)
    for vkz, name in sorted(fed.clubs.items()):
        org(vkz[0], f"Region {vkz[0]}", "region", "000")
        org(vkz[:3], f"District {vkz[:3]}", "district", vkz[0])
        org(vkz, name, "club", vkz[:3])
    counts = {
        "organisations": copy_rows(
            session,
            "organisations",
            ("id", "vkz", "name", "kind", "parent_id"),
            ((i, vkz, name, kind, parent) for vkz, (i, name, kind, parent) in orgs.items()),
        )
    }
    org_id = {**existing, **{vkz: v[0] for vkz, v in orgs.items()}}
    pid = {p.id: base["players"] + p.id for p in fed.players}
    counts["players"] = copy_rows(
        session,
        "players",
        ("id", "surname", "given_name", "sex", "birth_year"),
        ((pid[p.id], p.surname, p.given_name, p.sex, p.birth_year) for p in fed.players),
    )
    counts["memberships"] = copy_rows(
        session,
        "memberships",
        ("id", "player_id", "organisation_id", "member_number", "valid_from", "valid_to"),
        (
            (base["memberships"] + k + 1, pid[p.id], org_id[p.club], str(p.id), p.joined, p.left)
            for k, p in enumerate(fed.players)
        ),
    )
    tid = {t.id: base["tournaments"] + t.id for t in fed.tournaments}
    counts["tournaments"] = copy_rows(
        session,
        "tournaments",
        (
            "id",
            "code",
            "name",
            "vkz",
            "start_date",
            "end_date",
            "kind",
            "processed_at",
            "submitted_at",
        ),
        (
            (
                tid[t.id],
                t.code,
                t.name,
                t.vkz,
                t.start,
                t.end,
                t.kind,
                t.processed_at,
                t.processed_at,
            )
            for t in fed.tournaments
        ),
    )
    part = base["participants"]
    counts["participants"] = copy_rows(
        session,
        "participants",
        (
            "id",
            "tournament_id",
            "start_rank",
            "player_id",
            "textual_name",
            "club_vkz",
            "rating_source",
            "external_rating",
            "external_index",
        ),
        (
            (
                part + p.id,
                tid[t.id],
                p.start_rank,
                None if p.player_id is None else pid[p.player_id],
                p.textual_name,
                p.club_vkz,
                p.rating_source,
                p.external_rating,
                p.external_index,
            )
            for t in fed.tournaments
            for p in t.participants
        ),
    )
    game_rows = (
        (base["games"] + k, tid[t.id], rnd, part + w, part + b, res)
        for k, (t, (rnd, w, b, res)) in enumerate(
            ((t, g) for t in fed.tournaments for g in t.games), start=1
        )
    )
    counts["games"] = copy_rows(
        session,
        "games",
        ("id", "tournament_id", "round", "white_id", "black_id", "result"),
        game_rows,
    )
    fix_sequences(session)
    for table in TABLES_WITH_IDS:  # fresh statistics: the planner must know the sizes
        session.execute(text(f"ANALYZE {table}"))
    session.execute(
        text("INSERT INTO change_points (kind, from_date) VALUES ('full', DATE '0001-01-01')")
    )
    return counts
