"""Importing the DSB member list: players, clubs, memberships and rating takeovers.

* Players are found by DSB id (the list's ``ID``), else by their membership (club VKZ and
  member number), else by FIDE id; the rest are new. Name, sex, birth year and FIDE id are
  updated from the list.
* Clubs missing from the database are created (named by their VKZ until a club list names
  them). A listed member without an open membership in that club gets one from the list
  date; passive members (Status P) stay members (WO 4.1.1 knows no passive exception).
* Members who vanished from the list get their open membership ended on the list date; with
  ``partial`` only in the clubs the list contains (a regional list), otherwise everywhere.
  A list that would end more than ``max_leaving_share`` of the open memberships it covers
  (default 5 %, :class:`ratingdb.settings.Bounds`) is refused unless ``force``: a
  header-only or truncated file would otherwise end every membership of the federation.
* The list date must be plausible (:func:`ratingdb.plausibility.check_date`).
* A federation starts from its current list: a player with no history in the database (no
  evaluation, no earlier takeover) whose row has a DWZ gets a *takeover* (the official
  "Datenübernahme"), which later tournaments build on. It is dated on the Sunday of the week
  of the row's ``Letzte Auswertung`` when the list has that column (the listed DWZ is the
  result of that evaluation, so tournaments the officer imports that ended between it and
  the list date build on it), else – and never later than – on the list date.
* Lists are imported in date order: a list dated before the last imported one is refused.

Everything runs in the caller's transaction and is written in bulk (COPY / executemany); one
change point of kind ``player`` (from the list date) makes the next run replay the changed
players. Players with history whose listed DWZ differs from ours are reported, not changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.bulk import copy_rows, fix_sequences, next_ids
from ratingdb.db.locks import hold_edits
from ratingdb.db.models import AuditEntry, ChangePoint
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.io.dsb_list import ListRow
from ratingdb.plausibility import bounds, check_date

ACTION = "players-import"


@dataclass
class ListImport:
    rows: int = 0
    players_new: int = 0
    players_updated: int = 0
    clubs_new: int = 0
    memberships_new: int = 0
    memberships_ended: int = 0
    takeovers: int = 0
    differences: list[tuple[int, str, int | None, int]] = field(default_factory=list)

    def summary(self) -> str:
        """What the import did, in the language in force."""
        return _(
            "%(rows)d rows: %(new)d new players, %(updated)d updated, %(clubs)d new clubs, "
            "%(begun)d memberships begun, %(ended)d ended, %(takeovers)d ratings taken over, "
            "%(differ)d listed DWZ differ from the database"
        ) % {
            "rows": self.rows,
            "new": self.players_new,
            "updated": self.players_updated,
            "clubs": self.clubs_new,
            "begun": self.memberships_new,
            "ended": self.memberships_ended,
            "takeovers": self.takeovers,
            "differ": len(self.differences),
        }


def _last_list(session: Session) -> date | None:
    return cast(
        "date | None",
        session.scalar(
            text("SELECT max(change_point) FROM audit_log WHERE action = :a"), {"a": ACTION}
        ),
    )


def import_list(
    session: Session,
    rows: Sequence[ListRow],
    list_date: date,
    source: str,
    *,
    partial: bool = False,
    force: bool = False,
    actor: str = "cli",
    progress: Callable[[int, int], None] | None = None,
) -> ListImport:
    check_date(list_date, "--date")
    last = _last_list(session)
    if last is not None and list_date < last:
        raise InputError(
            source,
            _("list date %(date)s is before the last imported list (%(last)s)")
            % {"date": list_date, "last": last},
        )
    hold_edits(session)  # before the table lock: a run's write phase waits for the import
    session.execute(text("LOCK TABLE players, memberships, organisations IN EXCLUSIVE MODE"))
    report = ListImport(rows=len(rows))
    ids = next_ids(session)
    db = _Existing(session)
    open_before = {key: since for key, (_, _, _, since, _) in db.open.items()}
    changed: set[int] = set()
    step = max(1, len(rows) // 100)

    # clubs
    new_clubs = sorted({r.vkz for r in rows} - db.clubs.keys())
    for vkz in new_clubs:
        ids["organisations"] += 1
        db.clubs[vkz] = ids["organisations"]
    copy_rows(
        session,
        "organisations",
        ("id", "vkz", "name", "kind"),
        ((db.clubs[v], v, f"Verein {v}", "club") for v in new_clubs),
    )
    report.clubs_new = len(new_clubs)

    # players
    new_players: list[tuple[Any, ...]] = []
    updates: list[dict[str, Any]] = []
    row_player: list[int] = []
    for k, r in enumerate(rows):
        pid = db.find(r)
        values = (r.surname, r.given_name, r.sex, r.birth_year, r.fide_id, r.dsb_id)
        if pid is None:
            ids["players"] += 1
            pid = ids["players"]
            new_players.append((pid, *values))
            db.remember(pid, r)
            changed.add(pid)
        elif db.players[pid] != values:
            old = db.players[pid]
            merged = tuple(
                new if new not in (None, "") else prev
                for new, prev in zip(values, old, strict=True)
            )
            if merged != old:
                updates.append(
                    dict(zip(("s", "g", "x", "b", "f", "d"), merged, strict=False)) | {"id": pid}
                )
                if merged[3] != old[3]:
                    changed.add(pid)  # the birth year decides the age class
                db.players[pid] = merged
        row_player.append(pid)
        if progress is not None and k % step == 0:
            progress(k, len(rows) * 2)
    copy_rows(
        session,
        "players",
        ("id", "surname", "given_name", "sex", "birth_year", "fide_id", "dsb_id"),
        new_players,
    )
    if updates:
        session.execute(
            text(
                "UPDATE players SET surname = :s, given_name = :g, sex = :x, birth_year = :b, "
                "fide_id = :f, dsb_id = :d WHERE id = :id"
            ),
            updates,
        )
    report.players_new, report.players_updated = len(new_players), len(updates)

    # memberships
    listed: set[tuple[int, int]] = set()
    reopened: list[dict[str, Any]] = []
    new_members: list[tuple[Any, ...]] = []
    status_updates: list[dict[str, Any]] = []
    for k, (r, pid) in enumerate(zip(rows, row_player, strict=True)):
        club = db.clubs[r.vkz]
        listed.add((pid, club))
        status = "passive" if r.passive else "active"
        eligibility = r.eligibility or None
        open_one = db.open.get((pid, club))
        recent = db.recently_ended.get((pid, club))
        if open_one is None and recent is not None and recent[1] >= list_date:
            reopened.append({"i": recent[0]})  # listed again: the membership goes on
            status_updates.append(
                {"i": recent[0], "s": status, "n": r.member_number, "e": eligibility}
            )
            db.open[(pid, club)] = (recent[0], status, r.member_number, list_date, eligibility)
            changed.add(pid)
        elif open_one is None:
            ids["memberships"] += 1
            new_members.append(
                (ids["memberships"], pid, club, r.member_number, list_date, status, eligibility)
            )
            db.open[(pid, club)] = (
                ids["memberships"], status, r.member_number, list_date, eligibility
            )  # fmt: skip
            changed.add(pid)
        elif (open_one[1], open_one[2], open_one[4]) != (status, r.member_number, eligibility):
            status_updates.append(
                {"i": open_one[0], "s": status, "n": r.member_number, "e": eligibility}
            )
        if progress is not None and k % step == 0:
            progress(len(rows) + k, len(rows) * 2)
    copy_rows(
        session,
        "memberships",
        (
            "id",
            "player_id",
            "organisation_id",
            "member_number",
            "valid_from",
            "status",
            "eligibility",
        ),
        new_members,
    )
    if status_updates:
        session.execute(
            text(
                "UPDATE memberships SET status = :s, member_number = :n, eligibility = :e "
                "WHERE id = :i"
            ),
            status_updates,
        )
    if reopened:
        session.execute(text("UPDATE memberships SET valid_to = NULL WHERE id = :i"), reopened)
    report.memberships_new = len(new_members)
    in_list = set(db.clubs[r.vkz] for r in rows)
    covered = [
        key
        for key, since in open_before.items()
        if (not partial or key[1] in in_list) and since <= list_date
    ]
    ended = [
        (pid, mid)
        for (pid, club), (mid, _, _, since, _) in db.open.items()
        if (pid, club) not in listed and (not partial or club in in_list) and since <= list_date
    ]
    if not force:
        _check_leaving(len(ended), len(covered), source)
    if ended:
        session.execute(
            text("UPDATE memberships SET valid_to = :d WHERE id = :i"),
            [{"i": mid, "d": list_date} for _, mid in ended],
        )
        changed |= {pid for pid, _ in ended}
    report.memberships_ended = len(ended)

    # takeovers (players without history) and differences (players with history)
    with_history = db.with_history()
    takeovers = []
    seen: set[int] = set()
    for r, pid in zip(rows, row_player, strict=True):
        if r.dwz is None or pid in seen:
            continue
        seen.add(pid)
        if pid in with_history:
            current = with_history[pid]
            if current != r.dwz:
                report.differences.append((pid, f"{r.surname}, {r.given_name}", current, r.dwz))
            continue
        taken_on = min(list_date, r.last_evaluation or list_date)
        takeovers.append((pid, taken_on, r.dwz, r.index or 1, source[:200]))
        changed.add(pid)
    copy_rows(
        session,
        "rating_takeovers",
        ("player_id", "taken_on", "rating", "rating_index", "source"),
        takeovers,
    )
    report.takeovers = len(takeovers)
    fix_sequences(session)

    if changed:
        # a new membership counts up to a year back (late members), a birth year for every
        # evaluation: replay the changed players from their first tournament
        first = session.execute(
            text(
                "SELECT min(t.end_date) FROM tournaments t JOIN participants p "
                "ON p.tournament_id = t.id WHERE p.player_id = ANY(:ids)"
            ),
            {"ids": sorted(changed)},
        ).scalar()
        since = min([list_date] + [t[1] for t in takeovers] + ([first] if first else []))
        session.add(ChangePoint(kind="player", from_date=since, player_ids=sorted(changed)))
    session.add(
        AuditEntry(
            actor=actor,
            action=ACTION,
            entity="player-list",
            entity_id=source[-50:],
            change_point=list_date,
            details={k: v for k, v in vars(report).items() if k != "differences"}
            | {"differences": len(report.differences)},
        )
    )
    session.flush()
    if progress is not None:
        progress(len(rows) * 2, len(rows) * 2)
    return report


def _check_leaving(ending: int, covered: int, source: str) -> None:
    """Refuse a list that ends more than the configured share of the ``covered`` open
    memberships (``--force`` skips this)."""
    share = bounds().max_leaving_share
    if covered and Decimal(ending) > share * covered:
        raise InputError(
            source,
            f"the list would end {ending} of {covered} open memberships, more than "
            f"{(share * 100).normalize():f} %: a truncated or header-only file? give --force "
            "if it is right",
        )


class _Existing:
    """What the database already holds, loaded once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.clubs = {
            r.vkz: r.id for r in session.execute(text("SELECT id, vkz FROM organisations"))
        }
        self.players: dict[int, tuple[Any, ...]] = {}
        self.by_dsb: dict[str, int] = {}
        self.by_fide: dict[int, int] = {}
        for r in session.execute(
            text("SELECT id, surname, given_name, sex, birth_year, fide_id, dsb_id FROM players")
        ):
            self.players[r.id] = (r.surname, r.given_name, r.sex, r.birth_year, r.fide_id, r.dsb_id)
            if r.dsb_id:
                self.by_dsb[r.dsb_id] = r.id
            if r.fide_id:
                self.by_fide[r.fide_id] = r.id
        #: open memberships by (club, member number): a number can be given again later
        self.by_member: dict[tuple[int, str], int] = {}
        #: (membership id, status, member number, valid from, eligibility)
        self.open: dict[tuple[int, int], tuple[int, str, str | None, date, str | None]] = {}
        self.recently_ended: dict[tuple[int, int], tuple[int, date]] = {}
        for r in session.execute(
            text(
                "SELECT id, player_id, organisation_id, member_number, valid_from, valid_to, "
                "status, eligibility FROM memberships ORDER BY valid_from"
            )
        ):
            key = (r.player_id, r.organisation_id)
            if r.valid_to is None:
                self.open[key] = (
                    r.id, r.status, r.member_number, r.valid_from, r.eligibility
                )  # fmt: skip
                if r.member_number:
                    self.by_member[(r.organisation_id, r.member_number)] = r.player_id
            else:
                self.recently_ended[key] = (r.id, r.valid_to)

    def find(self, r: ListRow) -> int | None:
        """By DSB id, else by open membership, else by FIDE id; a candidate whose DSB id or
        FIDE id contradicts the row's is another person."""
        if r.dsb_id and r.dsb_id in self.by_dsb:
            return self.by_dsb[r.dsb_id]
        club = self.clubs.get(r.vkz)
        candidates = [
            self.by_member.get((club, r.member_number)) if club is not None else None,
            self.by_fide.get(r.fide_id) if r.fide_id else None,
        ]
        for pid in candidates:
            if pid is None:
                continue
            _, _, _, _, fide_id, dsb_id = self.players[pid]
            if (r.dsb_id and dsb_id and dsb_id != r.dsb_id) or (
                r.fide_id and fide_id and fide_id != r.fide_id
            ):
                continue
            return pid
        return None

    def remember(self, pid: int, r: ListRow) -> None:
        self.players[pid] = (r.surname, r.given_name, r.sex, r.birth_year, r.fide_id, r.dsb_id)
        if r.dsb_id:
            self.by_dsb[r.dsb_id] = pid
        if r.fide_id:
            self.by_fide[r.fide_id] = pid
        self.by_member[(self.clubs[r.vkz], r.member_number)] = pid

    def with_history(self) -> dict[int, int | None]:
        """Players with a stored evaluation or a takeover -> their last stored rating.

        Participations that stored nothing (as a non-member, residual games only) are no
        history: the list's DWZ is taken over for them."""
        out: dict[int, int | None] = {}
        for r in self.session.execute(text("SELECT player_id, rating FROM rating_takeovers")):
            out[r.player_id] = r.rating
        for r in self.session.execute(
            text(
                "SELECT DISTINCT ON (s.player_id) s.player_id, s.rating_new "
                "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
                "WHERE s.player_id IS NOT NULL AND s.stored "
                "ORDER BY s.player_id, t.end_date DESC, t.start_date DESC, t.vkz DESC, "
                "t.processed_at DESC, t.id DESC"
            )
        ):
            out[r.player_id] = r.rating_new
        return out
