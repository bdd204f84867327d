"""``ratingdb serve`` (the web service, docs/web.md), ``ratingdb user add|token|revoke|list``
(officers and admins of the API, WO 6.2/6.3) and ``ratingdb player anonymise`` (WO 4.1.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, fail
from ratingdb.io.errors import InputError

T = TypeVar("T")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="processes"
)
@click.option("--log-level", default="info", show_default=True)
def serve(host: str, port: int, workers: int, log_level: str) -> None:
    """Serve the web pages and the JSON API (OpenAPI at /docs) with uvicorn."""
    import uvicorn

    engine()  # fail early and clearly: no database, or not migrated
    uvicorn.run(
        "ratingdb.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )


@click.group()
def user() -> None:
    """Officers and administrators of the web API, and their tokens."""


def _write(action: Callable[[Session], T]) -> T:
    try:
        with Session(engine()) as session, session.begin():
            return action(session)
    except InputError as err:
        fail(str(err))


@user.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["officer", "admin"]), required=True)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="A VKZ prefix the officer is responsible for (WO 6.3); repeatable.",
)
@click.option("--full-name", default="", help="Shown as the evaluator of tournaments.")
def user_add(name: str, role: str, scopes: tuple[str, ...], full_name: str) -> None:
    """Add an officer (with --scope) or an admin."""
    from ratingdb.db.users import add_user

    _write(lambda s: add_user(s, name, role, list(scopes), full_name=full_name))
    where = f" for {', '.join(sorted(set(scopes)))}" if scopes else ""
    click.echo(f"added {role} {name}{where}; issue a token with `ratingdb user token {name}`")


@user.command("token")
@click.argument("name")
@click.option("--label", default="", help="What the token is for (shown in `user list`).")
def user_token(name: str, label: str) -> None:
    """Issue an API token for NAME; it is printed once and stored only as a hash."""
    from ratingdb.db.users import issue_token

    token = _write(lambda s: issue_token(s, name, label=label))
    click.echo(token)


@user.command("revoke")
@click.argument("name")
@click.option("--token", "prefix", help="Only the token starting with this (see `user list`).")
def user_revoke(name: str, prefix: str | None) -> None:
    """Revoke NAME's tokens (all, or one)."""
    from ratingdb.db.users import revoke

    count = _write(lambda s: revoke(s, name, prefix=prefix))
    click.echo(f"revoked {count} token{'s' if count != 1 else ''} of {name}")


@user.command("list")
@click.option("--json", "as_json", is_flag=True)
def user_list(as_json: bool) -> None:
    """Users with role, VKZ prefixes and active tokens."""
    from ratingdb.db.users import list_users

    with Session(engine()) as session:
        rows = list_users(session)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        scopes = ",".join(r["scopes"]) or "*"
        used = r["last_used_at"].isoformat(timespec="minutes") if r["last_used_at"] else "never"
        click.echo(
            f"{r['name']:20} {r['role']:8} {scopes:20} {r['active_tokens']} active tokens, "
            f"last used {used}"
        )


@click.command("anonymise")
@click.argument("player_id", type=int)
def player_anonymise(player_id: int) -> None:
    """Replace a former member's personal data in all evaluations with a placeholder;
    no number changes (WO 4.1.1)."""
    from ratingdb.db.anonymise import anonymise_player

    done = _write(lambda s: anonymise_player(s, player_id))
    click.echo(
        f"anonymised player {player_id}: {done.evaluations} evaluations now show the "
        "placeholder; ratings unchanged"
    )
