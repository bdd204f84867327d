"""Spreadsheet-ready CSV on the worked example of WO Anhang 3.1 imported
from files: every CSV the project writes for people (the evaluation display on the web and
the CLI, the rating list on the web and the CLI, the Karteikarte) has one number per cell
(DWZ and index apart, the Sonderwertung mark in its own column), an empty cell for a
missing value, and the column names of the corresponding page (the same source:
``ratingdb/terms.py`` and the catalogs)."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest
from sqlalchemy import text

from ratingdb import i18n, terms
from ratingdb.io.dsb_list import parse_list
from ratingdb.queries.reports import card_spreadsheet_columns, list_labels
from tests.builders import ok
from tests.web_support import client_for, engine_for, example_database

EXAMPLE = "12345678"


@pytest.fixture(scope="module")
def example(pg_server):
    with example_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            players = dict(conn.execute(text("SELECT given_name, id FROM players")).all())
        yield url, client_for(url), players


def parse(data: str, lang: str = "de") -> list[dict[str, str]]:
    """A CSV of ``lang``: German ``;``-separated, English ``,``-separated."""
    delimiter = i18n.CSV_DELIMITER[lang]
    return list(csv.DictReader(io.StringIO(data, newline=""), delimiter=delimiter))


def header(data: str, lang: str = "de") -> list[str]:
    return next(csv.reader(io.StringIO(data, newline=""), delimiter=i18n.CSV_DELIMITER[lang]))


def page_heads(html: str, table_id: str) -> list[str]:
    """The text of the ``<th>`` cells of table ``table_id`` on a page."""
    table = html.split(f'id="{table_id}"', 1)[1].split("</thead>", 1)[0]
    return [
        " ".join(unescape(re.sub(r"<[^>]+>", "", th)).split())
        for th in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)
    ]


def without_companions(columns: list[str], lang: str = "de") -> list[str]:
    """A CSV header without the columns that split a display cell (index, marks)."""
    with i18n.use(lang):
        companions = terms.spreadsheet_companions()
    extra = {label for labels in companions.values() for label in labels}
    return [c for c in columns if c not in extra]


def by_player(rows: list[dict[str, str]], column: str) -> dict[str, dict[str, str]]:
    return {r[column].split(", ")[-1]: r for r in rows}


def no_placeholders(data: str) -> None:
    """Missing values are empty cells, never ``-``, ``None`` or parentheses."""
    for row in list(csv.reader(io.StringIO(data, newline=""), delimiter=";"))[1:]:
        for cell in row:
            assert cell not in ("-", "None") and not cell.startswith("("), row


def check_evaluation(data: str) -> None:
    rows = by_player(parse(data), "Spieler")
    a, g, e, n, p = rows["A"], rows["G"], rows["E"], rows["N"], rows["P"]
    # A: 2220-31 -> 2245-32 (+25) as the WO prints it, as integers in cells of their own
    got = [int(a[c]) for c in ("DWZ alt", "Index alt", "DWZ neu", "Index neu", "+/-")]
    assert got == [2220, 31, 2245, 32, 25]
    assert [a[c] for c in ("K", "Niveau", "Punkte", "Partien", "We", "Leistung")] == [
        "25,0", "1855", "7,0", "7", "5,990", "2331",
    ]  # fmt: skip
    assert (a["Sonderwertung"], a["Mitglied"], a["Restpartien"]) == ("", "ja", "")
    # G's performance 1961 counts as Sonderwertung (WO 3.6.3): the mark in its own column
    assert (int(g["Leistung"]), g["Sonderwertung"]) == (1961, "*")
    assert (int(g["DWZ neu"]), int(g["Index neu"])) == (1730, 4)
    # non-members: computed, not stored; the display's parentheses are the Mitglied column
    assert (e["K"], e["Mitglied"], e["+/-"]) == ("42,0", "nein", "")
    assert (int(n["DWZ neu"]), int(n["Index neu"]), n["Mitglied"]) == (1494, 1, "nein")
    # P keeps residual games (the display's "Erstdaten"): no new DWZ, the mark instead
    assert (p["DWZ neu"], p["Index neu"], p["Restpartien"]) == ("", "", "ja")
    no_placeholders(data)


def test_evaluation_csv_on_the_web_splits_numbers_and_names_columns_as_the_page(example):
    url, client, _ = example
    page = client.get(f"/tournaments/{EXAMPLE}").text
    response = client.get(f"/tournaments/{EXAMPLE}/evaluation.csv")
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    data = response.text
    with i18n.use("de"):
        expected = [*terms.spreadsheet_labels(terms.evaluation_terms()), "Mitglied"]
    assert header(data) == expected
    # a German spreadsheet opens it: ";" between the cells, the decimal comma in them
    assert data.splitlines()[0] == ";".join(expected) and "," not in data.splitlines()[0]
    assert without_companions(header(data))[:-1] == page_heads(page, "evaluation")
    check_evaluation(data)
    # the public CSV hides what the page hides: E is not published (WO 4.1.1)
    e = by_player(parse(data), "Spieler")["E"]
    assert (e["Altersstufe"], e["VKZ"]) == ("", "")
    english_client = client_for(url)  # ?lang=en sets a cookie: not on the shared client
    english = english_client.get(
        f"/tournaments/{EXAMPLE}/evaluation.csv", params={"lang": "en"}
    ).text
    english_page = english_client.get(f"/tournaments/{EXAMPLE}").text
    assert english.splitlines()[0].startswith("#,Player,Age,Club code,Old rating,Old index,")
    assert without_companions(header(english, "en"), "en") == [
        *page_heads(english_page, "evaluation"), "Member",
    ]  # fmt: skip
    english_rows = by_player(parse(english, "en"), "Player")
    g = english_rows["G"]
    assert (g["Performance"], g["Exceptional"], g["New rating"], g["New index"]) == (
        "1961", "*", "1730", "4",
    )  # fmt: skip
    a = english_rows["A"]
    assert (a["Factor"], a["Points"], a["Expected score"]) == ("25.0", "7.0", "5.990")


def pdf_text(path) -> str:
    import pypdfium2 as pdfium

    return "".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(path))


def test_evaluation_csv_of_the_cli_is_the_same_table(example, tmp_path):
    url, client, _ = example
    data = ok(["export", "evaluation", EXAMPLE, "--format", "csv"], url, lang=None)
    assert header(data) == header(client.get(f"/tournaments/{EXAMPLE}/evaluation.csv").text)
    check_evaluation(data)
    # the page and the PDF keep the display of WO Anhang 3.1.11 (2220-31, 1961*, (42.0))
    ok(["export", "evaluation", EXAMPLE, "--format", "pdf", "-o", str(tmp_path / "e.pdf")], url,
       lang=None)  # fmt: skip
    shown = pdf_text(tmp_path / "e.pdf")
    assert all(v in shown for v in ("2220-31", "2245-32", "1961*", "(42,0)", "Erstdaten"))


def test_rating_list_csv_has_dwz_and_index_apart_and_the_page_names(example):
    url, client, _ = example
    params = {"club": "aaaaa", "date": "2026-12-31"}
    page = client.get("/lists", params=params).text
    data = client.get("/lists.csv", params=params).text
    with i18n.use("de"):
        labels = list_labels()
    assert header(data) == list(labels.values())
    heads = page_heads(page, "list")
    assert heads == [c for c in header(data) if c in heads]  # same names, same order
    assert {"DWZ", "Index"} <= set(heads)
    a = by_player(parse(data), "Name")["A"]
    assert (int(a["DWZ"]), int(a["Index"])) == (2245, 32)
    no_placeholders(data)
    cli = ok(["export", "list", "--club", "aaaaa", "--date", "2026-12-31"], url, lang=None)
    assert cli == data
    # the list reads back as a member list (docs/data-exchange.md), in either language
    english = ok(["--lang", "en", "export", "list", "--club", "aaaaa", "--date", "2026-12-31"],
                 url)  # fmt: skip
    for listing in (data, english):
        (row,) = parse_list(listing.encode(), "l.csv", "utf-8")
        assert (row.surname, row.member_number, row.dwz, row.index) == ("Player", "1", 2245, 32)


def test_card_csv_splits_numbers_and_names_columns_as_the_page(example, tmp_path):
    url, client, players = example
    page = client.get(f"/players/{players['A']}").text
    data = ok(["player", "card", str(players["A"]), "--format", "csv"], url, lang=None)
    with i18n.use("de"):
        assert header(data) == list(card_spreadsheet_columns())
    # the page's columns but its running number and its links
    assert without_companions(header(data)) == page_heads(page, "evaluations")[1:-1]
    takeover, evaluation = parse(data)
    columns = ("DWZ alt", "Index alt", "DWZ neu", "Index neu", "+/-")
    assert [takeover[c] for c in columns] == ["", "", "2220", "31", ""]
    assert [int(evaluation[c]) for c in columns] == [2220, 31, 2245, 32, 25]
    assert (evaluation["Leistung"], evaluation["Sonderwertung"]) == ("2331", "")
    g = parse(ok(["player", "card", str(players["G"]), "--format", "csv"], url, lang=None))[-1]
    assert (int(g["Leistung"]), g["Sonderwertung"]) == (1961, "*")
    assert (int(g["DWZ neu"]), int(g["Index neu"])) == (1730, 4)
    p = parse(ok(["player", "card", str(players["P"]), "--format", "csv"], url, lang=None))[-1]
    assert (p["DWZ neu"], p["Index neu"], p["Restpartien"]) == ("", "", "ja")
    no_placeholders(data)
    pdf = client.get(f"/players/{players['A']}/card.pdf").content
    (tmp_path / "card.pdf").write_bytes(pdf)
    assert "2220-31" in pdf_text(tmp_path / "card.pdf")  # the PDF keeps the display
    english = ok(["--lang", "en", "player", "card", str(players["A"]), "--format", "csv"], url)
    assert header(english, "en")[8:13] == [
        "Exceptional", "Old rating", "Old index", "New rating", "New index",
    ]  # fmt: skip
