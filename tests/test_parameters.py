"""Every family reads its Rechenmodul parameters with one implementation
(ratingdb/rules/parameters.py): a non-finite or wrong-typed value of any field, in any
family, is a ValueError naming the key (the CLI's one error line), never another
exception; the stored defaults read back unchanged."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from ratingdb.rules import FAMILIES

BAD = ["NaN", "nan", "inf", "-Infinity", float("nan"), float("inf"), 1e400, "abc", [1], {}]


def field_cases() -> list[tuple[str, str]]:
    return [
        (name, f.name)
        for name, family in sorted(FAMILIES.items())
        for f in dataclasses.fields(family.parameters)
    ]


@pytest.mark.parametrize(("family", "key"), field_cases())
def test_bad_values_are_one_value_error(family: str, key: str) -> None:
    cls = FAMILIES[family].parameters
    default = getattr(cls(), key)
    for value in BAD:
        if isinstance(default, str) and isinstance(value, str):
            continue  # a string field may take a string; its own check decides
        if key == "short_tournaments" and value == {}:
            continue  # Ingo without special rules for short tournaments
        with pytest.raises(ValueError, match=key):
            cls.from_dict({key: value})
    if not isinstance(default, bool):
        with pytest.raises(ValueError, match=key):
            cls.from_dict({key: True})


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_defaults_read_back_unchanged(family: str) -> None:
    cls = FAMILIES[family].parameters
    assert cls.from_dict(cls().to_dict()) == cls()


def test_whole_floats_and_numeric_strings() -> None:
    params = FAMILIES["dwz2026"].parameters
    assert params.from_dict({"t": 30.0}).t == 30
    assert params.from_dict({"r": "0.08"}).r == Decimal("0.08")
    with pytest.raises(ValueError, match="t"):
        params.from_dict({"t": 30.5})
    with pytest.raises(ValueError, match="unknown"):
        params.from_dict({"k_maximum": 1})


LIFECYCLE = (
    "residual_validity_years",
    "retention_years",
    "late_member_years",
    "rating_expiry_years",
)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_carries_one_lifecycle(family: str) -> None:
    """The life-cycle numbers (ratingdb/rules/lifecycle.py) are one value the engine reads,
    set like any other parameter and checked alike in every family."""
    from ratingdb.rules.lifecycle import Lifecycle

    cls = FAMILIES[family].parameters
    params = cls.from_dict({"retention_years": 3, "late_member_years": 2})
    life = params.lifecycle
    assert type(life) is Lifecycle
    assert (life.retention_years, life.late_member_years) == (3, 2)
    assert life.residual_validity_years == cls().residual_validity_years
    for key in LIFECYCLE:
        with pytest.raises(ValueError, match=f"parameter {key}: must be between 0 and 100, got -1"):
            cls.from_dict({key: -1})


def test_family_defaults_of_the_lifecycle() -> None:
    """Classic DWZ voids a DWZ after 5 years (6.1.1), KBSB keeps a formula-1 player's games
    until his 20th (100 years), the rest keep the WO 2026 numbers."""
    lives = {name: f.parameters().lifecycle for name, f in FAMILIES.items()}
    assert lives["dwz-classic"].rating_expiry_years == 5
    assert lives["elo-kbsb"].residual_validity_years == 100
    assert lives["dwz2026"] == lives["ingo"] == lives["elo-online"]
    assert (lives["dwz2026"].residual_validity_years, lives["dwz2026"].retention_years) == (2, 5)
