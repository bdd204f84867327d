"""``ratingdb demo``: the main job on the embedded database, end to end in about a minute.

1. a fresh database ``ratingdb_demo`` on the configured server (the embedded one by
   default), migrated;
2. a synthetic federation (clubs, players joining and leaving, club championships,
   opens, team seasons, matches) loaded in bulk;
3. the nightly job: a full recalculation run with a progress bar;
4. a rating officer inserts a late tournament that ended a year ago; the next run replays
   from that change point and reports what it changed;
5. one player's Karteikarte;
6. the worked example of WO Anhang 3.1;
7. the command that serves the demo's database in the browser (:data:`SERVE`: ``ratingdb
   serve --database ratingdb_demo``, on the same server), the Karteikarte's address, and
   how to sign in: an officer and an administrator with generated passwords, printed once.
"""

from __future__ import annotations

from datetime import date

import click
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.commands.common import recalc_progress
from ratingdb.errors import InputError
from ratingdb.i18n import _, date_text, decimal
from ratingdb.services.database import configured_url, fresh_database
from ratingdb.services.evaluation import worked_example
from ratingdb.services.samples import late_tournament
from ratingdb.services.synthetic import demo_users, load_synthetic
from ratingdb.terms import record_counts

DEMO_DB = "ratingdb_demo"
#: what the demo prints at its end to browse what it built (works as printed: the same
#: server, the embedded one started again if the demo's run stopped it)
SERVE = f"ratingdb serve --database {DEMO_DB}"


@click.command()
@click.option(
    "--players",
    default=4000,
    show_default=True,
    type=click.IntRange(min=50),
    help="Players of the federation.",
)
@click.option(
    "--years", default=6, show_default=True, type=click.IntRange(min=2), help="Years of history."
)
@click.option("--seed", default=2026, show_default=True)
def demo(players: int, years: int, seed: int) -> None:
    """The main job on the embedded database: federation, nightly run, late insert, card."""
    from ratingdb.commands.recalc import echo_changes
    from ratingdb.queries.card import rating_card, render_card
    from ratingdb.queries.tournament import show
    from ratingdb.services.recalc import recalculate
    from ratingdb.services.submissions import add_tournament

    click.echo(
        _("1. fresh database %(name)r on %(url)s")
        % {"name": DEMO_DB, "url": configured_url(selected=False).render_as_string()}
    )
    eng = create_engine(fresh_database(DEMO_DB), poolclass=NullPool)

    with Session(eng) as session, session.begin():
        counts = load_synthetic(session, players, years, seed)
        last = session.execute(text("SELECT max(end_date) FROM tournaments")).scalar_one()
    click.echo(_("2. synthetic federation: %(counts)s") % {"counts": record_counts(counts)})

    click.echo(_("3. nightly job (full replay):"))
    with recalc_progress() as update:
        first = recalculate(eng, progress=update)
    click.echo(
        "   "
        + _("run %(run)s: %(tournaments)d tournaments evaluated, %(snapshots)d snapshots, %(s)s s")
        % {
            "run": first.run_id,
            "tournaments": first.tournaments_evaluated,
            "snapshots": first.snapshots_written,
            "s": decimal(first.seconds, 2),
        }
    )

    # a tournament of May (before the 2026 rules and the Umstufung in the DSB timeline, when
    # the history reaches mid-2026): rated with the old rules, then converted
    end = date(last.year if last >= date(last.year, 6, 1) else last.year - 1, 5, 20)
    with Session(eng) as session, session.begin():
        doc = late_tournament(session, end)
        if len(doc["players"]) < 2:
            raise InputError(
                "", _("the demo federation has too few active players; use more --players")
            )
        add_tournament(session, doc, actor="demo officer")
        users = demo_users(session, doc["tournament"]["vkz"])
    click.echo(
        _(
            "4. an officer inserts a late tournament that ended %(end)s (%(players)d players); "
            "the next run replays from there:"
        )
        % {"end": date_text(end), "players": len(doc["players"])}
    )
    with recalc_progress() as update:
        late = recalculate(eng, progress=update)
    with Session(eng) as session:
        suffix = session.execute(
            text("SELECT count(*) FROM tournaments WHERE end_date >= :d"), {"d": end}
        ).scalar_one()
    click.echo(
        "   "
        + _(
            "run %(run)s: re-evaluated %(evaluated)d of the %(after)d tournaments after the "
            "change point; %(changed)d ratings changed (%(s)s s)"
        )
        % {
            "run": late.run_id,
            "evaluated": late.tournaments_evaluated,
            "after": suffix,
            "changed": len(late.ratings_changed),
            "s": decimal(late.seconds, 2),
        }
    )
    more = f"; `ratingdb runs --changes {late.run_id}` lists all"
    echo_changes(late.ratings_changed, more=more, indent="     ")
    with Session(eng) as session:
        click.echo("")
        click.echo(show(session, "DEMO-LATE"))
        click.echo("")
        click.echo(_("5. Rating card of the first player of the late tournament:"))
        shown_player = doc["players"][0]["player_id"]
        click.echo(render_card(rating_card(session, shown_player)))
    eng.dispose()

    click.echo("")
    click.echo(_("6. the worked example of WO Anhang 3.1:"))
    click.echo(worked_example())

    click.echo("")
    click.echo(_("7. to see the demo in the browser, serve its database:"))
    click.echo(f"   {SERVE}")
    click.echo(
        "   "
        + _("then open %(url)s (the rating card above)")
        % {"url": f"http://127.0.0.1:8000/players/{shown_player}"}
    )
    click.echo(
        "   "
        + _("and sign in at %(url)s (passwords shown once, stored only as hashes):")
        % {"url": "http://127.0.0.1:8000/anmelden"}
    )
    for name, _role, password, scopes in users:
        what = (
            _("rating officer for the VKZ %(scopes)s…") % {"scopes": ", ".join(scopes)}
            if scopes
            else _("administrator")
        )
        click.echo(f"     {name} / {password}   ({what})")
    click.echo(
        "   "
        + _("other commands act on the demo's database with --database: %(example)s")
        % {"example": f"ratingdb --database {DEMO_DB} user list"}
    )
