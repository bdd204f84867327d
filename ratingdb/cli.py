"""The ``ratingdb`` command.

Errors in the user's input end with a one-line message on stderr naming the file and the
place (JSON path or line/column), exit code 2, no traceback and nothing on stdout. The
commands (``ratingdb.commands``, one module per command group) catch nothing: :class:`Main`
turns every error of :mod:`ratingdb.errors` into that line, with the exit code of the one
table in :mod:`ratingdb.services.outcomes` (3 when another recalculation run is busy).
"""

from __future__ import annotations

import os
from typing import Any

import click

from ratingdb import __version__
from ratingdb.commands.adjustment import adjustment
from ratingdb.commands.calc import calc
from ratingdb.commands.clubs import clubs
from ratingdb.commands.common import Failure
from ratingdb.commands.db import db
from ratingdb.commands.demo import demo
from ratingdb.commands.evaluate import evaluate
from ratingdb.commands.export import export
from ratingdb.commands.player import player
from ratingdb.commands.players import players
from ratingdb.commands.recalc import recalc, runs
from ratingdb.commands.rechenmodul import rechenmodul
from ratingdb.commands.serve import serve
from ratingdb.commands.synth import synth
from ratingdb.commands.tournament import tournament
from ratingdb.commands.user import user
from ratingdb.i18n import DEFAULT, LANGUAGES, normalise, use
from ratingdb.services.outcomes import as_error, outcome


def one_line(err: click.UsageError) -> click.ClickException:
    """A usage error (an option's value that is no date, a missing argument, an unknown
    option) as the one ``error:`` line of every bad input, naming the command's help,
    instead of click's usage block; a group called without a command keeps its help."""
    if isinstance(err, click.exceptions.NoArgsIsHelpError):
        return err
    where = f" (see `{err.ctx.command_path} --help`)" if err.ctx is not None else ""
    message = " ".join(err.format_message().split()).rstrip(".")
    return Failure(f"{message}{where}", err.exit_code)


def _early_language(args: list[str]) -> str:
    """The call's language before its options are parsed (``--lang X`` among ``args``, else
    ``RATINGDB_LANG``, else German), so that an error in the arguments speaks it too."""
    for at, arg in enumerate(args):
        chosen = arg.removeprefix("--lang=") if arg.startswith("--lang=") else None
        if arg == "--lang" and at + 1 < len(args):
            chosen = args[at + 1]
        if chosen in LANGUAGES:
            return chosen
    return normalise(os.environ.get("RATINGDB_LANG", "").strip()) or DEFAULT


class Main(click.Group):
    """The top-level group: maps the errors of every subcommand once, and refuses an
    argument no stored text may hold (a byte sequence that is not UTF-8 arrives as a lone
    surrogate, :mod:`ratingdb.safe_text`) before any command sees it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from ratingdb.safe_text import unsafe_character

        # an error in the arguments in the call's language (a Failure takes its words when
        # made); only for parsing: click does not close the context when parsing fails
        with use(_early_language(args)):
            for arg in args:
                bad = unsafe_character(arg)
                if bad:
                    shown = arg.encode("utf-8", "backslashreplace").decode("ascii", "replace")
                    raise Failure(f"argument {shown!r}: {bad} (not UTF-8 text)")
            try:
                return super().parse_args(ctx, args)
            except click.UsageError as err:
                raise one_line(err) from None

    def invoke(self, ctx: click.Context) -> Any:
        # the call's language for everything it says, for this call only (an in-process
        # caller keeps its own language afterwards); ``main`` validates the setting
        with use(ctx.params.get("lang") or _early_language([])):
            try:
                return super().invoke(ctx)
            except click.UsageError as err:
                raise one_line(err) from None
            except (click.ClickException, click.exceptions.Exit, click.Abort):
                raise
            except Exception as err:
                error = as_error(err)
                if error is None:
                    raise
                raise Failure(str(error), outcome(error).exit_code) from err


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ratingdb")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="Language of tables and documents (default: RATINGDB_LANG, else de).",
)
@click.option(
    "--database",
    metavar="NAME",
    default=None,
    help="Use the database NAME of the configured server for every command, e.g. "
    "ratingdb_demo, the one `ratingdb demo` builds (default: RATINGDB_DATABASE, else the "
    "server's own).",
)
def main(lang: str | None, database: str | None) -> None:
    """ratingdb: chronological chess rating database (DWZ 2026 and other Rechenmodule)."""
    if database is not None:
        from ratingdb.commands.common import select_database

        select_database(database)
    if lang is None:  # the language itself is in force already (Main.invoke)
        from ratingdb.settings import Settings, SettingsError

        try:
            Settings.from_env()
        except SettingsError as err:
            raise Failure(str(err)) from None


for command in (
    evaluate,
    calc,
    db,
    tournament,
    recalc,
    runs,
    player,
    players,
    clubs,
    export,
    rechenmodul,
    adjustment,
    synth,
    demo,
    serve,
    user,
):
    main.add_command(command)


if __name__ == "__main__":  # pragma: no cover
    main()
