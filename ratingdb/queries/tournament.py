"""A stored tournament's evaluation (WO Anhang 3.1.11) and tournament lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.store import (
    fetch_together,
    find_tournament,
    load_games,
    load_participants,
    stored_evaluation_from,
    stored_evaluation_reads,
)
from ratingdb.engine.inputs import tournament_input
from ratingdb.engine.model import EngineTournament
from ratingdb.engine.order import ORDER_DESC
from ratingdb.i18n import _
from ratingdb.queries.evaluation_display import render_text
from ratingdb.rules.model import PlayerResult, TournamentInput, TournamentResult


def stored_evaluation(session: Session, ident: str) -> tuple[TournamentInput, TournamentResult]:
    """The tournament and its stored evaluation, as ``ratingdb evaluate`` objects."""
    tid = find_tournament(session, ident)
    found = load_stored_evaluation(session, tid)
    if found is None:
        code = session.execute(text("SELECT code FROM tournaments WHERE id = :t"), {"t": tid})
        raise LookupError(
            _("tournament %(code)s has not been evaluated yet (run ratingdb recalc)")
            % {"code": code.scalar_one()}
        )
    return found.input, found.result


@dataclass(frozen=True)
class StoredEvaluation:
    """A tournament's stored evaluation: the tournament as the engine reads it, its input
    and result as ``ratingdb evaluate`` objects, and the version of the Rechenmodul the
    evaluation used (WO Anhang 1.2)."""

    tournament: EngineTournament
    input: TournamentInput
    result: TournamentResult
    rechenmodul: str


def load_stored_evaluation(session: Session, tournament_id: int) -> StoredEvaluation | None:
    """The stored evaluation of tournament ``tournament_id``, None if it has none."""
    found, _ = read_stored_evaluation(session, ":tid", {"tid": tournament_id})
    return found


def read_stored_evaluation(
    session: Session,
    tournament: str,
    params: dict[str, Any],
    more: Sequence[tuple[str, dict[str, Any]]] = (),
) -> tuple[StoredEvaluation | None, list[list[Any]]]:
    """The stored evaluation of the tournament whose id is the SQL expression
    ``tournament`` (with ``params``), None if it has none; and the rows of the ``more``
    reads a page needs besides. All are sent together and answered in one round trip
    (:func:`ratingdb.db.store.fetch_together`): the timeline, the snapshots, the
    tournament with its participants and games."""
    reads = [(sql, params) for sql in stored_evaluation_reads(tournament)]
    rows = fetch_together(session, [*reads, *more])
    timeline, snaps, t = stored_evaluation_from(session, rows[: len(reads)])
    extra = rows[len(reads) :]
    if t is None or not snaps:
        return None, extra
    modul = timeline.at(t.end)
    inputs = {pid: s.input for pid, s in snaps.items()}
    tin = tournament_input(t, inputs)
    result = TournamentResult(
        tournament=tin.tournament,
        rules=modul.family,
        precision=modul.parameters.precision,
        parameters=modul.parameters.to_dict(),
        iterations=0,
        players=[
            PlayerResult.from_dict(str(p.id), snaps[p.id].output.to_dict()) for p in t.participants
        ],
        coefficient="e" if modul.family == "dwz-classic" else "k",
    )
    used = next(iter(snaps.values())).input.rechenmodul  # "family/version"
    version = next((v.version for v in timeline.versions if v.key == used), used)
    return StoredEvaluation(t, tin, result, version), extra


def evaluation_input(session: Session, ident: str) -> dict[str, Any]:
    """The stored evaluation's input in the ``ratingdb evaluate`` contract: every player's
    R_0, index, membership and valid residual games as the last run used them, so that the
    tournament can be evaluated (and argued about) without the database."""
    tin, _ = stored_evaluation(session, ident)
    players = []
    for p in tin.players:
        row: dict[str, Any] = {
            "id": p.id,
            "name": p.name,
            "rating": p.rating,
            "index": p.index,
            "birth_year": p.birth_year,
            "member": p.member,
            "rating_source": p.rating_source,
            "residual_games": [
                {"opponent_rating": g.opponent_rating, "score": float(g.score),
                 "date": g.date.isoformat()}
                for g in p.residual_games
            ],
        }  # fmt: skip
        if p.computer:
            row["computer"] = True
        players.append(row)
    games = [
        {"round": g.round, "white": g.white, "black": g.black, "result": g.result}
        for g in tin.games
    ]
    return {"tournament": tin.tournament.to_dict(), "players": players, "games": games}


def evaluation_rechenmodul(session: Session, tournament_id: int) -> str | None:
    """The version of the Rechenmodul the stored evaluation used (WO Anhang 1.2)."""
    version: str | None = session.execute(
        text(
            "SELECT r.version FROM rating_snapshots s JOIN rechenmodule r "
            "ON r.id = s.rechenmodul_id WHERE s.tournament_id = :t LIMIT 1"
        ),
        {"t": tournament_id},
    ).scalar()
    return version


def show(session: Session, ident: str) -> str:
    tin, result = stored_evaluation(session, ident)
    modul = evaluation_rechenmodul(session, find_tournament(session, ident))
    return render_text(tin, result, modul)


def tournament_list(session: Session, limit: int = 50) -> list[dict[str, Any]]:
    """The latest tournaments (WO 6.5.2.1 item 4): code, name, end date, VKZ, kind,
    players, status."""
    rows = session.execute(
        text(
            "SELECT t.code, t.name, t.end_date, t.vkz, t.kind, t.status, t.evaluators, "
            "t.processed_at, (SELECT count(*) FROM participants p WHERE p.tournament_id = t.id) "
            f"AS players FROM tournaments t ORDER BY {ORDER_DESC} LIMIT :n"
        ),
        {"n": limit},
    ).mappings()
    return [dict(r) for r in rows]


def submission_document(session: Session, ident: str) -> dict[str, Any]:
    """A stored tournament in the submission format of ``ratingdb tournament add``:
    players by ``player_id`` (textual participants by name), external ratings kept."""
    t = session.execute(
        text(
            "SELECT id, code, name, start_date, end_date, vkz, kind FROM tournaments WHERE id = :i"
        ),
        {"i": find_tournament(session, ident)},
    ).one()
    parts = load_participants(session, t.id)
    games = load_games(session, t.id)
    players: list[dict[str, Any]] = []
    for p in parts:
        entry: dict[str, Any] = {"id": str(p.id)}
        if p.player_id is not None:
            entry["player_id"] = p.player_id
        else:
            entry.update(name=p.name, member=False)
        if p.external_rating is not None:
            entry.update(rating=p.external_rating, rating_source=p.rating_source)
            if p.external_index is not None:
                entry["index"] = p.external_index
        if p.computer:
            entry["computer"] = True
        players.append(entry)
    return {
        "tournament": {
            "id": t.code,
            "name": t.name,
            "start": t.start_date.isoformat(),
            "end": t.end_date.isoformat(),
            "vkz": t.vkz,
            "kind": t.kind,
        },
        "players": players,
        "games": [
            {"round": g.round, "white": g.white, "black": g.black, "result": g.result}
            for g in games
        ],
    }
