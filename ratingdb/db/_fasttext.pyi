from collections.abc import Callable

from ratingdb.engine.model import Snapshot
from ratingdb.rules.snapshots import SnapshotOutput

def output_text(o: SnapshotOutput, cache: dict[float, str], size: int) -> str | None: ...

COLUMNS: tuple[str, ...]

def set_layout(cls: type, offsets: tuple[int, ...]) -> None: ...
def snapshot_lines(
    snapshots: list[Snapshot], modul_ids: dict[str, int], line: Callable[[Snapshot], str]
) -> str: ...
