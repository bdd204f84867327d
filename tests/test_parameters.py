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
