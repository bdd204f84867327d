"""Reading and writing files: the evaluate JSON contract, later TRF, CSV and PDF."""
