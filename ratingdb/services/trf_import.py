"""The TRF import use case: a TRF tournament into the database, and a stored tournament
back to TRF (WO 6.5.2.2).

Import: every player of the file is matched to a database player by DSB id (the national
number of the ``GER`` record: a DSB id, or a ZPS-member number ``VKZ-nnn``), then FIDE id,
then name + birth year (names folded as the player search folds them, exactly one match);
the officer's pages may decide for some players instead (:class:`Choice`). A player with
none of these is a textual participant (a non-member: WO 4.1.1 keeps no data on them) whose
FIDE rating, if any, serves as R_0 (WO 4.1.2). Ratings of members always come from the
database history. The tournament goes through the same submission path as ``ratingdb
tournament add``, in the caller's transaction: all or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from ratingdb.db.locks import lock_tournament
from ratingdb.db.models import Participant, Player, Tournament
from ratingdb.db.store import find_tournament, load_games, load_participants
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _, date_text
from ratingdb.io.trf import (
    NationalRecord,
    RoundEntry,
    TrfGame,
    TrfPlayer,
    TrfTournament,
    scored_points,
)
from ratingdb.names import full_name
from ratingdb.services.submissions import add_tournament, correct_tournament, lock

FEDERATION = "GER"
#: the stored entries a correction keeps (:func:`ratingdb.services.stored_tournament.entries`)
Kept = dict[tuple[str, Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Match:
    start_rank: int
    name: str
    player_id: int | None
    how: str  # DSB id, member number, FIDE id, name + birth year, new player, textual


#: how a participant was matched when the officer decided (the submission pages)
CHOSEN, NEW_MEMBER, NON_MEMBER = "chosen", "new member", "non-member"


@dataclass(frozen=True, slots=True)
class Choice:
    """The officer's decision for one participant (who is who): a database player
    (``player``, with ``player_id``), a new member of club ``club`` from the tournament's
    start (``new``; WO 6.3: the club must lie in the officer's scope), or a textual
    participant (``nonmember``, WO 4.1.1: nothing is kept of him)."""

    kind: str
    player_id: int | None = None
    club: str | None = None


def _dsb_id(rec: NationalRecord | None) -> str | None:
    """The DSB id of a GER record; a number ``VKZ-nnn`` is a ZPS-member number instead."""
    if rec is None or not rec.number or "-" in rec.number:
        return None
    return rec.number


def _split_name(name: str) -> tuple[str, str]:
    surname, _, given = name.partition(",")
    return surname.strip(), given.strip()


def match_players(session: Session, t: TrfTournament) -> list[Match]:
    """Who is who: one database lookup per kind of key, not one per player."""
    nrs = {p.start_rank: p.national.get(FEDERATION) for p in t.players}
    _unique_ids(t, nrs)
    dsb_ids = [n for n in map(_dsb_id, nrs.values()) if n]
    member_keys = [r.number for r in nrs.values() if r and r.number and _dsb_id(r) is None]
    fide_ids = [p.fide_id for p in t.players if p.fide_id]
    by_dsb: dict[str, int] = dict(
        session.execute(
            text("SELECT dsb_id, id FROM players WHERE dsb_id = ANY(:k)"), {"k": dsb_ids}
        ).all()
    )
    by_member: dict[str, int] = dict(
        session.execute(
            text(
                "SELECT o.vkz || '-' || m.member_number, m.player_id FROM memberships m "
                "JOIN organisations o ON o.id = m.organisation_id "
                "WHERE o.vkz || '-' || m.member_number = ANY(:k) AND m.valid_from <= :end "
                "AND (m.valid_to IS NULL OR m.valid_to >= :end)"  # numbers are given again
            ),
            {"k": member_keys, "end": t.end},
        ).all()
    )
    by_fide: dict[int, int] = dict(
        session.execute(
            text("SELECT fide_id, id FROM players WHERE fide_id = ANY(:k)"), {"k": fide_ids}
        ).all()
    )
    folded = _folded(session, [_split_name(p.name) for p in t.players])
    names = [(s, g, p.birth_year) for (s, g), p in zip(folded, t.players, strict=True)]
    by_name: dict[tuple[str, str, int], list[tuple[int, int | None, str | None]]] = {}
    for row in session.execute(
        text(
            "SELECT ratingdb_fold_name(surname) AS s, ratingdb_fold_name(given_name) AS g, "
            "birth_year AS b, id, fide_id, dsb_id FROM players "
            "WHERE ratingdb_fold_name(surname) = ANY(:s) AND birth_year IS NOT NULL"
        ),
        {"s": [n[0] for n in names]},
    ):
        by_name.setdefault((row.s, row.g, row.b), []).append((row.id, row.fide_id, row.dsb_id))

    out = []
    taken: dict[int, int] = {}
    for p, key in zip(t.players, names, strict=True):
        rec = nrs[p.start_rank]
        pid: int | None = None
        how = "textual"
        if p.computer:
            how = "computer"
        elif rec is not None and rec.number in by_dsb:
            pid, how = by_dsb[rec.number], "DSB id"
        elif rec is not None and rec.number in by_member:
            pid, how = by_member[rec.number], "member number"
        elif p.fide_id in by_fide:
            pid, how = by_fide[p.fide_id], "FIDE id"
        elif key[2] is not None:
            # a namesake whose FIDE id or DSB id contradicts the file's is another person
            dsb = _dsb_id(rec)
            fits = [
                cand
                for cand, fide_id, dsb_id in by_name.get(cast("tuple[str, str, int]", key), [])
                if not (p.fide_id and fide_id and fide_id != p.fide_id)
                and not (dsb and dsb_id and dsb_id != dsb)
            ]
            if len(fits) == 1:
                pid, how = fits[0], "name + birth year"
        if pid is not None and pid in taken:
            raise InputError(
                f"{t.source}:{p.line}",
                _(
                    "start rank %(rank)d is the same database player (%(player)d) as start "
                    "rank %(other)d"
                )
                % {"rank": p.start_rank, "player": pid, "other": taken[pid]},
            )
        if pid is not None:
            taken[pid] = p.start_rank
        out.append(Match(p.start_rank, p.name, pid, how))
    return out


def _folded(session: Session, names: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(surname, given name) folded as the player search folds them (migration 0013:
    Müller = Mueller, Strauß = Strauss), in one query: a name written differently by two
    programs is the same name, and two database players with one folded name and birth
    year are both candidates (then nobody is chosen by name)."""
    if not names:
        return []
    rows = session.execute(
        text(
            "SELECT ratingdb_fold_name(s), ratingdb_fold_name(g) FROM unnest("
            "CAST(:s AS text[]), CAST(:g AS text[])) WITH ORDINALITY AS u(s, g, o) ORDER BY o"
        ),
        {"s": [n[0] for n in names], "g": [n[1] for n in names]},
    ).all()
    return [(str(r[0]), str(r[1])) for r in rows]


def _unique_ids(t: TrfTournament, nrs: dict[int, NationalRecord | None]) -> None:
    """One person, one start rank: a DSB id or FIDE id given twice is a file error."""
    seen: dict[tuple[str, object], int] = {}
    for p in t.players:
        rec = nrs[p.start_rank]
        keys: list[tuple[str, object, int]] = (
            [(N_("FIDE id"), p.fide_id, p.line)] if p.fide_id else []
        )
        if rec is not None and rec.number:
            keys.append((N_("GER number"), rec.number, rec.line))  # FEDERATION's
        for kind, value, line in keys:
            if (kind, value) in seen:
                raise InputError(
                    f"{t.source}:{line}",
                    _("%(kind)s %(value)s of start rank %(rank)d is also start rank %(other)d's")
                    % {"kind": _(kind), "value": value, "rank": p.start_rank,
                       "other": seen[(kind, value)]},
                )  # fmt: skip
            seen[(kind, value)] = p.start_rank


def _register_new(session: Session, t: TrfTournament, matches: list[Match]) -> list[Match]:
    """Unmatched players with a FIDE id or a DSB id become player records without a
    membership (the federation's file of non-members who played in rated tournaments), so
    that their birth year counts (age class, WO 3.5.2.2) and the next file finds them. The
    others stay textual participants."""
    out = []
    for p, m in zip(t.players, matches, strict=True):
        rec = p.national.get(FEDERATION)
        dsb_id = _dsb_id(rec)
        if m.player_id is not None or not (p.fide_id or dsb_id) or m.how in DECIDED:
            out.append(m)
            continue
        surname, given = _split_name(p.name)
        fields = file_fields(p)
        player = Player(
            surname=surname[:100] or p.name[:100],
            given_name=given[:100],
            sex=fields.get("sex"),
            birth_year=p.birth_year,
            birth_date=p.birth if isinstance(p.birth, date) else None,
            fide_id=p.fide_id,
            dsb_id=dsb_id,
            federation=fields.get("federation"),
            title=fields.get("title"),
        )
        session.add(player)
        session.flush()
        out.append(Match(m.start_rank, m.name, player.id, "new player"))
    return out


#: decided by the officer not to be a database player found or registered by the import
DECIDED = (NEW_MEMBER, NON_MEMBER)


def apply_choices(
    t: TrfTournament, matches: list[Match], choices: Mapping[int, Choice]
) -> list[Match]:
    """The matches with the officer's decisions (by start rank) in place of the import's."""
    out = []
    for p, m in zip(t.players, matches, strict=True):
        c = choices.get(p.start_rank)
        if c is None or p.computer:
            out.append(m)
        elif c.kind == "player":
            out.append(Match(m.start_rank, m.name, c.player_id, CHOSEN))
        else:
            out.append(
                Match(m.start_rank, m.name, None, NEW_MEMBER if c.kind == "new" else NON_MEMBER)
            )
    return out


def _new_member(p: TrfPlayer, club: str | None, since: date) -> dict[str, Any]:
    """A new member in the submission format (docs/engine.md) from the file's player, with
    every id and field the file has (:func:`file_fields`)."""
    entry: dict[str, Any] = {"name": p.name, "club": club, "member_since": since.isoformat()}
    entry.update(file_fields(p))
    return entry


def file_fields(p: TrfPlayer) -> dict[str, Any]:
    """What a tournament file says of a person, in the submission format's keys: DSB id
    (the GER record's number when it is no ZPS-member number), FIDE id, sex, birth year
    and date (where the file gives the full date), FIDE federation and title."""
    out: dict[str, Any] = {}
    dsb_id = _dsb_id(p.national.get(FEDERATION))
    if dsb_id:
        out["dsb_id"] = dsb_id
    if p.fide_id:
        out["fide_id"] = p.fide_id
    if p.sex in ("m", "f"):  # the readers give m or f (a TRF's w is read as f)
        out["sex"] = p.sex
    if p.birth_year is not None:
        out["birth_year"] = p.birth_year
    if isinstance(p.birth, date):
        out["birth_date"] = p.birth.isoformat()
    federation, title = p.federation.strip().upper(), p.title.strip()
    if re.fullmatch(r"[A-Z]{3}", federation):
        out["federation"] = federation
    if re.fullmatch(r"[A-Za-z]{1,3}", title):
        out["title"] = title
    return out


def submission(
    t: TrfTournament,
    matches: list[Match],
    code: str,
    vkz: str,
    kind: str,
    choices: Mapping[int, Choice] | None = None,
    kept: Kept | None = None,
) -> dict[str, Any]:
    """The submission document (docs/engine.md, "Submissions") of a parsed TRF file; a new
    member chosen by the officer joins ``choices``' club on the tournament's start date.
    A correction passes the stored tournament's entries (``kept``,
    :func:`ratingdb.services.stored_tournament.entries`): what the file does not carry keeps its
    stored value."""
    from ratingdb.services.stored_tournament import keep

    players: list[dict[str, Any]] = []
    for p, m in zip(t.players, matches, strict=True):
        entry: dict[str, Any] = {"id": str(p.start_rank)}
        if p.computer:
            entry.update(name=p.name, member=False, computer=True)
        elif m.player_id is not None:
            entry["player_id"] = m.player_id
        elif m.how == NEW_MEMBER:
            chosen = (choices or {}).get(p.start_rank)
            entry.update(_new_member(p, chosen.club if chosen else None, t.start))
        else:
            entry.update(name=p.name, member=False)
        if p.rating:  # R_0 only for a player without DWZ (WO 4.1.2)
            entry.update(rating=p.rating, rating_source="fide")
        if kept:
            keep(entry, kept)
        players.append(entry)
    return {
        "tournament": {
            "id": code,
            "name": t.name,
            "start": t.start.isoformat(),
            "end": t.end.isoformat(),
            "vkz": vkz,
            "kind": kind,
        },
        "players": players,
        "games": [
            {"round": g.round, "white": str(g.white), "black": str(g.black), "result": g.result}
            for g in t.games
        ],
    }


def _store(
    session: Session,
    t: TrfTournament,
    write: Callable[[dict[str, Any]], Tournament],
    code: str,
    vkz: str,
    kind: str,
    choices: Mapping[int, Choice] | None = None,
    kept: Kept | None = None,
    *,
    before: tuple[dict[str, Any], dict[int, dict[str, str]]] | None = None,
    implied: Implied | None = None,
) -> tuple[Tournament, list[Match]]:
    """Match the players (the officer's ``choices`` first), build the submission and hand
    it to ``write`` (add or correct; a correction passes ``before`` and ``implied`` on to
    :func:`_keep_exchange`)."""
    matches = match_players(session, t)
    if choices:
        matches = apply_choices(t, matches, choices)
    matches = _register_new(session, t, matches)
    try:
        stored = write(submission(t, matches, code, vkz, kind, choices, kept))
    except InputError as err:
        raise InputError(f"{t.source}: {err.location}", err.message) from None
    if any(m.how == NEW_MEMBER for m in matches):  # their ids exist now
        session.flush()
        ids = session.scalars(
            select(Participant.player_id)
            .where(Participant.tournament_id == stored.id)
            .order_by(Participant.start_rank)
        ).all()
        matches = [
            replace(m, player_id=pid) if m.how == NEW_MEMBER else m
            for m, pid in zip(matches, ids, strict=True)
        ]
    stored.city = t.city[:100] or None
    stored.time_control = t.time_control[:100] or None
    if t.arbiter:
        stored.evaluators = [t.arbiter[:100]]
    _keep_exchange(session, stored, t, before, implied)
    session.flush()
    return stored, matches


@dataclass(frozen=True)
class Implied:
    """What ratingdb's own TRF export of a stored tournament writes beyond what is stored
    (:func:`implied_by_export`): the tournament's exchange data a file of that export would
    bring (its type, its start ranks 1..n) and, per start rank, the byes it writes for the
    rounds without a game (``Z``). A correction from such a file changes none of them."""

    exchange: dict[str, Any]
    byes: dict[int, dict[str, str]]


def implied_by_export(session: Session, ident: str) -> Implied:
    """:class:`Implied` of stored tournament ``ident``: its TRF export, read back."""
    from ratingdb.io.trf import parse, write

    again = parse(write(export_trf(session, ident)), f"{ident}.trf")
    return Implied(_exchange(again), {p.start_rank: _byes(p) for p in again.players if p.byes})


def _byes(p: TrfPlayer) -> dict[str, str]:
    return {str(r): code for r, code in sorted(p.byes.items())}


def _keep_exchange(
    session: Session,
    stored: Tournament,
    t: TrfTournament,
    before: tuple[dict[str, Any], dict[int, dict[str, str]]] | None = None,
    implied: Implied | None = None,
) -> None:
    """What the file carries beyond the games (migration 0010): per participant the byes,
    title and federation; for the tournament type, federation, round dates, further header
    records, kept records, games filed without colours and the file's start ranks. The
    submission made participant k of the file's k-th player. A correction passes what was
    stored ``before`` (exchange, byes by start rank) and what the stored tournament's own
    export writes (``implied``): a value the file has only because the export wrote it keeps
    the stored one, so that a re-uploaded export is no change."""
    session.flush()
    parts = session.scalars(
        select(Participant)
        .where(Participant.tournament_id == stored.id)
        .order_by(Participant.start_rank)
    ).all()
    old_exchange, old_byes = before or ({}, {})
    for part, p in zip(parts, t.players, strict=True):
        byes = _byes(p)
        if implied is not None:
            was, written = old_byes.get(p.start_rank, {}), implied.byes.get(p.start_rank, {})
            byes = {r: code for r, code in byes.items() if r in was or written.get(r) != code}
        part.byes = byes
        part.title = p.title[:3] or None
        part.federation = p.federation[:3] or None
    exchange = _exchange(t)
    if implied is not None:
        for key, value in list(exchange.items()):
            if implied.exchange.get(key) == value and key not in old_exchange:
                del exchange[key]
    stored.exchange = exchange


def _exchange(t: TrfTournament) -> dict[str, Any]:
    """The tournament's part of :func:`_keep_exchange` (empty values left out)."""
    exchange: dict[str, Any] = {
        "type": t.type,
        "federation": t.federation,
        "round_dates": [d.isoformat() for d in t.round_dates],
        "other": t.other,
        "records": t.records,
        "uncoloured": [[g.round, g.white, g.black] for g in t.games if not g.coloured],
        "start_ranks": [p.start_rank for p in t.players],
        "points": _differing_points(t),
        "player_records": {str(p.start_rank): p.kept for p in t.players if p.kept},
    }
    return {k: v for k, v in exchange.items() if v}


def _differing_points(t: TrfTournament) -> dict[str, list[str]]:
    """The file's points column where it differs from what its games and byes score (the
    import warned): start rank -> [the file's points, the scored points]. The export
    writes the file's value back while the scored points are still the same (the
    points column survives the round trip), the scored ones after a correction."""
    scored = scored_points(t)
    return {
        str(p.start_rank): [str(p.points), str(scored[p.start_rank])]
        for p in t.players
        if p.points is not None and p.points != scored[p.start_rank]
    }


#: how the command line and the API ask for a missing tournament id and VKZ
CLI_HINTS = (N_("--id (or a '### ratingdb id:' line)"), N_("--vkz (or a '### ratingdb vkz:' line)"))
API_HINTS = (N_("?id= (or '### ratingdb id:')"), N_("?vkz= (or '### ratingdb vkz:')"))


def resolve_meta(
    t: TrfTournament,
    code: str | None,
    vkz: str | None,
    kind: str | None,
    hints: tuple[str, str] = CLI_HINTS,
) -> tuple[str, str, str]:
    """Tournament id, VKZ and kind: the given ones, else the file's ``### ratingdb`` lines
    (kind: else team or individual by the file); an InputError naming ``hints`` otherwise."""
    code = code or t.meta.get("id") or ""
    vkz = vkz or t.meta.get("vkz")
    if not vkz:
        raise InputError(t.source, _("no VKZ: give %(hint)s") % {"hint": _(hints[1])})
    return code, vkz, kind or t.meta.get("kind") or ("team" if t.team else "individual")


def assign_code(session: Session, vkz: str, end: date) -> str:
    """A tournament id for a file that names none, as DeWIS gives one on upload: the VKZ and
    the end date (``C0001-2012-02-16``), then ``-2``, ``-3`` … when taken. The id is locked
    (:func:`lock_tournament`) before it is returned, so two uploads at once get two ids."""
    base = f"{vkz}-{end.isoformat()}"
    for n in range(1, 1000):
        code = base if n == 1 else f"{base}-{n}"
        lock_tournament(session, code)
        taken = session.execute(
            text("SELECT 1 FROM tournaments WHERE code = :c"), {"c": code}
        ).first()
        if taken is None:
            return code
    raise InputError(
        vkz, _("999 tournaments of this VKZ end on %(date)s: give an id") % {"date": date_text(end)}
    )


def import_trf(
    session: Session,
    t: TrfTournament,
    *,
    code: str | None = None,
    vkz: str | None = None,
    kind: str | None = None,
    actor: str = "cli",
    choices: Mapping[int, Choice] | None = None,
) -> tuple[Tournament, list[Match]]:
    """Store the tournament (a change point for the next run); returns it and the matches."""
    code, vkz, kind = resolve_meta(t, code, vkz, kind)
    if code:
        lock_tournament(session, code)  # before new players are registered
    else:
        code = assign_code(session, vkz, t.end)  # locked too
    return _store(
        session, t, lambda doc: add_tournament(session, doc, actor), code, vkz, kind, choices
    )


def correct_trf(
    session: Session,
    t: TrfTournament,
    ident: str,
    *,
    vkz: str,
    kind: str,
    actor: str = "cli",
    choices: Mapping[int, Choice] | None = None,
    kept: Kept | None = None,
) -> tuple[Tournament, list[Match]]:
    """Replace stored tournament ``ident`` with the TRF's players and games (WO 3.7); the
    fields the file does not carry keep their ``kept`` values (:func:`submission`), and what
    the file has only because ratingdb's own export wrote it changes nothing
    (:func:`implied_by_export`)."""
    lock(session, ident)  # before new players are registered
    return _store(
        session,
        t,
        lambda doc: correct_tournament(session, ident, doc, actor),
        ident,
        vkz,
        kind,
        choices,
        kept,
        before=_stored_extras(session, ident),
        implied=implied_by_export(session, ident),
    )


def _stored_extras(
    session: Session, ident: str
) -> tuple[dict[str, Any], dict[int, dict[str, str]]]:
    """The stored tournament's exchange data and its participants' byes by the file's start
    rank (the stored start ranks of a file, else the participants' own)."""
    tid = find_tournament(session, ident)
    exchange = session.scalar(select(Tournament.exchange).where(Tournament.id == tid)) or {}
    rows = session.execute(
        select(Participant.start_rank, Participant.byes)
        .where(Participant.tournament_id == tid)
        .order_by(Participant.start_rank)
    ).all()
    ranks = exchange.get("start_ranks") or [r.start_rank for r in rows]
    return exchange, {
        rank: dict(r.byes or {}) for rank, r in zip(ranks, rows, strict=False) if r.byes
    }


def export_file(session: Session, ident: str) -> bytes:
    """A stored tournament as a TRF file (UTF-8, :func:`export_trf`): ``ratingdb tournament
    export --format trf``."""
    from ratingdb.io.trf import write

    return write(export_trf(session, ident)).encode()


def export_trf(session: Session, ident: str, *, file_ranks: bool = True) -> TrfTournament:
    """A stored tournament as TRF: 001 lines with FIDE data (title, federation, FIDE id and
    rating, full birth date when known), GER lines with the DWZ the player brought into the
    tournament and the DSB id (or ZPS-member number), the games (forfeits filed without
    colours stay without), every stored bye, and what the file carried beyond the games
    (type, federation, round dates, arbiters, team records; migration 0010) under the
    file's start ranks (``file_ranks``; else 1..n in participant order)."""
    from datetime import date as date_type

    tid = find_tournament(session, ident)
    row = session.execute(
        text(
            "SELECT code, name, vkz, kind, city, time_control, evaluators, start_date, end_date, "
            "exchange FROM tournaments WHERE id = :i"
        ),
        {"i": tid},
    ).one()
    exchange: dict[str, Any] = row.exchange or {}
    parts = load_participants(session, tid)
    info = {
        r.id: r
        for r in session.execute(
            text(
                "SELECT pa.id, pa.title, pa.federation, pa.byes, p.surname, p.given_name, p.sex, "
                "p.birth_year, p.birth_date, p.fide_id, p.dsb_id, "
                "s.rating_in, s.index_in, s.rating_source, "
                "(SELECT o.vkz || '-' || m.member_number FROM memberships m "
                " JOIN organisations o ON o.id = m.organisation_id WHERE m.player_id = p.id "
                " AND m.member_number IS NOT NULL AND m.valid_from <= :end "
                " ORDER BY m.valid_from DESC LIMIT 1) AS member_key "
                "FROM participants pa LEFT JOIN players p ON p.id = pa.player_id "
                "LEFT JOIN rating_snapshots s ON s.participant_id = pa.id "
                "WHERE pa.tournament_id = :i"
            ),
            {"i": tid, "end": row.end_date},
        )
    }
    ranks = list(exchange.get("start_ranks") or [])
    if len(ranks) != len(parts) or not file_ranks:
        ranks = list(range(1, len(parts) + 1))
    rank = {p.id: ranks[k] for k, p in enumerate(parts)}
    #: each participant's kept records (under the file's start rank)
    kept = exchange.get("player_records") or {}
    file_rank = dict(zip((p.id for p in parts), exchange.get("start_ranks") or [], strict=False))
    players = []
    for p in parts:
        r = info[p.id]
        if p.player_id is not None:
            name = full_name(r.surname, r.given_name)
        else:
            name = p.name or str(p.id)
        # byes as round entries; a tournament read from a file leaves other rounds blank
        # (the round-0 entry says so to the writer), one entered otherwise writes Z
        byes = [RoundEntry(int(k), 0, "-", code, 0) for k, code in (r.byes or {}).items()]
        if exchange:
            byes.append(RoundEntry(0, 0, "-", " ", 0))
        birth: date_type | int | None = r.birth_date or r.birth_year
        player = TrfPlayer(
            start_rank=rank[p.id],
            sex=r.sex or "",
            title=r.title or "",
            name=name,
            rating=p.external_rating if p.rating_source == "fide" else None,
            federation=r.federation or "",
            fide_id=r.fide_id,
            birth=birth,
            points=None,
            rank=None,
            rounds=byes,
            line=0,
            kept=list(kept.get(str(file_rank.get(p.id)), [])),
        )
        number = r.dsb_id or r.member_key
        if p.player_id is not None and (number or r.rating_source == "dwz"):
            player.national[FEDERATION] = NationalRecord(
                FEDERATION,
                rank[p.id],
                r.rating_in if r.rating_source == "dwz" else None,
                "",
                number or "",
                "",
                None,
                0,
            )
        players.append(player)
    games = load_games(session, tid)
    rounds = _assign_rounds([(g.round, g.white, g.black) for g in games])
    uncoloured = {tuple(x) for x in exchange.get("uncoloured", [])}
    trf_games = []
    for rnd, g in zip(rounds, games, strict=True):
        white, black = rank[int(g.white)], rank[int(g.black)]
        trf_games.append(
            TrfGame(rnd, white, black, g.result, (rnd, white, black) not in uncoloured)
        )
    exported = TrfTournament(
        source=row.code,
        name=row.name,
        start=row.start_date,
        end=row.end_date,
        city=row.city or "",
        federation=exchange.get("federation", ""),
        type=exchange.get("type", row.kind),
        arbiter=(row.evaluators or [""])[0],
        time_control=row.time_control or "",
        round_dates=[date_type.fromisoformat(d) for d in exchange.get("round_dates", [])],
        players=players,
        games=trf_games,
        team=row.kind == "team",
        meta={"id": row.code, "vkz": row.vkz, "kind": row.kind},
        other=dict(exchange.get("other", {})),
        records=list(exchange.get("records", [])),
    )
    _file_points(exported, exchange.get("points") or {})
    return exported


def _file_points(t: TrfTournament, stored: dict[str, list[str]]) -> None:
    """Give back the file's own points column (:func:`_differing_points`) to the players
    whose games and byes still score what they scored on import."""
    if not stored:
        return
    scored = scored_points(t)
    for p in t.players:
        entry = stored.get(str(p.start_rank))
        if entry and Decimal(entry[1]) == scored[p.start_rank]:
            p.points = Decimal(entry[0])


def _assign_rounds(games: list[tuple[int | None, str, str]]) -> list[int]:
    """Keep stored round numbers; put games without one into the first round in which
    neither player has a game yet (a TRF needs a round for every game)."""
    busy: dict[int, set[str]] = {}
    kept: list[int | None] = []
    for rnd, white, black in games:
        if rnd is not None and rnd < 1:
            rnd = None  # TRF rounds start at 1
        taken = busy.setdefault(rnd, set()) if rnd is not None else set()
        if rnd is not None and not {white, black} & taken:
            taken.update((white, black))
            kept.append(rnd)
        else:
            kept.append(None)  # no round, or a second game of a player in the same round
    out = []
    for rnd, (_round, white, black) in zip(kept, games, strict=True):
        if rnd is None:
            rnd = 1
            while white in busy.get(rnd, ()) or black in busy.get(rnd, ()):
                rnd += 1
            busy.setdefault(rnd, set()).update((white, black))
        out.append(rnd)
    return out
