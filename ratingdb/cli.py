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
from ratingdb.rules import FAMILIES, dsb_timeline, get_family
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
@click.option(
    "--rechenmodul",
    "rechenmodul",
    default=None,
    metavar="KEY|auto",
    help="A version of the DSB timeline (e.g. dwz-2014, dwz2026/2026.1), or auto: the version "
    "valid at each tournament's end date (docs/engine.md). Overrides --rules.",
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
    source: str,
    precision: str | None,
    rules_name: str,
    rechenmodul: str | None,
    trace: bool,
    output_format: str,
) -> None:
    """Evaluate tournaments from FILE (a JSON object or array; '-' reads stdin)."""
    name = "<stdin>" if source == "-" else source
    fixed = None
    if rechenmodul is not None and rechenmodul != "auto":
        try:
            fixed = dsb_timeline.find(rechenmodul)
        except KeyError as err:
            fail(f"--rechenmodul: {err.args[0]}")
        rules_name = fixed.family
    elif rechenmodul == "auto":
        rules_name = dsb_timeline.rechenmodule()[0].family  # every version rates tournaments
    family = get_family(rules_name)
    data = read_json(source)
    try:
        tournaments, was_array = PARSERS[family.shape](data)
    except InputError as err:
        fail(f"{name}: {err}")
    results = []
    moduls: list[str | None] = []
    for k, tournament_in in enumerate(tournaments):
        entry = fixed
        if rechenmodul == "auto":
            entry = dsb_timeline.at(tournament_in.tournament.end)
        rules = family if entry is None else get_family(entry.family)
        params = (
            rules.default_parameters()
            if entry is None
            else rules.parameters.from_dict(entry.parameters)
        )
        if precision is not None:
            params = params.with_precision(precision)
        try:
            results.append(rules.evaluate(tournament_in, params))
        except RulesError as err:
            where = f"$[{k}]" if was_array else "$"
            fail(f"{name}: {where}: {input_label(tournament_in)}: {err}")
        moduls.append(None if entry is None else entry.version)
    if output_format == "table":
        if not all(isinstance(r, TournamentResult) for r in results):
            fail(f"--format table shows DWZ evaluations; use json for {family.name}")
        pages = [render_text(t, r, m) for t, r, m in zip(tournaments, results, moduls, strict=True)]
        click.echo("\n\n".join(pages))
    else:
        docs = []
        for r, m in zip(results, moduls, strict=True):
            doc = r.to_dict(trace=trace)
            if m is not None:
                doc["rechenmodul"] = m
            docs.append(doc)
        click.echo(dump_results(docs, was_array))


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
