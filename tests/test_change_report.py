"""Exact change reports: the players a run reports as changed are exactly
those whose exported evaluations (``ratingdb export evaluations``) or current DWZ differ
between the published database (before the edit) and the database after the run; the dry
run, the what-if, the run record and the CLI say the same."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db import change_report
from ratingdb.db.bulk import load_federation
from ratingdb.db.recalc import RunReport, dry_run, run_recalc
from ratingdb.errors import RatingdbError
from ratingdb.i18n import use
from ratingdb.queries.export import evaluation_rows
from ratingdb.queries.tournament import submission_document
from ratingdb.services.rechenmodule import add_adjustment, add_rechenmodul
from ratingdb.services.submissions import (
    add_tournament,
    change_membership,
    correct_tournament,
    delete_tournament,
)
from ratingdb.services.whatif import what_if
from ratingdb.synth import generate
from tests.builders import ok
from tests.conftest import _create_migrated, _drop_database

Dwz = tuple[int | None, int | None]
#: per player: their exported evaluations (a multiset, the name left out) and current DWZ
State = dict[int, tuple[Counter[str], Dwz]]


def exported(engine: Engine) -> State:
    """The database as ``ratingdb export evaluations`` shows it, per player; the current
    DWZ is the rating and index of the player's last stored evaluation (WO 6.4.2)."""
    with Session(engine) as session:
        rows = evaluation_rows(session)
    evaluations: dict[int, Counter[str]] = defaultdict(Counter)
    current: dict[int, Dwz] = {}
    for row in rows:  # in evaluation order (WO 2.2.3)
        pid = row["player_id"]
        if pid is None:
            continue
        values = {k: v for k, v in row.items() if k != "name"}
        evaluations[pid][json.dumps(values, sort_keys=True, default=str)] += 1
        if row["stored"]:
            current[pid] = (row["rating_new"], row["index_new"])
    return {pid: (evaluations[pid], current.get(pid, (None, None))) for pid in evaluations}


def difference(before: State, after: State) -> dict[int, tuple[Dwz, Dwz]]:
    """Every player whose evaluations or current DWZ differ: old and new DWZ."""
    nothing: tuple[Counter[str], Dwz] = (Counter(), (None, None))
    return {
        pid: (before.get(pid, nothing)[1], after.get(pid, nothing)[1])
        for pid in sorted(before.keys() | after.keys())
        if before.get(pid, nothing) != after.get(pid, nothing)
    }


def reported(report: RunReport) -> dict[int, tuple[Dwz, Dwz]]:
    return {
        c.player_id: ((c.old.rating, c.old.index), (c.new.rating, c.new.index))
        for c in report.ratings_changed
    }


def simulated(engine: Engine) -> RunReport:
    """The dry run inside a transaction that is rolled back (as the what-if does)."""
    with Session(engine) as session:
        try:
            return dry_run(session)
        finally:
            session.rollback()


@pytest.fixture(scope="module")
def federation(pg_server) -> Any:
    """A small synthetic federation (2 years, 60 players) after its first run."""
    name = "change_report_federation"
    url = _create_migrated(pg_server, name)
    engine = create_engine(url, poolclass=NullPool)
    fed = generate(players=60, years=2, seed=11, start_year=2026, today=date(2026, 11, 1))
    with Session(engine) as session, session.begin():
        load_federation(session, fed)
    run_recalc(engine)
    yield url, engine
    engine.dispose()
    _drop_database(pg_server, name)


def codes(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return list(
            session.execute(
                text("SELECT code FROM tournaments ORDER BY end_date, start_date, vkz, code")
            ).scalars()
        )


def test_deleting_a_tournament_reports_every_moved_player(federation):
    """A deletion reports every moved player: a run once reported only the players whose
    snapshots it wrote ("1 ratings changed"), not the deleted tournament's players nor
    those whose later state moved."""
    url, engine = federation
    before = exported(engine)
    code = codes(engine)[len(codes(engine)) // 3]
    with Session(engine) as session:
        participants = set(
            session.execute(
                text(
                    "SELECT p.player_id FROM participants p JOIN tournaments t "
                    "ON t.id = p.tournament_id WHERE t.code = :c AND p.player_id IS NOT NULL"
                ),
                {"c": code},
            ).scalars()
        )
        _, preview = what_if(session, lambda s: delete_tournament(s, code))
        session.rollback()
    with Session(engine) as session, session.begin():
        delete_tournament(session, code)
    dry = simulated(engine)
    report = run_recalc(engine)
    expected = difference(before, exported(engine))
    assert reported(report) == expected
    assert reported(dry) == expected
    # the deleted tournament's own players and players who were not in it, whose later
    # evaluations moved: a deletion reports more than the snapshots the run wrote
    assert participants <= expected.keys()
    assert expected.keys() - participants
    assert sum(old != new for old, new in expected.values()) >= 4
    # the what-if of the same deletion (nothing else pending) predicted exactly this
    assert {m.player_id: (m.baseline.rating, m.after.rating) for m in preview.moved} == {
        pid: (old[0], new[0]) for pid, (old, new) in expected.items()
    }
    # the run record keeps the count and every player; the CLI lists them
    with Session(engine) as session:
        row = session.execute(
            text("SELECT ratings_changed, changes FROM recalc_runs WHERE id = :id"),
            {"id": report.run_id},
        ).one()
    assert row.ratings_changed == len(expected)
    assert {e[0]: ((e[1], e[2]), (e[3], e[4])) for e in row.changes} == expected
    listing = ok(["runs", "--changes", str(report.run_id)], url).splitlines()
    assert listing[0] == f"run {report.run_id}: {len(expected)} ratings changed"
    assert len(listing) == 1 + len(expected)
    first = report.ratings_changed[0]
    assert listing[1] == f"  {first.line()}" and f"({first.player_id}): " in listing[1]
    assert "None" not in "\n".join(listing)


def test_the_cli_says_how_many_and_shows_ten(federation):
    url, engine = federation
    code = codes(engine)[len(codes(engine)) // 4]
    with Session(engine) as session, session.begin():
        delete_tournament(session, code)
    dry = ok(["recalc", "--dry-run", "--quiet"], url)
    n = len(simulated(engine).ratings_changed)
    assert n > 10
    lines = dry.splitlines()
    assert f"{n} ratings changed" in lines[0]
    changes = [line for line in lines[1:] if " → " in line]
    assert len(changes) == 10
    assert lines[-1] == f"  (showing 10 of {n}; --list {n} shows all)"
    assert "None" not in dry
    done = ok(["recalc", "--quiet", "--list", "3"], url)
    assert f"{n} ratings changed" in done and f"(showing 3 of {n}; `ratingdb runs" in done


@pytest.mark.parametrize("many", [5_000, 0], ids=["listed-names", "everyones-names"])
def test_the_first_run_of_a_history_reports_everyone_with_an_evaluation(
    pg_server, monkeypatch, many
):
    """The first replay of a freshly loaded history: nobody had an evaluation, so the report
    is every player who has one now, with their current DWZ (taken from what the replay
    wrote, without hashing every snapshot or reading them back: ratingdb/db/change_report.py);
    the same as read back from the written snapshots, names read by id or everyone's."""
    monkeypatch.setattr(change_report, "MANY_NAMES", many)
    name = f"change_report_first_run_{many}"
    url = _create_migrated(pg_server, name)
    try:
        engine = create_engine(url, poolclass=NullPool)
        fed = generate(players=40, years=2, seed=12, start_year=2026, today=date(2026, 11, 1))
        with Session(engine) as session, session.begin():
            load_federation(session, fed)
        report = run_recalc(engine)
        expected = difference({}, exported(engine))
        assert len(expected) > 20 and reported(report) == expected
        assert all(c.evaluations_changed for c in report.ratings_changed)
        ids = [c.player_id for c in report.ratings_changed]
        assert ids == sorted(ids)
        with Session(engine) as session:
            names = change_report.names_of(session, ids)
            read_back = change_report._first_run_changes(session)
            guests = session.execute(
                text("SELECT count(DISTINCT player_id) FROM rating_snapshots WHERE NOT stored")
            ).scalar_one()
            recorded = session.execute(
                text("SELECT changes FROM recalc_runs WHERE id = :r"), {"r": report.run_id}
            ).scalar_one()
        assert [c.name for c in report.ratings_changed] == [names[i] for i in ids]
        assert all(c.name for c in report.ratings_changed)
        assert report.ratings_changed == read_back
        # the run record, made beside the write: every change's entry, in the same order
        assert recorded == [c.record() for c in read_back]
        assert guests > 0  # players with an evaluation that was not stored are in it too
        engine.dispose()
    finally:
        _drop_database(pg_server, name)


@pytest.mark.parametrize("few", [20_000, 0], ids=["changed-players", "everyone"])
def test_a_full_run_writes_and_reports_only_what_changed(federation, monkeypatch, few):
    """A full replay (streamed) keeps every stored snapshot it computes again to the last
    column and reports exactly the players whose evaluations or current DWZ moved, whether
    the report reads only the players with a changed snapshot or everyone
    (ratingdb/db/stream.py, ``stage_changes``)."""
    from ratingdb.db import recalc

    monkeypatch.setattr(recalc, "FEW_PLAYERS", few)
    _, engine = federation
    run_recalc(engine, full=True)

    def rows() -> dict[tuple[int, int], int]:
        with Session(engine) as session:
            return {
                (r.tournament_id, r.participant_id): r.id
                for r in session.execute(
                    text("SELECT id, tournament_id, participant_id FROM rating_snapshots")
                )
            }

    def stamps() -> dict[int, Any]:
        with Session(engine) as session:
            return dict(
                session.execute(
                    text("SELECT tournament_id, calculated_at FROM tournament_calculations")
                ).all()
            )

    kept, calculated = rows(), stamps()
    again = run_recalc(engine, full=True)
    assert again.ratings_changed == [] and again.snapshots_written == len(kept)
    assert rows() == kept  # not one row deleted and inserted again
    assert all(stamps()[tid] > calculated[tid] for tid, _ in kept)  # all calculated anew

    before = exported(engine)
    code = codes(engine)[len(codes(engine)) // 2]
    with Session(engine) as session, session.begin():
        doc = submission_document(session, code)
        game = next(g for g in doc["games"] if g["result"] == "1-0")
        game["result"] = "0-1"
        correct_tournament(session, code, doc)
    report = run_recalc(engine, full=True)
    expected = difference(before, exported(engine))
    assert expected and reported(report) == expected
    after = rows()
    # the rows of players nobody's result moved are the stored ones, by id
    assert sum(after.get(key) == sid for key, sid in kept.items()) > len(kept) // 2
    assert run_recalc(engine, full=True).ratings_changed == []


# -- the property: random edits -----------------------------------------------------------
Edit = Callable[[Session], object]
SERIALS = itertools.count()


KINDS = ("insert", "correct", "delete", "membership", "rechenmodul", "adjust")
#: one edit, drawn without looking at the database (hypothesis needs strategies that do not
#: depend on outside state): its kind and numbers that :func:`realise` maps onto the
#: tournaments, players and memberships there are when it is applied
choices = st.tuples(
    st.sampled_from(KINDS),
    st.integers(0, 1000),  # the day: per mille of the span of the tournaments' end dates
    st.integers(0, 10**6),  # which tournament or membership
    st.lists(st.integers(0, 10**6), min_size=4, max_size=8),  # players of a new tournament
    st.lists(st.sampled_from(["1-0", "0-1", "1/2-1/2"]), min_size=7, max_size=7),
)


def realise(engine: Engine, choice: tuple[Any, ...]) -> tuple[str, Edit]:
    """The edit ``choice`` stands for in the database as it is now (WO 3.7: the kinds of
    edit an officer makes)."""
    kind, per_mille, which, picks, results = choice
    with Session(engine) as session:
        tournaments = list(
            session.execute(
                text("SELECT code, end_date FROM tournaments ORDER BY end_date, code")
            ).all()
        )
        players = list(session.execute(text("SELECT id FROM players ORDER BY id")).scalars())
        memberships = list(
            session.execute(
                text(
                    "SELECT m.player_id, o.vkz, m.valid_from FROM memberships m "
                    "JOIN organisations o ON o.id = m.organisation_id "
                    "WHERE m.valid_to IS NULL ORDER BY m.player_id, o.vkz"
                )
            ).all()
        )
    first, last = tournaments[0].end_date, tournaments[-1].end_date
    day = first + timedelta(days=(last - first).days * per_mille // 1000)
    serial = next(SERIALS)  # unique names: the database outlives the examples
    if kind == "insert":
        chosen = list(dict.fromkeys(players[k % len(players)] for k in picks))
        doc = {
            "tournament": {
                "id": f"P-{serial}",
                "name": "property",
                "start": (day - timedelta(days=2)).isoformat(),
                "end": day.isoformat(),
                "vkz": "A0001",
            },
            "players": [{"id": f"p{k}", "player_id": pid} for k, pid in enumerate(chosen)],
            "games": [
                {"round": 1 + k, "white": f"p{k}", "black": f"p{k + 1}", "result": results[k]}
                for k in range(len(chosen) - 1)
            ],
        }
        return f"insert {doc}", lambda s: add_tournament(s, doc)
    if kind in ("correct", "delete"):
        code = tournaments[which % len(tournaments)].code
        if kind == "delete":
            return f"delete {code}", lambda s: delete_tournament(s, code)

        def correct(s: Session) -> object:
            doc = submission_document(s, code)
            games = [g for g in doc["games"] if g["result"] in ("1-0", "0-1", "1/2-1/2")]
            if games:
                game = games[which % len(games)]
                game["result"] = {"1-0": "0-1", "0-1": "1/2-1/2", "1/2-1/2": "1-0"}[game["result"]]
            return correct_tournament(s, code, doc)

        return f"correct {code} ({which})", correct
    if kind == "membership":
        pid, vkz, since = memberships[which % len(memberships)]
        left = max(day, since)
        return f"leave {pid} {vkz} {left}", lambda s: change_membership(s, pid, vkz, left=left)
    if kind == "rechenmodul":

        def rechenmodul(s: Session) -> object:
            family = s.execute(
                text(
                    "SELECT family FROM rechenmodule ORDER BY valid_from <= :d DESC, "
                    "CASE WHEN valid_from <= :d THEN valid_from END DESC, valid_from LIMIT 1"
                ),
                {"d": day},
            ).scalar_one()
            return add_rechenmodul(
                s,
                family=family,
                version=f"prop-{serial}",
                valid_from=day,
                changes={"exceptional_margin": 150, "min_games_performance": 4},
            )

        return f"rechenmodul {day}", rechenmodul
    return f"adjustment {day}", lambda s: add_adjustment(
        s, day=day, formula="dwz-2026-umstufung", name=f"prop {serial}"
    )


def apply(engine: Engine, edit: Edit) -> bool:
    """Commit ``edit``; False when the database refuses it (no example then)."""
    try:
        with Session(engine) as session, session.begin():
            edit(session)
    except RatingdbError:
        return False
    return True


def check_run(engine: Engine, before: State) -> dict[int, tuple[Dwz, Dwz]]:
    """Run; the run's and the dry run's reports are the difference from ``before``."""
    dry = simulated(engine)
    report = run_recalc(engine)
    expected = difference(before, exported(engine))
    assert reported(report) == expected
    assert reported(dry) == expected
    return expected


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_report_is_the_difference_of_the_exports(federation, data):
    """For a random edit, the run's report (and the dry run's) equals the difference of the
    exported evaluations and current DWZ before the edit and after the run. The what-if of
    an edit, also with another edit pending, predicts the difference between the next run
    without it and with it."""
    _url, engine = federation
    if simulated(engine).change_point is not None:  # left pending by a failed example
        run_recalc(engine)
    published = exported(engine)
    pending = data.draw(st.booleans(), label="another edit pending")
    if pending:
        _label, first = realise(engine, data.draw(choices, label="pending edit"))
        if not apply(engine, first):
            return
    label, edit = realise(engine, data.draw(choices, label="edit"))
    preview = None
    with Session(engine) as session:
        try:
            _, preview = what_if(session, edit)
        except RatingdbError:  # an edit the database refuses is no example
            pass
        finally:
            session.rollback()  # (the what-if holds the recalculation lock until here)
    if preview is None:
        check_run(engine, published)
        return
    baseline = published
    if pending:
        check_run(engine, published)  # the next run without the edit
        baseline = exported(engine)
    assert apply(engine, edit), label
    expected = check_run(engine, baseline)
    assert {m.player_id: (m.baseline.rating, m.baseline.index) for m in preview.moved} == {
        pid: old for pid, (old, _new) in expected.items()
    }, label
    assert {m.player_id: (m.after.rating, m.after.index) for m in preview.moved} == {
        pid: new for pid, (_old, new) in expected.items()
    }, label


def test_a_line_names_stored_residual_games_and_changed_earlier_evaluations():
    state = change_report.PlayerState
    stored = change_report.RatingChange(8, "Çelik", state(), state(None, None, (1, 5)))
    earlier = change_report.RatingChange(
        9, "Wolf, Lea", state(1742, 31, (3, 1)), state(1742, 31, (3, 2))
    )
    moved = change_report.RatingChange(10, "Meier, Anna", state(1742, 31), state(1753, 32))
    with use("en"):
        assert stored.line() == "Çelik (8): – → – (no DWZ yet, residual games stored)"
        assert earlier.line() == (
            "Wolf, Lea (9): 1742-31 → 1742-31"
            " (current DWZ unchanged, an earlier evaluation changed)"
        )
        assert moved.line() == "Meier, Anna (10): 1742-31 → 1753-32 (+11)"
    with use("de"):
        assert stored.line().endswith("(noch keine DWZ, Restpartien gespeichert)")
        assert earlier.line().endswith(
            "(aktuelle DWZ unverändert, eine frühere Auswertung geändert)"
        )
