#!/usr/bin/env python3
"""Write docs/reference.md from the code (ratingdb/docgen.py); ``--check`` only compares
and exits 1 when the file is out of date."""

from __future__ import annotations

import sys
from pathlib import Path

from ratingdb.docgen import render

TARGET = Path(__file__).resolve().parents[1] / "docs" / "reference.md"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date: run python scripts/docs_tables.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
