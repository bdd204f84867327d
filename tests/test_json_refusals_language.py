"""The JSON readers' refusals (the loader, the tournament, rating-period and online-games
readers) are worded in the language in force: German by default, English on request; the
JSON paths and the values quoted from the document stay as they are."""

from __future__ import annotations

import pytest

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.io import elo_kbsb_json, elo_online_json, evaluate_json
from ratingdb.io.families import input_label
from ratingdb.io.json_input import load_json
from ratingdb.web.errors import error_item


def _refusal(read, *args) -> InputError:
    with pytest.raises(InputError) as caught:
        read(*args)
    return caught.value


def test_the_json_loader_refusals_are_worded_in_the_language_in_force():
    with use("de"):
        syntax = _refusal(load_json, '{"k": 1')
        twice = _refusal(load_json, '{"a": 1, "a": 2}')
        nan = _refusal(load_json, '{"k": [NaN]}')
    assert str(syntax) == "Zeile 1, Spalte 8: kein gültiges JSON: hier wird ein Komma ',' erwartet"
    assert str(twice) == "$.a: der Schlüssel kommt zweimal vor"
    assert str(nan) == "$.k[0]: NaN ist kein JSON-Wert"
    with use("en"):
        syntax = _refusal(load_json, '{"k": 1')
        twice = _refusal(load_json, '{"a": 1, "a": 2}')
    assert str(syntax) == "line 1, column 8: malformed JSON: Expecting ',' delimiter"
    assert str(twice) == "$.a: the key is given twice"


def test_the_web_reads_the_place_of_a_syntax_error_in_either_language():
    for place in ("line 3, column 5", "Zeile 3, Spalte 5"):
        item = error_item(place, "…")
        assert (item["line"], item["column"], item["path"]) == (3, 5, None)


TOURNAMENT = {
    "tournament": {"id": "T1", "start": "2026-03-01", "end": "2026-03-02"},
    "players": [{"id": "a", "rating": 1800.0, "index": 5}, {"id": "b"}],
}


def test_the_tournament_reader_refusals_are_worded_in_the_language_in_force():
    with use("de"):
        rating = _refusal(evaluate_json.parse_document, TOURNAMENT)
        kind = _refusal(evaluate_json.parse_document, {**TOURNAMENT, "tournament": "T1"})
        empty = _refusal(evaluate_json.parse_document, [])
    assert str(rating) == (
        "$.players[0].rating: erwartet: eine ganze Zahl (nur Ziffern), angegeben: 1800.0"
    )
    assert str(kind) == "$.tournament: erwartet: ein Objekt, angegeben: der Text 'T1'"
    assert str(empty) == "$: das Array enthält kein Turnier"
    with use("en"):
        rating = _refusal(evaluate_json.parse_document, TOURNAMENT)
        kind = _refusal(evaluate_json.parse_document, {**TOURNAMENT, "tournament": "T1"})
    assert str(rating) == "$.players[0].rating: expected an integer (digits only), got 1800.0"
    assert str(kind) == "$.tournament: expected an object, got the string 'T1'"


PERIOD = {
    "period": {"id": "P1", "start": "2026-01-01", "end": "2026-03-31"},
    "players": [{"id": "a", "rating": 1800, "games_before": -1}],
}


def test_the_rating_period_reader_refusals_are_worded_in_the_language_in_force():
    with use("de"):
        negative = _refusal(elo_kbsb_json.parse_document, PERIOD)
        empty = _refusal(elo_kbsb_json.parse_document, [])
    assert str(negative) == "$.players[0].games_before: darf nicht negativ sein, angegeben: -1"
    assert str(empty) == "$: das Array enthält keinen Wertungszeitraum"
    with use("en"):
        negative = _refusal(elo_kbsb_json.parse_document, PERIOD)
    assert str(negative) == "$.players[0].games_before: cannot be negative, got -1"


GAMES = {
    "players": [{"id": "a", "rating": 1500}, {"id": "b", "rating": 1600}],
    "games": [{"white": "a", "black": "b", "result": "1-0", "end": "2026-03-01 18:00"}],
}


def test_the_online_games_reader_refusals_are_worded_in_the_language_in_force():
    with use("de"):
        when = _refusal(elo_online_json.parse_document, GAMES)
        empty = _refusal(elo_online_json.parse_document, [])
    assert str(when) == (
        "$.games[0].end: keine Angabe von Datum und Uhrzeit "
        "(JJJJ-MM-TTThh:mm[:ss][Z|+hh:mm]): '2026-03-01 18:00'"
    )
    assert str(empty) == "$: das Array enthält keine Eingabe"
    with use("en"):
        when = _refusal(elo_online_json.parse_document, GAMES)
    assert str(when) == (
        "$.games[0].end: not a date-time (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM]): '2026-03-01 18:00'"
    )


def test_an_input_is_named_in_the_language_in_force():
    period = elo_kbsb_json.parse_period({**PERIOD, "players": []})
    with use("de"):
        assert input_label(period) == "Zeitraum P1"
    with use("en"):
        assert input_label(period) == "period P1"


def test_the_submission_refusals_are_worded_in_the_language_in_force():
    from ratingdb.services.submissions import add_tournament, check_code, not_a_club

    alone = {**TOURNAMENT, "players": [{"id": "a"}]}
    with use("de"):
        code = _refusal(check_code, "X/Y", "--id")
        few = _refusal(add_tournament, None, alone)
        assert not_a_club("A00", "district") == (
            "'A00' ist ein Bezirk, kein Verein: Spieler sind Mitglieder von Vereinen"
        )
    assert str(code) == (
        "--id: eine Turnier-ID darf kein '/' enthalten (sie ist Teil einer Webadresse)"
    )
    assert str(few) == (
        "$.players: ein Turnier braucht mindestens 2 Spieler, um ausgewertet zu werden, "
        "angegeben: 1"
    )
    with use("en"):
        code = _refusal(check_code, "X/Y", "--id")
        few = _refusal(add_tournament, None, alone)
        assert not_a_club("A00", "district") == (
            "'A00' is a district, not a club: players are members of clubs"
        )
    assert str(code) == "--id: a tournament id cannot hold '/' (it names a web address)"
    assert str(few) == "$.players: a tournament needs at least 2 players to be rated, got 1"
