"""The evaluation order (WO 2.2.3) as one type: Python, SQL and JSON agree."""

from __future__ import annotations

from datetime import UTC, date, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.engine.order import KEY_AT_LEAST, KEY_BELOW, ORDER_COLUMNS, OrderKey

KEY = OrderKey(date(2026, 3, 1), date(2026, 2, 27), "C0327", datetime(2026, 3, 2, 9, 30), 17)


def test_json_round_trip_and_the_older_form() -> None:
    assert KEY.to_json() == ["2026-03-01", "2026-02-27", "C0327", "2026-03-02T09:30:00", 17]
    assert OrderKey.from_json(KEY.to_json()) == KEY
    # change points written before OrderKey carry a constant 0 in second place
    legacy = ["2026-03-01", 0, "2026-02-27", "C0327", "2026-03-02T09:30:00", 17]
    assert OrderKey.from_json(legacy) == KEY


def test_fields_compare_in_the_order_of_wo_2_2_3() -> None:
    later_end = OrderKey(date(2026, 3, 2), date(2026, 1, 1), "0", datetime(2000, 1, 1), 1)
    later_start = OrderKey(date(2026, 3, 1), date(2026, 2, 28), "0", datetime(2000, 1, 1), 1)
    later_vkz = OrderKey(date(2026, 3, 1), date(2026, 2, 27), "C0328", datetime(2000, 1, 1), 1)
    later_processed = OrderKey(
        date(2026, 3, 1), date(2026, 2, 27), "C0327", KEY.processed_at.replace(minute=31), 1
    )
    assert KEY < later_processed < later_vkz < later_start < later_end


keys = st.builds(
    OrderKey,
    st.dates(date(2020, 1, 1), date(2020, 1, 3)),
    st.dates(date(2019, 12, 30), date(2020, 1, 1)),
    st.text(alphabet="0129ABCZaz_-ÄÖ", max_size=4),
    st.datetimes(datetime(2020, 1, 1), datetime(2020, 1, 1, 0, 0, 3), timezones=st.just(UTC)),
    st.integers(1, 5),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(keys, min_size=2, max_size=8, unique_by=lambda k: k.id), keys)
def test_sql_sorts_and_compares_like_python(
    db: Session, rows: list[OrderKey], probe: OrderKey
) -> None:
    """PostgreSQL's row order and row comparisons equal OrderKey's (the VKZ in "C", the
    processing time with its time zone, as in the tournaments table)."""
    db.execute(text("DROP TABLE IF EXISTS t"))
    db.execute(
        text(
            'CREATE TEMP TABLE t (end_date date, start_date date, vkz text COLLATE "C", '
            "processed_at timestamptz, id int)"
        )
    )
    db.execute(
        text("INSERT INTO t VALUES (:k_end, :k_start, :k_vkz, :k_proc, :k_id)"),
        [k.sql_params() for k in rows],
    )
    ordered = db.execute(text(f"SELECT {ORDER_COLUMNS} FROM t ORDER BY {ORDER_COLUMNS}")).all()
    assert [OrderKey(*r) for r in ordered] == sorted(rows)
    at_least = db.execute(
        text(f"SELECT {ORDER_COLUMNS} FROM t WHERE {KEY_AT_LEAST}"), probe.sql_params()
    ).all()
    below = db.execute(
        text(f"SELECT {ORDER_COLUMNS} FROM t WHERE {KEY_BELOW}"), probe.sql_params()
    ).all()
    assert sorted(OrderKey(*r) for r in at_least) == sorted(k for k in rows if k >= probe)
    assert sorted(OrderKey(*r) for r in below) == sorted(k for k in rows if k < probe)
