"""ratingdb: a chronological chess rating database (DWZ 2026 and other Rechenmodule)."""

__version__ = "0.1.0"
