"""ratingdb/records.py: objects of a plain slots dataclass made from rows of their field
values are the objects ``cls(*values)`` makes, and read back as those values."""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.records import Maker
from ratingdb.rules.model import GameInput, TournamentInfo
from ratingdb.rules.snapshots import SnapshotOutput

_values = st.one_of(
    st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8), st.booleans()
)


@given(st.lists(st.tuples(_values, _values, _values, _values), max_size=20))
def test_games_are_the_games_init_makes(rows):
    made = Maker(GameInput).many(rows)
    assert made == [GameInput(*row) for row in rows]
    assert all(type(g) is GameInput for g in made)


@given(st.lists(st.tuples(st.integers(), _values, _values, _values, _values), max_size=20))
def test_values_from_a_start_leave_the_rest_of_the_row(rows):
    """The database's rows carry the tournament's id first (ratingdb/db/store.py)."""
    assert Maker(GameInput, start=1).many(rows) == [GameInput(*row[1:]) for row in rows]


def test_outputs_with_their_lists_and_a_frozen_class():
    values = (
        "remaining", "youth", None, None, None, 1550, 0.5, 1, 0.43, None, False, None, None,
        None, None, False, [{"opponent_rating": 1600, "score": 0.5}], [0.43, None],
    )  # fmt: skip
    [out] = Maker(SnapshotOutput).many([values])
    assert out == SnapshotOutput(*values)
    assert out.expected_games is values[17]  # the values themselves, as __init__ stores them
    info = (("T1", date(2026, 1, 2), date(2026, 1, 3), "Open", "C0327", "team"),)
    [made] = Maker(TournamentInfo).many(info)
    assert made == TournamentInfo(*info[0]) and hash(made) == hash(TournamentInfo(*info[0]))
    with pytest.raises(AttributeError):  # still frozen
        made.name = "other"  # type: ignore[misc]


def test_the_objects_hold_their_values():
    """Each object keeps a reference to each value: they outlive the rows and are freed
    with the objects."""
    score = Decimal("0.5") + Decimal("0.25")
    before = sys.getrefcount(score)
    made = Maker(GameInput).many([("1", "2", score, 3)] * 5)
    assert sys.getrefcount(score) == before + 5
    del made
    gc.collect()
    assert sys.getrefcount(score) == before


@pytest.mark.parametrize("start", [0, 1])
@pytest.mark.parametrize("row", [("1", "2", "1-0"), ("1", "2", "1-0", 3, 4)])
def test_a_row_of_another_length_is_refused(row, start):
    with pytest.raises(TypeError, match=f"not a tuple of {4 + start} values"):
        Maker(GameInput, start).many([(0,) * start + ("1", "2", "1-0", 1), (0,) * start + row])


@dataclass
class _NoSlots:
    a: int


@dataclass(slots=True)
class _PostInit:
    a: int

    def __post_init__(self) -> None:
        self.a += 1


@dataclass(slots=True)
class _NotInInit:
    a: int
    b: list[int] = field(default_factory=list, init=False)


@pytest.mark.parametrize("cls", [_NoSlots, _PostInit, _NotInInit, tuple])
def test_a_class_whose_init_does_more_is_refused(cls):
    with pytest.raises(TypeError):
        Maker(cls)


def test_strings_of_one_read_are_shared():
    """With ``same``, equal strings become one object (the first seen, or the one
    ``same`` holds already); other values stay as they are."""
    one = "".join(["10", "01"])  # equal strings, three objects
    rows = [
        (7, one, "".join(["10", "02"]), "1-0", 1),
        (7, "".join(["10", "02"]), "".join(["10", "01"]), "".join(["1-", "0"]), 2),
    ]
    assert rows[0][1] is not rows[1][2]
    same: dict[str, str] = {}
    first, second = Maker(GameInput, start=1).many(rows, same=same)
    assert (first.white, first.black) == ("1001", "1002") and second == GameInput(
        "1002", "1001", "1-0", 2
    )
    assert second.black is first.white is one and second.white is first.black
    assert second.result is first.result
    assert same == {"1001": "1001", "1002": "1002", "1-0": "1-0"}


def test_the_games_of_one_read_share_their_strings():
    """ratingdb/db/store.py: the games read together share each player's id and each
    result (a full replay's worker then gets each string once a message)."""
    from ratingdb.db.store import _games_from

    rows = [
        (5, "".join(["3", "1"]), "".join(["3", "2"]), "".join(["1-", "0"]), 1),
        (5, "".join(["3", "2"]), "".join(["3", "1"]), "".join(["1-", "0"]), 2),
        (6, "".join(["3", "1"]), "".join(["3", "3"]), "".join(["0-", "1"]), 1),
    ]
    games = _games_from(rows)
    assert games[5] == [GameInput("31", "32", "1-0", 1), GameInput("32", "31", "1-0", 2)]
    assert games[5][0].white is games[5][1].black is games[6][0].white
    assert games[5][0].result is games[5][1].result


@given(rows=st.lists(st.tuples(_values, _values, _values, _values), max_size=20))
def test_values_read_back_what_was_made(rows):
    """:meth:`Maker.values` is the inverse of :meth:`Maker.many`: each object's fields as
    a tuple, the very values (by identity), in the fields' order."""
    maker = Maker(GameInput)
    games = maker.many(rows)
    back = maker.values(games)
    assert back == [tuple(row) for row in rows]
    assert all(
        a is b for got, row in zip(back, rows, strict=True) for a, b in zip(got, row, strict=True)
    )
    assert all(type(t) is tuple for t in back)


def test_values_refuse_an_object_of_another_class_and_an_unset_slot():
    maker = Maker(SnapshotOutput)
    o = SnapshotOutput("established", "adult", 1797, 17, 25.0, 1687, 3.5, 4, 2.604)

    class Later(SnapshotOutput):
        __slots__ = ()

    later = Later(*maker.values([o])[0])
    assert maker.values([o, later]) == [maker.values([o])[0]] * 2  # a subclass: its slots
    with pytest.raises(AttributeError):  # a game has no player group
        maker.values([o, GameInput("1", "2", "1-0")])
    unset = SnapshotOutput.__new__(SnapshotOutput)
    with pytest.raises(AttributeError):
        maker.values([unset])
    games = o.expected_games
    before = sys.getrefcount(games)
    read = maker.values([o])
    during = sys.getrefcount(games)
    del read
    after = sys.getrefcount(games)
    assert (during, after) == (before + 1, before)  # the tuple's reference, none left behind
