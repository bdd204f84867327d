"""``ratingdb player``: search, the Karteikarte, memberships (joining and leaving a club) and
the anonymisation of a former member (WO 4.1.1)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, write_output, writing
from ratingdb.i18n import _, ngettext, pgettext


@click.group()
def player() -> None:
    """Players: the Karteikarte and memberships."""


def _membership(
    player_id: int, vkz: str, *, joined: datetime | None = None, left: datetime | None = None
) -> None:
    from ratingdb.services.submissions import change_membership

    with writing("") as session:
        change_membership(
            session,
            player_id,
            vkz,
            joined=joined.date() if joined else None,
            left=left.date() if left else None,
        )
    click.echo(
        _("player %(id)d: membership in %(vkz)s changed; change point recorded")
        % {"id": player_id, "vkz": vkz}
    )


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


@player.command("search")
@click.argument("text", required=False)
@click.option("--club", help="VKZ (or its start) or part of the club's name.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 200))
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0, 10_000_000))
@click.option("--json", "as_json", is_flag=True)
def player_search(
    text: str | None, club: str | None, limit: int, offset: int, as_json: bool
) -> None:
    """Find players by TEXT: a name or its start ("Müller", "Mueller, An", "Anna Muller";
    accents and umlaut spellings are ignored), a DSB id, a FIDE id or a ZPS number
    (C0327-12). Former members and non-members are found too."""
    from ratingdb.queries.search import count_players, search_players

    if not (text and text.strip()) and not (club and club.strip()):
        raise click.UsageError(_("give TEXT or --club"))
    with Session(engine()) as session:
        hits = search_players(
            session, name=text, club=club, include_unpublished=True, limit=limit, offset=offset
        )
        total = count_players(session, name=text, club=club, include_unpublished=True)
    if as_json:
        echo_json({"total": total, "limit": limit, "offset": offset, "items": hits})
        return
    if hits:
        click.echo(_hits_table(hits))
    if total > len(hits):
        shown = _("showing %(first)d-%(last)d of %(total)d") % {
            "first": offset + 1, "last": offset + len(hits), "total": total,
        }  # fmt: skip
        more = "; " + _("--offset %(next)d for more") % {"next": offset + limit}
        click.echo(shown + (more if offset + limit < total else ""))
    else:
        click.echo(ngettext("%(num)d player", "%(num)d players", total) % {"num": total})


def _hits_table(hits: list[dict[str, Any]]) -> str:
    """The search hits as aligned text columns (empty where a value is unknown)."""
    header = (
        "ID", pgettext("column", "Name"), "VKZ", pgettext("column", "Born"), _("DSB ID"),
        pgettext("column", "FIDE ID"), "DWZ", pgettext("column", "Index"),
    )  # fmt: skip
    rows = [
        tuple(
            "" if v is None else str(v)
            for v in (
                h["id"],
                h["name"],
                h["vkz"],
                h["birth_year"],
                h["dsb_id"],
                h["fide_id"],
                h["rating"],
                h["index"],
            )
        )
        for h in hits
    ]
    widths = [max(len(r[k]) for r in (header, *rows)) for k in range(len(header))]
    left = {1, 2}
    return "\n".join(
        "  ".join(
            cell.ljust(w) if k in left else cell.rjust(w)
            for k, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in (header, *rows)
    )


@player.command("card")
@click.argument("player")
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "csv", "pdf"]),
    default="text",
    show_default=True,
)
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def player_card(player: str, as_json: bool, fmt: str, output: str | None) -> None:
    """A player's Karteikarte: every evaluation in order, memberships, residual games.
    PLAYER is a player id, a DSB id or a name ("Wolf, Lea") that names one player;
    otherwise the matching players are listed."""
    from ratingdb.queries.card import rating_card, render_card
    from ratingdb.queries.search import resolve_player

    eng = engine()
    with Session(eng) as session:
        player_id = resolve_player(session, player)
        if fmt not in ("csv", "pdf"):
            card = rating_card(session, player_id)
    if fmt in ("csv", "pdf"):
        from ratingdb.queries.reports import card_document
        from ratingdb.services.reports import render_document

        write_output(render_document(eng, lambda s: card_document(s, player_id), fmt), output)
        return
    if as_json or fmt == "json":
        echo_json(card.to_dict())
    else:
        click.echo(render_card(card))


@player.command("anonymise")
@click.argument("player_id", type=int)
def player_anonymise(player_id: int) -> None:
    """Replace a former member's personal data in all evaluations with a placeholder;
    no number changes (WO 4.1.1)."""
    from ratingdb.services.anonymise import anonymise_player

    with writing() as session:
        done = anonymise_player(session, player_id)
    click.echo(
        ngettext(
            "anonymised player %(id)d: %(num)d evaluation now shows the placeholder; "
            "ratings unchanged",
            "anonymised player %(id)d: %(num)d evaluations now show the placeholder; "
            "ratings unchanged",
            done.evaluations,
        )
        % {"id": player_id, "num": done.evaluations}
    )
