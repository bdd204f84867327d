"""``ratingdb tournament``: the officer workflows (add, correct, delete, import) through
:mod:`ratingdb.services.tournaments`, and showing, listing and exporting tournaments."""

from __future__ import annotations

from datetime import date, datetime

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import (
    echo_json,
    engine,
    json_text,
    read_bytes,
    read_json,
    source_name,
    write_output,
    writing,
)
from ratingdb.commands.recalc import recalc_and_report
from ratingdb.i18n import _, date_text, ngettext
from ratingdb.terms import match_how, record_status, tournament_kind


@click.group()
def tournament() -> None:
    """Officer workflows: add, correct, delete, show and export tournaments."""


def _now(now: bool) -> None:
    if now:
        recalc_and_report(engine(), full=False, dry_run=False, quiet=False)


def _changed(action: str, code: str, end: date) -> None:
    """One line of what an edit did, in the call's language: the action (``added``,
    ``corrected``, ``deleted``, already translated), the tournament, its end and that a change
    point waits for the next run (WO 3.7)."""
    click.echo(
        _("%(action)s: tournament %(code)s (ends %(end)s); change point recorded")
        % {"action": action, "code": code, "end": date_text(end)}
    )


@tournament.command("add")
@click.argument("source", metavar="FILE")
@click.option(
    "--allow-large",
    is_flag=True,
    help="Go above the size bounds on purpose (players, rounds, games per player, players "
    "without a game; docs/database.md); recorded in the audit log.",
)
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_add(source: str, allow_large: bool, now: bool) -> None:
    """Add a tournament from FILE (format: docs/engine.md, "Submissions")."""
    from ratingdb.services.tournaments import add_json

    name = source_name(source)
    doc = read_json(source)
    with writing(name) as session:
        written = add_json(session, doc, named=name, allow_large=allow_large)
    _changed(_("added"), written.tournament, written.end)
    _now(now)


@tournament.command("correct")
@click.argument("ident", metavar="ID")
@click.argument("source", metavar="FILE")
@click.option(
    "--allow-large",
    is_flag=True,
    help="Go above the size bounds on purpose (players, rounds, games per player, players "
    "without a game; docs/database.md); recorded in the audit log.",
)
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_correct(ident: str, source: str, allow_large: bool, now: bool) -> None:
    """Replace tournament ID's data with FILE."""
    from ratingdb.services.tournaments import correct_json

    name = source_name(source)
    doc = read_json(source)
    with writing(name) as session:
        written = correct_json(session, ident, doc, named=name, allow_large=allow_large)
    _changed(_("corrected"), written.tournament, written.end)
    _now(now)


@tournament.command("delete")
@click.argument("ident", metavar="ID")
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_delete(ident: str, now: bool) -> None:
    """Delete tournament ID (code or number)."""
    from ratingdb.services.tournaments import delete

    with writing(ident) as session:
        written = delete(session, ident)
    _changed(_("deleted"), written.tournament, written.end)
    _now(now)


@tournament.command("show")
@click.argument("ident", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="The evaluate JSON instead of the table.")
def tournament_show(ident: str, as_json: bool) -> None:
    """The stored evaluation of tournament ID (WO Anhang 3.1.11)."""
    from ratingdb.queries.evaluation_display import render_text
    from ratingdb.queries.tournament import stored_evaluation

    with Session(engine()) as session:
        tin, result = stored_evaluation(session, ident)
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(render_text(tin, result))


@tournament.command("import")
@click.argument("source", metavar="FILE")
@click.option(
    "--id",
    "code",
    help="Tournament id (default: the file's '### ratingdb id:', else VKZ and end date).",
)
@click.option("--vkz", help="VKZ of the playing level (default: '### ratingdb vkz:').")
@click.option("--kind", type=click.Choice(["individual", "team", "match"]), default=None)
@click.option(
    "--encoding",
    help="TRF: utf-8 by default; SWI: detected (cp850, latin-1, utf-8); SWT: cp1252",
)
@click.option(
    "--start",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Start date YYYY-MM-DD, replacing the file's (SwissChess files may have none).",
)
@click.option(
    "--end",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="End date YYYY-MM-DD, replacing the file's (needed for a file without dates).",
)
@click.option(
    "--complete-rounds",
    is_flag=True,
    help="TRF: leave out rounds that are paired but have no results yet (else an error).",
)
@click.option(
    "--create-organisation",
    "create_org",
    is_flag=True,
    help="Create the VKZ's organisation when it is unknown (else an error).",
)
@click.option(
    "--allow-large",
    is_flag=True,
    help="Go above the size bounds on purpose (players, rounds, games per player, players "
    "without a game; docs/database.md); recorded in the audit log.",
)
@click.option("--now", is_flag=True, help="Recalculate immediately.")
def tournament_import(
    source: str,
    code: str | None,
    vkz: str | None,
    kind: str | None,
    encoding: str | None,
    start: datetime | None,
    end: datetime | None,
    complete_rounds: bool,
    create_org: bool,
    allow_large: bool,
    now: bool,
) -> None:
    """Import a tournament file – TRF16/TRF26, SwissChess SWT (individual or team), DSB
    TournamentReport XML, SWI text or DeWIS XML (detected from the content); players are
    matched by DSB id, FIDE id, then name + birth year (docs/data-exchange.md). All or
    nothing."""
    from ratingdb.services.imports import read_trf
    from ratingdb.services.tournaments import add_trf

    name = source_name(source)
    parsed = read_trf(
        read_bytes(source), name, encoding,
        start=start.date() if start else None, end=end.date() if end else None,
        complete_rounds=complete_rounds,
    )  # fmt: skip
    for warning in parsed.warnings:
        click.echo(_("warning: %(file)s: %(text)s") % {"file": name, "text": warning}, err=True)
    with writing(name) as session:
        written = add_trf(
            session,
            parsed,
            code=code,
            vkz=vkz,
            kind=kind,
            create_organisation=create_org,
            allow_large=allow_large,
        )
    matches = written.matches or []
    for m in matches:
        who = (
            _("player %(id)d") % {"id": m.player_id}
            if m.player_id is not None
            else _("textual participant")
        )
        click.echo(f"  {m.start_rank:4d}  {m.name[:33]:33}  {match_how(m.how):18} {who}")
    new = sum(1 for m in matches if m.how == "new player")
    textual = sum(1 for m in matches if m.player_id is None)
    click.echo(
        _(
            "imported tournament %(code)s (ends %(end)s): %(players)s (%(matched)d matched, "
            "%(new)d new players, %(textual)d textual), %(games)s; change point recorded"
        )
        % {
            "code": written.tournament,
            "end": date_text(written.end),
            "players": ngettext("%(num)d player", "%(num)d players", len(matches))
            % {"num": len(matches)},
            "matched": len(matches) - new - textual,
            "new": new,
            "textual": textual,
            "games": ngettext("%(num)d game", "%(num)d games", len(parsed.games))
            % {"num": len(parsed.games)},
        }
    )
    _now(now)


@tournament.command("export")
@click.argument("ident", metavar="ID")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "trf", "dsb-xml", "evaluate"]),
    default="json",
    show_default=True,
    help="json: the submission document; trf: FIDE TRF26 with GER (DWZ) records; "
    "dsb-xml: the DSB's TournamentReport 2.5; "
    "evaluate: the stored evaluation's input (ratings, residual games) for `ratingdb evaluate`.",
)
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def tournament_export(ident: str, fmt: str, output: str | None) -> None:
    """Tournament ID as a submission document (the JSON it can be added with), TRF, the DSB's
    TournamentReport XML, or the input of its stored evaluation (`ratingdb evaluate FILE
    --rechenmodul auto` repeats it)."""
    from ratingdb.queries.tournament import evaluation_input, submission_document
    from ratingdb.services import dsb_exchange, trf_import

    def as_json(data: object) -> bytes:
        return (json_text(data) + "\n").encode()

    with Session(engine()) as session:
        if fmt == "evaluate":
            data = as_json(evaluation_input(session, ident))
        elif fmt == "trf":
            data = trf_import.export_file(session, ident)
        elif fmt == "dsb-xml":
            data = dsb_exchange.export_file(session, ident)
        else:
            data = as_json(submission_document(session, ident))
    write_output(data, output)


@tournament.command("list")
@click.option("--limit", default=30, show_default=True, type=click.IntRange(min=0))
def tournament_list(limit: int) -> None:
    """The latest tournaments in evaluation order (WO 6.5.2.1 item 4)."""
    from ratingdb.queries.tournament import tournament_list as rows

    with Session(engine()) as session:
        for r in rows(session, limit):
            players = ngettext("%(num)d player", "%(num)d players", r["players"]) % {
                "num": r["players"]
            }
            click.echo(
                f"{date_text(r['end_date'])}  {r['code']:14} {r['vkz']:6} "
                f"{tournament_kind(r['kind']):13} {players:>12}  "
                f"{record_status(r['status']):10}  {r['name']}"
            )
