"""``ratingdb calc``: the DWZ calculator on the command line (:mod:`ratingdb.services.calculator`).

``ratingdb calc --rating 1500 --index 10 --born 1990 --opponent 1600:1 --opponent
1450-12:0.5 [--date 2026-11-25] [--json]`` or ``ratingdb calc --player ID --opponent @ID:1``.
An opponent is ``RATING[-INDEX]:RESULT`` or ``@PLAYER_ID:RESULT`` (a database player at his
DWZ on the date); RESULT is 1, 0.5 (½, 1/2) or 0.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine
from ratingdb.i18n import _

_SPEC = re.compile(r"^(?:@(?P<id>\d+)|(?P<rating>\d+)(?:-(?P<index>\d+))?):(?P<result>\S+)$")
_OPTION = {"rating": "--rating", "index": "--index", "birth_year": "--born", "id": "--player"}


def opponent_spec(spec: str, k: int) -> dict[str, Any]:
    """``1600:1``, ``1600-12:½``, ``@42:0`` as the JSON request's opponent object."""
    from ratingdb.errors import InputError

    m = _SPEC.match(spec.strip())
    if m is None:
        raise InputError(
            f"--opponent {spec!r}",
            _("write RATING[-INDEX]:RESULT (1600:1, 1600-12:0.5) or @PLAYER_ID:RESULT (@42:0)"),
        )
    out: dict[str, Any] = {"result": m.group("result")}
    if m.group("id"):
        out["id"] = int(m.group("id"))
    else:
        out["rating"] = int(m.group("rating"))
        if m.group("index"):
            out["index"] = int(m.group("index"))
    return out


def _option_name(specs: tuple[str, ...]) -> Any:
    from ratingdb.services.calculator import split_path

    def name(location: str) -> str:
        parts = split_path(location)
        if parts is None:
            return location
        key, k, field = parts
        if key == "date":
            return "--date"
        if key == "player":
            return _OPTION.get(field or "", "--player/--rating")
        if k is None:
            return "--opponent"
        return f"--opponent {specs[k]!r}"

    return name


@click.command()
@click.option("--player", "player_id", type=int, help="A database player (his DWZ on the date).")
@click.option("--rating", type=int, help="Your DWZ R_0 (leave out for a first rating).")
@click.option("--index", type=int, help="Your DWZ index.")
@click.option("--born", "birth_year", type=int, help="Your birth year (default: adult).")
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    metavar="RATING[-INDEX]:RESULT|@ID:RESULT",
    help="One game, in playing order: 1600:1, 1600-12:0.5, @42:0 (a database player).",
)
@click.option(
    "--date",
    "day",
    type=click.DateTime(["%Y-%m-%d"]),
    help="The tournament's end date: it chooses the Rechenmodul (default: today).",
)
@click.option("--json", "as_json", is_flag=True, help="The JSON answer of POST /api/calc.")
def calc(
    player_id: int | None,
    rating: int | None,
    index: int | None,
    birth_year: int | None,
    opponents: tuple[str, ...],
    day: Any,
    as_json: bool,
) -> None:
    """The new DWZ after games against opponents of given ratings (WO 3.5; a first
    rating by WO 3.4.1), under the Rechenmodul valid on --date, with the calculation."""
    from ratingdb.services.calc_explain import calculation_dict, render_text
    from ratingdb.services.calculator import calculate, locations_named, parse_request

    player: dict[str, Any] = (
        {"id": player_id, "rating": rating, "index": index, "birth_year": birth_year}
        if player_id is not None
        else {"rating": rating, "index": index, "birth_year": birth_year}
    )
    request_data = {
        "date": day.date().isoformat() if day else None,
        "player": player,
        "opponents": [opponent_spec(s, k) for k, s in enumerate(opponents)],
    }
    with locations_named(_option_name(opponents)):
        request = parse_request(request_data, date.today())
        with Session(engine()) as session:
            done = calculate(session, request)
    if as_json:
        echo_json(calculation_dict(done, with_document=True))
    else:
        click.echo(render_text(done))
