"""Top lists (``ratingdb.queries.top_lists``) of a hand-made federation: two regions, two
districts, clubs inside and outside the club lists' hierarchy, sexes, birth years, a
passive member, a former member, an anonymised one, a player without DWZ and one without
birth year; each selection against its expected order."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.errors import InputError
from ratingdb.queries.top_lists import top_list

ON = date(2026, 10, 1)
TODAY = date(2026, 11, 21)

SETUP = """
INSERT INTO organisations (id, vkz, name, kind, parent_id) VALUES
  (900, '000', 'Deutscher Schachbund', 'federation', NULL),
  (901, '100', 'Musterländischer Schachverband', 'region', 900),
  (902, '106', 'Bezirk Musterstadt', 'district', 901),
  (903, '107', 'Bezirk Beispielkreis', 'district', 901),
  (904, '10614', 'SC Musterstadt 1920', 'club', 902),
  (905, '10615', 'SF Beispieldorf', 'club', 902),
  (906, '10701', 'SK Kreisstadt', 'club', 903),
  (907, '200', 'Schachverband Beispielland', 'region', 900),
  (908, '20101', 'SK Weißenfels', 'club', 907),
  (909, '10699', 'Verein 10699', 'club', NULL);
INSERT INTO players (id, surname, given_name, sex, birth_year, anonymised) VALUES
  (1, 'Adler', 'Anna', 'f', 2010, false),
  (2, 'Berg', 'Bernd', 'm', 1960, false),
  (3, 'Clausen', 'Clara', 'f', 1955, false),
  (4, 'Dorn', 'Dieter', 'm', 1990, false),
  (5, 'Ernst', 'Emil', 'm', 2008, false),
  (6, 'Fuchs', 'Frieda', 'f', 1985, false),
  (7, 'Graf', 'Gustav', 'm', NULL, false),
  (8, 'Hahn', 'Hanna', 'f', 2012, false),
  (9, 'Iltis', 'Ida', 'f', 2000, false),
  (10, 'Jung', 'Jo', 'd', 2005, false),
  (11, 'Kuhn', 'Karl', 'm', 1970, false),
  (12, 'Lenz', 'Lara', 'f', 1995, true);
INSERT INTO memberships (player_id, organisation_id, valid_from, valid_to, status) VALUES
  (1, 904, '2018-01-01', NULL, 'active'),
  (2, 904, '2000-01-01', NULL, 'active'),
  (3, 905, '2000-01-01', NULL, 'passive'),
  (4, 906, '2010-01-01', NULL, 'active'),
  (5, 908, '2015-01-01', NULL, 'active'),
  (6, 904, '2005-01-01', NULL, 'passive'),
  (6, 908, '2012-01-01', NULL, 'active'),
  (7, 905, '2001-01-01', NULL, 'active'),
  (8, 904, '2020-01-01', NULL, 'active'),
  (9, 904, '2010-01-01', '2026-06-30', 'active'),
  (10, 905, '2015-01-01', NULL, 'active'),
  (11, 909, '2001-01-01', NULL, 'active'),
  (12, 904, '2010-01-01', NULL, 'active');
INSERT INTO rating_takeovers (player_id, taken_on, rating, rating_index) VALUES
  (1, '2026-07-01', 2300, 20), (2, '2026-07-01', 2200, 90), (3, '2026-07-01', 2250, 30),
  (4, '2026-07-01', 2250, 50), (5, '2026-07-01', 2400, 40), (6, '2026-07-01', 2000, 60),
  (7, '2026-07-01', 2100, 70), (9, '2025-06-01', 2350, 10), (10, '2026-07-01', 1900, 15),
  (11, '2026-07-01', 1800, 80), (12, '2026-07-01', 2500, 99);
"""


@pytest.fixture(scope="module")
def federation(pg_server):  # type: ignore[no-untyped-def]
    from tests.web_support import database

    with database(pg_server, "top_lists") as url:
        engine = create_engine(url, poolclass=NullPool)
        with engine.begin() as conn:
            for statement in SETUP.split(";"):
                if statement.strip():
                    conn.execute(text(statement))
        engine.url_for_tests = url  # type: ignore[attr-defined]
        yield engine
        engine.dispose()


def ids(engine, **selection):  # type: ignore[no-untyped-def]
    selection.setdefault("on", ON)
    selection.setdefault("published_on", TODAY)
    with Session(engine) as session:
        return [r.player_id for r in top_list(session, **selection)]


def test_whole_federation_by_dwz_then_index_with_shared_places(federation) -> None:
    with Session(federation) as session:
        rows = top_list(session, organisation="000", on=ON, published_on=TODAY)
    assert [r.player_id for r in rows] == [5, 1, 4, 3, 2, 7, 6, 10, 11]
    assert [r.rank for r in rows] == [1, 2, 3, 3, 5, 6, 7, 8, 9]  # 4 and 3 share 2250
    fuchs = next(r for r in rows if r.player_id == 6)
    assert (fuchs.status, fuchs.vkz, fuchs.club) == ("active", "10614", "SC Musterstadt 1920")
    assert (rows[0].name, rows[0].rating, rows[0].index, rows[0].birth_year, rows[0].sex) == (
        "Ernst, Emil", 2400, 40, 2008, "m",
    )  # fmt: skip


def test_anonymised_and_former_members_only_without_publication(federation) -> None:
    assert ids(federation, organisation="000", published_on=None)[:1] == [12]
    # a former member is on the lists of the days he was a member
    assert 9 in ids(federation, organisation="000", on=date(2026, 3, 1), published_on=None)
    assert 9 not in ids(federation, organisation="000", on=date(2026, 3, 1))
    assert 9 not in ids(federation, organisation="000", published_on=None)


def test_region_takes_its_districts_and_clubs_by_prefix(federation) -> None:
    # 10699 hangs under no level of the club lists: it counts by its VKZ (region 100: 1xxxx)
    assert ids(federation, organisation="100") == [1, 4, 3, 2, 7, 6, 10, 11]
    assert ids(federation, organisation="200") == [5, 6]


def test_district_and_its_dewis_spelling(federation) -> None:
    assert ids(federation, organisation="106") == [1, 3, 2, 7, 6, 10, 11]
    assert ids(federation, organisation="10600") == ids(federation, organisation="106")
    assert ids(federation, organisation="10615") == [3, 7, 10]


def test_sex_from_the_member_list(federation) -> None:
    assert ids(federation, organisation="000", sex="f") == [1, 3, 6]
    assert ids(federation, organisation="000", sex="w") == [1, 3, 6]
    assert ids(federation, organisation="000", sex="d") == [10]
    assert ids(federation, organisation="100", sex="m") == [4, 2, 7, 11]


def test_status_in_the_organisation(federation) -> None:
    # Fuchs is passive in 10614 and active in 20101: passive in region 100, active overall
    assert ids(federation, organisation="100", status="passive") == [3, 6]
    assert ids(federation, organisation="000", status="passive") == [3]
    assert ids(federation, organisation="000", status="active") == [5, 1, 4, 2, 7, 6, 10, 11]


def test_youth_and_senior_ranges_as_dewis(federation) -> None:
    assert ids(federation, organisation="000", age="U18") == [5, 1]  # born 2008 or later
    assert ids(federation, organisation="000", age="U16") == [1]
    assert ids(federation, organisation="100", age="U18", sex="f") == [1]
    assert ids(federation, organisation="000", age="Ü60") == [3, 2]  # born 1966 or before
    assert ids(federation, organisation="000", age="Ü70") == [3]
    assert ids(federation, organisation="000", age="youth") == [5, 1]  # up to 20: U20
    assert ids(federation, organisation="000", age="U21") == [5, 1, 10]
    assert ids(federation, organisation="000", age="junior") == [10]  # 21 to 25
    # no birth year: in no age range but adults
    assert 7 in ids(federation, organisation="000", age="adult")


def test_birth_years_from_to(federation) -> None:
    assert ids(federation, organisation="000", birth_year_from=1985, birth_year_to=2005) == [
        4, 6, 10,
    ]  # fmt: skip
    assert ids(federation, organisation="000", birth_year_to=1960) == [3, 2]
    assert ids(federation, organisation="000", birth_year_from=2008) == [5, 1]


def test_limit_cuts_the_list(federation) -> None:
    assert ids(federation, organisation="000", limit=2) == [5, 1]
    assert ids(federation, organisation="000", limit=4) == [5, 1, 4, 3]


@pytest.mark.parametrize(
    ("selection", "where"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"sex": "x"}, "sex"),
        ({"status": "asleep"}, "status"),
        ({"age": "kids"}, "age"),
        ({"birth_year_from": 2000, "birth_year_to": 1990}, "birth_year_to"),
        ({"organisation": "C03%"}, "organisation"),
        ({"on": date(9999, 1, 1)}, "date"),
    ],
)
def test_bad_selection_names_its_field(federation, selection, where) -> None:
    selection = {"organisation": "000", **selection}
    with pytest.raises(InputError) as err:
        ids(federation, **selection)
    assert err.value.location == where


def test_page_csv_pdf_and_json_show_the_same_places(federation) -> None:
    from tests.web_support import client_for

    client = client_for(federation.url_for_tests, today=TODAY)
    query = {"organisation": "100", "sex": "f", "date": "2026-10-01", "limit": "", "age": ""}
    page = client.get("/lists/top", params=query)
    assert page.status_code == 200
    assert "Bestenliste Musterländischer Schachverband (100)" in page.text
    assert page.text.index("Adler, Anna") < page.text.index("Clausen, Clara")
    assert page.text.index("Clausen, Clara") < page.text.index("Fuchs, Frieda")
    assert "Berg, Bernd" not in page.text
    # the API takes numbers as numbers: the form's empty limit is left out
    api = client.get("/api/lists/top", params={k: v for k, v in query.items() if k != "limit"})
    api = api.json()
    assert [r["player_id"] for r in api["rows"]] == [1, 3, 6]
    assert (api["organisation"], api["name"], api["limit"], api["sex"]) == (
        "100", "Musterländischer Schachverband", 100, "f",
    )  # fmt: skip
    csv_text = client.get("/lists/top.csv", params=query).text
    assert csv_text.splitlines()[0].startswith("Platz;Name;DWZ;Index;")
    names = [line.split(";")[1:3] for line in csv_text.splitlines()[1:]]
    assert names == [["Adler, Anna", "2300"], ["Clausen, Clara", "2250"], ["Fuchs, Frieda", "2000"]]
    pdf = client.get("/lists/top.pdf", params=query)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    import pypdfium2 as pdfium

    shown = "".join(p.get_textpage().get_text_range() for p in pdfium.PdfDocument(pdf.content))
    assert "Stand: 21.11.2026" in shown and "Seite 1 von 1" in shown  # the print date
    assert "Adler, Anna" in shown


def test_form_without_organisation_shows_the_form(federation) -> None:
    from tests.web_support import client_for

    page = client_for(federation.url_for_tests, today=TODAY).get("/lists/top")
    assert page.status_code == 200 and 'name="organisation"' in page.text
    assert 'id="top"' not in page.text


@pytest.mark.parametrize(
    ("query", "where", "german"),
    [
        ({"limit": "zehn"}, "query.limit", "keine ganze Zahl"),
        ({"limit": "²"}, "query.limit", "keine ganze Zahl"),  # a digit to isdigit(): a 500
        ({"limit": "0"}, "query.limit", "Zahl der Plätze"),
        ({"sex": "x"}, "query.sex", "Geschlecht ist f"),
        ({"age": "Kinder"}, "query.age", "unbekannte Altersklasse"),
        ({"birth_year_from": "2010", "birth_year_to": "2000"}, "birth_year_to", "Jahrgänge"),
        ({"organisation": "C-3"}, "query.organisation", "keine VKZ"),
    ],
)
def test_bad_selection_is_a_german_422_naming_the_field(federation, query, where, german) -> None:
    """The page names the form's field; the API refuses what its schema forbids as FastAPI
    does (``query.limit``), and the birth years' order, which no schema states, itself."""
    from tests.web_support import client_for

    client = client_for(federation.url_for_tests, today=TODAY)
    page = client.get("/lists/top", params={"organisation": "000", **query})
    assert page.status_code == 422 and german in page.text
    api = client.get("/api/lists/top", params={"organisation": "000", **query})
    assert api.status_code == 422 and api.json()["errors"][0]["location"] == where


def test_export_list_top_writes_the_top_list(federation) -> None:
    from tests.cli import run

    out = run(
        ["export", "list", "--federation", "000", "--top", "3", "--date", "2026-10-01",
         "--sex", "f"],
        federation.url_for_tests,
        lang=None,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Platz;Name;DWZ")
    # the command line is an officer's: the anonymised member is on it
    assert [line.split(";")[0] for line in lines[1:]] == ["1", "2", "3"]
    assert "Lenz" in lines[1] and "Adler" in lines[2] and "Clausen" in lines[3]
    refused = run(["export", "list", "--federation", "000", "--sex", "f"], federation.url_for_tests)
    assert refused.returncode == 2 and "--top" in refused.stderr
