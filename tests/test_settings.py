"""The environment is read once, validated (ratingdb/settings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratingdb.settings import Settings, SettingsError


def test_defaults_and_values(tmp_path: Path) -> None:
    s = Settings.from_env({"RATINGDB_HOME": str(tmp_path)}, web=True)
    assert (s.database_url, s.home, s.web_threads) == (None, tmp_path.resolve(), 8)
    s = Settings.from_env({"DATABASE_URL": "postgresql://x@h/db", "RATINGDB_WEB_THREADS": "3"},
                          web=True)  # fmt: skip
    assert (s.database_url, s.web_threads) == ("postgresql://x@h/db", 3)


@pytest.mark.parametrize("raw", ["abc", "0", "-2", "1e3", "999"])
def test_bad_web_threads_are_one_error_naming_the_variable(raw: str) -> None:
    with pytest.raises(SettingsError, match="RATINGDB_WEB_THREADS"):
        Settings.from_env({"RATINGDB_WEB_THREADS": raw}, web=True)
    # commands other than `serve` do not read it
    assert Settings.from_env({"RATINGDB_WEB_THREADS": raw}).web_threads == 8
