"""The ``ratingdb`` command line.

Errors in the user's input end with a one-line message on stderr naming the file and the
place (JSON path or line/column), exit code 2, no traceback and nothing on stdout.
"""

from __future__ import annotations

import click

from ratingdb import __version__
from ratingdb.commands.common import fail, read_json
from ratingdb.commands.db import db
from ratingdb.commands.demo import demo
from ratingdb.commands.exchange import players
from ratingdb.commands.history import export, player, recalc, runs, synth, tournament
from ratingdb.commands.rules_admin import adjustment, rechenmodul
from ratingdb.commands.web import player_anonymise, serve, user
from ratingdb.io.errors import InputError
from ratingdb.io.evaluate_json import dump_results
from ratingdb.io.families import PARSERS, input_label
from ratingdb.queries.evaluation_display import render_text
from ratingdb.rules import FAMILIES, get_family
from ratingdb.rules.errors import RulesError
from ratingdb.rules.model import TournamentResult


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ratingdb")
def main() -> None:
    """ratingdb: chronological chess rating database (DWZ 2026 and other Rechenmodule)."""


@main.command()
@click.argument("source", metavar="FILE")
@click.option(
    "--precision",
    type=click.Choice(["table", "float"]),
    default=None,
    help="table: WO Anhang 2.1/2.2 values (default); float: unrounded normal distribution.",
)
@click.option(
    "--rules",
    "rules_name",
    type=click.Choice(sorted(FAMILIES)),
    default="dwz2026",
    show_default=True,
    help="Rule family (Rechenmodul family).",
)
@click.option("--trace", is_flag=True, help="Include the per-step iteration values.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
    help="json: the docs/evaluate.md contract; table: the evaluation display of WO Anhang 3.1.11.",
)
def evaluate(
    source: str, precision: str | None, rules_name: str, trace: bool, output_format: str
) -> None:
    """Evaluate tournaments from FILE (a JSON object or array; '-' reads stdin)."""
    name = "<stdin>" if source == "-" else source
    family = get_family(rules_name)
    data = read_json(source)
    try:
        tournaments, was_array = PARSERS[family.shape](data)
    except InputError as err:
        fail(f"{name}: {err}")
    params = family.default_parameters()
    if precision is not None:
        params = params.with_precision(precision)
    results = []
    for k, tournament_in in enumerate(tournaments):
        try:
            results.append(family.evaluate(tournament_in, params))
        except RulesError as err:
            where = f"$[{k}]" if was_array else "$"
            fail(f"{name}: {where}: {input_label(tournament_in)}: {err}")
    if output_format == "table":
        if not all(isinstance(r, TournamentResult) for r in results):
            fail(f"--format table shows DWZ evaluations; use json for {family.name}")
        pages = [render_text(t, r) for t, r in zip(tournaments, results, strict=True)]
        click.echo("\n\n".join(pages))
    else:
        click.echo(dump_results([r.to_dict(trace=trace) for r in results], was_array))


for command in (
    db,
    tournament,
    recalc,
    runs,
    player,
    players,
    export,
    rechenmodul,
    adjustment,
    synth,
    demo,
    serve,
    user,
):
    main.add_command(command)
player.add_command(player_anonymise)


if __name__ == "__main__":  # pragma: no cover
    main()
