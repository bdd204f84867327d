"""The OpenAPI document states the limits the server enforces: the parameters' bounds come
from the checks' own constants, a value the schema allows is taken, one it forbids is a 422
(schemathesis fuzzes the same in tests/test_web_schemathesis.py; these pin each limit)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ratingdb.plausibility import BIRTH_YEAR
from ratingdb.queries.top_lists import MAX_LIMIT
from ratingdb.web.app import create_app
from tests.builders import ok
from tests.web_support import client_for, database


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(None).openapi()  # type: ignore[arg-type]


def _operations(document: dict[str, Any]):
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            yield f"{method.upper()} {path}", operation


def _parameter(document: dict[str, Any], name: str, parameter: str) -> dict[str, Any]:
    method, path = name.split(" ")
    for p in document["paths"][path][method.lower()]["parameters"]:
        if p["name"] == parameter:
            return p
    raise AssertionError(f"{name} has no parameter {parameter}")


def _arm(p: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in p["schema"].get("anyOf", [p["schema"]]) if a.get("type") != "null")


def test_every_operation_declares_503_with_retry_after(document):
    for name, operation in _operations(document):
        busy = operation["responses"].get("503")
        assert busy is not None, name
        assert "Retry-After" in busy["headers"], name
        assert busy["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")


def test_every_text_parameter_names_what_it_may_hold(document):
    """A NUL in the path or query is refused before any route runs: every text parameter
    says so (a pattern of its own, or the one without a NUL), or is an enum."""
    for name, operation in _operations(document):
        for p in operation.get("parameters", []):
            arm = _arm(p)
            if arm.get("type") == "string" and "format" not in arm:
                assert "pattern" in arm or "enum" in arm, (name, p["name"])
                assert not re.search(arm.get("pattern", "^$"), "a\x00b"), (name, p["name"])


def test_the_top_lists_bounds_are_the_checks_bounds(document):
    top = "GET /api/lists/top"
    assert _parameter(document, top, "organisation")["required"] is True
    limit = _arm(_parameter(document, top, "limit"))
    assert (limit["minimum"], limit["maximum"]) == (1, MAX_LIMIT)
    for bound in ("birth_year_from", "birth_year_to"):
        year = _arm(_parameter(document, top, bound))
        assert (year["minimum"], year["maximum"]) == (BIRTH_YEAR.low, BIRTH_YEAR.high)
    assert set(_arm(_parameter(document, top, "status"))["enum"]) == {"active", "passive"}


def test_the_players_search_declares_its_header(document):
    ok_answer = document["paths"]["/api/players"]["get"]["responses"]["200"]
    assert ok_answer["headers"]["X-Total-Count"]["schema"] == {"type": "integer"}


@pytest.fixture(scope="module")
def api(pg_server):
    with database(pg_server, "api_schema") as url:
        ok(["synth", "--players", "40", "--years", "1", "--seed", "7"], url)
        yield client_for(url)


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("/api/players?zps=C0327-12", 200),
        # other scripts' digits were taken as a ZPS number's (\d)
        ("/api/players?zps=C0327-%D9%A1%D9%A2", 422),
        ("/api/players?zps=C0327", 422),
        # English class names were read in lower case only ("unknown age class 'YOUTH'")
        ("/api/lists?federation=A&age_class=YOUTH", 200),
        ("/api/lists?federation=A&age_class=Jugendliche", 200),
        ("/api/lists?federation=A&age_class=U1234", 422),
        ("/api/lists/top?organisation=A&age=Adult&sex=w&limit=1000", 200),
        ("/api/lists/top?organisation=A&limit=1001", 422),
        ("/api/lists/top?organisation=A&birth_year_from=1849", 422),
        ("/api/lists/top?organisation=A&sex=x", 422),
        ("/api/lists/top?organisation=A%2F1", 422),
        ("/api/lists?org=A%2F1", 422),
    ],
)
def test_a_parameter_is_taken_exactly_when_the_schema_allows_it(api, query, status):
    answer = api.get(query)
    assert answer.status_code == status, answer.text


def test_a_top_list_without_organisation_is_refused_by_the_schema(api):
    answer = api.get("/api/lists/top", headers={"Accept-Language": "en"})
    assert answer.status_code == 422
    assert [e["location"] for e in answer.json()["errors"]] == ["query.organisation"]


def test_a_long_pattern_is_not_repeated_in_the_message(api):
    """The age classes' pattern has 400 characters: the refusal says the value is not
    accepted (the parameter's description names the spellings)."""
    answer = api.get("/api/lists?federation=A&age_class=Kinder")
    assert answer.status_code == 422
    assert [e["message"] for e in answer.json()["errors"]] == ["not an accepted value"]
    short = api.get("/api/tournaments/X?dir=up")
    assert short.json()["errors"][0]["message"] == "not an accepted value (^(asc|desc)$)"


def test_the_calculators_body_is_declared_with_the_readers_bounds(document, api):
    from ratingdb.services.calculator import MAX_GAMES, RATINGS

    body = document["paths"]["/api/calc"]["post"]["requestBody"]["content"]["application/json"]
    opponents = body["schema"]["properties"]["opponents"]
    assert (opponents["minItems"], opponents["maxItems"]) == (1, MAX_GAMES)
    rating = opponents["items"]["properties"]["rating"]["anyOf"][0]
    assert (rating["minimum"], rating["maximum"]) == RATINGS
    game = {"rating": 1500, "result": 1}
    player = {"rating": 1500, "index": 5, "birth_year": 1990}
    taken = api.post("/api/calc", json={"player": player, "opponents": [game] * MAX_GAMES})
    assert taken.status_code == 200, taken.text
    for refused in ({"player": player, "opponents": []},
                    {"player": player, "opponents": [game] * (MAX_GAMES + 1)},
                    {"player": player, "opponents": [{**game, "rating": RATINGS[1] + 1}]},
                    {"opponents": [game]}):  # fmt: skip
        assert api.post("/api/calc", json=refused).status_code == 422, refused


def test_the_submissions_bounds_are_the_readers_bounds(document):
    """The JSON submission declares the widths and ranges the reader checks (an id may be
    a number, as the reader takes it; a member number its digits or a number)."""
    from ratingdb.services.submissions import CODE_WIDTH, MAX_FIDE_ID, MEMBER_NUMBER_WIDTH

    body = document["paths"]["/api/tournaments"]["post"]["requestBody"]["content"]
    schema = body["application/json"]["schema"]["properties"]
    code = schema["tournament"]["properties"]["id"]["anyOf"]
    assert code == [{"type": "string", "minLength": 1, "maxLength": CODE_WIDTH},
                    {"type": "integer"}]  # fmt: skip
    player = schema["players"]["items"]["properties"]
    assert player["fide_id"]["maximum"] == MAX_FIDE_ID
    assert player["member_number"]["anyOf"][0]["maxLength"] == MEMBER_NUMBER_WIDTH
    assert [arm["type"] for arm in player["id"]["anyOf"]] == ["string", "integer"]


@pytest.mark.parametrize("code", ["¹¹¹¹", "١٢", "9" * 30])
def test_a_code_of_other_digits_or_beyond_a_bigint_is_unknown(api, code):
    """A code is looked up as a tournament's number only when it is ASCII digits that fit
    a bigint: superscript digits ended in ``int()``'s ValueError (a 500), found by
    schemathesis on ``/api/tournaments/{code}/games``."""
    for path in (f"/api/tournaments/{code}", f"/api/tournaments/{code}/games"):
        assert api.get(path).status_code == 404, path
