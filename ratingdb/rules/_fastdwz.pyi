from collections.abc import Callable, Sequence
from typing import Any

def table_alone(
    better: Any,
    inverse: Any,
    scale: int,
    fixed: Sequence[float],
    w2: int,
    start: int,
    extreme: int | None,
    max_steps: int,
    cycle_span: int,
    highest: bool,
    /,
) -> tuple[int, list[int], list[int], list[int]] | Any | None: ...
def table_performances(
    better: Any,
    inverse: Any,
    scale: int,
    seen_of: Sequence[int | None],
    rows: list[list[tuple[int, int, int]]],
    draw: bool,
    extreme: int | None,
    max_steps: int,
    cycle_span: int,
    highest: bool,
    /,
) -> list[int | None]: ...
def table_established(
    better: Any,
    scale: int,
    coef: tuple[int, ...],
    seen_of: Sequence[int | None],
    rows: list[tuple[int | None, int | None, int, list[tuple[int, int, int]]]],
    /,
) -> list[tuple[int, int, int, int, int | None, int, list[float], list[int]] | None]: ...
def rated_games(
    games: Sequence[Any],
    position: dict[str, int],
    results: dict[str, tuple[int, int] | None],
    computers: set[int],
    players: int,
    /,
) -> tuple[list[list[tuple[int, int, int]]], dict[int, list[int]] | None]: ...
def float_established(
    cdf: object,  # scipy.special.ndtr
    frombuffer: Callable[..., Any],
    sigma: float,
    coef: tuple[int, ...],
    seen_of: Sequence[int | None],
    rows: list[tuple[int | None, int | None, int, list[tuple[int, int, int]]]],
    /,
) -> list[tuple[float, int, int, int, int, int, list[float], list[int]] | None]: ...
