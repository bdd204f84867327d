"""``ratingdb user add|token|password|scope|role|revoke|disable|enable|list``: officers and
admins of the web API, their tokens and their passwords for the web pages (WO 6.2/6.3)."""

from __future__ import annotations

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, writing
from ratingdb.i18n import _, ngettext


@click.group()
def user() -> None:
    """Officers and administrators of the web API, and their tokens."""


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
    from ratingdb.services.users import add_user

    with writing() as session:
        add_user(session, name, role, list(scopes), full_name=full_name)
    click.echo(
        _("added %(who)s; issue a token with `ratingdb user token %(name)s`")
        % {"who": _role_words(name, role, scopes), "name": name}
    )


def _role_words(name: str, role: str, scopes: tuple[str, ...]) -> str:
    """``officer anna for A1, B`` in the language in force."""
    words = _("officer %(name)s") if role == "officer" else _("admin %(name)s")
    if not scopes:
        return words % {"name": name}
    return _("%(role)s for %(scopes)s") % {
        "role": words % {"name": name},
        "scopes": ", ".join(sorted(set(scopes))),
    }


@user.command("token")
@click.argument("name")
@click.option("--label", default="", help="What the token is for (shown in `user list`).")
def user_token(name: str, label: str) -> None:
    """Issue an API token for NAME; it is printed once and stored only as a hash."""
    from ratingdb.services.users import issue_token

    with writing() as session:
        token = issue_token(session, name, label=label)
    click.echo(token)


@user.command("password")
@click.argument("name")
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of standard input (for scripts).",
)
@click.option(
    "--generate",
    is_flag=True,
    help="Set a new random password and print it (once) to hand it to NAME.",
)
def user_password(name: str, password_stdin: bool, generate: bool) -> None:
    """Set NAME's password for signing in on the web pages (asked twice, not echoed);
    stored only as an argon2id hash. Ends NAME's signed-in sessions."""
    import sys

    from ratingdb.services.sign_in import reset_password, set_password

    if generate:
        if password_stdin:
            raise click.UsageError(_("--generate and --password-stdin exclude each other"))
        with writing() as session:
            click.echo(reset_password(session, name))
        return
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    with writing() as session:
        set_password(session, name, password)
    click.echo(_("password of %(name)s set") % {"name": name})


@user.command("scope")
@click.argument("name")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    help="A VKZ prefix the officer is responsible for (WO 6.3); repeatable; replaces his prefixes.",
)
def user_scope(name: str, scopes: tuple[str, ...]) -> None:
    """Replace officer NAME's VKZ prefixes."""
    from ratingdb.services.users import set_scopes

    with writing() as session:
        now = ", ".join(set_scopes(session, name, list(scopes)).scopes)
    click.echo(_("%(name)s now acts for %(scopes)s") % {"name": name, "scopes": now})


@user.command("revoke")
@click.argument("name")
@click.option("--token", "prefix", help="Only the token starting with this (see `user list`).")
def user_revoke(name: str, prefix: str | None) -> None:
    """Revoke NAME's API tokens (all, or one); his signed-in sessions go on (to end all of
    him: `ratingdb user disable NAME`)."""
    from ratingdb.services.users import revoke

    with writing() as session:
        count = revoke(session, name, prefix=prefix)
    click.echo(
        ngettext("revoked %(n)d token of %(name)s", "revoked %(n)d tokens of %(name)s", count)
        % {"n": count, "name": name}
    )


@user.command("role")
@click.argument("name")
@click.option("--role", type=click.Choice(["officer", "admin"]), required=True)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="A VKZ prefix of the officer (WO 6.3); repeatable; none for an admin.",
)
def user_role(name: str, role: str, scopes: tuple[str, ...]) -> None:
    """Make NAME an officer (with --scope) or an admin; his open sessions and tokens act
    in the new role from their next request."""
    from ratingdb.services.users import set_role

    with writing() as session:
        set_role(session, name, role, list(scopes))
    click.echo(_("%(name)s is now %(role)s") % {"name": name, "role": _role(role, scopes)})


def _role(role: str, scopes: tuple[str, ...]) -> str:
    words = _("officer") if role == "officer" else _("admin")
    if not scopes:
        return words
    return _("%(role)s for %(scopes)s") % {"role": words, "scopes": ", ".join(sorted(set(scopes)))}


@user.command("disable")
@click.argument("name")
def user_disable(name: str) -> None:
    """Disable NAME at once: every API token revoked, every signed-in session ended, sign-in
    refused until `ratingdb user enable NAME`."""
    from ratingdb.services.users import disable_user

    with writing() as session:
        tokens, sessions = disable_user(session, name)
    revoked = ngettext("%(n)d token revoked", "%(n)d tokens revoked", tokens) % {"n": tokens}
    ended = ngettext("%(n)d session ended", "%(n)d sessions ended", sessions) % {"n": sessions}
    click.echo(
        _("disabled %(name)s: %(tokens)s, %(sessions)s")
        % {"name": name, "tokens": revoked, "sessions": ended}
    )


@user.command("enable")
@click.argument("name")
def user_enable(name: str) -> None:
    """Let a disabled NAME sign in again with his password (his old tokens stay revoked)."""
    from ratingdb.services.users import enable_user

    with writing() as session:
        enable_user(session, name)
    click.echo(_("enabled %(name)s") % {"name": name})


@user.command("list")
@click.option("--json", "as_json", is_flag=True)
def user_list(as_json: bool) -> None:
    """Users with role, VKZ prefixes and active tokens."""
    from ratingdb.services.users import list_users

    with Session(engine()) as session:
        rows = list_users(session)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        scopes = ",".join(r["scopes"]) or "*"
        used = r["last_used_at"].isoformat(timespec="minutes") if r["last_used_at"] else "never"
        state = ", disabled" if r["disabled_at"] else ""
        click.echo(
            f"{r['name']:20} {r['role']:8} {scopes:20} {r['active_tokens']} active tokens, "
            f"last used {used}{state}"
        )
