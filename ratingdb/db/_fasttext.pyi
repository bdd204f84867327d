from ratingdb.rules.snapshots import SnapshotOutput

def output_text(o: SnapshotOutput, cache: dict[float, str], size: int) -> str | None: ...

COLUMNS: tuple[str, ...]

def set_layout(cls: type, offsets: tuple[int, ...]) -> None: ...
