"""Builders shared by the tests: tournament documents in the `ratingdb evaluate` contract,
players, and a command that must succeed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.cli import run


def tournament(
    players: list[dict[str, Any]],
    games: list[tuple[str, str, str]],
    kind: str = "individual",
    start: str = "2026-12-01",
    end: str = "2026-12-12",
) -> dict[str, Any]:
    """A tournament "T" with ``games`` as (white, black, result)."""
    return {
        "tournament": {"id": "T", "start": start, "end": end, "kind": kind},
        "players": players,
        "games": [{"white": w, "black": b, "result": r} for w, b, r in games],
    }


def player(
    pid: str, rating: int | None = None, index: int | None = None, **extra: Any
) -> dict[str, Any]:
    """A player; without a rating an unrated one."""
    return {"id": pid, "rating": rating, "index": index, **extra}


def rated_with(index: int, birth_year: int | None = None) -> Callable[..., dict[str, Any]]:
    """A builder of rated players with these defaults: ``rated(pid, rating[, index[,
    birth_year]], **extra)``; keywords in ``extra`` win."""

    def rated(
        pid: str, rating: int, idx: int = index, born: int | None = birth_year, **extra: Any
    ) -> dict[str, Any]:
        base = player(pid, rating, idx)
        if born is not None:
            base["birth_year"] = born
        return {**base, **extra}

    return rated


def ok(args: list[str], url: Any, lang: str | None = "en") -> str:
    """``ratingdb ARGS`` must succeed; its stdout (``lang`` as for :func:`tests.cli.run`)."""
    out = run(args, url, lang=lang)
    assert out.returncode == 0, out.stderr
    return out.stdout


def organisations(url: Any, *vkz: str) -> None:
    """Placeholder organisations ``vkz`` (as a club list would create them): a tournament's
    VKZ must name a known organisation (ratingdb/db/organisations.py)."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session
    from sqlalchemy.pool import NullPool

    from ratingdb.db.organisations import create_placeholder

    engine = create_engine(url, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        for code in vkz:
            create_placeholder(session, code, actor="test")
    engine.dispose()
