"""The environment ratingdb reads, validated once (docs/database.md, docs/web.md).

* ``DATABASE_URL``: any PostgreSQL URL; without it the embedded server is used;
* ``RATINGDB_HOME``: the embedded server's folder (default: the platform's user data
  folder, e.g. ``~/.local/share/ratingdb``);
* ``RATINGDB_WEB_THREADS``: worker threads (and database connections) of ``ratingdb
  serve``, 1 to 256 (default 8);
* ``RATINGDB_LANG``: the language of the CLI's tables and documents, ``de`` (default) or
  ``en`` (``en-GB``, ``de_DE.UTF-8`` name the same); ``ratingdb --lang`` overrides it. The
  web chooses per request (docs/i18n.md).

A bad value is a :class:`SettingsError` naming the variable: one line for the user, never
a traceback from ``int()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


class SettingsError(ValueError):
    """An environment variable has a value ratingdb cannot use."""


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    home: Path
    web_threads: int
    language: str = "de"

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
        return cls(url, home, threads, language)
