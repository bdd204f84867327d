"""The words of the page cache's scopes: which public pages a committed change can have
touched (migration 0018; the page cache keeps every page whose scopes it did not touch,
:mod:`ratingdb.web.page_cache`; docs/web.md, "The page cache").

The database names them (row triggers of migration 0018, one row of ``data_changes`` per
data version); a page names the scopes of what it shows, with the same words:

* ``p:<player id>``: a player's own rows: the player, memberships, evaluations, residual
  games, takeovers, external ratings, participations, and the tournaments they played in
  (a Karteikarte shows a tournament's name and date);
* ``n:<player id>``: the player's name and publication (the player's row, memberships),
  which every tournament page they appear on shows;
* ``t:<tournament id>``: a tournament's own rows: the tournament, participants, games,
  evaluations, calculation date, problems;
* ``v:<VKZ>``: the memberships of a club and its members' own rows (who is on its rating
  list, and how).

A page's scope may end with ``*``: every scope that begins so (``t:*``: any tournament, for
the tournament lists; ``v:C*``: the clubs of a federation). A change of anything else
(organisations, Rechenmodule, adjustments, a table added later) touches every page.
"""

from __future__ import annotations

#: a change that may have touched every page (``data_changes.scopes`` NULL)
EVERYTHING = None
ANY_TOURNAMENT = "t:*"
ANY_PLAYER = "p:*"
ANY_PERSON = "n:*"


def player(player_id: int) -> str:
    return f"p:{player_id}"


def person(player_id: int) -> str:
    """A player's name and publication (WO 4.1.1), not their evaluations."""
    return f"n:{player_id}"


def tournament(tournament_id: int) -> str:
    return f"t:{tournament_id}"


def club(vkz: str) -> str:
    return f"v:{vkz}"


def clubs_under(prefix: str) -> str:
    """The clubs whose VKZ begins with ``prefix`` (a federation's list)."""
    return f"v:{prefix}*"
