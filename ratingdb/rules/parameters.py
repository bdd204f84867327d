"""Reading a Rechenmodul's parameters from JSON (WO Anhang 1.2): one implementation for
every rule family.

A stored Rechenmodul (``rechenmodule.parameters``), ``ratingdb rechenmodul add --set
KEY=VALUE`` and ``evaluate``'s parameter files all pass a (partial) dict; each value must
have the type of the field's default: an integer (a float is accepted only when it is a
whole, finite number), a finite decimal (int, float or a numeric string, no NaN or
infinity), a bool or a string of the exact type. Anything else, an unknown key, or a value
the family's own checks refuse (``__post_init__``) raises ``ValueError`` with the key named;
no other exception leaves this module, so a command can turn it into one error line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import fields
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, TypeVar

T = TypeVar("T")

#: every family's two precisions: the rules' printed tables, or exact (float) arithmetic
Precision = Literal["table", "float"]


def coerce(key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of ``default`` (see the module text), or ValueError."""
    bad = ValueError(f"parameter {key}: invalid value {value!r}")
    if isinstance(value, bool) and not isinstance(default, bool):
        raise bad
    if isinstance(default, Decimal):
        if not isinstance(value, int | float | str | Decimal):
            raise bad
        try:
            number = Decimal(str(value).strip())
        except (InvalidOperation, ValueError):
            raise bad from None
        if not number.is_finite():
            raise bad
        return number
    if isinstance(default, bool | str):
        if type(value) is not type(default):
            raise bad
        return value
    if isinstance(default, int) or default is None:
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise bad
        if value != int(value):
            raise bad
        return int(value)
    raise bad


def from_dict(
    cls: Callable[..., T],
    data: Any,
    label: str,
    special: Mapping[str, Callable[[Any], Any]] | None = None,
    nullable: tuple[str, ...] = (),
) -> T:
    """An instance of the parameter dataclass ``cls`` from ``data``; ``special`` converts
    fields of a structured type (tables), ``nullable`` fields may be null."""
    if not isinstance(data, dict):
        raise ValueError(f"{label} parameters must be an object")
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise ValueError(f"unknown {label} parameter(s): {', '.join(map(str, unknown))}")
    defaults = cls()
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if value is None and key in nullable:
            kwargs[key] = None
        elif special and key in special:
            try:
                kwargs[key] = special[key](value)
            except (TypeError, ValueError, ArithmeticError, AttributeError):
                raise ValueError(f"parameter {key}: invalid value {value!r}") from None
        else:
            kwargs[key] = coerce(key, value, getattr(defaults, key))
    try:
        return cls(**kwargs)
    except (TypeError, ValueError, ArithmeticError) as err:
        raise ValueError(str(err) or f"{label} parameters: invalid values") from None
