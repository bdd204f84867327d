"""``ratingdb evaluate``: tournaments from a JSON file, without a database
(:mod:`ratingdb.services.evaluation`)."""

from __future__ import annotations

import click

from ratingdb.commands.common import read_json, source_name
from ratingdb.services.evaluation import Precision, family_names


@click.command()
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
    type=click.Choice(family_names()),
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
    precision: Precision | None,
    rules_name: str,
    rechenmodul: str | None,
    trace: bool,
    output_format: str,
) -> None:
    """Evaluate tournaments from FILE (a JSON object or array; '-' reads stdin)."""
    from ratingdb.services.evaluation import evaluate_documents, results_json, results_text

    done, was_array, family = evaluate_documents(
        lambda: read_json(source),
        source_name(source),
        rules_name=rules_name,
        rechenmodul=rechenmodul,
        precision=precision,
    )
    if output_format == "table":
        click.echo(results_text(done, family))
    else:
        click.echo(results_json(done, was_array, trace=trace))
