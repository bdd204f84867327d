"""The submission use cases: add, correct and delete a tournament (WO 3.7, 6.2, 6.4).

The submission format is the ``ratingdb evaluate`` JSON (docs/DESIGN.md) with database players:
a player entry names an existing player by ``player_id``, or describes a new member by
``name`` ("Surname, Given name"), ``birth_year``, ``sex``, ``club`` (VKZ) and
``member_since``, or a textual participant (``"member": false`` and a ``name``). Ratings,
indexes and residual games come from the database history, never from the file — except
a FIDE or national rating for a player without DWZ (WO 4.1.2). Every edit records a
change point for the next recalculation run and an audit-log entry. The refusals are in
the language in force (:mod:`ratingdb.i18n`); the JSON paths stay as the document writes them.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from ratingdb.db.change_report import keep_removed
from ratingdb.db.changes import record_change
from ratingdb.db.locks import hold_edits, lock_tournament
from ratingdb.db.models import (
    Game,
    Membership,
    Organisation,
    Participant,
    Player,
    RatingSnapshot,
    Tournament,
)
from ratingdb.db.organisations import require_organisation
from ratingdb.db.store import find_tournament
from ratingdb.engine.order import OrderKey
from ratingdb.errors import InputError
from ratingdb.i18n import N_, _
from ratingdb.io.evaluate_json import json_kind, parse_tournament
from ratingdb.names import control_character, describe_control
from ratingdb.plausibility import check_date

#: the VKZ of a tournament whose document names none: the federation (WO 6.3)
DEFAULT_VKZ = "000"


def _order_key(t: Tournament) -> OrderKey:
    return OrderKey(t.end_date, t.start_date, t.vkz, t.processed_at, t.id)


#: the widest text each column of a submission takes (ratingdb/db/models.py): longer is an
#: InputError naming the JSON path, not the database's "value too long" without a place
NAME_WIDTH, SURNAME_WIDTH, VKZ_WIDTH, MEMBER_NUMBER_WIDTH, CODE_WIDTH = 200, 100, 10, 10, 30
#: the largest player id the database holds (a bigint)
MAX_PLAYER_ID = 2**63 - 1
#: FIDE ids have at most 10 digits
MAX_FIDE_ID = 9_999_999_999
#: a DSB id as the DSB member lists give it (``players.dsb_id``)
DSB_ID = r"[0-9A-Za-z-]{1,20}"


def check_code(code: str, where: str) -> None:
    """A tournament code the pages and the API can address (``/tournaments/{code}``): 1 to 30
    characters, no slash, no control character, no blank at either end, not ``.`` or ``..``.

    >>> from ratingdb.i18n import use
    >>> check_code("C0327-2026-03-14", "--id")
    >>> with use("en"):
    ...     check_code("X/../Y", "--id")
    Traceback (most recent call last):
    ratingdb.errors.InputError: --id: a tournament id cannot hold '/' (it names a web address)
    >>> with use("de"):
    ...     check_code("..", "--id")
    Traceback (most recent call last):
    ratingdb.errors.InputError: --id: '..' ist keine Turnier-ID (es bezeichnet eine Webadresse)
    """
    if len(code) > CODE_WIDTH:
        raise InputError(
            where,
            _("a tournament id has at most %(max)d characters, got %(count)d")
            % {"max": CODE_WIDTH, "count": len(code)},
        )
    if "/" in code:
        raise InputError(where, _("a tournament id cannot hold '/' (it names a web address)"))
    if code in (".", ".."):
        raise InputError(
            where, _("%(code)r is not a tournament id (it names a web address)") % {"code": code}
        )
    bad = control_character(code)
    if bad is not None:
        raise InputError(
            where, _("a tournament id cannot hold %(what)s") % {"what": describe_control(bad)}
        )
    if code != code.strip():
        raise InputError(
            where,
            _("a tournament id cannot begin or end with a blank: %(code)r") % {"code": code},
        )


#: why a membership in an organisation that is no club is refused, by the organisation's kind
_NOT_A_CLUB = {
    "federation": N_("%(vkz)r is a federation, not a club: players are members of clubs"),
    "region": N_("%(vkz)r is a region, not a club: players are members of clubs"),
    "district": N_("%(vkz)r is a district, not a club: players are members of clubs"),
}


def not_a_club(vkz: str, kind: str | None) -> str:
    """Why a membership in organisation ``vkz`` of ``kind`` is refused."""
    if kind in _NOT_A_CLUB:
        return _(_NOT_A_CLUB[kind]) % {"vkz": vkz}
    return _("%(vkz)r is a %(kind)s, not a club: players are members of clubs") % {
        "vkz": vkz,
        "kind": kind,
    }


def _check_name(name: str, where: str) -> None:
    """A name to store holds no control character: a line break in it split the line of
    every fixed-column export (TRF, the DOS player files), an escape sequence reached the
    terminal of whoever listed it, a bidirectional control reordered the text after it."""
    bad = control_character(name)
    if bad is not None:
        raise InputError(
            where,
            _("the name holds %(what)s at position %(position)d")
            % {"what": describe_control(bad), "position": name.index(bad) + 1},
        )


def _text(raw: dict[str, Any], key: str, path: str, width: int) -> str | None:
    """``raw[key]``: None, or a string of at most ``width`` characters."""
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(
            f"{path}.{key}", _("expected a string, got %(kind)s") % {"kind": json_kind(value)}
        )
    if len(value) > width:
        raise InputError(f"{path}.{key}", _too_long(width, len(value)))
    return value


def _too_long(width: int, length: int) -> str:
    return _("at most %(max)d characters, got %(count)d") % {"max": width, "count": length}


def _check_texts(doc: dict[str, Any]) -> None:
    """The texts a submission stores fit their columns, with the JSON path of one that
    does not (the document was parsed: ``tournament`` and ``players`` have their shape)."""
    name = _text(doc["tournament"], "name", "$.tournament", NAME_WIDTH)
    if name is not None:
        _check_name(name, "$.tournament.name")
    for k, raw in enumerate(doc.get("players", [])):
        path = f"$.players[{k}]"
        if not isinstance(raw, dict):
            continue
        for key in ("club", "club_vkz"):
            _text(raw, key, path, VKZ_WIDTH)
        number = raw.get("member_number")
        if isinstance(number, int) and not isinstance(number, bool) and number >= 0:
            number = str(number)
        elif number is not None and not isinstance(number, str):
            raise InputError(f"{path}.member_number", _("expected a member number (a string)"))
        if number is not None and not 1 <= len(number) <= MEMBER_NUMBER_WIDTH:
            raise InputError(
                f"{path}.member_number",
                _("a member number has 1 to %(max)d characters") % {"max": MEMBER_NUMBER_WIDTH},
            )
        name = raw.get("name")
        if not isinstance(name, str) or "player_id" in raw:
            continue
        _check_name(name, f"{path}.name")
        if raw.get("member", True):
            for part in name.partition(",")[::2]:
                if len(part.strip()) > SURNAME_WIDTH:
                    raise InputError(
                        f"{path}.name",
                        _("surname and given name have at most %(max)d characters each")
                        % {"max": SURNAME_WIDTH},
                    )
        elif len(name) > NAME_WIDTH:
            raise InputError(f"{path}.name", _too_long(NAME_WIDTH, len(name)))


#: the fewest players a stored tournament has: one player has no opponent, so nothing of
#: the tournament can be rated (docs/engine.md, "Submissions")
MIN_PLAYERS = 2


def _check_field(doc: dict[str, Any], correction: bool) -> None:
    """A tournament to store has at least :data:`MIN_PLAYERS` players; a correction that
    would empty a tournament is a deletion (``ratingdb tournament delete``)."""
    count = len(doc.get("players") or [])
    if count < MIN_PLAYERS:
        few = (
            _(
                "a tournament needs at least %(min)d players to be rated, got %(count)d; to "
                "remove the tournament, delete it (ratingdb tournament delete)"
            )
            if correction
            else _("a tournament needs at least %(min)d players to be rated, got %(count)d")
        )
        raise InputError("$.players", few % {"min": MIN_PLAYERS, "count": count})


def _check_players(
    session: Session, doc: dict[str, Any], actor: str, default_vkz: str | None
) -> None:
    """The document's database-facing checks; the tournament's VKZ (else ``default_vkz``)
    must name a known organisation unless ``create_organisation`` (:mod:`ratingdb.db.
    organisations`)."""
    vkz = doc["tournament"].get("vkz")
    if vkz is not None and not re.fullmatch(r"[0-9A-Za-z]{1,10}", str(vkz)):
        raise InputError(
            "$.tournament.vkz", _("a VKZ has 1 to 10 letters or digits: %(vkz)r") % {"vkz": vkz}
        )
    create = doc["tournament"].get("create_organisation", False)
    if not isinstance(create, bool):
        raise InputError("$.tournament.create_organisation", _("expected true or false"))
    if vkz is not None or default_vkz is not None:
        where = "$.tournament.vkz" if vkz is not None else "$.tournament"
        require_organisation(session, str(vkz or default_vkz), where, create=create, actor=actor)
    _check_texts(doc)
    seen: dict[int, int] = {}
    wanted = [
        raw["player_id"]
        for raw in doc.get("players", [])
        if isinstance(raw, dict)
        and isinstance(raw.get("player_id"), int)
        and not isinstance(raw["player_id"], bool)
        and 0 < raw["player_id"] <= MAX_PLAYER_ID
    ]
    known = set(session.scalars(select(Player.id).where(Player.id.in_(wanted))))
    ids: dict[tuple[str, object], int] = {}
    for k, raw in enumerate(doc.get("players", [])):
        path = f"$.players[{k}]"
        if not isinstance(raw, dict):
            continue
        if raw.get("sex") not in (None, "m", "f", "d"):
            raise InputError(
                f"{path}.sex", _("expected m, f or d, got %(sex)r") % {"sex": raw["sex"]}
            )
        if isinstance(raw.get("birth_year"), int) and raw["birth_year"] < 1850:
            raise InputError(f"{path}.birth_year", _("a birth year before 1850 is not plausible"))
        _check_person(raw, path)
        if isinstance(raw.get("player_id"), int) and not isinstance(raw["player_id"], bool):
            if raw["player_id"] in seen:
                raise InputError(
                    f"{path}.player_id",
                    _("player %(id)s is also players[%(other)d]")
                    % {"id": raw["player_id"], "other": seen[raw["player_id"]]},
                )
            seen[raw["player_id"]] = k
        if raw.get("rating") is not None and raw.get("rating_source") in (None, "dwz"):
            raise InputError(
                f"{path}.rating",
                _(
                    "DWZ ratings come from the database history; give rating_source 'fide' or "
                    "'national' for an external rating (WO 4.1.2)"
                ),
            )
        if raw.get("residual_games"):
            raise InputError(f"{path}.residual_games", _("residual games come from the database"))
        _check_ids(session, raw, k, ids)
        if "player_id" in raw:
            pid = raw["player_id"]
            if not isinstance(pid, int) or isinstance(pid, bool):
                raise InputError(f"{path}.player_id", _("expected an integer player id"))
            if pid not in known:
                raise InputError(f"{path}.player_id", _("no player with id %(id)s") % {"id": pid})
        elif raw.get("member", True):
            name = raw.get("name")
            if not isinstance(name, str) or not name.strip():
                raise InputError(f"{path}.name", _("a new player needs a name"))
            club = raw.get("club")
            kind = (
                session.scalar(select(Organisation.kind).where(Organisation.vkz == club))
                if isinstance(club, str)
                else None
            )
            if kind is None:
                raise InputError(f"{path}.club", unknown_club(club))
            if kind != "club":
                raise InputError(f"{path}.club", not_a_club(str(club), kind))
            since = raw.get("member_since")
            try:
                joined = date.fromisoformat(since)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InputError(f"{path}.member_since", _("expected a date YYYY-MM-DD")) from None
            check_date(joined, f"{path}.member_since")
            end = doc["tournament"].get("end")
            if isinstance(end, str) and joined.isoformat() > end:
                raise InputError(
                    f"{path}.member_since",
                    _(
                        "%(joined)s is after the tournament's end %(end)s: a player who joined "
                        'later played as a non-member (give "member": false, WO 3.4.3)'
                    )
                    % {"joined": joined, "end": end},
                )
        elif not isinstance(raw.get("name"), str) or not raw["name"].strip():
            raise InputError(f"{path}.name", _("a textual participant needs a name"))


def unknown_club(vkz: object) -> str:
    """Why a club VKZ no club has is refused."""
    return _("unknown club VKZ %(vkz)r") % {"vkz": vkz}


def _check_person(raw: dict[str, Any], path: str) -> None:
    """A new member's ``birth_date`` (YYYY-MM-DD, in his ``birth_year`` when both are
    given), ``federation`` (a FIDE federation, three letters) and ``title`` (up to three
    letters, as a TRF writes it) are well-formed (for a database player they are his
    stored ones, for a participant row the file's, kept as given)."""
    if "player_id" in raw or not raw.get("member", True):
        return
    born = raw.get("birth_date")
    if born is not None:
        try:
            day = date.fromisoformat(born) if isinstance(born, str) else None
        except ValueError:
            day = None
        if day is None:
            raise InputError(f"{path}.birth_date", _("expected a date YYYY-MM-DD"))
        check_date(day, f"{path}.birth_date")
        if isinstance(raw.get("birth_year"), int) and raw["birth_year"] != day.year:
            raise InputError(
                f"{path}.birth_date",
                _("%(born)s is not in the birth year %(year)d")
                % {"born": born, "year": raw["birth_year"]},
            )
    for key, pattern, wanted in (
        ("federation", r"[A-Z]{3}", N_("expected three capital letters, e.g. GER, got %(value)s")),
        ("title", r"[A-Za-z]{1,3}", N_("expected 1 to 3 letters, e.g. FM, got %(value)s")),
    ):
        value = raw.get(key)
        if value is not None and not (isinstance(value, str) and re.fullmatch(pattern, value)):
            raise InputError(f"{path}.{key}", _(wanted) % {"value": _shown(value)})


def _check_ids(
    session: Session, raw: dict[str, Any], k: int, seen: dict[tuple[str, object], int]
) -> None:
    """A player entry's ``fide_id`` (an integer 1 to 10 digits) and ``dsb_id`` (1 to 20
    letters, digits or hyphens, as the DSB member lists give it, ``players.dsb_id``) are
    well-formed; a new member's, which :func:`_new_player` stores, belongs to no player of
    the database and to no other entry of the document."""
    path = f"$.players[{k}]"
    fide_id, dsb_id = raw.get("fide_id"), raw.get("dsb_id")
    if fide_id is not None and (
        not isinstance(fide_id, int) or isinstance(fide_id, bool) or not 0 < fide_id <= MAX_FIDE_ID
    ):
        raise InputError(
            f"{path}.fide_id",
            _("a FIDE id is a whole number from 1 to %(max)d, got %(value)s")
            % {"max": MAX_FIDE_ID, "value": _shown(fide_id)},
        )
    if dsb_id is not None and (not isinstance(dsb_id, str) or not re.fullmatch(DSB_ID, dsb_id)):
        raise InputError(
            f"{path}.dsb_id",
            _(
                "a DSB id is a string of 1 to 20 letters, digits or hyphens (e.g. 'NU4005017'), "
                "got %(value)s"
            )
            % {"value": _shown(dsb_id)},
        )
    if "player_id" in raw or not raw.get("member", True):
        return
    for key, value, column in (("fide_id", fide_id, Player.fide_id),
                               ("dsb_id", dsb_id, Player.dsb_id)):  # fmt: skip
        if value is None:
            continue
        if (key, value) in seen:
            raise InputError(
                f"{path}.{key}",
                _("%(value)r is also the %(key)s of players[%(other)d]")
                % {"value": value, "key": key, "other": seen[key, value]},
            )
        seen[key, value] = k
        holder = session.scalar(select(Player.id).where(column == value))
        if holder is not None:
            raise InputError(
                f"{path}.{key}",
                _(
                    '%(value)r is the %(key)s of player %(holder)s: name them with "player_id": '
                    "%(holder)s instead of as a new member"
                )
                % {"value": value, "key": key, "holder": holder},
            )


def _shown(value: object) -> str:
    """``value`` for a message (in the language in force): ``true``, ``the number -5``, ``the
    string 'abc'``, cut to 40 characters (a number of 400 digits)."""
    shown = f"{str(value).lower()}" if isinstance(value, bool) else json_kind(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _new_player(session: Session, raw: dict[str, Any]) -> int:
    surname, _, given = raw["name"].partition(",")
    born = raw.get("birth_date")
    player = Player(
        surname=surname.strip(),
        given_name=given.strip(),
        sex=raw.get("sex"),
        birth_year=raw.get("birth_year"),
        birth_date=date.fromisoformat(born) if born else None,
        fide_id=raw.get("fide_id"),
        dsb_id=raw.get("dsb_id"),
        federation=raw.get("federation"),
        title=raw.get("title"),
    )
    session.add(player)
    session.flush()
    club = session.scalar(select(Organisation.id).where(Organisation.vkz == raw["club"]))
    number = raw.get("member_number")
    session.add(
        Membership(
            player_id=player.id,
            organisation_id=club,
            member_number=None if number is None else str(number),
            valid_from=date.fromisoformat(raw["member_since"]),
        )
    )
    return player.id


def _clubs_at(session: Session, player_ids: list[int], day: date) -> dict[int, str]:
    """The VKZ of each player's club at ``day`` (the display's VKZ column, WO 3.1.11)."""
    return dict(
        session.execute(
            text(
                "SELECT DISTINCT ON (m.player_id) m.player_id, o.vkz FROM memberships m "
                "JOIN organisations o ON o.id = m.organisation_id "
                "WHERE m.player_id = ANY(:p) AND m.valid_from <= :d "
                "AND (m.valid_to IS NULL OR m.valid_to >= :d) "
                "ORDER BY m.player_id, m.valid_from DESC"
            ),
            {"p": player_ids, "d": day},
        ).all()
    )


def _write_field(session: Session, t: Tournament, doc: dict[str, Any]) -> set[int]:
    """Participants and games of ``doc`` for tournament ``t``; returns the player ids."""
    parsed = parse_tournament(doc)
    raw_players = {str(p["id"]): p for p in doc["players"]}
    parts: dict[str, Participant] = {}
    players: set[int] = set()
    chosen: dict[str, int | None] = {}
    for p in parsed.players:
        raw = raw_players[p.id]
        if "player_id" in raw:
            chosen[p.id] = raw["player_id"]
        elif raw.get("member", True):
            chosen[p.id] = _new_player(session, raw)
        else:
            chosen[p.id] = None
    clubs = _clubs_at(session, [pid for pid in chosen.values() if pid is not None], t.end_date)
    for rank, p in enumerate(parsed.players, start=1):
        raw = raw_players[p.id]
        player_id = chosen[p.id]
        part = Participant(
            tournament_id=t.id,
            start_rank=rank,
            player_id=player_id,
            textual_name=None if player_id is not None else (p.name or p.id),
            club_vkz=raw.get("club") or p.club_vkz or clubs.get(player_id or 0),
            rating_source=p.rating_source if p.rating is not None else None,
            external_rating=p.rating,
            external_index=p.index if p.rating is not None else None,
            computer=p.computer,
            byes=_byes(raw, f"$.players[{rank - 1}]"),
            title=_text(raw, "title", f"$.players[{rank - 1}]", 3),
            federation=_text(raw, "federation", f"$.players[{rank - 1}]", 3),
        )
        parts[p.id] = part
        if player_id is not None:
            players.add(player_id)
    session.add_all(parts.values())
    session.flush()  # one multi-row INSERT ... RETURNING for the ids
    by_key = {key: part.id for key, part in parts.items()}
    session.add_all(
        Game(
            tournament_id=t.id,
            round=g.round,
            white_id=by_key[g.white],
            black_id=by_key[g.black],
            result=g.result,
            board=_board(raw, f"$.games[{k}]"),
        )
        for k, (g, raw) in enumerate(zip(parsed.games, doc.get("games", []), strict=True))
    )
    return players


def _byes(raw: dict[str, Any], path: str) -> dict[str, str]:
    """A player entry's ``byes`` (round -> the TRF's bye code, as stored)."""
    byes = raw.get("byes") or {}
    if not isinstance(byes, dict) or not all(
        isinstance(k, str) and k.isdigit() and isinstance(v, str) and len(v) == 1
        for k, v in byes.items()
    ):
        raise InputError(f"{path}.byes", _('expected {"round": "code"}, e.g. {"3": "H"}'))
    return dict(byes)


def _board(raw: dict[str, Any], path: str) -> int | None:
    board = raw.get("board")
    if board is not None and (not isinstance(board, int) or isinstance(board, bool) or board < 1):
        raise InputError(
            f"{path}.board",
            _("a board number is a whole number from 1, got %(board)r") % {"board": board},
        )
    return board


def _record(
    session: Session,
    kind: str,
    action: str,
    t: Tournament,
    when: date,
    actor: str,
    players: set[int],
    hold_key: list[Any] | None = None,
    reason: str | None = None,
) -> None:
    details: dict[str, Any] = {"id": t.id, "name": t.name, "end": t.end_date.isoformat()}
    if reason:
        details["reason"] = reason
    record_change(
        session,
        kind,
        when,
        actor=actor,
        action=action,
        entity="tournament",
        entity_id=t.code,
        details=details,
        tournament_id=t.id,
        player_ids=players,
        hold_key=hold_key,
    )


def lock(session: Session, ident: str) -> None:
    """Take tournament ``ident``'s lock (by code, or by number as :func:`find` reads it)
    before reading it for a write: writes on one tournament follow one another
    (:func:`ratingdb.db.locks.lock_tournament`)."""
    code = ident
    if ident.isascii() and ident.isdigit() and len(ident) <= 18:  # a bigint ('¹' is no digit)
        code = session.scalar(
            text(
                "SELECT coalesce((SELECT code FROM tournaments WHERE code = :c), "
                "(SELECT code FROM tournaments WHERE id = CAST(:c AS bigint)), :c)"
            ),
            {"c": ident},
        )
    lock_tournament(session, code)


def add_tournament(session: Session, doc: dict[str, Any], actor: str = "cli") -> Tournament:
    """Store a new (possibly late) tournament and record its change point."""
    parsed = parse_tournament(doc)
    info = parsed.tournament
    check_code(info.id, "$.tournament.id")
    _check_field(doc, correction=False)
    lock_tournament(session, info.id)  # a second submission of the code finds it taken
    _check_players(session, doc, actor, DEFAULT_VKZ)
    if session.scalar(select(Tournament.id).where(Tournament.code == info.id)) is not None:
        raise InputError(
            "$.tournament.id", _("a tournament %(id)r exists already") % {"id": info.id}
        )
    t = Tournament(
        code=info.id,
        name=info.name or info.id,
        vkz=info.vkz or DEFAULT_VKZ,
        start_date=info.start,
        end_date=info.end,
        kind=info.kind,
        submitted_at=datetime.now().astimezone(),
    )
    session.add(t)
    session.flush()
    players = _write_field(session, t, doc)
    _record(session, "insert", "add", t, t.end_date, actor, players)
    session.flush()
    return t


def find(session: Session, ident: str) -> Tournament:
    """Tournament ``ident`` (code or number); an InputError naming it when there is none."""
    try:
        t = session.get(Tournament, find_tournament(session, ident))
    except LookupError as err:
        raise InputError(_("tournament"), str(err)) from None
    assert t is not None
    return t


def _player_ids(session: Session, tournament_id: int) -> set[int]:
    return set(
        session.scalars(
            select(Participant.player_id).where(
                Participant.tournament_id == tournament_id, Participant.player_id.is_not(None)
            )
        )
    )


def delete_tournament(
    session: Session, ident: str, actor: str = "cli", reason: str | None = None
) -> Tournament:
    """Delete a tournament; the audit entry keeps the ``reason`` given (the officer's page
    asks for one)."""
    lock(session, ident)
    t = find(session, ident)
    players = _player_ids(session, t.id)
    _record(
        session, "delete", "delete", t, t.end_date, actor, players, _order_key(t).to_json(),
        reason,
    )  # fmt: skip
    keep_removed(session, t.id)  # for the next run's change report
    session.execute(
        text("UPDATE residual_games SET consumed_by_id = NULL WHERE consumed_by_id = :t"),
        {"t": t.id},
    )
    session.delete(t)
    session.flush()
    return t


def correct_tournament(
    session: Session, ident: str, doc: dict[str, Any], actor: str = "cli"
) -> Tournament:
    """Replace a tournament's data (dates, players, games); replayed from its old place."""
    parsed = parse_tournament(doc)
    _check_field(doc, correction=True)
    lock(session, ident)
    _check_players(session, doc, actor, None)
    t = find(session, ident)
    old_key = _order_key(t)
    players = _player_ids(session, t.id)
    keep_removed(session, t.id)  # for the next run's change report
    session.execute(delete(RatingSnapshot).where(RatingSnapshot.tournament_id == t.id))
    session.execute(delete(Game).where(Game.tournament_id == t.id))
    session.execute(
        text("UPDATE residual_games SET consumed_by_id = NULL WHERE consumed_by_id = :t"),
        {"t": t.id},
    )
    session.execute(text("DELETE FROM residual_games WHERE created_by_id = :t"), {"t": t.id})
    session.execute(delete(Participant).where(Participant.tournament_id == t.id))
    info = parsed.tournament
    t.name = info.name or t.name
    t.vkz = info.vkz or t.vkz
    t.start_date, t.end_date, t.kind = info.start, info.end, info.kind
    t.status = "submitted"
    session.flush()
    players |= _write_field(session, t, doc)
    since = min(old_key.end, t.end_date)
    _record(session, "correct", "correct", t, since, actor, players, old_key.to_json())
    session.flush()
    return t


def _check_no_overlap(session: Session, player_id: int, club: int, vkz: str, joined: date) -> None:
    """A new membership from ``joined`` (open-ended) overlaps none of the player's
    memberships in the club (the database's ``no_overlap`` refuses it without saying which)."""
    existing = session.execute(
        select(Membership.valid_from, Membership.valid_to)
        .where(
            Membership.player_id == player_id,
            Membership.organisation_id == club,
            (Membership.valid_to.is_(None)) | (Membership.valid_to >= joined),
        )
        .order_by(Membership.valid_from)
    ).first()
    if existing is None:
        return
    since, until = existing
    overlap = (
        _(
            "player %(player)d is a member of %(vkz)s since %(since)s (not ended), which a "
            "membership from %(joined)s would overlap: end it first (ratingdb player leave "
            "%(player)d --club %(vkz)s --on DATE)"
        )
        if until is None
        else _(
            "player %(player)d is a member of %(vkz)s from %(since)s to %(until)s, which a "
            "membership from %(joined)s would overlap: a new membership begins after %(until)s"
        )
    )
    raise InputError(
        "--from",
        overlap
        % {"player": player_id, "vkz": vkz, "since": since, "until": until, "joined": joined},
    )


def change_membership(
    session: Session,
    player_id: int,
    vkz: str,
    *,
    joined: date | None = None,
    left: date | None = None,
    actor: str = "cli",
) -> None:
    """A player joins a club (``joined``) or leaves it (``left``): membership decides what
    is stored (WO 3.4.3, 4.1.1), so the player's history is replayed from their first
    tournament on the next run."""
    hold_edits(session)
    if not 0 < player_id <= MAX_PLAYER_ID or session.get(Player, player_id) is None:
        raise InputError(_("player"), _("no player with id %(id)s") % {"id": player_id})
    club, kind = session.execute(
        select(Organisation.id, Organisation.kind).where(Organisation.vkz == vkz)
    ).first() or (None, None)
    if club is None:
        raise InputError(_("club"), unknown_club(vkz))
    if joined is not None and kind != "club":
        raise InputError(_("club"), not_a_club(vkz, kind))
    day = joined if joined is not None else left
    assert day is not None, "a membership change is a join or a leave"
    check_date(day, "--from" if joined is not None else "--on")
    if joined is not None:
        _check_no_overlap(session, player_id, club, vkz, joined)
        session.add(Membership(player_id=player_id, organisation_id=club, valid_from=joined))
        when = joined
    else:
        assert left is not None
        open_membership = session.scalar(
            select(Membership).where(
                Membership.player_id == player_id,
                Membership.organisation_id == club,
                Membership.valid_to.is_(None),
            )
        )
        if open_membership is None:
            raise InputError(
                _("club"),
                _("player %(player)d has no open membership in %(vkz)s")
                % {"player": player_id, "vkz": vkz},
            )
        if left < open_membership.valid_from:
            raise InputError(
                _("date"), _("%(date)s is before the membership began") % {"date": left}
            )
        open_membership.valid_to = left
        when = left
    session.flush()
    first = session.execute(
        text(
            "SELECT min(t.end_date) FROM tournaments t JOIN participants p "
            "ON p.tournament_id = t.id WHERE p.player_id = :p"
        ),
        {"p": player_id},
    ).scalar()
    record_change(
        session,
        "player",
        first or when,
        actor=actor,
        action="join" if joined else "leave",
        entity="membership",
        entity_id=str(player_id),
        details={"club": vkz, "date": when.isoformat()},
        player_ids=[player_id],
    )
    session.flush()
