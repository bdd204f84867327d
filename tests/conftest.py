"""Shared fixtures: the worked example of WO Anhang 3.1 and its published results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
from ratingdb.rules.model import TournamentInput, TournamentResult

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def example_json() -> dict[str, Any]:
    return json.loads((FIXTURES / "wo-2026-example.json").read_text())


@pytest.fixture(scope="session")
def example_expected() -> dict[str, Any]:
    return json.loads((FIXTURES / "wo-2026-example.expected.json").read_text())


@pytest.fixture(scope="session")
def example_input(example_json: dict[str, Any]) -> TournamentInput:
    return parse_tournament(example_json)


@pytest.fixture(scope="session")
def example_result(example_input: TournamentInput) -> TournamentResult:
    return evaluate(example_input, Dwz2026Parameters())


@pytest.fixture(scope="session")
def example_output(example_result: TournamentResult) -> dict[str, Any]:
    """The JSON contract form, with the trace."""
    return json.loads(json.dumps(example_result.to_dict(trace=True)))
