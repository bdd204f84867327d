"""The engine's history in PostgreSQL: bulk loading and bulk writing.

``load_history`` reads players, memberships, tournaments, participants, games, snapshots and
the Rechenmodul timeline in a handful of queries; ``write_outcome`` replaces the snapshots
of every re-evaluated tournament with COPY and keeps the ``residual_games`` table (created,
consumed, expiring, WO 4.1.1) in step with the snapshots.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any, cast

import psycopg
from psycopg.rows import namedtuple_row, tuple_row
from sqlalchemy import text
from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect
from sqlalchemy.orm import Session

from ratingdb.dates import add_years
from ratingdb.db.snapshot_text import SNAPSHOT_COLUMNS, copy_snapshots
from ratingdb.engine.history import History
from ratingdb.engine.inputs import state_after
from ratingdb.engine.model import (
    Adjustment,
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    PlayerState,
    ResidualEntry,
    Snapshot,
    SnapshotInput,
    Takeover,
)
from ratingdb.engine.order import KEY_AT_LEAST, KEY_BELOW, ORDER_COLUMNS, ORDER_DESC, OrderKey
from ratingdb.engine.problems import EvaluationProblem
from ratingdb.engine.replay import ReplayOutcome
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.i18n import _
from ratingdb.records import Maker
from ratingdb.request_timing import charged
from ratingdb.rules.model import GameInput, Kind
from ratingdb.rules.snapshots import SnapshotOutput


def snapshot_columns(alias: str) -> str:
    """:data:`SNAPSHOT_COLUMNS`, each with the table's alias."""
    return ", ".join(f"{alias}.{c.strip()}" for c in SNAPSHOT_COLUMNS.split(","))


SNAPSHOT_COLUMNS_S = snapshot_columns("s")


#: Rechenmodul versions as parsed and validated, by what is stored: family, version,
#: valid-from date and the MD5 of the parameters' text, so that a page parses the
#: timeline's parameters once per process, not at every request
_PARSED: dict[tuple[str, str, date, str], RechenmodulVersion] = {}
_PARSED_MAX = 1024
_TIMELINE_ROWS = (
    "SELECT id, family, version, valid_from, md5(parameters::text) AS digest FROM rechenmodule"
)


def load_timeline(session: Session) -> tuple[Timeline, dict[str, int]]:
    """The Rechenmodul timeline and the rows' ids by key ("family/version"). A stored
    version is parsed and validated once: the query reads the rows with a digest of their
    parameters, the parameters themselves only of a row not seen before."""
    return _timeline_from(session, session.execute(text(_TIMELINE_ROWS)).all())


def _timeline_from(session: Session, rows: Iterable[Any]) -> tuple[Timeline, dict[str, int]]:
    found: list[tuple[int, RechenmodulVersion]] = []
    for r in rows:
        version = _PARSED.get((r.family, r.version, r.valid_from, r.digest))
        if version is None:
            version = _parse_stored(session, r.id)
        if version is not None:  # None: deleted since the first query
            found.append((r.id, version))
    return Timeline([v for _, v in found]), {v.key: row_id for row_id, v in found}


def _parse_stored(session: Session, row_id: int) -> RechenmodulVersion | None:
    """Rechenmodul row ``row_id`` parsed and validated, kept under what this read of it
    (not an earlier one: the row may have changed since) says."""
    r = session.execute(
        text(
            "SELECT family, version, valid_from, parameters, md5(parameters::text) AS digest "
            "FROM rechenmodule WHERE id = :i"
        ),
        {"i": row_id},
    ).first()
    if r is None:
        return None
    version = RechenmodulVersion.from_stored(r.family, r.version, r.valid_from, r.parameters)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[(r.family, r.version, r.valid_from, r.digest)] = version
    return version


def modul_keys(session: Session) -> dict[int, str]:
    """Rechenmodul keys ("family/version") by row id (the ids and names only)."""
    return {
        r.id: f"{r.family}/{r.version}"
        for r in session.execute(text("SELECT id, family, version FROM rechenmodule"))
    }


def load_players(session: Session) -> dict[int, PlayerRecord]:
    """Every player's record: birth year, memberships (in date order), list takeover. The
    rows come straight from the driver (:func:`_fetch`): at 250,000 players a full replay
    reads half a million of them before its first tournament."""
    spans: dict[int, list[Membership]] = defaultdict(list)
    for player_id, valid_from, valid_to in _fetch(
        session, "SELECT player_id, valid_from, valid_to FROM memberships ORDER BY valid_from"
    ):
        spans[player_id].append(Membership(valid_from, valid_to))
    takeovers = {
        player_id: Takeover(taken_on, rating, rating_index)
        for player_id, taken_on, rating, rating_index in _fetch(
            session, "SELECT player_id, taken_on, rating, rating_index FROM rating_takeovers"
        )
    }
    empty: tuple[Membership, ...] = ()
    return {
        pid: PlayerRecord(
            pid, birth_year, tuple(spans[pid]) if pid in spans else empty, takeovers.get(pid)
        )
        for pid, birth_year in _fetch(session, "SELECT id, birth_year FROM players")
    }


def driver(session: Session) -> psycopg.Connection[Any]:
    """The psycopg connection under the session's (for bulk reads, COPY, and threads that
    must not touch the session)."""
    raw = session.connection().connection.driver_connection
    assert raw is not None
    return cast("psycopg.Connection[Any]", raw)


Source = Session | psycopg.Connection[Any]

_PSYCOPG = psycopg_dialect()  # type: ignore[no-untyped-call]  # (SQLAlchemy leaves it untyped)


@lru_cache(maxsize=1024)
def _driver_sql(sql: str) -> str:
    """``sql`` with ``:name`` placeholders (``text()``'s form, as everywhere in ratingdb) in
    the driver's form, compiled by SQLAlchemy's psycopg dialect: ``%(name)s``, a literal
    ``%`` escaped, ``::`` casts kept."""
    return str(text(sql).compile(dialect=_PSYCOPG))


def _fetch(
    source: Source,
    sql: str,
    params: dict[str, Any] | None = None,
    *,
    named: bool = False,
    binary: bool = False,
) -> list[Any]:
    """Rows straight from the driver (tuples, or named tuples): bulk reads skip
    SQLAlchemy's row objects. ``sql`` uses ``:name`` placeholders like the rest of the
    module; ``source`` is a session or its psycopg connection (:func:`driver`).
    ``binary``: the values in PostgreSQL's binary format (the same Python values; integers
    read without parsing text: a full replay's games 9.0 → 6.1 ms of the replaying process
    and 28 → 24 ms of the server a chunk of 30,000)."""
    raw = driver(source) if isinstance(source, Session) else source
    factory = namedtuple_row if named else tuple_row
    with charged(), raw.cursor(row_factory=factory, binary=binary) as cur:
        return cast(list[Any], cur.execute(_driver_sql(sql), params or {}).fetchall())


def fetch_together(
    source: Source, queries: Sequence[tuple[str, dict[str, Any]]]
) -> list[list[Any]]:
    """The rows (named tuples) of several reads sent at once and answered in one round trip
    (psycopg's pipeline mode; one after the other where the client library lacks it). A
    page that needs five independent reads waits for the server once instead of five times,
    which on a busy machine is most of its time."""
    raw = driver(source) if isinstance(source, Session) else source
    if not psycopg.Pipeline.is_supported():
        return [_fetch(raw, sql, params, named=True) for sql, params in queries]
    cursors = []
    with charged():
        try:
            with raw.pipeline():
                for sql, params in queries:
                    cursor = raw.cursor(row_factory=namedtuple_row)
                    cursors.append(cursor)
                    cursor.execute(_driver_sql(sql), params or {})
            return [cast(list[Any], cursor.fetchall()) for cursor in cursors]
        finally:
            for cursor in cursors:
                cursor.close()


def load_order(
    session: Session, since: date | None = None, from_key: OrderKey | None = None
) -> list[EngineTournament]:
    """Rated tournaments as order-key stubs (no participants, no games), in order: all, or
    those ending on or after ``since``, or those from the order key ``from_key`` on."""
    where, params = "", {}
    if from_key is not None:
        where, params = f" AND {KEY_AT_LEAST}", from_key.sql_params()
    elif since is not None:
        where, params = " AND t.end_date >= :since", {"since": since}
    return order_stubs(session, where, params)


def order_stubs(
    source: Source, where: str = "", params: dict[str, Any] | None = None, limit: int = 0
) -> list[EngineTournament]:
    """Rated tournaments (``where``: more conditions on ``t``) as order-key stubs, in
    order; at most ``limit`` (0: all)."""
    return [EngineTournament(*row) for row in order_rows(source, where, params, limit)]


#: a tournament's order row: the first fields of :class:`EngineTournament`
OrderRow = tuple[int, str, date, date, str, datetime, Kind, str | None]


def order_rows(
    source: Source, where: str = "", params: dict[str, Any] | None = None, limit: int = 0
) -> list[OrderRow]:
    """:func:`order_stubs` as rows: the first fields of :class:`EngineTournament` (id,
    code, start, end, VKZ, processing time, kind, name), in order."""
    cut = f" LIMIT {int(limit)}" if limit else ""
    return _fetch(
        source,
        "SELECT t.id, t.code, t.start_date, t.end_date, t.vkz, t.processed_at, t.kind, "
        f"t.name FROM tournaments t WHERE rated{where} ORDER BY {ORDER_COLUMNS}{cut}",
        params,
    )


def player_index(session: Session, from_key: OrderKey) -> dict[int, frozenset[int]]:
    """The players of every tournament from the order key ``from_key`` on."""
    players: dict[int, set[int]] = defaultdict(set)
    for tid, pid in _fetch(
        session,
        "SELECT pa.tournament_id, pa.player_id FROM participants pa "
        "JOIN tournaments t ON t.id = pa.tournament_id "
        f"WHERE t.rated AND {KEY_AT_LEAST} AND pa.player_id IS NOT NULL",
        from_key.sql_params(),
    ):
        players[tid].add(pid)
    return {tid: frozenset(ps) for tid, ps in players.items()}


def participants_by_tournament(
    source: Source, where: str, params: dict[str, Any], *, names: bool
) -> dict[int, list[EngineParticipant]]:
    """Participants by tournament, in start-rank order (``names``: players' names too,
    for displays; the replay never needs them)."""
    return _participants_from(
        _fetch(source, _participants_sql(where, names=names), params, binary=True)
    )


def _participants_sql(where: str, *, names: bool) -> str:
    name = (
        "coalesce(pa.textual_name, pl.surname || ', ' || pl.given_name)"
        if names
        else ("pa.textual_name")
    )
    join = " LEFT JOIN players pl ON pl.id = pa.player_id" if names else ""
    # the tournament, then a participant's fields in EngineParticipant's order (_PARTICIPANTS)
    return (
        f"SELECT pa.tournament_id, pa.id, pa.player_id, {name}, pa.club_vkz, "
        "pa.rating_source, pa.external_rating, pa.external_index, pa.computer "
        f"FROM participants pa{join}{where} "
        "ORDER BY pa.tournament_id, pa.start_rank NULLS LAST, pa.id"
    )


#: a participant from a row of :func:`_participants_sql` (its values after the tournament's)
_PARTICIPANTS = Maker(EngineParticipant, start=1)


def _participants_from(rows: Sequence[Any]) -> dict[int, list[EngineParticipant]]:
    parts: dict[int, list[EngineParticipant]] = defaultdict(list)
    for row, participant in zip(rows, _PARTICIPANTS.many(rows), strict=True):
        parts[row[0]].append(participant)
    return parts


def games_by_tournament(
    source: Source, where: str, params: dict[str, Any]
) -> dict[int, list[GameInput]]:
    """Games by tournament, in round and board order."""
    return _games_from(_fetch(source, _games_sql(where), params, binary=True))


def _games_sql(where: str) -> str:
    # the rules name participants by their ids as text: the server makes the text; after
    # the tournament, a game's fields in GameInput's order (made from the row: _GAMES)
    return (
        f"SELECT tournament_id, white_id::text, black_id::text, result, round FROM games{where} "
        "ORDER BY tournament_id, round NULLS FIRST, board NULLS FIRST, id"
    )


#: a game from a row of :func:`_games_sql` (its values after the tournament's id)
_GAMES = Maker(GameInput, start=1)


def _games_from(rows: Sequence[Any]) -> dict[int, list[GameInput]]:
    """Rows of :func:`_games_sql` (white and black as text) as games by tournament."""
    games: dict[int, list[GameInput]] = defaultdict(list)
    # the games of one read share their strings: a player's id and a result are one object
    # in all the games (a full replay's worker gets each once a message)
    for row, game in zip(rows, _GAMES.many(rows, same={}), strict=True):
        games[row[0]].append(game)
    return games


def load_participants(session: Session, tournament_id: int) -> tuple[EngineParticipant, ...]:
    where = " WHERE pa.tournament_id = :t"
    return tuple(
        participants_by_tournament(session, where, {"t": tournament_id}, names=False)[tournament_id]
    )


def load_games(session: Session, tournament_id: int) -> tuple[GameInput, ...]:
    return tuple(
        games_by_tournament(session, " WHERE tournament_id = :t", {"t": tournament_id})[
            tournament_id
        ]
    )


def load_tournaments(
    session: Session, only: int | None = None, from_key: OrderKey | None = None
) -> list[EngineTournament]:
    """Rated tournaments with participants and games (``only``: just that tournament;
    ``from_key``: the tournaments from that order key on)."""
    params: dict[str, Any] = {} if from_key is None else from_key.sql_params()
    if only is not None:
        where = f" AND t.id = {int(only)}"
    elif from_key is not None:
        where = f" AND {KEY_AT_LEAST}"
    else:
        where = ""
    within = f"SELECT t.id FROM tournaments t WHERE rated{where}"
    parts = participants_by_tournament(
        session, f" WHERE pa.tournament_id IN ({within})" if where else "", params, names=True
    )
    games = games_by_tournament(
        session, f" WHERE tournament_id IN ({within})" if where else "", params
    )
    rows = session.execute(text(f"{_TOURNAMENT_ROWS}{where}"), params)
    return _tournaments_from(rows, parts, games)


_TOURNAMENT_ROWS = (
    "SELECT id, code, name, start_date, end_date, vkz, processed_at, kind "
    "FROM tournaments t WHERE rated"
)


def _tournaments_from(
    rows: Iterable[Any],
    parts: dict[int, list[EngineParticipant]],
    games: dict[int, list[GameInput]],
) -> list[EngineTournament]:
    return [
        EngineTournament(
            id=r.id,
            code=r.code,
            start=r.start_date,
            end=r.end_date,
            vkz=r.vkz,
            processed_at=r.processed_at,
            kind=r.kind,
            name=r.name,
            participants=tuple(parts.get(r.id, ())),
            games=tuple(games.get(r.id, ())),
        )
        for r in rows
    ]


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def load_snapshots(
    session: Session,
    modul_keys: dict[int, str],
    only: int | None = None,
    from_key: OrderKey | None = None,
) -> dict[int, dict[int, Snapshot]]:
    params: dict[str, Any] = {}
    if only is not None:
        where = f" WHERE tournament_id = {int(only)}"
    elif from_key is not None:
        params = from_key.sql_params()
        where = f" WHERE tournament_id IN (SELECT t.id FROM tournaments t WHERE {KEY_AT_LEAST})"
    else:
        where = ""
    rows = _fetch(session, _snapshots_sql(where), params, named=True)
    return _snapshots_from(rows, modul_keys)


def _snapshots_sql(where: str) -> str:
    return f"SELECT {SNAPSHOT_COLUMNS} FROM rating_snapshots{where}"


def _snapshots_from(
    rows: Iterable[Any], modul_keys: dict[int, str]
) -> dict[int, dict[int, Snapshot]]:
    out: dict[int, dict[int, Snapshot]] = defaultdict(dict)
    for r in rows:
        out[r.tournament_id][r.participant_id] = _snapshot_from_row(r, modul_keys)
    return dict(out)


def _output(r: Any) -> SnapshotOutput:
    return SnapshotOutput(
        group=r.player_group,
        age_class=r.age_class,
        rating_old=r.rating_old,
        index_old=r.index_old,
        k=_float(r.k),
        opponents_avg=r.opponents_avg,
        score=float(r.score),
        games=r.games,
        expected=_float(r.expected),
        performance=r.performance,
        exceptional=r.exceptional,
        start_value=r.start_value,
        iteration_value=r.iteration_value,
        rating_new=r.rating_new,
        index_new=r.index_new,
        stored=r.stored,
        new_residual_games=r.new_residual_games,
        expected_games=r.expected_games,
    )


def _snapshot_from_row(r: Any, modul_keys: dict[int, str]) -> Snapshot:
    inp = SnapshotInput(
        rating=r.rating_in,
        index=r.index_in,
        rating_source=r.rating_source,
        member=r.member,
        birth_year=r.birth_year,
        residual=tuple(ResidualEntry.from_json(x) for x in r.residual_in),
        rechenmodul=modul_keys[r.rechenmodul_id],
    )
    return Snapshot(r.tournament_id, r.participant_id, r.player_id, inp, _output(r))


def earlier_players(session: Session, before: OrderKey) -> set[int]:
    """Every player with a snapshot before the order key ``before``."""
    return set(
        session.scalars(
            text(
                "SELECT DISTINCT s.player_id FROM rating_snapshots s "
                f"JOIN tournaments t ON t.id = s.tournament_id WHERE {KEY_BELOW} "
                "AND s.player_id IS NOT NULL"
            ),
            before.sql_params(),
        )
    )


def prior_states(
    session: Session, player_ids: Iterable[int], before: OrderKey
) -> dict[int, PlayerState]:
    """Each player's state after their last snapshot before the order key ``before``."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    keys = modul_keys(session)
    rows = _fetch(
        session,
        f"SELECT DISTINCT ON (s.player_id) {SNAPSHOT_COLUMNS_S}, t.end_date AS t_end "
        "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
        f"WHERE s.player_id = ANY(:ids) AND {KEY_BELOW} "
        f"ORDER BY s.player_id, {ORDER_DESC}",
        {"ids": ids, **before.sql_params()},
        named=True,
    )
    states: dict[int, PlayerState] = {}
    for r in rows:
        snap = _snapshot_from_row(r, keys)
        stub = EngineTournament(r.tournament_id, "", r.t_end, r.t_end, "")
        states[r.player_id] = state_after(snap.input, snap.output, stub)
    return states


class _Lazy(dict):  # type: ignore[type-arg]
    """A dict that loads a missing key once, on ``get`` or ``[]``."""

    def __init__(self, loader: Callable[[int], Any]) -> None:
        super().__init__()
        self._loader = loader
        self._tried: set[int] = set()

    def get(self, key: int, default: Any = None) -> Any:
        if key not in self and key not in self._tried:
            self._tried.add(key)
            value = self._loader(key)
            if value is not None:
                self[key] = value
        return super().get(key, default)

    def __missing__(self, key: int) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value


def load_adjustments(session: Session) -> tuple[Adjustment, ...]:
    return tuple(
        Adjustment(r.effective_on, r.formula, r.raises_index)
        for r in session.execute(
            text(
                "SELECT effective_on, formula, raises_index FROM rating_adjustments "
                "ORDER BY effective_on, id"
            )
        )
    )


def load_player(session: Session, player_id: int) -> PlayerRecord | None:
    rows = _fetch(
        session,
        "SELECT p.birth_year, m.valid_from, m.valid_to, k.taken_on, k.rating, k.rating_index "
        "FROM players p LEFT JOIN memberships m ON m.player_id = p.id "
        "LEFT JOIN rating_takeovers k ON k.player_id = p.id "
        "WHERE p.id = :p ORDER BY m.valid_from",
        {"p": player_id},
    )
    if not rows:
        return None
    spans = tuple(Membership(r[1], r[2]) for r in rows if r[1] is not None)
    taken_on, rating, index = rows[0][3:6]
    takeover = None if taken_on is None else Takeover(taken_on, rating, index)
    return PlayerRecord(player_id, rows[0][0], spans, takeover)


class PostgresSource:
    """:class:`ratingdb.engine.source.HistorySource` of a history in PostgreSQL.

    ``before`` is the order key of the first loaded tournament (None: the whole history
    is loaded, every player starts without a rating); a player's state before it is read
    from the stored snapshots, in bulk with :meth:`load_priors` or one by one. With
    ``lazy`` the loaded tournaments are order-key stubs: their players come from a bulk
    index, participants and games are loaded (once) when the replay asks for them.
    """

    def __init__(self, session: Session, before: OrderKey | None = None, *, lazy: bool = False):
        if lazy and before is None:
            raise ValueError("lazy loading needs a change point")
        self._session = session
        self._before = before
        self._priors: dict[int, PlayerState] = {}
        self._index = player_index(session, before) if lazy and before is not None else None
        self._full: dict[int, EngineTournament] = {}
        self._games: dict[int, tuple[GameInput, ...]] = {}

    def load_priors(self, player_ids: Iterable[int]) -> None:
        """Read the states before ``before`` of many players in one query."""
        if self._before is None:
            return
        ids = set(player_ids) - self._priors.keys()
        found = prior_states(self._session, ids, self._before)
        self._priors.update({pid: found.get(pid, PlayerState()) for pid in ids})

    def players_in(self, t: EngineTournament) -> AbstractSet[int]:
        if self._index is None:
            return t.player_ids
        return self._index.get(t.id, frozenset())

    def expand(self, t: EngineTournament) -> EngineTournament:
        if self._index is None:
            return t
        if t.id not in self._full:
            self._full[t.id] = replace(t, participants=load_participants(self._session, t.id))
        return self._full[t.id]

    def games_of(self, t: EngineTournament) -> tuple[GameInput, ...]:
        if self._index is None:
            return t.games
        if t.id not in self._games:
            self._games[t.id] = load_games(self._session, t.id)
        return self._games[t.id]

    def prior(self, player_id: int) -> PlayerState:
        if self._before is None:
            return PlayerState()
        if player_id not in self._priors:
            self.load_priors([player_id])
        return self._priors[player_id]


def load_history(
    session: Session,
    from_key: OrderKey | None = None,
    *,
    lazy: bool = False,
    prior_players: Iterable[int] = (),
) -> tuple[History, dict[str, int]]:
    """The history in memory, and Rechenmodul ids by key.

    With ``from_key`` only the tournaments from that order key on are loaded (earlier
    states come from the snapshots before it, see :class:`PostgresSource`). With ``lazy``
    the participants are loaded in bulk but games, snapshots and player records only when
    the replay asks for them: an incremental run touches few tournaments.
    ``prior_players``: players whose states before ``from_key`` are read now, in one query
    (others are read when the replay meets them).
    """
    timeline, modul_ids = load_timeline(session)
    keys = {v: k for k, v in modul_ids.items()}
    source = PostgresSource(session, from_key, lazy=lazy)
    source.load_priors(prior_players)
    if not lazy:
        history = History(
            timeline,
            load_players(session),
            load_tournaments(session, from_key=from_key),
            load_snapshots(session, keys, from_key=from_key),
            adjustments=load_adjustments(session),
            source=source,
        )
        return history, modul_ids
    snapshots = _Lazy(lambda tid: load_snapshots(session, keys, only=tid).get(tid))
    players = _Lazy(lambda pid: load_player(session, pid))
    history = History(
        timeline,
        players,
        load_order(session, from_key=from_key),
        snapshots,
        adjustments=load_adjustments(session),
        source=source,
    )
    return history, modul_ids


#: the id of the tournament with code ``:code``, else with id ``:number`` (NULL: none), as
#: one SQL expression (:func:`find_tournament` in a query of its own)
FIND_TOURNAMENT = (
    "coalesce((SELECT id FROM tournaments WHERE code = :code), "
    "(SELECT id FROM tournaments WHERE id = :number))"
)


def find_tournament(session: Session, ident: str) -> int:
    """A tournament's id from its code, or else from its number; LookupError if none."""
    found = session.execute(
        text("SELECT id FROM tournaments WHERE code = :c"), {"c": ident}
    ).first()
    if found is None and ident.isascii() and ident.isdigit() and len(ident) <= 18:  # a bigint
        found = session.execute(
            text("SELECT id FROM tournaments WHERE id = :i"), {"i": int(ident)}
        ).first()
    if found is None:
        raise LookupError(_("no tournament %(code)r") % {"code": ident})
    return int(found.id)


def load_tournament(session: Session, ident: str) -> tuple[EngineTournament, RechenmodulVersion]:
    """One tournament by code (or number) and the Rechenmodul valid at its end."""
    timeline, _ = load_timeline(session)
    (t,) = load_tournaments(session, only=find_tournament(session, ident))
    return t, timeline.at(t.end)


def stored_evaluation_reads(tournament: str) -> list[str]:
    """The reads of one tournament's stored evaluation, for :func:`fetch_together`:
    ``tournament`` is an SQL expression of its id (its parameters are the caller's). Their
    rows go to :func:`stored_evaluation_from`, in this order."""
    where = f" WHERE tournament_id = {tournament}"
    return [
        _TIMELINE_ROWS,
        _snapshots_sql(where),
        f"{_TOURNAMENT_ROWS} AND t.id = {tournament}",
        _participants_sql(f" WHERE pa.tournament_id = {tournament}", names=True),
        _games_sql(where),
    ]


def stored_evaluation_from(
    session: Session, rows: Sequence[list[Any]]
) -> tuple[Timeline, dict[int, Snapshot], EngineTournament | None]:
    """The timeline, the snapshots by participant and the tournament (None if it is not
    rated) from the rows of :func:`stored_evaluation_reads`."""
    timeline_rows, snapshot_rows, tournament_rows, participant_rows, game_rows = rows
    timeline, ids = _timeline_from(session, timeline_rows)
    snapshots = _snapshots_from(snapshot_rows, {row_id: key for key, row_id in ids.items()})
    tournaments = _tournaments_from(
        tournament_rows, _participants_from(participant_rows), _games_from(game_rows)
    )
    found = tournaments[0] if tournaments else None
    snaps = snapshots.get(found.id, {}) if found else {}
    return timeline, snaps, found


#: the columns of ``residual_games`` a replay writes
RESIDUAL_COLUMNS = "owner_id, opponent_rating, score, played_on, expires_on, created_by_id, seq"


def write_outcome(
    session: Session,
    history: History,
    outcome: ReplayOutcome,
    modul_ids: dict[str, int],
    *,
    clear_all: bool = False,
) -> int:
    """Replace the snapshots of re-evaluated tournaments; returns the rows written."""
    written = list(outcome.written)
    clear_snapshots(session, None if clear_all else written)
    snapshots = [s for tid in written for s in outcome.written[tid]]
    problems = [p for tid, p in outcome.problems.items() if clear_all or tid in outcome.written]
    write_problems(session, problems, None if clear_all else written)
    raw = driver(session)
    copy_snapshots(raw, "rating_snapshots", snapshots, modul_ids)
    ends = {t.id: t.end for t in history.tournaments}
    created = [
        row
        for tid in written
        for row in residual_rows(tid, ends[tid], outcome.written[tid], history.timeline)
    ]
    copy_rows(raw, f"residual_games ({RESIDUAL_COLUMNS})", created)
    if written:
        relink_consumed(session, written)
    if clear_all or len(snapshots) > 100_000:  # the table changed a lot: refresh statistics
        refresh_statistics(session)
    return len(snapshots)


def copy_rows(raw: psycopg.Connection[Any], target: str, rows: Iterable[tuple[Any, ...]]) -> None:
    """``COPY target FROM STDIN`` with ``rows`` (``target``: a table and its columns)."""
    with raw.cursor() as cur, cur.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def clear_snapshots(session: Session, written: list[int] | None) -> None:
    """Remove the snapshots of the tournaments ``written`` (None: all of them) and the
    residual games they created, and unlink the residual games they consumed."""
    conn = session.connection()
    if written is None:
        conn.execute(text("DELETE FROM residual_games WHERE created_by_id IS NOT NULL"))
        conn.execute(text("UPDATE residual_games SET consumed_by_id = NULL"))
        conn.execute(text("DELETE FROM rating_snapshots"))
    elif written:
        conn.execute(
            text("DELETE FROM rating_snapshots WHERE tournament_id = ANY(:ids)"), {"ids": written}
        )
        conn.execute(
            text("DELETE FROM residual_games WHERE created_by_id = ANY(:ids)"), {"ids": written}
        )
        conn.execute(
            text(
                "UPDATE residual_games SET consumed_by_id = NULL WHERE consumed_by_id = ANY(:ids)"
            ),
            {"ids": written},
        )


def refresh_statistics(session: Session) -> None:
    """ANALYZE the tables a replay rewrote (after a large change)."""
    conn = session.connection()
    conn.execute(text("ANALYZE rating_snapshots"))
    conn.execute(text("ANALYZE residual_games"))


def write_problems(
    session: Session, problems: Iterable[EvaluationProblem], written: list[int] | None
) -> None:
    """The refused tournaments (ratingdb/engine/problems.py) go with their snapshots: a
    re-evaluated tournament's old row (of ``written``; None: every row) is replaced by what
    this run found."""
    conn = session.connection()
    if written is None:
        conn.execute(text("DELETE FROM evaluation_problems"))
    elif written:
        conn.execute(
            text("DELETE FROM evaluation_problems WHERE tournament_id = ANY(:ids)"),
            {"ids": written},
        )
    rows = [
        {"t": p.tournament_id, "p": list(p.participant_ids), "m": p.message[:2000]}
        for p in problems
    ]
    if rows:
        conn.execute(
            text(
                "INSERT INTO evaluation_problems (tournament_id, participant_ids, message) "
                "VALUES (:t, :p, :m)"
            ),
            rows,
        )


def residual_rows(
    tournament_id: int, end: date, snaps: Iterable[Snapshot], timeline: Timeline
) -> list[tuple[Any, ...]]:
    """The ``residual_games`` rows (:data:`RESIDUAL_COLUMNS`) a tournament's snapshots
    create: the new residual games of its remaining members, valid for the Rechenmodul's
    period from the day played (WO 4.1.1)."""
    modul = timeline.at(end)
    if modul.rules.periodic is not None:
        return []  # a period's pending games are not Restpartien (ratingdb/engine/periods.py)
    years = modul.lifecycle.residual_validity_years
    created: list[tuple[Any, ...]] = []
    for s in snaps:
        if s.player_id is None or not s.input.member or s.output.group != "remaining":
            continue
        for seq, g in enumerate(s.output.new_residual_games):
            played = date.fromisoformat(g["date"])
            created.append(
                (s.player_id, g["opponent_rating"], g["score"], played,
                 add_years(played, years), tournament_id, seq)
            )  # fmt: skip
    return created


def consumed_rows(tournament_id: int, snaps: Iterable[Snapshot]) -> list[tuple[int, int, int, int]]:
    """The residual games a tournament's snapshots consume, as (owner, created by, seq,
    the tournament): those listed by its stored first ratings (first and second stage,
    WO 3.4.1 with 3.4.2), what :func:`relink_consumed` finds in their ``residual_in``."""
    return [
        (s.player_id, r.created_by, r.seq, tournament_id)
        for s in snaps
        if s.input.residual
        and s.player_id is not None
        and s.output.stored
        and s.output.group in FIRST_RATINGS
        for r in s.input.residual
    ]


#: the groups whose stored snapshot is a first rating (it consumes the residual games held)
FIRST_RATINGS = ("first_stage", "second_stage")


def relink_consumed(session: Session, written: list[int]) -> None:
    """Link residual games to the first rating that consumed them (stored first/second-stage
    snapshots list the residual games they used): those created or consumed by a
    re-evaluated tournament of ``written``, also when the consuming tournament itself was
    not re-evaluated (a streamed full replay links from what it staged:
    :func:`consumed_rows`, ratingdb/db/stream.py).

    The snapshots that can consume such a game are found through two indexes (the
    re-evaluated tournaments' snapshots, and the snapshots of the owners of the games they
    created) instead of a scan of every first rating: 1 s → 2 ms after a late insert at
    250,000 players."""
    link = (
        "UPDATE residual_games r SET consumed_by_id = s.tournament_id "
        "FROM {snapshots} s CROSS JOIN LATERAL jsonb_array_elements(s.residual_in) e "
        "WHERE s.player_id = r.owner_id "
        "AND (e ->> 'created_by')::bigint = r.created_by_id AND (e ->> 'seq')::int = r.seq"
    )
    first = "s.stored AND s.player_group IN ({})".format(", ".join(f"'{g}'" for g in FIRST_RATINGS))
    candidates = (
        "(SELECT s.id, s.tournament_id, s.player_id, s.residual_in FROM rating_snapshots s "
        f"WHERE {first} AND s.tournament_id = ANY(:ids) "
        "UNION SELECT s.id, s.tournament_id, s.player_id, s.residual_in FROM rating_snapshots s "
        f"WHERE {first} AND s.player_id IN "
        "(SELECT g.owner_id FROM residual_games g WHERE g.created_by_id = ANY(:ids)))"
    )
    session.connection().execute(
        text(
            link.format(snapshots=candidates)
            + " AND (r.created_by_id = ANY(:ids) OR s.tournament_id = ANY(:ids))"
        ),
        {"ids": written},
    )
