"""``ratingdb synth``: a synthetic federation (deterministic per seed), loaded in bulk."""

from __future__ import annotations

import click

from ratingdb.commands.common import writing


@click.command()
@click.option("--players", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--years", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=1, show_default=True)
def synth(players: int, years: int, seed: int) -> None:
    """Load a synthetic federation (deterministic per seed); then run `ratingdb recalc`."""
    from sqlalchemy import text

    from ratingdb.db.bulk import load_federation
    from ratingdb.errors import InputError
    from ratingdb.synth import generate

    fed = generate(players, years, seed)
    with writing() as session:
        clash = session.execute(
            text("SELECT code FROM tournaments WHERE code = ANY(:codes) LIMIT 1"),
            {"codes": [t.code for t in fed.tournaments]},
        ).first()
        if clash:
            raise InputError("", f"tournament {clash.code} exists already: load another --seed")
        counts = load_federation(session, fed)
    click.echo(", ".join(f"{v} {k}" for k, v in counts.items()))
