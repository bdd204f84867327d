"""The default DSB timeline on PostgreSQL (migration 0007): a synthetic history 2010-2026
replays across every rule change and the Umstufung; a late tournament ending in May 2026,
added now, is rated with the old rules, the Umstufung applies to its players afterwards,
and their 2026 evaluations build on the converted numbers; incremental == full."""

from __future__ import annotations

import copy
from datetime import date

from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db.bulk import load_federation
from ratingdb.db.recalc import run_recalc
from ratingdb.i18n import date_text
from ratingdb.queries.card import rating_card, render_card
from ratingdb.queries.export import evaluation_rows, residual_rows
from ratingdb.queries.reports import card_document
from ratingdb.queries.tournament import show
from ratingdb.rules.adjustments import dwz_2026_conversion
from ratingdb.services.samples import late_tournament
from ratingdb.services.submissions import add_tournament
from ratingdb.synth import generate
from tests.conftest import at_head

TODAY = date(2026, 11, 23)
UMSTUFUNG = date(2026, 6, 7)


def versions_by_end(session: Session) -> list[tuple[str, date, date]]:
    return [
        tuple(r)
        for r in session.execute(
            text(
                "SELECT r.version, min(t.end_date), max(t.end_date) FROM rating_snapshots s "
                "JOIN tournaments t ON t.id = s.tournament_id "
                "JOIN rechenmodule r ON r.id = s.rechenmodul_id "
                "GROUP BY r.version ORDER BY min(t.end_date)"
            )
        )
    ]


def test_history_2010_to_2026_with_a_late_may_tournament(scratch_db):
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    fed = generate(players=300, years=17, seed=11, start_year=2026, today=TODAY)
    assert min(t.end for t in fed.tournaments).year == 2010
    assert max(t.end for t in fed.tournaments) <= TODAY
    with Session(engine) as session, session.begin():
        load_federation(session, fed)
    run_recalc(engine)
    with Session(engine) as session:
        used = versions_by_end(session)
    # every tournament is rated by the version valid at its end date
    assert [v for v, _, _ in used] == ["dwz-wo2002", "dwz-2014", "dwz-2016", "2026.1"]
    bounds = {v: (lo, hi) for v, lo, hi in used}
    assert bounds["dwz-wo2002"][1] < date(2011, 1, 1) <= bounds["dwz-2014"][0]
    assert bounds["dwz-2014"][1] < date(2016, 8, 1) <= bounds["dwz-2016"][0]
    assert bounds["dwz-2016"][1] <= UMSTUFUNG < date(2026, 6, 8) <= bounds["2026.1"][0]

    # an officer adds a tournament that ended on 2026-05-20, now (WO 6.2: up to a year late)
    late_end = date(2026, 5, 20)
    with Session(engine) as session, session.begin():
        doc = late_tournament(session, late_end)
        assert len(doc["players"]) >= 4
        added = add_tournament(session, doc, actor="test officer")
        late_id = added.id
        # the same players meet again in September, under the 2026 rules
        autumn = copy.deepcopy(doc)
        autumn["tournament"].update(id="LATE-AUTUMN", start="2026-09-10", end="2026-09-15")
        add_tournament(session, autumn, actor="test officer")
    report = run_recalc(engine)
    assert report.tournaments_evaluated > 0
    with Session(engine) as session:
        late_version = (
            session.execute(
                text(
                    "SELECT DISTINCT r.version FROM rating_snapshots s JOIN rechenmodule r "
                    "ON r.id = s.rechenmodul_id WHERE s.tournament_id = :t"
                ),
                {"t": late_id},
            )
            .scalars()
            .all()
        )
        incremental = evaluation_rows(session), residual_rows(session)
    assert late_version == ["dwz-2016"]

    # its players: the first evaluation after the switch starts from the converted rating
    rows = incremental[0]
    players = {int(p["player_id"]) for p in doc["players"]}
    checked = 0
    for pid in players:
        mine = [r for r in rows if r["player_id"] == pid and r["stored"]]
        before = [r for r in mine if r["end_date"] <= UMSTUFUNG and r["rating_new"] is not None]
        after = [r for r in mine if r["end_date"] > UMSTUFUNG]
        assert any(r["tournament"] == doc["tournament"]["id"] for r in before), pid
        if not after or after[0]["rating_old"] is None:
            continue
        last, first = before[-1], after[0]
        assert first["rating_old"] == dwz_2026_conversion(last["rating_new"]), pid
        assert first["index_old"] == last["index_new"] + 1, pid
        checked += 1
    assert checked == len(players)

    # the Karteikarte names the Rechenmodul of each row and shows the Umstufung as its own row
    pid = sorted(players)[0]
    with Session(engine) as session:
        card = rating_card(session, pid, TODAY)
        text_card = render_card(card)
        pdf_rows = card_document(session, pid, TODAY).rows
        shown = show(session, doc["tournament"]["id"])
    kinds = [(e["kind"], e.get("tournament"), e["rechenmodul"]) for e in card.evaluations]
    late_at = kinds.index(("evaluation", doc["tournament"]["id"], "dwz-2016"))
    conversion = next(e for e in card.evaluations if e["kind"] == "adjustment")
    assert card.evaluations.index(conversion) > late_at
    assert (conversion["name"], conversion["end_date"], conversion["rechenmodul"]) == (
        "Umstufung 2026 (WO Anhang 4)",
        UMSTUFUNG,
        "dwz-2026-umstufung",
    )
    assert conversion["rating_new"] == dwz_2026_conversion(conversion["rating_old"])
    assert conversion["index_new"] == conversion["index_old"] + 1
    assert ("evaluation", "LATE-AUTUMN", "2026.1") in kinds
    old = f"{conversion['rating_old']}-{conversion['index_old']}"
    new = f"{conversion['rating_new']}-{conversion['index_new']}"
    change = f"{conversion['rating_new'] - conversion['rating_old']:+d}"
    line = next(x for x in text_card.splitlines() if x.startswith(date_text(UMSTUFUNG)))
    assert line.split()[-4:] == [old, new, change, "dwz-2026-umstufung"]
    assert "dwz-2016" in text_card and "Rechenmodul" in text_card
    assert any(r[1] == conversion["name"] and list(r[-4:-1]) == [old, new, change]
               for r in pdf_rows)  # fmt: skip
    assert "Rechenmodul: dwz-2016" in shown.splitlines()[0]

    run_recalc(engine, full=True)
    with Session(engine) as session:
        assert (evaluation_rows(session), residual_rows(session)) == incremental
    engine.dispose()
