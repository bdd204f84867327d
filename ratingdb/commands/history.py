"""Commands on the stored history: tournaments, recalculation runs, Karteikarte, export."""

from __future__ import annotations

import csv
import sys
from datetime import datetime

import click
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, fail, read_json
from ratingdb.commands.recalc_report import recalc_and_report
from ratingdb.io.errors import InputError


# -- tournaments --
@click.group()
def tournament() -> None:
    """Officer workflows: add, correct, delete, show and export tournaments."""


def _edit(action: str, source: str | None, ident: str | None, now: bool) -> None:
    from ratingdb.db import submissions

    name = "<stdin>" if source == "-" else source
    doc = read_json(source) if source is not None else None
    eng = engine()
    try:
        with Session(eng) as session, session.begin():
            if action == "add":
                assert doc is not None
                t = submissions.add_tournament(session, doc)
            elif action == "correct":
                assert ident is not None and doc is not None
                t = submissions.correct_tournament(session, ident, doc)
            else:
                assert ident is not None
                t = submissions.delete_tournament(session, ident)
            code, end = t.code, t.end_date
    except InputError as err:
        fail(f"{name}: {err}" if name else str(err))
    except (IntegrityError, DataError) as err:  # a rule only the database checks
        reason = str(err.orig).strip().splitlines()[0] if err.orig else str(err)
        fail(f"{name or ident}: refused by the database, nothing written: {reason}")
    click.echo(f"{action}: tournament {code} (ends {end}); change point recorded")
    if now:
        recalc_and_report(eng, full=False, dry_run=False, quiet=False)


@tournament.command("add")
@click.argument("source", metavar="FILE")
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_add(source: str, now: bool) -> None:
    """Add a tournament from FILE (format: docs/engine.md, "Submissions")."""
    _edit("add", source, None, now)


@tournament.command("correct")
@click.argument("ident", metavar="ID")
@click.argument("source", metavar="FILE")
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_correct(ident: str, source: str, now: bool) -> None:
    """Replace tournament ID's data with FILE."""
    _edit("correct", source, ident, now)


@tournament.command("delete")
@click.argument("ident", metavar="ID")
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_delete(ident: str, now: bool) -> None:
    """Delete tournament ID (code or number)."""
    _edit("delete", None, ident, now)


@tournament.command("show")
@click.argument("ident", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="The evaluate JSON instead of the table.")
def tournament_show(ident: str, as_json: bool) -> None:
    """The stored evaluation of tournament ID (WO Anhang 3.1.11)."""
    from ratingdb.queries.evaluation_display import render_text
    from ratingdb.queries.tournament import stored_evaluation

    with Session(engine()) as session:
        try:
            tin, result = stored_evaluation(session, ident)
        except LookupError as err:
            fail(str(err))
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(render_text(tin, result))


@tournament.command("import")
@click.argument("source", metavar="FILE.trf")
@click.option("--id", "code", help="Tournament id (default: the file's '### ratingdb id:').")
@click.option("--vkz", help="VKZ of the playing level (default: '### ratingdb vkz:').")
@click.option("--kind", type=click.Choice(["individual", "team", "match"]), default=None)
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. cp1252, latin-1")
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_import(
    source: str, code: str | None, vkz: str | None, kind: str | None, encoding: str, now: bool
) -> None:
    """Import a TRF16/TRF26 tournament; players are matched by DSB id, FIDE id, then
    name + birth year (docs/data-exchange.md). All or nothing."""
    from ratingdb.commands.exchange import trf_import

    trf_import(source, code, vkz, kind, encoding, now)


@tournament.command("export")
@click.argument("ident", metavar="ID")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "trf", "evaluate"]),
    default="json",
    show_default=True,
    help="json: the submission document; trf: FIDE TRF26 with GER (DWZ) records; "
    "evaluate: the stored evaluation's input (ratings, residual games) for `ratingdb evaluate`.",
)
def tournament_export(ident: str, fmt: str) -> None:
    """Tournament ID as a submission document (the JSON it can be added with), TRF, or the
    input of its stored evaluation (`ratingdb evaluate FILE --rechenmodul auto` repeats it)."""
    from ratingdb.queries.tournament import evaluation_input, submission_document

    if fmt == "evaluate":
        with Session(engine()) as session:
            try:
                echo_json(evaluation_input(session, ident))
            except LookupError as err:
                fail(str(err))
        return
    if fmt == "trf":
        from ratingdb.commands.exchange import trf_export

        click.echo(trf_export(ident), nl=False)
        return
    with Session(engine()) as session:
        try:
            echo_json(submission_document(session, ident))
        except LookupError as err:
            fail(str(err))


@tournament.command("list")
@click.option("--limit", default=30, show_default=True, type=click.IntRange(min=0))
def tournament_list(limit: int) -> None:
    """The latest tournaments in evaluation order (WO 6.5.2.1 item 4)."""
    from ratingdb.queries.tournament import tournament_list as rows

    with Session(engine()) as session:
        for r in rows(session, limit):
            click.echo(
                f"{r['end_date']}  {r['code']:14} {r['vkz']:6} {r['kind']:10} "
                f"{r['players']:4} players  {r['status']:9}  {r['name']}"
            )


# -- recalculation --
@click.command()
@click.option("--full", is_flag=True, help="Replay the whole history from the beginning.")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def recalc(full: bool, dry_run: bool, quiet: bool) -> None:
    """The nightly job: one recalculation run for all pending change points (WO 3.7)."""
    recalc_and_report(engine(), full=full, dry_run=dry_run, quiet=quiet)


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=0))
@click.option(
    "--problems",
    "show_problems",
    is_flag=True,
    help="Only the tournaments whose last evaluation had to strike players.",
)
def runs(as_json: bool, limit: int, show_problems: bool) -> None:
    """Recorded recalculation runs, newest first, and the tournaments whose last
    evaluation had to strike players (the rules refused them; nobody else was held up)."""
    from sqlalchemy import text

    from ratingdb.queries.problems import open_problems

    with Session(engine()) as session:
        rows = [
            dict(r)
            for r in session.execute(
                text(
                    'SELECT id, started_at, finished_at, change_point, "full", status, '
                    "tournaments_evaluated, ratings_changed, message FROM recalc_runs "
                    "ORDER BY id DESC LIMIT :n"
                ),
                {"n": limit},
            ).mappings()
        ]
        problems = open_problems(session)
    if as_json:
        echo_json(problems if show_problems else rows)
        return
    if show_problems:
        rows = []
    for r in rows:
        seconds = (r["finished_at"] - r["started_at"]).total_seconds() if r["finished_at"] else 0
        where = "full" if r["full"] else f"from {r['change_point']}"
        click.echo(
            f"run {r['id']:>4}  {r['started_at']:%Y-%m-%d %H:%M:%S}  {r['status']:9} {where:16} "
            f"{r['tournaments_evaluated']:>6} tournaments  {r['ratings_changed']:>6} ratings  "
            f"{seconds:.2f} s"
        )
    if problems:
        click.echo(f"\n{len(problems)} tournament(s) whose last evaluation struck players:")
        for p in problems:
            names = ", ".join(p["players"])
            click.echo(
                f"  {p['code']} (ends {p['end_date']}): not rated: {names}\n    {p['message']}"
            )


# -- players --
@click.group()
def player() -> None:
    """Players: the Karteikarte and memberships."""


def _membership(player_id: int, vkz: str, **change) -> None:  # type: ignore[no-untyped-def]
    from ratingdb.db.submissions import change_membership

    try:
        with Session(engine()) as session, session.begin():
            change_membership(session, player_id, vkz, **change)
    except InputError as err:
        fail(str(err))
    except (IntegrityError, DataError) as err:
        reason = str(err.orig).strip().splitlines()[0] if err.orig else str(err)
        fail(f"refused by the database, nothing written: {reason}")
    click.echo(f"player {player_id}: membership in {vkz} changed; change point recorded")


@player.command("join")
@click.argument("player_id", type=int)
@click.option("--club", "vkz", required=True, help="The club's VKZ.")
@click.option("--from", "day", required=True, type=click.DateTime(["%Y-%m-%d"]))
def player_join(player_id: int, vkz: str, day) -> None:  # type: ignore[no-untyped-def]
    """PLAYER_ID becomes a member of a club (earlier tournaments within a year count)."""
    _membership(player_id, vkz, joined=day.date())


@player.command("leave")
@click.argument("player_id", type=int)
@click.option("--club", "vkz", required=True, help="The club's VKZ.")
@click.option("--on", "day", required=True, type=click.DateTime(["%Y-%m-%d"]))
def player_leave(player_id: int, vkz: str, day) -> None:  # type: ignore[no-untyped-def]
    """PLAYER_ID's membership in a club ends (the rating is kept for 5 more years)."""
    _membership(player_id, vkz, left=day.date())


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
        from ratingdb.commands.exchange import card_export

        card_export(player_id, fmt, output)
        return
    as_json = as_json or fmt == "json"

    with Session(engine()) as session:
        try:
            card = rating_card(session, player_id)
        except LookupError as err:
            fail(str(err))
    if as_json:
        echo_json(card.to_dict())
    else:
        click.echo(render_card(card))


# -- export --
@click.group()
def export() -> None:
    """Exports for checking and exchange."""


@export.command("evaluations")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv")
def export_evaluations(fmt: str) -> None:
    """Every snapshot in a stable order (tournament order, then player), for diffing."""
    from ratingdb.queries.export import COLUMNS, evaluation_rows

    with Session(engine()) as session:
        rows = evaluation_rows(session)
    if fmt == "json":
        echo_json(rows)
        return
    writer = csv.DictWriter(sys.stdout, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)


@export.command("evaluation")
@click.argument("ident", metavar="ID")
@click.option("--format", "fmt", type=click.Choice(["csv", "pdf"]), default="csv")
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def export_evaluation(ident: str, fmt: str, output: str | None) -> None:
    """The evaluation display (WO Anhang 3.1.11) of tournament ID as CSV or PDF."""
    from ratingdb.commands.exchange import evaluation_export

    evaluation_export(ident, fmt, output)


@export.command("list")
@click.option("--club", help="A club's VKZ.")
@click.option("--federation", help="A VKZ prefix: every club under it.")
@click.option("--age-class", help="youth, junior, adult or U<n> (e.g. U18).")
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="Default: today.")
@click.option("--format", "fmt", type=click.Choice(["csv", "pdf"]), default="csv")
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def export_list(
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: datetime | None,
    fmt: str,
    output: str | None,
) -> None:
    """A rating list (WO 6.5.2.1 item 3) of a club or a federation, sorted by DWZ."""
    from ratingdb.commands.exchange import list_export

    list_export(club, federation, age_class, day.date() if day else None, fmt, output)


# -- synthetic data --
@click.command()
@click.option("--players", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--years", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=1, show_default=True)
def synth(players: int, years: int, seed: int) -> None:
    """Load a synthetic federation (deterministic per seed); then run `ratingdb recalc`."""
    from sqlalchemy import text

    from ratingdb.db.bulk import load_federation
    from ratingdb.synth import generate

    fed = generate(players, years, seed)
    with Session(engine()) as session, session.begin():
        clash = session.execute(
            text("SELECT code FROM tournaments WHERE code = ANY(:codes) LIMIT 1"),
            {"codes": [t.code for t in fed.tournaments]},
        ).first()
        if clash:
            fail(f"tournament {clash.code} exists already: load another --seed")
        counts = load_federation(session, fed)
    click.echo(", ".join(f"{v} {k}" for k, v in counts.items()))
