"""The DeWIS XML reader on a file laid out as ChessLeagueManager's "XML Dewis" export."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ratingdb.i18n import use
from ratingdb.io import dewis_xml
from ratingdb.io.dsb_xml import DsbXmlError

pytestmark = pytest.mark.usefixtures("in_english")  # these tests pin the English wording

G = "/dewis/playerSection/games/game[1]"
FIXTURE = Path(__file__).parent / "fixtures" / "dewis" / "clm-individual.xml"


def test_clm_file_players_games_and_dates():
    data = FIXTURE.read_bytes()
    assert dewis_xml.is_dewis(data)
    t = dewis_xml.parse(data, "clm.xml")
    assert (t.name, t.type, t.team) == ("Vereinsmeisterschaft_2024", "SR", False)
    assert (t.start, t.end) == (date(2024, 11, 15), date(2024, 11, 29))
    assert [(p.start_rank, p.name, p.birth) for p in t.players] == [
        (1, "Müller, Jörg", 1980),
        (2, "Weiß, Käthe", date(1975, 6, 1)),
        (3, "Öztürk, Ülkü", None),
        (4, "Schmidt, Hans", 1990),
    ]
    assert t.player(1).national["GER"].number == "10012345"
    assert t.player(2).national["GER"].number == "C0101-7"
    assert t.player(1).fide_id == 4612345 and t.player(4).fide_id is None
    assert [(g.round, g.white, g.black, g.result) for g in t.games] == [
        (1, 1, 4, "1-0"),
        (1, 2, 3, "1/2-1/2"),
        (2, 1, 2, "1/2-1/2"),
        (2, 4, 3, "0-1"),
        (3, 2, 4, "+-"),
        (3, 3, 1, "0-1"),
    ]


@pytest.mark.parametrize(
    ("old", "new", "path", "message"),
    [
        ("<result>1:0</result>", "<result>0:0</result>", f"{G}/result", "one side only"),
        ("<result>1:0</result>", "<result>x</result>", f"{G}/result", "unknown result"),
        ("<noBlack>4</noBlack>", "<noBlack>9</noBlack>",
         "/dewis/playerSection/games/game[1]/noBlack", "no player"),
        ("<endDate>2024-11-29</endDate>", "<endDate>29.11.2024</endDate>",
         "/dewis/tournamentSection/tournament/endDate", "not a date"),
        ("<noPlayer>2</noPlayer>", "<noPlayer>1</noPlayer>",
         "/dewis/playerSection/players/player[2]/noPlayer", "also"),
        ("<round>1</round><noWhite>1", "<round>7</round><noWhite>1",
         "/dewis/playerSection/games/game[1]/round", "higher than rounds"),
    ],
)  # fmt: skip
def test_bad_files_name_the_element(old, new, path, message):
    data = FIXTURE.read_text(encoding="utf-8").replace(old, new, 1).encode()
    with pytest.raises(DsbXmlError) as err:
        dewis_xml.parse(data, "bad.xml")
    assert any(p == path and message in m for p, m in err.value.problems), err.value.problems


def test_not_dewis():
    with pytest.raises(DsbXmlError, match="not a DeWIS file"):
        dewis_xml.parse(b"<other/>", "o.xml")
    assert not dewis_xml.is_dewis(b"<other/>")


def test_dewis_xml_refusals_are_worded_in_the_language_in_force():
    text = FIXTURE.read_text(encoding="utf-8")
    data = text.replace("<result>1:0</result>", "<result>0:0</result>", 1).replace(
        "<endDate>2024-11-29</endDate>", "<endDate>29.11.2024</endDate>"
    )
    problems = {}
    for lang in ("de", "en"):
        with use(lang), pytest.raises(DsbXmlError) as err:
            dewis_xml.parse(data.encode(), "d.xml")
        problems[lang] = err.value.problems
    end = "/dewis/tournamentSection/tournament/endDate"
    assert problems["de"] == [
        (end, "kein Datum (JJJJ-MM-TT): '29.11.2024'"),
        (f"{G}/result", "0:0 ist nur für eine Seite oder ungleich gewertet; ratingdb speichert "
         "nur 1:0, 0:1, ½:½ und kampflose Ergebnisse"),
    ]  # fmt: skip
    assert problems["en"] == [
        (end, "not a date (YYYY-MM-DD): '29.11.2024'"),
        (f"{G}/result", "0:0 is rated for one side only or unequally; ratingdb stores only "
         "1:0, 0:1, ½:½ and forfeits"),
    ]  # fmt: skip
