"""What users see: evaluation display, later Karteikarte, rating lists, tournament lists."""
