"""The schema of a Rechenmodul's parameters (WO Anhang 1.2): one mechanism, pydantic, for
every rule family.

Each family's parameter class is a frozen pydantic dataclass (``@dataclass(frozen=True,
config=SCHEMA)`` from ``pydantic.dataclasses``; still a standard dataclass for ``fields``,
``replace`` and ``asdict``) whose numeric fields carry their allowed range as
:class:`In`: ``t: Annotated[int, In(1, 1000)] = 30``. Every way in is validated by that
one schema: a stored Rechenmodul read back, ``ratingdb rechenmodul add --set KEY=VALUE``
and ``--parameters FILE``, ``evaluate``'s parameter files, and a parameter object built or
``replace``-d in code. A value is accepted only when

* it has the field's type: an integer (a float only when whole and finite), a finite
  decimal (an integer, a float or a numeric string; never NaN or infinity; kept as the
  exact ``Decimal`` of its text), a bool or one of the listed strings, exactly;
* it lies within the field's :class:`In` range (the bounds a rating officer would accept,
  listed with their reasons in docs/reference.md);
* a table has exactly its rows, each of its length (``k0`` of DWZ 2026, WO Anhang 1.3);
* no key is unknown, and the family's cross-field checks (``__post_init__``) pass.

:func:`from_dict` turns any failure into one ``ValueError`` whose text is one line naming
every bad parameter and its problem (``parameter k_max: must be between 1 and 200, got
1E+308``); no other exception leaves it, so a command can print it as one error line.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError, core_schema

T = TypeVar("T")

#: every family's two precisions: the rules' printed tables, or exact (float) arithmetic
Precision = Literal["table", "float"]

#: the pydantic configuration of every parameter class: unknown keys are errors
SCHEMA = ConfigDict(extra="forbid", arbitrary_types_allowed=True, hide_input_in_errors=True)


def _error(kind: str, message: str, **context: Any) -> PydanticCustomError:
    return PydanticCustomError(kind, message, context)


def _whole(value: Any, keys: bool) -> int:
    """An integer from JSON: an int, a whole finite float, or (for a JSON object's keys,
    which are always text) a string of digits; never a bool."""
    text = value.strip() if keys and isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(value) < 20:  # '²' is a digit to isdigit
        return int(text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _error("whole_number", "expected a whole number, got {value}", value=_shown(value))
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise _error("whole_number", "expected a whole number, got {value}", value=_shown(value))
    return int(value)


def _decimal(value: Any) -> Decimal:
    """A finite decimal from JSON: the exact Decimal of its text (0.08 stays 0.08)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise _error("number", "expected a number, got {value}", value=_shown(value))
    text = str(value).strip()
    try:
        number = Decimal(text) if len(text) <= 100 else None
    except (InvalidOperation, ValueError):
        number = None
    if number is None or not number.is_finite():
        raise _error("number", "expected a finite number, got {value}", value=_shown(value))
    return number


def _shown(value: Any) -> str:
    """A bad value as the error line shows it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class In:
    """The allowed range ``lo..hi`` (both included) of a numeric parameter: an integer for
    an ``int`` field, a decimal (written as a string, e.g. ``In("0.001", "1")``) for a
    ``Decimal`` one. ``why`` says where the bound comes from (docs/reference.md).
    ``keys``: the field's values are a JSON object's keys (digit strings are read as
    whole numbers)."""

    lo: int | str
    hi: int | str
    why: str = ""
    keys: bool = False

    @property
    def low(self) -> Decimal:
        return Decimal(self.lo)

    @property
    def high(self) -> Decimal:
        return Decimal(self.hi)

    def text(self) -> str:
        """``lo to hi``, as the error line and the docs show the range."""
        return f"{self.lo} to {self.hi}"

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        read: Callable[[Any], int | Decimal]
        if source is Decimal:
            read = _decimal
        elif source is int:
            keys = self.keys
            read = lambda value: _whole(value, keys)  # noqa: E731
        else:
            raise TypeError(f"In() applies to int or Decimal fields, not {source!r}")
        low, high = self.low, self.high

        def check(value: Any) -> int | Decimal:
            number = read(value)
            if not low <= number <= high:
                shown = str(number) if isinstance(number, Decimal) else _shown(value)
                raise _error(
                    "range",
                    "must be between {lo} and {hi}, got {value}",
                    lo=str(self.lo),
                    hi=str(self.hi),
                    value=shown,
                )
            return number

        return core_schema.no_info_plain_validator_function(check)


@dataclass(frozen=True)
class Rows:
    """A table of named rows (``dict[str, tuple[...]]``): exactly the rows ``names``, each
    of ``length`` values (validated as the field's value type says)."""

    names: tuple[str, ...]
    length: int

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        names, length = self.names, self.length

        def check(value: Any) -> Any:
            if not isinstance(value, Mapping):
                raise _error(
                    "table", "expected an object of rows, got {value}", value=_shown(value)
                )
            missing = [n for n in names if n not in value]
            unknown = sorted(str(k) for k in value if k not in names)
            if missing or unknown:
                problem = f"rows missing: {', '.join(missing)}" if missing else ""
                if unknown:
                    problem += f"{'; ' if problem else ''}unknown rows: {', '.join(unknown)}"
                raise _error(
                    "table", "{problem} (the rows are {names})", problem=problem,
                    names=", ".join(names),
                )  # fmt: skip
            for name in names:
                row = value[name]
                if not isinstance(row, list | tuple) or len(row) != length:
                    raise _error(
                        "table", "row {row} needs {length} values, got {value}",
                        row=name, length=length, value=_shown(row),
                    )  # fmt: skip
            return value

        return core_schema.no_info_before_validator_function(check, handler(source))


def bounds(cls: type) -> dict[str, In]:
    """The declared range of every numeric field of a parameter class (for the docs and the
    tests); a table's bound is that of its values."""
    return dict(_bounds(cls))


@cache
def _bounds(cls: type) -> tuple[tuple[str, In], ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    found = []
    for f in fields(cls):
        marks = _marks(hints[f.name], In)
        if marks:
            found.append((f.name, marks[0]))
    return tuple(found)


def rows(cls: type) -> dict[str, Rows]:
    """The declared shape of every table field of a parameter class."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out = {}
    for f in fields(cls):
        marks = _marks(hints[f.name], Rows)
        if marks:
            out[f.name] = marks[0]
    return out


def _marks(hint: Any, kind: type[T]) -> list[T]:
    """Every ``kind`` metadata object within a (nested) annotated type."""
    found: list[T] = []
    if typing.get_origin(hint) is typing.Annotated:
        found += [m for m in hint.__metadata__ if isinstance(m, kind)]
    for arg in typing.get_args(hint):
        if not isinstance(arg, In | Rows):
            found += _marks(arg, kind)
    return found


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(cls: type) -> TypeAdapter[Any]:
    """The validator of a parameter class, built once."""
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]


def from_dict(cls: type[T], data: Any, label: str) -> T:
    """An instance of the parameter class ``cls`` from (partial) JSON ``data``, validated
    by its schema; ValueError with one line naming every bad key and its problem."""
    if not isinstance(data, dict):
        raise ValueError(f"{label} parameters must be an object")
    try:
        params: T = _adapter(cls).validate_python(data)
    except ValidationError as err:
        raise ValueError(describe(err, label)) from None
    return params


#: the error kinds this module words itself
OWN = ("whole_number", "number", "range", "table")


def describe(err: ValidationError, label: str) -> str:
    """A pydantic error as one line: ``parameter KEY: problem; ...``."""
    unknown = []
    problems = []
    for item in err.errors(include_url=False):
        where = _path(item["loc"])
        if item["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            unknown.append(where)
            continue
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "missing":
            message = "missing"
        elif item["type"] not in OWN:  # pydantic's own words: "Input should be ..."
            message = message[:1].lower() + message[1:]
        problems.append(f"parameter {where}: {message}" if where else message)
    if unknown:
        problems.insert(0, f"unknown {label} parameter(s): {', '.join(sorted(unknown))}")
    return "; ".join(problems) or f"{label} parameters: invalid values"


def _path(loc: tuple[int | str, ...]) -> str:
    """``k0.adult[3]`` from pydantic's location ``("k0", "adult", 3)``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part != "[key]":
            out += f".{part}" if out else str(part)
    return out


# -- the ranges shared by the families (each field names its own where it differs) -------
#: a rating, a rating threshold or pivot: the input contract's rating scale 1..4000
#: (docs/evaluate.md); 0 where a threshold of 0 means "never"
RATING = In(0, 4000, "the rating scale: ratings are 1 to 4000, docs/evaluate.md")
#: a rating difference or a margin: at most the whole scale
DIFFERENCE = In(0, 4000, "a rating difference: at most the whole scale 1 to 4000")
#: a number of games within one evaluation (the WO's thresholds are 5; 100 is generous)
GAMES = In(1, 100, "games of one evaluation")
#: an age limit in years (WO 3.2 / Anhang 1.3 age classes: 20 and 25)
AGE = In(0, 100, "an age in years; WO 3.2: 20 and 25")
#: an index: the number of evaluations a rating rests on (WO 2.2.3)
INDEX = In(0, 1000, "an index; WO 2.2.3: the number of evaluations")
#: a development coefficient K: the WO's K_0 are 25..60 and K_max is 80 (Anhang 1.2.1/1.3)
K = In(1, 200, "a development coefficient: WO Anhang 1.3 K_0 25 to 60, K_max 80; Elo 10 to 32")
#: a step cap of an iteration: the iterations of the rules end within a few dozen steps
#: (WO Anhang 1.1.3); fewer than 100 would fail tournaments that converge, more than
#: 10,000 only lengthens a run that cannot converge before it fails
ITERATIONS = In(100, 10_000, "WO Anhang 1.1.3: converges in a few dozen steps")
