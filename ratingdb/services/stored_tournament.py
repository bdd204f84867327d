"""A stored tournament as its submission: the document the correction editor starts from,
the state a correction is compared with, and what a correction changed, in words (WO 3.7:
a correction changes exactly what the officer changed).

:func:`document` is the stored submission itself in the submission format
(docs/engine.md, "Submissions"): every participant with his database player (or his name as
a non-member), his club, the entry rating given with the submission with its source and
index (WO 4.1.2), the computer flag, byes, title and federation; every game with its round
and result. Submitted unchanged it writes the same rows again.

:func:`state` is what a correction may change of the stored tournament (the header, every
participant's row, the games), and :func:`differences` lists the changes between two states
as sentences: an empty list is "no change", and then nothing is written (no change point,
no audit entry).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.i18n import _
from ratingdb.names import full_name

_PARTICIPANTS = (
    "SELECT pa.start_rank, pa.player_id, pa.textual_name, pa.club_vkz, pa.rating_source, "
    "pa.external_rating, pa.external_index, pa.computer, pa.byes, pa.title, pa.federation, "
    "p.surname, p.given_name FROM participants pa LEFT JOIN players p ON p.id = pa.player_id "
    "WHERE pa.tournament_id = :t ORDER BY pa.start_rank NULLS LAST, pa.id"
)
_GAMES = (
    "SELECT g.round, g.board, w.start_rank AS white, b.start_rank AS black, g.result "
    "FROM games g JOIN participants w ON w.id = g.white_id "
    "JOIN participants b ON b.id = g.black_id WHERE g.tournament_id = :t "
    "ORDER BY g.round NULLS FIRST, g.board NULLS FIRST, g.id"
)
_HEADER = (
    "SELECT code, name, vkz, city, start_date, end_date, kind, time_control, rated, exchange "
    "FROM tournaments WHERE id = :t"
)


def document(session: Session, tournament_id: int) -> dict[str, Any]:
    """The stored submission of tournament ``tournament_id``, every field it holds."""
    head = session.execute(text(_HEADER), {"t": tournament_id}).one()
    players: list[dict[str, Any]] = []
    key: dict[int, str] = {}
    for k, r in enumerate(session.execute(text(_PARTICIPANTS), {"t": tournament_id}), 1):
        ident = str(r.start_rank if r.start_rank is not None else k)
        key[r.start_rank] = ident
        entry: dict[str, Any] = {"id": ident}
        if r.player_id is not None:
            entry["player_id"] = r.player_id
            entry["name"] = full_name(r.surname, r.given_name)
        else:
            entry.update(name=r.textual_name or ident, member=False)
        if r.computer:
            entry["computer"] = True
        if r.club_vkz:
            entry["club"] = r.club_vkz
        if r.external_rating is not None:
            entry.update(rating=r.external_rating, rating_source=r.rating_source or "fide")
            if r.external_index is not None:
                entry["index"] = r.external_index
        if r.byes:
            entry["byes"] = dict(r.byes)
        if r.title:
            entry["title"] = r.title
        if r.federation:
            entry["federation"] = r.federation
        players.append(entry)
    games = []
    for g in session.execute(text(_GAMES), {"t": tournament_id}):
        game: dict[str, Any] = {"white": key[g.white], "black": key[g.black], "result": g.result}
        if g.round is not None:
            game["round"] = g.round
        if g.board is not None:
            game["board"] = g.board
        games.append(game)
    return {
        "tournament": {
            "id": head.code,
            "name": head.name,
            "start": head.start_date.isoformat(),
            "end": head.end_date.isoformat(),
            "vkz": head.vkz,
            "kind": head.kind,
        },
        "players": players,
        "games": games,
    }


def state(session: Session, tournament_id: int) -> dict[str, Any]:
    """What a correction may change of the stored tournament: header, participants (by
    start rank) and games (as a multiset). Who signed it (``evaluators``) is not part of it:
    signing an unchanged tournament again is no change."""
    head = session.execute(text(_HEADER), {"t": tournament_id}).one()
    parts = [
        {
            "rank": r.start_rank,
            "player_id": r.player_id,
            "name": full_name(r.surname, r.given_name) if r.player_id else r.textual_name,
            "club": r.club_vkz,
            "rating": r.external_rating,
            "source": r.rating_source if r.external_rating is not None else None,
            "index": r.external_index if r.external_rating is not None else None,
            "computer": r.computer,
            "byes": dict(r.byes or {}),
            "title": r.title,
            "federation": r.federation,
        }
        for r in session.execute(text(_PARTICIPANTS), {"t": tournament_id})
    ]
    return {
        "header": {
            "name": head.name,
            "vkz": head.vkz,
            "city": head.city,
            "start": head.start_date,
            "end": head.end_date,
            "kind": head.kind,
            "time_control": head.time_control,
            "rated": head.rated,
            "exchange": head.exchange or {},
        },
        "participants": parts,
        # a multiset: the same games written in another order are the same tournament
        "games": sorted(
            (tuple(g) for g in session.execute(text(_GAMES), {"t": tournament_id})),
            key=lambda g: tuple((v is None, "" if v is None else str(v)) for v in g),
        ),
    }


def _who(p: dict[str, Any]) -> tuple[str, Any]:
    """A participant's identity across a correction: his database player, else his name."""
    return ("player", p["player_id"]) if p["player_id"] is not None else ("name", p["name"])


def _rating(p: dict[str, Any]) -> str:
    if p["rating"] is None:
        return _("none")
    shown = f"{p['rating']}" + (f"-{p['index']}" if p["index"] is not None else "")
    return f"{shown} ({p['source']})"


#: participant fields a correction may change, with how the sentence names them
_FIELDS = (
    ("club", "club"),
    ("computer", "computer"),
    ("byes", "byes"),
    ("title", "title"),
    ("federation", "federation"),
)


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed from ``before`` to ``after`` (:func:`state`), one sentence each, in the
    language in force; empty when nothing changed."""
    out: list[str] = []
    field_words = {
        "name": _("name"),
        "vkz": "VKZ",
        "city": _("place"),
        "start": _("start date"),
        "end": _("end date"),
        "kind": _("kind"),
        "time_control": _("time control"),
        "rated": _("rated"),
        "exchange": _("data of the file beyond the games"),
        "club": _("club"),
        "computer": _("computer"),
        "byes": _("byes"),
        "title": _("title"),
        "federation": _("federation"),
    }
    for key, old in before["header"].items():
        new = after["header"][key]
        if old != new:
            if key == "exchange":
                out.append(_("%(field)s changed") % {"field": field_words[key]})
            else:
                out.append(
                    _("%(field)s: %(old)s → %(new)s")
                    % {"field": field_words[key], "old": _shown(old), "new": _shown(new)}
                )
    old_parts = {_who(p): p for p in before["participants"]}
    new_parts = {_who(p): p for p in after["participants"]}
    for who, p in old_parts.items():
        if who not in new_parts:
            out.append(_("player removed: %(name)s") % {"name": p["name"]})
    for who, p in new_parts.items():
        if who not in old_parts:
            out.append(_("player added: %(name)s") % {"name": p["name"]})
            continue
        q = old_parts[who]
        if (q["rating"], q["source"], q["index"]) != (p["rating"], p["source"], p["index"]):
            out.append(
                _("rating given for %(name)s: %(old)s → %(new)s")
                % {"name": p["name"], "old": _rating(q), "new": _rating(p)}
            )
        for key, _word in _FIELDS:
            if q[key] != p[key]:
                out.append(
                    _("%(field)s of %(name)s: %(old)s → %(new)s")
                    % {
                        "field": field_words[key],
                        "name": p["name"],
                        "old": _shown(q[key]),
                        "new": _shown(p[key]),
                    }
                )
    out.extend(_game_differences(before, after))
    if not out and before != after:  # start ranks only, or two namesakes swapped
        out.append(_("order of the participants changed"))
    return out


def _game_differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Games by round and pairing (the players' identities, not their start ranks)."""

    def names(state_: dict[str, Any]) -> dict[int, tuple[tuple[str, Any], str]]:
        return {p["rank"]: (_who(p), p["name"] or "?") for p in state_["participants"]}

    def games(state_: dict[str, Any]) -> dict[tuple[Any, ...], Counter[str]]:
        who = names(state_)
        out: dict[tuple[Any, ...], Counter[str]] = {}
        for rnd, board, white, black, result in state_["games"]:
            key = (rnd, board, who[white], who[black])
            out.setdefault(key, Counter())[result] += 1
        return out

    old, new = games(before), games(after)
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: (k[0] or 0, k[1] or 0, k[2][1], k[3][1])):
        rnd, board, (_w, white), (_b, black) = key
        where = _("round %(round)s") % {"round": rnd} if rnd is not None else _("no round")
        if board is not None:
            where += ", " + _("board %(board)s") % {"board": board}
        a, b = old.get(key, Counter()), new.get(key, Counter())
        if a == b:
            continue
        if sum(a.values()) == sum(b.values()) == 1:
            out.append(
                _("result of %(where)s, %(white)s – %(black)s: %(old)s → %(new)s")
                % {
                    "where": where,
                    "white": white,
                    "black": black,
                    "old": next(iter(a)),
                    "new": next(iter(b)),
                }
            )
            continue
        for result in (a - b).elements():
            out.append(
                _("game removed: %(where)s, %(white)s – %(black)s %(result)s")
                % {"where": where, "white": white, "black": black, "result": result}
            )
        for result in (b - a).elements():
            out.append(
                _("game added: %(where)s, %(white)s – %(black)s %(result)s")
                % {"where": where, "white": white, "black": black, "result": result}
            )
    return out


def _shown(value: Any) -> str:
    if value is None or value == {} or value == "":
        return "–"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in sorted(value.items()))
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


#: what a correction read from a tournament file keeps of the stored submission when the
#: file does not carry it (docs/officers.md, "Correcting with a file")
KEPT_FIELDS = ("rating", "rating_source", "index", "club")


def entries(session: Session, tournament_id: int) -> dict[tuple[str, Any], dict[str, Any]]:
    """The stored participants' entries that a tournament file may lack (:data:`KEPT_FIELDS`:
    the entry rating given with the submission, its source and index, the club), by
    identity: ``("player", id)`` or ``("name", name)`` of a non-member."""
    out: dict[tuple[str, Any], dict[str, Any]] = {}
    for entry in document(session, tournament_id)["players"]:
        who = ("player", entry["player_id"]) if "player_id" in entry else ("name", entry["name"])
        out[who] = {k: entry[k] for k in KEPT_FIELDS if k in entry}
    return out


def keep(entry: dict[str, Any], kept: dict[tuple[str, Any], dict[str, Any]]) -> None:
    """Give a submission entry built from a file the stored values of the fields the file
    does not carry (an entry rating only when the file gives none)."""
    who = ("player", entry["player_id"]) if "player_id" in entry else ("name", entry.get("name"))
    stored = kept.get(who)
    if not stored:
        return
    if "rating" not in entry and "rating" in stored:
        for k in ("rating", "rating_source", "index"):
            if k in stored:
                entry[k] = stored[k]
    if (
        "club" not in entry
        and "club" in stored
        and ("player_id" in entry or entry.get("member") is False)
    ):
        entry["club"] = stored["club"]
