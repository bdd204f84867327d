"""schemathesis against the OpenAPI document of a started server (uvicorn on the synthetic
federation): generated requests to every operation, valid and invalid ones, with an
officer's token (the authenticated operations run too; schemathesis strips or spoils the
token itself to see that they demand it) and without one, judged by every check of
schemathesis that concerns a single response: no server error; status code, content type,
headers and body as the document declares them; a request the schema forbids refused
(4xx) and one it allows accepted; a declared security enforced; an undeclared method
answered 405 with ``Allow``.

A schema-valid request may still be refused for a reason the document names: 401/403 (the
token's user and scope), 404 (an unknown player or tournament), 409 (a concurrent change)
and, where the body is a document (a tournament file, a submission, the calculator's
games), 422 for what the document says (pairings, dates, a player without DWZ). A request
of parameters alone that the schema allows is never a 422.

Bounded for CI: :data:`EXAMPLES` fuzzed examples per operation and authentication, drawn
from a fixed seed (plus schemathesis' examples and coverage cases); ``RATINGDB_FUZZ_EXAMPLES``
raises the number for a long local run (with a random seed unless ``RATINGDB_FUZZ_SEED``).
"""

from __future__ import annotations

import os
import random

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    allow_header_conformance,
    content_type_conformance,
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)
from schemathesis.config import SchemathesisConfig

from ratingdb.web.app import create_app
from tests.web_support import TODAY, bearer, engine_for, served, synth_database, user_token

EXAMPLES = int(os.environ.get("RATINGDB_FUZZ_EXAMPLES", "15"))
SEED = int(
    os.environ.get("RATINGDB_FUZZ_SEED") or (0 if EXAMPLES <= 15 else random.randrange(2**31))
)

#: every check of one response (the stateful ones need links the document does not have)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    missing_required_header,
    ignored_auth,
    unsupported_method,
    allow_header_conformance,
]
#: what a schema-valid request may be answered: accepted, or refused for a declared reason
ACCEPTED = ["2xx", "401", "403", "404", "409", "503"]
#: the operations whose 422 refuses a schema-valid request for a reason its description
#: names: the content of a document, a combination of parameters, a date's plausible range
REFUSED_BEYOND_THE_SCHEMA = [
    "POST /api/calc",  # a database player without DWZ, a date without DWZ rules
    "POST /api/tournaments",  # the submission: players, games, dates that do not fit
    "PUT /api/tournaments/{code}",
    "POST /api/what-if/tournaments",
    "PUT /api/what-if/tournaments/{code}",
    "POST /api/tournaments/trf",  # a tournament file that cannot be read
    "PUT /api/tournaments/{code}/trf",
    "POST /api/what-if/tournaments/trf",
    "GET /api/lists",  # exactly one of club, federation, org; the date's range
    "GET /api/lists/top",  # the birth years in order; the date's range
    "POST /api/admin/players/{player_id}/anonymise",  # a member, or anonymised already
]
#: paths that are also an instance of another path's template (``trf`` as a tournament's
#: code): their ``Allow`` names that path's methods too, which the check does not expect
OVERLAPPING = ["POST /api/tournaments/trf", "POST /api/what-if/tournaments/trf"]


def _config() -> SchemathesisConfig:
    refusing = {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "422"]}}
    return SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            # the tokens are the test's (below): a generated Authorization header would be
            # replaced by them, and a case "without the required header" sent with one
            "generation": {"max-examples": EXAMPLES, "with-security-parameters": False},
            "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}},
            "operations": [
                {"include-name": name, "checks": refusing} for name in REFUSED_BEYOND_THE_SCHEMA
            ],
        }
    )


@pytest.fixture(scope="module")
def api(pg_server):
    print(f"schemathesis: seed {SEED}, {EXAMPLES} examples")  # shown with a failure
    with synth_database(pg_server) as url:
        tokens = {
            "officer": user_token(url, "fuzz-officer", "officer", ["A"]),
            "admin": user_token(url, "fuzz-admin", "admin"),
        }
        app = create_app(engine_for(url), today=lambda: TODAY)
        with served(app) as base:
            yield base, tokens


@pytest.fixture(scope="module")
def api_schema(api):
    base, _ = api
    return schemathesis.openapi.from_url(f"{base}/openapi.json", config=_config())


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_every_answer_is_the_one_the_schema_declares(case, api):
    _, tokens = api
    user = "admin" if case.path.startswith("/api/admin/") else "officer"
    checks = [c for c in CHECKS if c is not allow_header_conformance] if (
        case.operation.label in OVERLAPPING
    ) else CHECKS  # fmt: skip
    case.call_and_validate(headers=bearer(tokens[user]), checks=checks)
    if not case.operation.definition.raw.get("security"):  # ignored_auth probes the others
        case.call_and_validate(checks=checks)  # anonymous: the public reads
