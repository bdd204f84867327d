from collections.abc import Sequence
from typing import Any

def layout(cls: type, names: tuple[str, ...]) -> tuple[int, ...]: ...
def build(
    cls: type,
    offsets: tuple[int, ...],
    rows: Sequence[Any],
    start: int,
    same: dict[str, str] | None,
) -> list[Any]: ...
def values(
    cls: type, offsets: tuple[int, ...], objects: Sequence[Any]
) -> list[tuple[Any, ...]]: ...
