"""schemathesis against the OpenAPI document: generated requests to every operation (public
ones without a token, the others with an officer's and an admin's token) never end in a
server error, and every response is one the document declares."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, status_code_conformance

from ratingdb.web.app import create_app
from tests.web_support import TODAY, bearer, engine_for, synth_database, user_token


@pytest.fixture(scope="module")
def api(pg_server):
    with synth_database(pg_server) as url:
        tokens = {
            "officer": user_token(url, "fuzz-officer", "officer", ["A"]),
            "admin": user_token(url, "fuzz-admin", "admin"),
        }
        yield create_app(engine_for(url), today=lambda: TODAY), tokens


@pytest.fixture(scope="module")
def api_schema(api):
    app, _ = api
    return schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(scope="module")
def identities(api):
    _, tokens = api
    return [{}, bearer(tokens["officer"]), bearer(tokens["admin"])]


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_errors(case, identities):
    for headers in identities:  # anonymous, officer (VKZ prefix A), admin
        case.call_and_validate(
            headers=headers, checks=[not_a_server_error, status_code_conformance]
        )
