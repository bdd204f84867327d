"""Chronological evaluation: ordering, replay from a change point, life cycles.

The engine never computes a rating itself: it builds each tournament's input from the
players' history, calls a rules family (``ratingdb.rules``) and keeps the outputs.
"""
