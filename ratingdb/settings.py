"""The environment ratingdb reads, validated once (docs/database.md, docs/web.md).

* ``DATABASE_URL``: any PostgreSQL URL; without it the embedded server is used;
* ``RATINGDB_DATABASE``: the database of the configured server that every command uses
  instead of the server's own (``DATABASE_URL``'s, or the embedded server's ``postgres``),
  e.g. ``ratingdb_demo``; ``ratingdb --database NAME`` sets it for one call;
* ``RATINGDB_HOME``: the embedded server's folder (default: the platform's user data
  folder, e.g. ``~/.local/share/ratingdb``);
* ``RATINGDB_WEB_THREADS``: worker threads (and database connections) of ``ratingdb
  serve``, 1 to 256 (default 8);
* ``RATINGDB_LANG``: the language of the CLI's tables and documents, ``de`` (default) or
  ``en`` (``en-GB``, ``de_DE.UTF-8`` name the same); ``ratingdb --lang`` overrides it. The
  web chooses per request (docs/i18n.md);
* ``RATINGDB_EVALUATE_ON_SUBMIT``: whether the officer's pages run the recalculation right
  after a submission, correction or deletion (``1``/``yes``/``true``/``on``, the default;
  ``0``/``no``/``false``/``off``: the nightly run evaluates, docs/officers.md);
* ``RATINGDB_REPLAY_WORKERS``: worker processes of a full replay, ``0`` or ``1`` (default:
  one on a machine with a second core, docs/engine.md);
* the plausibility bounds of input data (:class:`Bounds`, :mod:`ratingdb.plausibility`):
  ``RATINGDB_EARLIEST_DATE`` (default 1950-01-01), ``RATINGDB_DAYS_AHEAD`` (default 400),
  ``RATINGDB_MAX_LEAVING_SHARE`` (default 0.05) and ``RATINGDB_TODAY`` (the day the
  bounds count from, for checking a past state and for tests; default: the clock).

A bad value is a :class:`SettingsError` naming the variable: one line for the user, never
a traceback from ``int()``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from pathlib import Path

from ratingdb.errors import RatingdbError

#: the words of a yes/no setting
YES, NO = ("1", "yes", "true", "on"), ("0", "no", "false", "off")


class SettingsError(RatingdbError, ValueError):
    """An environment variable has a value ratingdb cannot use (one line, exit code 2)."""


@dataclass(frozen=True)
class Bounds:
    """What input data may plausibly say (docs/database.md, "Plausibility bounds").

    ``earliest``: no date of a tournament, membership, adjustment or list lies before it;
    ``days_ahead``: how far after today a date may lie where the future makes sense (a
    list date, an adjustment, a membership); a tournament never ends after today.
    ``max_leaving_share``: the share of open memberships one member list may end without
    ``--force``. ``today``: the day the bounds count from (None: the clock's).
    """

    earliest: date = date(1950, 1, 1)
    days_ahead: int = 400
    max_leaving_share: Decimal = Decimal("0.05")
    today: date | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Bounds:
        out = cls()
        raw = env.get("RATINGDB_EARLIEST_DATE", "").strip()
        if raw:
            try:
                out = replace(out, earliest=date.fromisoformat(raw))
            except ValueError:
                raise SettingsError(
                    f"RATINGDB_EARLIEST_DATE: not a date YYYY-MM-DD: {raw!r}"
                ) from None
        raw = env.get("RATINGDB_TODAY", "").strip()
        if raw:
            try:
                out = replace(out, today=date.fromisoformat(raw))
            except ValueError:
                raise SettingsError(f"RATINGDB_TODAY: not a date YYYY-MM-DD: {raw!r}") from None
        raw = env.get("RATINGDB_DAYS_AHEAD", "").strip()
        if raw:
            if not (raw.isascii() and raw.isdigit()) or not 0 <= int(raw) <= 3660:
                raise SettingsError(f"RATINGDB_DAYS_AHEAD: a whole number 0 to 3660, got {raw!r}")
            out = replace(out, days_ahead=int(raw))
        raw = env.get("RATINGDB_MAX_LEAVING_SHARE", "").strip()
        if raw:
            try:
                share = Decimal(raw)
            except ArithmeticError:
                share = Decimal("NaN")
            if not share.is_finite() or not 0 <= share <= 1:
                raise SettingsError(f"RATINGDB_MAX_LEAVING_SHARE: a number 0 to 1, got {raw!r}")
            out = replace(out, max_leaving_share=share)
        return out


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    home: Path
    web_threads: int
    language: str = "de"
    bounds: Bounds = Bounds()
    evaluate_on_submit: bool = True
    #: RATINGDB_DATABASE: the database of the server every command uses (None: its own)
    database: str | None = None
    #: RATINGDB_REPLAY_WORKERS: worker processes of a full replay (None: by the cores)
    replay_workers: int | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, web: bool = False) -> Settings:
        """The settings; ``web``: also validate the web server's variables (only
        ``ratingdb serve`` reads them, so a bad one never stops another command)."""
        env = os.environ if environ is None else environ
        url = env.get("DATABASE_URL") or None
        configured = env.get("RATINGDB_HOME")
        if configured:
            home = Path(configured).expanduser().resolve()
        else:
            import platformdirs

            home = Path(platformdirs.user_data_dir("ratingdb"))
        raw = env.get("RATINGDB_WEB_THREADS", "8").strip() if web else "8"
        try:
            threads = int(raw)
        except ValueError:
            raise SettingsError(f"RATINGDB_WEB_THREADS: not a whole number: {raw!r}") from None
        if not 1 <= threads <= 256:
            raise SettingsError(f"RATINGDB_WEB_THREADS: must be between 1 and 256, got {threads}")
        from ratingdb.i18n import DEFAULT, LANGUAGES, normalise

        raw_lang = env.get("RATINGDB_LANG", "").strip()
        language = normalise(raw_lang) if raw_lang else DEFAULT
        if language is None:
            raise SettingsError(
                f"RATINGDB_LANG: unknown language {raw_lang!r} (one of {', '.join(LANGUAGES)})"
            )
        raw_now = env.get("RATINGDB_EVALUATE_ON_SUBMIT", "1").strip().lower()
        if raw_now not in YES + NO:
            raise SettingsError(
                f"RATINGDB_EVALUATE_ON_SUBMIT: expected 1 or 0 (yes/no), got {raw_now!r}"
            )
        database = env.get("RATINGDB_DATABASE", "").strip() or None
        if database is not None:
            check_database_name(database, "RATINGDB_DATABASE")
        raw_workers = env.get("RATINGDB_REPLAY_WORKERS", "").strip()
        if raw_workers and raw_workers not in ("0", "1"):
            raise SettingsError(f"RATINGDB_REPLAY_WORKERS: expected 0 or 1, got {raw_workers!r}")
        workers = int(raw_workers) if raw_workers else None
        return cls(
            url, home, threads, language, Bounds.from_env(env), raw_now in YES, database, workers
        )


def check_database_name(name: str, where: str) -> None:
    """A database name as ``ratingdb demo`` and ``serve --database`` use them: letters,
    digits and ``_``, 1 to 63 characters, not starting with a digit.

    >>> check_database_name("ratingdb_demo", "--database")
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
        raise SettingsError(
            f"{where}: not a database name (letters, digits and _, 1 to 63 characters): {name!r}"
        )
