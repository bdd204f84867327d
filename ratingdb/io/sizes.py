"""How large a tournament is, for the size bounds of :mod:`ratingdb.plausibility`: the
players, the rounds, the most games of one player and the players without a game of a
tournament file (any format: :class:`~ratingdb.io.trf.TrfTournament`) or of a submission
document (its JSON as given, counted before it is parsed, so that a 100,000-player document
is refused before its players are read one by one).

The rounds are the highest round number anything names: a game, a result cell that is not
blank (a bye, an absence), a bye of a document, a round date. A blank cell names nothing.

>>> of_document({"players": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
...              "games": [{"white": "a", "black": "b", "round": 2}]})
Sizes(players=3, rounds=2, most_games=1, busiest='a', without_game=1)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ratingdb.io.trf import TrfTournament
from ratingdb.plausibility import Sizes


def of_file(t: TrfTournament) -> Sizes:
    """The sizes of a tournament file as read."""
    games: Counter[int] = Counter()
    rounds = len(t.round_dates)
    for g in t.games:
        games[g.white] += 1
        games[g.black] += 1
        rounds = max(rounds, g.round)
    for p in t.players:
        for e in p.rounds:
            if e.opponent or e.code.strip():
                rounds = max(rounds, e.round)
    busiest, most = games.most_common(1)[0] if games else (0, 0)
    names = {p.start_rank: p.name for p in t.players}
    return Sizes(
        players=len(t.players),
        rounds=rounds,
        most_games=most,
        busiest=f"{busiest} ({names.get(busiest, '')})",
        without_game=sum(1 for p in t.players if p.start_rank not in games),
    )


def _round(value: Any) -> int:
    """A round number as a document gives it (a whole number, or a bye's key ``"3"``);
    anything else counts as none (the parser names it)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    return 0


def of_document(doc: Any) -> Sizes:
    """The sizes of a submission document as given; what is not of its shape counts as
    nothing (the parser reports it)."""
    raw = doc if isinstance(doc, dict) else {}
    players = raw.get("players")
    players = players if isinstance(players, list) else []
    entries = [p for p in players if isinstance(p, dict)]
    games: Counter[str] = Counter()
    rounds = 0
    raw_games = raw.get("games")
    for g in raw_games if isinstance(raw_games, list) else []:
        if not isinstance(g, dict):
            continue
        for side in ("white", "black"):
            if isinstance(g.get(side), str | int):
                games[str(g[side])] += 1
        rounds = max(rounds, _round(g.get("round")))
    for p in entries:
        byes = p.get("byes")
        if isinstance(byes, dict):
            rounds = max([rounds, *(_round(k) for k in byes)])
    busiest, most = games.most_common(1)[0] if games else ("", 0)
    return Sizes(
        players=len(players),
        rounds=rounds,
        most_games=most,
        busiest=busiest,
        without_game=sum(1 for p in entries if str(p.get("id")) not in games),
    )
