"""``ratingdb player``: the Karteikarte, memberships (joining and leaving a club) and the
anonymisation of a former member (WO 4.1.1)."""

from __future__ import annotations

from datetime import datetime

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, write_output, writing


@click.group()
def player() -> None:
    """Players: the Karteikarte and memberships."""


def _membership(
    player_id: int, vkz: str, *, joined: datetime | None = None, left: datetime | None = None
) -> None:
    from ratingdb.db.submissions import change_membership

    with writing("") as session:
        change_membership(
            session,
            player_id,
            vkz,
            joined=joined.date() if joined else None,
            left=left.date() if left else None,
        )
    click.echo(f"player {player_id}: membership in {vkz} changed; change point recorded")


@player.command("join")
@click.argument("player_id", type=int)
@click.option("--club", "vkz", required=True, help="The club's VKZ.")
@click.option("--from", "day", required=True, type=click.DateTime(["%Y-%m-%d"]))
def player_join(player_id: int, vkz: str, day: datetime) -> None:
    """PLAYER_ID becomes a member of a club (earlier tournaments within a year count)."""
    _membership(player_id, vkz, joined=day)


@player.command("leave")
@click.argument("player_id", type=int)
@click.option("--club", "vkz", required=True, help="The club's VKZ.")
@click.option("--on", "day", required=True, type=click.DateTime(["%Y-%m-%d"]))
def player_leave(player_id: int, vkz: str, day: datetime) -> None:
    """PLAYER_ID's membership in a club ends (the rating is kept for 5 more years)."""
    _membership(player_id, vkz, left=day)


@player.command("card")
@click.argument("player_id", type=int)
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "csv", "pdf"]),
    default="text",
    show_default=True,
)
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def player_card(player_id: int, as_json: bool, fmt: str, output: str | None) -> None:
    """A player's Karteikarte: every evaluation in order, memberships, residual games."""
    from ratingdb.queries.card import rating_card, render_card

    if fmt in ("csv", "pdf"):
        from ratingdb.queries.reports import card_document
        from ratingdb.services.reports import render_document

        write_output(render_document(engine(), lambda s: card_document(s, player_id), fmt), output)
        return
    with Session(engine()) as session:
        card = rating_card(session, player_id)
    if as_json or fmt == "json":
        echo_json(card.to_dict())
    else:
        click.echo(render_card(card))


@player.command("anonymise")
@click.argument("player_id", type=int)
def player_anonymise(player_id: int) -> None:
    """Replace a former member's personal data in all evaluations with a placeholder;
    no number changes (WO 4.1.1)."""
    from ratingdb.db.anonymise import anonymise_player

    with writing() as session:
        done = anonymise_player(session, player_id)
    click.echo(
        f"anonymised player {player_id}: {done.evaluations} evaluations now show the "
        "placeholder; ratings unchanged"
    )
