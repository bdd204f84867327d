"""The DWZ calculator: hand-computed cases, the WO Anhang 3.1 example's
players typed in by hand, a first rating, too few games, the Rechenmodul chosen by date,
database players, and bad input on the command line (exit 2, one line) and the API (422)."""

from __future__ import annotations

import contextlib
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.services.calc_explain import calculation_dict, explain, render_text
from ratingdb.services.calculator import calculate, parse_request
from tests.cli import run
from tests.web_support import TODAY, client_for, example_database

EXAMPLE_END = "2026-12-12"


def calc(session: Any, player: dict[str, Any], games: list[Any], day: str = EXAMPLE_END) -> Any:
    """``games``: (rating, result) or (rating, index, result)."""
    opponents = [
        {"rating": g[0], "result": g[-1], **({"index": g[1]} if len(g) == 3 else {})} for g in games
    ]
    request = parse_request({"date": day, "player": player, "opponents": opponents}, TODAY)
    return calculate(session, request)


def test_hand_computed_case(db):
    """An adult (born 1990, age 36 in 2026) with DWZ 1500, index 10, scores 1 against 1600
    and ½ against 1450, on 2026-11-25 (Rechenmodul 2026.1):

    * D = 1500 - 1600 = -100: P(-100) = 1 - P(100) = 1 - 0.638 = 0.362 (WO Anhang 2.1);
      D = 1500 - 1450 = 50: P(50) = 0.570. W_e = 0.362 + 0.570 = 0.932; W = 1.5.
    * W >= W_e: K_0 = 30 (adults below 2000, index 10, Anhang 1.3); R_0 < 1600, adult:
      a = a2 = 4; b = 1. K = 30 * 1 + 4 = 34.0.
    * R_n = 1500 + 34.0 * (1.5 - 0.932) = 1500 + 34.0 * 0.568 = 1519.312 -> 1519; index 11.
    * R_c = (1600 + 1450) / 2 = 1525; fewer than 5 games: no performance (WO 3.6.1).
    """
    done = calc(db, {"rating": 1500, "index": 10, "birth_year": 1990}, [(1600, 1), (1450, "½")],
                day="2026-11-25")  # fmt: skip
    me = done.me
    assert done.rechenmodul == "dwz2026/2026.1"
    assert me.expected_games == [0.362, 0.570]
    assert me.expected == Decimal("0.932")
    assert me.k == Decimal("34.0")
    assert (me.rating_new, me.index_new, me.opponents_avg) == (1519, 11, 1525)
    assert me.performance is None
    out = explain(done)
    assert out.headline == "DWZ neu: 1519-11 (+19)"
    assert [g.difference for g in out.games] == [-100, 50]
    assert out.values["k0"] == 30 and out.values["bonus"] == 4 and out.values["brake"] == 1
    text = "\n".join(out.lines)
    assert "W_e = Σ P(D) = 0,362 + 0,570 = 0,932" in text
    assert "Erfolgsaufschlag a = a2 = 4" in text
    assert "K = K_0 · b + a = 30 · 1 + 4 = 34 ≈ 34,0" in text
    assert "R_n = R_0 + K · (W − W_e) = 1500 + 34,0 · (1,5 − 0,932)" in text
    assert "= 1519,312 ≈ 1519" in text


#: the WO example's established players as their scoresheets show them (Anhang 3.1.8):
#: the rating each opponent enters with (G at his performance 1961, Sonderwertung; the
#: first-rating players at R_1; H as 1300, the typo of 3.1.8 corrected) and the result
WO_PLAYERS = {
    "A": ({"rating": 2220, "index": 31, "birth_year": 1986},
          [(2100, 1), (2000, 1), (1950, 1), (1800, 1), (1700, 1), (1961, 1), (1476, 1)]),
    "D": ({"rating": 1950, "index": 15, "birth_year": 2010},
          [(2220, 0), (2000, 1), (1800, 1), (1961, "½"), (1300, 1), (1476, 1), (2329, 0)]),
    "H": ({"rating": 1300, "index": 77, "birth_year": 1960},
          [(1950, 0), (1800, 0), (1700, 0), (1476, 0), (1179, "½"), (1494, "½")]),
}  # fmt: skip
#: published (Anhang 3.1.8 - 3.1.11): W_e, K, R_c, R_n-index
WO_PUBLISHED = {
    "A": ("5.990", "25.0", 1855, 2245, 32),
    "D": ("3.818", "33.7", 1869, 1973, 16),
    "H": ("1.308", "24.5", 1600, 1292, 78),
}


@pytest.mark.parametrize("name", sorted(WO_PLAYERS))
def test_wo_example_players_typed_in(db, name):
    """Typed in by hand with the opponents' ratings of Anhang 3.1.8, A, D (youth bonus
    a = 1.667) and H (brake factor b = 0.875) get the published W_e, K, R_c and R_n.
    (A's performance differs from the published 2331: R_h counts G at R_0 = 1640, which the
    calculator cannot know; W_e counts him at 1961.)"""
    player, games = WO_PLAYERS[name]
    me = calc(db, player, games).me
    expected, k, avg, rating, index = WO_PUBLISHED[name]
    assert me.expected == Decimal(expected)
    assert me.k == Decimal(k)
    assert (me.opponents_avg, me.rating_new, me.index_new) == (avg, rating, index)


def test_wo_example_h_scoresheet(db):
    """H's scoresheet (Anhang 3.1.12): P(D) per game 0.011 0.039 0.079 0.267 0.666 0.246,
    the brake factor filled in, R_h 1227 (Anhang 3.1.7)."""
    done = calc(db, *WO_PLAYERS["H"])
    assert [float(g.expected) for g in explain(done).games] == [
        0.011,
        0.039,
        0.079,
        0.267,
        0.666,
        0.246,
    ]
    assert done.me.performance == 1227
    text = render_text(done)
    assert "b = (R_0 + u) / (1600 + u) = (1300 + 800) / (1600 + 800) = 0,875" in text
    assert "28 · 0,875 + 0 = 24,5 ≈ 24,5" in text
    assert "1300 + 24,5 · (1 − 1,308) = 1300 + 24,5 · (−0,308) = 1292,454 ≈ 1292" in text


def test_first_rating(db):
    """No DWZ, 5 games: 1 against 1500, ½ against 1400, 0 against 1600, 1 against 1450,
    0 against 1550. W = 2.5, n = 5, R_c = 7500 / 5 = 1500, p = 0.5, D(0.5) = 0: R_p = 1500.
    At 1500, W_e = 0.500 + 0.638 + 0.362 + 0.570 + 0.430 = 2.500 = W: R_i = 1500. R_i < 2000:
    R_1 = 1500 + 0.08 * (2000 - 1500) = 1540 (WO 3.4.4.2, Anhang 1.2.2), index 1."""
    done = calc(db, {"birth_year": 2012},
                [(1500, 1), (1400, "1/2"), (1600, 0), (1450, 1), (1550, 0)])  # fmt: skip
    me = done.me
    assert me.group == "first_stage"
    assert (me.start_value, me.iteration_value, me.rating_new, me.index_new) == (
        1500,
        1500,
        1540,
        1,
    )
    out = explain(done)
    assert out.status == "first_rating" and out.headline == "Erst-DWZ: 1540-1"
    text = "\n".join(out.lines)
    assert "p = W / n = 2,5 / 5 = 0,500; Anfangswert R_p = R_c + D(p) = 1500 + 0 = 1500" in text
    assert "R_1 = R_i + r · (2000 − R_i) = 1500 + 0,08 · (2000 − 1500) = 1540 ≈ 1540" in text


def test_first_rating_with_a_perfect_score(db):
    """5 wins against 1500: the fictitious draw against R_c (WO 3.4.1.3) makes a finite R_i."""
    done = calc(db, {}, [(1500, 1)] * 5)
    assert done.me.group == "first_stage"
    assert "fiktives Remis gegen den Gegnerschnitt 1500" in "\n".join(explain(done).lines)
    assert done.me.rating_new > 1500


def test_too_few_games_for_a_first_rating(db):
    """2 games: no first rating (WO 3.4.1.1 needs 5); the games become residual games."""
    done = calc(db, {}, [(1500, 1), (1400, 0.5)])
    me = done.me
    assert me.group == "remaining" and me.rating_new is None
    out = explain(done)
    assert (out.status, out.headline) == ("no_rating", "Noch keine DWZ")
    assert "hier nur 2 Partien (nötig: 5)" in out.lines[0]
    assert "Restpartien" in out.lines[1]
    zero = explain(calc(db, {}, [(1500, 0)] * 5))
    assert "nur 0 Punkte (nötig: 0,5)" in zero.lines[0]


def test_the_date_chooses_the_rechenmodul(db):
    """Before 2026-06-08 the classic DWZ of the DSB timeline (dwz-2016, E of WO 2014 4.9.2)
    applies: E = (1500/1000)^4 + 15 = 20.06 -> 20; R_n = 1500 + 800 * (1 - 0.5) / (20 + 1)
    = 1519.05 -> 1519 (WO 4.9.1)."""
    done = calc(db, {"rating": 1500, "index": 5}, [(1500, 1)], day="2020-01-01")
    assert done.rechenmodul == "dwz-classic/dwz-2016"
    assert (done.me.k, done.me.rating_new) == (Decimal(20), 1519)
    text = render_text(done)
    assert "E = E_0 · f_B + S_Br" in text
    assert "1500 + 800 · (1 − 0,500) / (20 + 1) = 1519,048 ≈ 1519" in text
    assert calc(db, {"rating": 1500, "index": 5}, [(1500, 1)]).rechenmodul == "dwz2026/2026.1"


def test_opponent_index_does_not_matter(db):
    """An opponent's index enters only his own K: typed with or without it, the same answer."""
    player = {"rating": 1800, "index": 12, "birth_year": 2000}
    a = calc(db, player, [(1700, 3, 1), (1900, 40, 0.5)]).me
    b = calc(db, player, [(1700, 1), (1900, 0.5)]).me
    assert a.to_dict() == b.to_dict()


# -- bad input --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "location", "message"),
    [
        ({}, "$.player", "missing"),
        ({"player": {"rating": 1500}, "opponents": [{"rating": 1500, "result": 1}]},
         "$.player.index", "the DWZ index is needed"),
        ({"player": {}, "opponents": []}, "$.opponents", "at least one opponent"),
        ({"player": {}, "opponents": [{"rating": 1500, "result": 2}]},
         "$.opponents[0].result", "a result is 1, 0.5"),
        ({"player": {}, "opponents": [{"result": 1}]}, "$.opponents[0].rating",
         "an opponent needs a rating"),
        ({"player": {}, "opponents": [{"rating": 5000, "result": 1}]},
         "$.opponents[0].rating", "between 1 and 4000"),
        ({"player": {"id": 3, "rating": 1500}, "opponents": [{"rating": 1500, "result": 1}]},
         "$.player.rating", "either a database player's id"),
        ({"date": "2026-02-30", "player": {}}, "$.date", "no such day"),
        ({"date": "12.12.2026", "player": {}}, "$.date", "YYYY-MM-DD"),
        # passed the calculator's own 1900 and failed inside as "$.tournament.start"
        ({"date": "1900-01-01", "player": {}}, "$.date", "a date from 1950-01-01 to 2999-12-31"),
        ({"player": {"birth_year": 2030}, "opponents": [{"rating": 1500, "result": 1}]},
         "$.player.birth_year", "between 1900 and 2026"),
        ({"player": {}, "opponents": [{"rating": "x", "result": 1}]},
         "$.opponents[0].rating", "whole number"),
    ],
)  # fmt: skip
def test_bad_requests_name_the_field(data, location, message):
    with use("en"), pytest.raises(InputError) as err:
        parse_request(data, date(2026, 11, 25))
    assert err.value.location == location
    assert message in err.value.message


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--opponent", "1600:x"], "error: --opponent '1600:x': a result is 1, 0.5"),
        (["--opponent", "abc"], "error: --opponent 'abc': write RATING[-INDEX]:RESULT"),
        (["--rating", "1500", "--opponent", "1600:1"], "error: --index: the DWZ index"),
        (["--rating", "0", "--index", "3", "--opponent", "1600:1"], "error: --rating: a rating"),
        ([], "error: --opponent: at least one opponent"),
        (["--player", "99999999", "--opponent", "1600:1"], "error: --player: no player 99999999"),
        (["--opponent", "@99999999:1"], "error: --opponent '@99999999:1': no player 99999999"),
        (
            ["--rating", "1500", "--index", "5", "--opponent", "1500:1", "--date", "1900-01-01"],
            "error: --date: a date from 1950-01-01 to 2999-12-31, got 1900-01-01",
        ),
    ],
)
def test_cli_bad_input_exit_2_one_line(migrated_engine, args, line):
    out = run(["--lang", "en", "calc", *args], migrated_engine.url)
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(line), out.stderr


def test_cli_wo_player_a(migrated_engine):
    """ratingdb calc with WO Anhang 3.1's player A typed in; --json is the API's answer."""
    args = ["calc", "--rating", "2220", "--index", "31", "--born", "1986", "--date", EXAMPLE_END]
    for rating, _ in WO_PLAYERS["A"][1]:
        args += ["--opponent", f"{rating}:1"]
    out = run(args, migrated_engine.url, lang=None)  # German by default
    assert out.returncode == 0, out.stderr
    assert "DWZ neu: 2245-32 (+25)" in out.stdout
    assert "W_e = Σ P(D) = 0,664 + 0,782 + 0,830 + 0,931 + 0,967 + 0,820 + 0,996 = 5,990" in (
        out.stdout
    )
    import json

    doc = json.loads(run([*args, "--json"], migrated_engine.url).stdout)
    assert doc["result"]["rating_new"] == 2245 and doc["result"]["k"] == 25.0
    assert doc["rechenmodul"] == "dwz2026/2026.1"
    # the document reproduces the answer through `ratingdb evaluate`
    again = run(["evaluate", "-", "--rechenmodul", "2026.1"], migrated_engine.url,
                input=json.dumps(doc["evaluate_input"]))  # fmt: skip
    assert json.loads(again.stdout)["players"][0] == doc["result"]


# -- database players and the API (the WO example imported from files) ----------------
@pytest.fixture(scope="module")
def example(pg_server):
    with example_database(pg_server) as url:
        yield client_for(url)


def _ids(client: Any, name: str) -> int:
    hits = client.get("/api/players", params={"q": name}).json()
    assert len(hits) == 1, hits
    return int(hits[0]["id"])


def test_api_database_player_and_opponents(example):
    """Player A from the database: 2220-31 before the example tournament (WO 6.4.2), the
    opponents B, C, D, F from the database at their DWZ, the others typed in -> 2245-32."""
    a = _ids(example, "Player, A")
    opponents = [{"id": _ids(example, f"Player, {x}"), "result": 1} for x in "BCDF"]
    opponents += [{"rating": 1800, "result": 1}, {"rating": 1961, "result": 1},
                  {"rating": 1476, "result": 1}]  # fmt: skip
    body = {"date": "2026-12-11", "player": {"id": a}, "opponents": opponents}
    answer = example.post("/api/calc", json=body)
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    assert (doc["player"]["rating"], doc["player"]["index"]) == (2220, 31)
    assert [g["rating"] for g in doc["games"][:4]] == [2100, 2000, 1950, 1700]
    assert doc["result"]["rating_new"] == 2245 and doc["result"]["index_new"] == 32
    assert doc["evaluate_input"] is None  # it would show A's birth year
    assert any("whole tournament" in n for n in doc["notes"])  # the API speaks English
    # on the tournament's end date the example is evaluated: A enters with 2245-32
    body["date"] = EXAMPLE_END
    assert example.post("/api/calc", json=body).json()["player"]["rating"] == 2245


def test_api_bad_input_is_422_naming_the_field(example):
    for body, path in [
        ({"player": {}, "opponents": [{"rating": 1500, "result": "x"}]}, "$.opponents[0].result"),
        ({"player": {"id": 99999999}, "opponents": [{"rating": 1500, "result": 1}]},
         "$.player.id"),
        ({"player": {"rating": -3, "index": 1}, "opponents": []}, "$.player.rating"),
    ]:  # fmt: skip
        answer = example.post("/api/calc", json=body)
        assert answer.status_code == 422, answer.text
        (item,) = answer.json()["errors"]
        assert item["path"] == path, item
    assert example.post("/api/calc", json=[1]).status_code == 422
    assert example.post("/api/calc", content=b"{", headers={"content-type": "application/json"}
                        ).status_code == 422  # fmt: skip


def test_api_a_body_that_is_not_utf8_json_is_one_422_naming_the_body(example):
    json_type = {"content-type": "application/json"}
    answer = example.post("/api/calc", content=b"5\xff<B*\x15m", headers=json_type)
    assert answer.status_code == 422, answer.text
    (item,) = answer.json()["errors"]
    assert item["location"] == "body" and "not JSON in UTF-8" in item["message"]
    german = example.post("/api/calc?lang=de", content=b"\xff", headers=json_type)
    assert german.status_code == 422
    assert "nicht lesbar" in german.json()["errors"][0]["message"]


def test_api_typed_in_answer(example):
    answer = example.post("/api/calc", json={"date": "2026-11-25", "player": {
        "rating": 1500, "index": 10, "birth_year": 1990}, "opponents": [
        {"rating": 1600, "result": 1}, {"rating": 1450, "result": 0.5}]}).json()  # fmt: skip
    assert answer["explanation"]["headline"] == "New rating: 1519-11 (+19)"
    assert "W_e = Σ P(D) = 0.362 + 0.570 = 0.932" in answer["explanation"]["lines"][0]
    assert [g["expected"] for g in answer["games"]] == [0.362, 0.57]
    assert answer["evaluate_input"]["tournament"]["end"] == "2026-11-25"


def test_page_without_javascript(example):
    """The form posts to itself: typed-in values give the answer; a bad row gives 422 with
    the form kept and one message naming the row."""
    page = example.get("/rechner")
    assert page.status_code == 200 and 'action="/rechner"' in page.text
    fields = {"date": "2026-11-25", "rating": "1500", "index": "10", "born": "1990",
              "rows": "8", "o0_rating": "1600", "o0_result": "1", "o1_rating": "1450",
              "o1_result": "0.5"}  # fmt: skip
    answer = example.post("/rechner", data=fields)
    assert answer.status_code == 200
    assert "DWZ neu: 1519-11 (+19)" in answer.text
    fields["o1_result"] = ""
    bad = example.post("/rechner", data=fields)
    assert bad.status_code == 422
    assert "Gegner 2, Ergebnis: fehlt: 1, ½ oder 0" in bad.text
    assert 'name="o0_rating" value="1600"' in bad.text  # the form is kept
    found = example.post("/rechner", data={**fields, "q": "Player, A", "action": "search"})
    assert "als Spieler" in found.text
    a = _ids(example, "Player, A")
    picked = example.post("/rechner", data={**fields, "action": f"pick:{a}"})
    assert 'id="picked-player">Player, A<' in picked.text


def test_calculation_dict_matches_evaluate_contract(db):
    done = calc(db, *WO_PLAYERS["A"])
    doc = calculation_dict(done, with_document=True)
    assert doc["result"] == done.me.to_dict()
    assert doc["evaluate_input"]["games"][0] == {
        "round": 1,
        "white": "S",
        "black": "G1",
        "result": "1-0",
    }


def test_unpublished_player_only_without_publication(db):
    """A player without membership is not looked up for the public (WO 4.1.1); the command
    line takes him, as the engine would: a textual participant, nothing stored."""
    from sqlalchemy import text

    pid = db.execute(
        text("INSERT INTO players (surname, given_name, birth_year) VALUES ('Textuell', 'T', "
             "1980) RETURNING id")
    ).scalar_one()  # fmt: skip
    request = parse_request(
        {"player": {"id": pid}, "opponents": [{"rating": 1500, "result": 1}] * 5}, TODAY
    )
    with pytest.raises(InputError) as err:
        calculate(db, request, published_on=TODAY)
    assert err.value.location == "$.player.id"
    assert "kein veröffentlichter Spieler" in err.value.message  # German by default
    done = calculate(db, request)
    assert done.player.member is False and done.me.stored is False
    assert done.me.group == "first_stage"
    assert any("kein Mitglied" in n for n in done.notes)


@pytest.mark.parametrize("value", ["²", "٣", "1e3", " ", "1.5", True, None, [1], {"a": 1}])
def test_odd_values_are_input_errors(value):
    """Values a fuzzer sends: every one an InputError, never another exception."""
    for data in (
        {"player": {"rating": value, "index": 3}, "opponents": [{"rating": 1500, "result": 1}]},
        {"player": {}, "opponents": [{"rating": value, "result": 1}]},
        {"player": {}, "opponents": [{"rating": 1500, "result": value}]},
        {"player": {"id": value}, "opponents": [{"rating": 1500, "result": 1}]},
        {"date": value, "player": {}, "opponents": [{"rating": 1500, "result": 1}]},
        {"player": value, "opponents": [value]},
    ):
        with contextlib.suppress(InputError):  # valid (an empty value is left out) or this
            parse_request(data, TODAY)


def test_page_buttons_with_odd_values(example):
    for action in ("pick:²", "add:99999999999999", "remove:77", "bogus", "remove:x"):
        answer = example.post("/rechner", data={"action": action, "rows": "²"})
        assert answer.status_code in (200, 422), (action, answer.status_code)


def test_languages(example):
    """German by default on the page, English with ?lang=en; the API in English unless
    ?lang=de asks (docs/i18n.md), numbers with the language's decimal mark."""
    body = {"date": "2026-11-25", "player": {"rating": 1300, "index": 77, "birth_year": 1960},
            "opponents": [{"rating": 1950, "result": 0}]}  # fmt: skip
    german = example.post("/api/calc?lang=de", json=body).json()["explanation"]
    english = example.post("/api/calc", json=body).json()["explanation"]
    assert german["headline"].startswith("DWZ neu: ") and english["headline"].startswith(
        "New rating: "
    )
    assert "Bremsfaktor b = (R_0 + u) / (1600 + u)" in "\n".join(german["lines"])
    assert "brake factor b = (R_0 + u) / (1600 + u) = (1300 + 800) / (1600 + 800) = 0.875" in (
        "\n".join(english["lines"])
    )
    page = example.get("/rechner?lang=en")
    assert "<h1>DWZ calculator</h1>" in page.text and "More rows" in page.text
    assert "<h1>DWZ-Rechner</h1>" in example.get("/rechner?lang=de").text
