"""docs/reference.md is generated from the code (ratingdb/docgen.py) and must be current:
a command, an option or a Rechenmodul parameter added without regenerating fails here."""

from __future__ import annotations

from pathlib import Path

from ratingdb.docgen import render

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference.md"


def test_reference_tables_are_current() -> None:
    current = REFERENCE.read_text(encoding="utf-8")
    assert current == render(), (
        "docs/reference.md is out of date: run python scripts/docs_tables.py"
    )


def test_the_tables_carry_what_a_reader_looks_up() -> None:
    text = render()
    assert "| `ratingdb recalc` | The nightly job" in text
    assert "`--full`" in text
    # every family's parameters, with the range the schema accepts and the comment
    assert "| `retention_years` | `5` | 0 to 100 (years: 0 to a century) | WO 4.1.1" in text
    assert "| `max_iterations` | `1000` | 100 to 10000 (WO Anhang 1.1.3" in text
    assert "| `precision` | `'table'` | `'table'` or `'float'` |" in text
    assert "| `rating_expiry_years` | `5` |" in text  # classic DWZ 6.1.1
    assert text.count("| `residual_validity_years` |") == 5
