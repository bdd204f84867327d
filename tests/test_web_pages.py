"""The server-rendered pages and the displays of WO Anhang 3.1.11/3.1.12, on the worked
example imported from files (tests/data/exchange): every number as the WO prints it."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import text

from tests.web_support import client_for, engine_for, example_database

EXAMPLE = "12345678"


@pytest.fixture(scope="module")
def example(pg_server):
    with example_database(pg_server) as url:
        client = client_for(url)
        with engine_for(url).connect() as conn:
            participants = {
                r.given: r.id
                for r in conn.execute(
                    text(
                        "SELECT pa.id, coalesce(pl.given_name, pa.textual_name) AS given "
                        "FROM participants pa JOIN tournaments t ON t.id = pa.tournament_id "
                        "LEFT JOIN players pl ON pl.id = pa.player_id WHERE t.code = :c"
                    ),
                    {"c": EXAMPLE},
                )
            }
        yield url, client, participants


def cells(html: str, table_id: str) -> list[list[str]]:
    """The text of every body row of table ``table_id`` (without the phone's details line
    under a name and its index beside the DWZ, which repeat the row's other cells)."""
    table = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    table = re.sub(r'<span class="sub">.*?</span></td>', "</td>", table, flags=re.S)
    table = re.sub(r'<span class="narrow">[^<]*</span>', "", table)
    body = table.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    out = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        out.append([" ".join(unescape(re.sub(r"<[^>]+>", "", td)).split()) for td in tds])
    return out


def test_evaluation_page_shows_the_published_numbers(example):
    _, client, _ = example
    page = client.get(f"/tournaments/{EXAMPLE}")
    assert page.status_code == 200
    rows = {r[1].split(", ")[-1].rstrip(" ↗"): r for r in cells(page.text, "evaluation")}
    # German numbers: the decimal comma (docs/i18n.md "Numbers and dates")
    assert rows["A"][4:13] == ["2220-31", "25,0", "1855", "7,0", "7", "5,990", "2331",
                               "2245-32", "+25"]  # fmt: skip
    assert rows["G"][10:12] == ["1961*", "1730-4"]  # Sonderwertung
    assert rows["P"][11] == "Erstdaten"  # as the WO prints it (Anhang 3.1.11)
    # E and N are non-members: computed, not stored, shown as textual participants
    assert rows["E"][2:4] == ["", "-"] and rows["E"][5] == "(42,0)"
    assert rows["N"][11] == "(1494-1)"
    api = client.get(f"/api/tournaments/{EXAMPLE}").json()["rows"]
    linked = {r["cells"][1].split(", ")[-1]: r["player_id"] is not None for r in api}
    assert not linked["E"] and not linked["N"] and linked["A"] and linked["P"]
    assert page.text.count('href="/players/') == sum(linked.values())


def test_evaluation_page_sorts_by_link(example):
    _, client, _ = example
    page = client.get(f"/tournaments/{EXAMPLE}", params={"sort": "r_n", "dir": "desc"})
    new = [r[11] for r in cells(page.text, "evaluation")]
    rated = [int(v.strip("()").split("-")[0]) for v in new if v[:1].isdigit() or v[:1] == "("]
    assert rated == sorted(rated, reverse=True) and rated[0] == 2329  # L's first rating
    assert 'aria-sort="descending"' in page.text
    assert 'href="?sort=r_n&amp;dir=asc"' in page.text  # the header now sorts the other way


def test_scoresheet_of_h_as_in_anhang_3_1_12(example):
    url, client, participants = example
    sheet = client.get(f"/api/tournaments/{EXAMPLE}/players/{participants['H']}").json()
    got = {
        g["opponent"].split(", ")[-1]: (g["rating"], g["result"], g["expected"])
        for g in sheet["games"]
    }
    # the rows of Anhang 3.1.12 (the example's TRF numbers the rounds differently)
    assert got == {
        "D": ("1950-15", "0", 0.011),
        "F": ("1700-8", "0", 0.079),
        "N": ("1494", "½", 0.246),
        "K": ("1179-1", "½", 0.666),
        "J": ("1476-1", "0", 0.267),
        "E": ("1800", "0", 0.039),
        "Q": ("-", "1", None),
    }
    rounds = [g["round"] for g in sheet["games"]]
    assert rounds == sorted(rounds)
    assert (sheet["score"], sheet["expected"], sheet["k"]) == (1.0, 1.308, 24.5)
    assert (sheet["rating_old"], sheet["rating_new"]) == ("1300-77", "1292-78")
    page = client.get(f"/tournaments/{EXAMPLE}/players/{participants['H']}").text
    assert '<span id="rating-new">1292-78</span>' in page and "1,308" in page
    english = (
        client_for(url)
        .get(f"/tournaments/{EXAMPLE}/players/{participants['H']}", params={"lang": "en"})
        .text
    )
    assert "1.308" in english and "1,308" not in english


def test_scoresheet_of_a_remaining_player_marks_new_residual_games(example):
    _, client, participants = example
    sheet = client.get(f"/api/tournaments/{EXAMPLE}/players/{participants['P']}").json()
    assert sheet["group"] == "remaining" and sheet["rating_new"] == "Residual games"  # API: en
    page = client.get(f"/tournaments/{EXAMPLE}/players/{participants['P']}").text
    assert '<span id="rating-new">Restpartien</span>' in page
    assert sheet["residual_old"] is not None  # P brought residual games from 2025
    assert sum(g["new_residual"] for g in sheet["games"]) == 2


def test_karteikarte_page_chart_and_rows(example):
    url, client, _ = example
    with engine_for(url).connect() as conn:
        a = conn.execute(text("SELECT id FROM players WHERE given_name = 'A'")).scalar_one()
    page = client.get(f"/players/{a}").text
    assert '<span class="big" id="current-rating">2245-32</span>' in page
    rows = cells(page, "evaluations")
    assert [r[2] for r in rows] == ["Datenübernahme (spieler-2026-08-01.csv)",
                                    "WO-Beispielturnier"]  # fmt: skip
    assert [r[-2] for r in rows] == ["", "2026.1"]  # the Rechenmodul of each row
    assert page.count('<circle class="pt"') == 1  # one point per stored evaluation
    assert page.count('<rect class="event"') == 1  # the takeover
    assert 'href="/tournaments/12345678"' in page
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert "<desc" in svg and "2245" in svg


def test_non_member_has_no_public_card(example):
    url, client, _ = example
    with engine_for(url).connect() as conn:
        e = conn.execute(text("SELECT id FROM players WHERE given_name = 'E'")).scalar_one()
    r = client.get(f"/players/{e}")
    assert r.status_code == 404 and "WO 4.1.1" in r.text and "<html" in r.text


def test_search_page_finds_and_links(example):
    _url, client, _ = example
    page = client.get("/players", params={"q": "Player"}).text  # the example's members
    names = [r[0] for r in cells(page, "results")]
    assert names and all(n.startswith("Player") for n in names)
    assert "Player, E" not in names and "Player, A" in names  # a non-member is not found
    assert client.get("/players").status_code == 200  # the empty form


def test_games_and_tournament_and_list_pages(example, example_json):
    _, client, _ = example
    games = client.get(f"/tournaments/{EXAMPLE}/games").text
    assert len(cells(games, "games")) == len(example_json["games"])
    listing = client.get("/tournaments", params={"vkz": "000"}).text
    assert [r[3] for r in cells(listing, "tournaments")] == [EXAMPLE]
    a = client.get("/api/players", params={"q": "Player, A"}).json()[0]
    lists = client.get("/lists", params={"club": a["vkz"]}).text
    assert 'id="csv"' in lists and [r[1] for r in cells(lists, "list")] == ["Player, A"]
    assert cells(lists, "list")[0][6:8] == ["2220", "31"]  # the example ends on 2026-12-12
    later = client.get("/lists", params={"club": a["vkz"], "date": "2026-12-31"}).text
    assert cells(later, "list")[0][6:8] == ["2245", "32"]
    assert client.get("/lists", params={"club": a["vkz"], "age_class": "x"}).status_code == 422
    home = client.get("/").text
    assert EXAMPLE in home and 'role="search"' in home
    assert client.get("/nowhere").status_code == 404


#: English words that stood beside German headings before the display spoke one language
#: ("Player" is checked in the heads: the example's players are named "Player, A")
ENGLISH = ("Age", "Born", "Sex", "Club", "Points", "Games", "Performance", "youth",
           "junior", "adult", "residual", "individual", "exceptional", "non-member")  # fmt: skip


def test_evaluation_page_in_german_has_no_english_word(example):
    """German by default: the heads are the words DeWIS users know, each symbol explained
    by hover text and in the legend (WO 3.2); no English column name or value is left."""
    _, client, _ = example
    page = client.get(f"/tournaments/{EXAMPLE}").text
    table = page.split('id="evaluation"', 1)[1].split("</table>", 1)[0]
    heads = [unescape(re.sub(r"<[^>]+>", "", h)).split()[0]
             for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]  # fmt: skip
    assert heads == ["#", "Spieler", "Altersstufe", "VKZ", "DWZ", "K", "Niveau", "Punkte",
                     "Partien", "We", "Leistung", "DWZ", "+/-"]  # fmt: skip
    visible = unescape(re.sub(r"<[^>]+>", " ", page.split("<main>", 1)[1]))
    for word in ENGLISH:
        assert not re.search(rf"\b{word}\b", visible), word
    assert '<abbr title="W_e: Punkterwartung im Turnier = Summe aller einzelnen ' in page
    assert '<abbr title="R_c: Durchschnitt der Gegner-DWZ / Gegner-Niveau' in page
    assert "Entwicklungsfaktor" in page and "Turnierleistung" in page
    rows = {r[1].split(", ")[-1].rstrip(" ↗"): r for r in cells(page, "evaluation")}
    ages = {r[2] for r in rows.values()}
    assert ages <= {"", "Jgd", "Jun", "Erw"} and ages & {"Jgd", "Jun"}  # the WO's own marks
    assert "Einzelturnier" in page  # the tournament's kind
    english = client.get(f"/tournaments/{EXAMPLE}", headers={"Accept-Language": "en"}).text
    assert ">Player<" in english and ">youth<" in english and "Altersstufe" not in english


def _pdf_text_and_paths(
    data: bytes, shot: str | None = None
) -> tuple[str, list[tuple[float, float]], float]:
    """All pages' text, the horizontal extent of every drawn path, the page width; page 1
    rendered to ``$RATINGDB_SCREENSHOTS/shot.png`` when that variable is set."""
    import os

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(data)
    if shot and os.environ.get("RATINGDB_SCREENSHOTS"):
        image = pdf[0].render(scale=2).to_pil()
        image.save(os.path.join(os.environ["RATINGDB_SCREENSHOTS"], f"{shot}.png"))
    text_, spans = "", []
    for page in pdf:
        text_ += page.get_textpage().get_text_range()
        for obj in page.get_objects():
            if obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
                left, _bottom, right, _top = obj.get_bounds()
                spans.append((left, right))
    return text_, spans, pdf[0].get_width()


def test_karteikarte_pdf_has_chart_memberships_and_plus_minus(example):
    url, client, _ = example
    with engine_for(url).connect() as conn:
        a = conn.execute(text("SELECT id FROM players WHERE given_name = 'A'")).scalar_one()
    pdf = client.get(f"/players/{a}/card.pdf")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    text_, spans, _width = _pdf_text_and_paths(pdf.content, "karteikarte-pdf")
    assert "Karteikarte Player, A" in text_
    assert "Mitgliedschaften" in text_ and "Verein aaaaa" in text_ and "aktiv" in text_
    assert "2026-08-01" in text_
    # the chart: its heading, its rating ticks, and drawn marks (grid, line, points)
    assert "DWZ-Verlauf" in text_ and "2250" in text_
    assert len(spans) >= 8
    assert "+25" in text_  # the +/- of the evaluation row
    assert "Geburtsjahr" not in text_  # the public card (WO 4.1.1)
    english = client.get(f"/players/{a}/card.pdf?lang=en").content
    assert "Memberships" in _pdf_text_and_paths(english)[0]
    client.cookies.clear()
    with engine_for(url).connect() as conn:
        e = conn.execute(text("SELECT id FROM players WHERE given_name = 'E'")).scalar_one()
    assert client.get(f"/players/{e}/card.pdf").status_code == 404  # a non-member (WO 4.1.1)
    assert client.get("/players/987654/card.pdf").status_code == 404


def test_evaluation_pdf_table_uses_the_page_width(example, tmp_path):
    """The table fills A4 landscape between the margins (it filled less than half)."""
    from tests.builders import ok

    url, _, _ = example
    target = tmp_path / "evaluation.pdf"
    ok(["export", "evaluation", EXAMPLE, "--format", "pdf", "-o", str(target)], url, lang=None)
    text_, spans, width = _pdf_text_and_paths(target.read_bytes(), "evaluation-pdf")
    available = width - 2 * 15 * 72 / 25.4  # 15 mm margins
    widest = max(right - left for left, right in spans)
    assert widest >= 0.99 * available, (widest, available)
    assert "Leistung" in text_ and "Punkterwartung im Turnier" in text_  # heads and legend


#: English UI words a German page must not show, and German ones an English page must not
UI_EN = ("Tournament", "Players", "Evaluations", "Rating card", "Residual games", "Memberships",
         "Result", "Opponent", "Points", "Games", "youth", "junior", "adult", "individual",
         "residual", "Born", "Sex", "Club", "Search", "Legend", "expired", "not rated")  # fmt: skip
UI_DE = ("Auswertungen", "Mitgliedschaften", "Restpartien", "Punkte", "Partien", "Leistung",
         "Karteikarte", "Ergebnis", "Gegner", "Spielersuche", "Erläuterungen", "Jgd", "Jun",
         "Einzelturnier", "Niveau")  # fmt: skip


def test_every_page_speaks_one_language(example):
    url, client, participants = example
    with engine_for(url).connect() as conn:
        a = conn.execute(text("SELECT id FROM players WHERE given_name = 'A'")).scalar_one()
    paths = ["/", f"/players/{a}", f"/tournaments/{EXAMPLE}", f"/tournaments/{EXAMPLE}/games",
             f"/tournaments/{EXAMPLE}/players/{participants['P']}", "/tournaments",
             "/players?q=Player", "/lists?club=aaaaa", f"/rechner?player={a}"]  # fmt: skip
    for path in paths:
        for lang, foreign in (("de", UI_EN), ("en", UI_DE)):
            page = client.get(path, headers={"Accept-Language": lang})
            assert page.status_code == 200, path
            visible = unescape(re.sub(r"<[^>]+>", " ", page.text.split("<main>", 1)[1]))
            found = [w for w in foreign if re.search(rf"\b{w}\b", visible)]
            assert found == [], (path, lang, found)


def test_a_refused_parameter_is_explained_in_the_pages_language(example):
    """FastAPI's check of a parameter (``sort`` at most 10 characters) answers 422 with the
    message in the page's language, not pydantic's English."""
    url, client, _ = example
    german = client.get(f"/tournaments/{EXAMPLE}", params={"sort": "X" * 11})
    assert german.status_code == 422
    assert "höchstens 10 Zeichen" in german.text and "String should" not in german.text
    english = client_for(url).get(
        f"/tournaments/{EXAMPLE}", params={"sort": "X" * 11, "lang": "en"}
    )
    assert english.status_code == 422 and "at most 10 characters" in english.text
    api = client_for(url).get("/api/lists", params={"club": "X" * 11}).json()
    assert api["errors"][0]["message"] == "at most 10 characters"  # the API: English
