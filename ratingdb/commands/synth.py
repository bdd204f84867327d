"""``ratingdb synth``: a synthetic federation (deterministic per seed), loaded in bulk."""

from __future__ import annotations

import click

from ratingdb.commands.common import writing
from ratingdb.terms import record_counts


@click.command()
@click.option("--players", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--years", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=1, show_default=True)
def synth(players: int, years: int, seed: int) -> None:
    """Load a synthetic federation (deterministic per seed); then run `ratingdb recalc`."""
    from ratingdb.services.synthetic import load_synthetic

    with writing() as session:
        counts = load_synthetic(session, players, years, seed)
    click.echo(record_counts(counts))
