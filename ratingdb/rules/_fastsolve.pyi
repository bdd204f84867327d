from collections.abc import Callable, Sequence
from typing import Any

def solve_small(
    rows: Sequence[Sequence[float]],
    w: Sequence[float],
    starts: Sequence[float],
    normal: bool,
    sigma: float,
    factor: float,
    norm: float,
    cdf: object,  # a ufunc or a capsule of scipy's C function (solver._scalar_twin)
    exp: object,  # numpy.exp or the capsule of its float64 loop (double_loop)
    frombuffer: Callable[..., Any],
    rounds_alike: Callable[[float, float], bool],
    tolerance: float,
    max_bisect: int,
    max_jump: float,
    polish_steps: int,
    polish_reach: float,
    float_half_up: Callable[[float, int], float],
    places: int,
    /,
) -> list[tuple[int, float, list[list[float]], list[float]] | None]: ...
def settled(
    value: float, places: int, float_half_up: Callable[[float, int], float], /
) -> float: ...
def newton_group(
    fixed: tuple[tuple[float, ...], ...],
    linked: tuple[tuple[int, ...], ...],
    w: tuple[float, ...],
    start: tuple[float, ...],
    sign: tuple[int, ...],
    extreme: float,
    potential: bool,
    normal: bool,
    sigma: float,
    factor: float,
    norm: float,
    cdf: object,  # a ufunc or a capsule of scipy's C function (solver._scalar_twin)
    exp: object,  # numpy.exp or the capsule of its float64 loop (double_loop)
    logaddexp: Callable[..., Any],
    solve: object,
    dot: object,
    frombuffer: Callable[..., Any],
    rounds_alike: Callable[[float, float], bool],
    tolerance: float,
    max_newton: int,
    max_step: float,
    polish_steps: int,
    polish_reach: float,
    float_half_up: Callable[[float, int], float],
    places: int,
    /,
) -> tuple[list[float], int, list[list[float]]] | None: ...
def scalar_values(capsule: object, data: bytes, /) -> bytes: ...
def double_loop(ufunc: object, ufunc_type: type, /) -> object: ...
def solve_and_dot(
    solve: object, dot: object, a: bytes, b: bytes, /
) -> tuple[bytes, float] | None: ...
