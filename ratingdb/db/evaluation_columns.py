"""The values of an evaluation as SQL over the snapshot ``s``, its tournament ``t``,
participant ``pa`` and player ``pl``: the columns the evaluation export shows
(:mod:`ratingdb.queries.export`) and the values a change report compares
(:mod:`ratingdb.db.change_report`), defined once for both."""

from __future__ import annotations

#: the residual games that went in, without their internal links (creating tournament, seq)
RESIDUAL_IN = (
    "(SELECT jsonb_agg(jsonb_build_object('opponent_rating', r->'opponent_rating', "
    "'score', r->'score', 'played_on', r->'played_on')) "
    "FROM jsonb_array_elements(s.residual_in) r)"
)
#: column -> SQL; every column but ``name`` is a value of the evaluation
SQL = {
    "tournament": "t.code", "end_date": "t.end_date", "player_id": "s.player_id",
    "name": "coalesce(pa.textual_name, pl.surname || ', ' || pl.given_name)",
    **{c: f"s.{c}" for c in (
        "player_group", "age_class", "member", "rating_old", "index_old", "k",
        "opponents_avg", "score", "games", "expected", "performance", "exceptional",
        "start_value", "iteration_value", "rating_new", "index_new", "stored",
    )},
    "residual_in": RESIDUAL_IN, "new_residual_games": "s.new_residual_games",
}  # fmt: skip
COLUMNS = tuple(SQL)
#: the values of an evaluation (every column but the name) as one SQL row
VALUES_ROW = "row(" + ", ".join(sql for column, sql in SQL.items() if column != "name") + ")"
