"""Tiny synthetic SwissChess files (the 8.xx or 7.xx layout of :mod:`ratingdb.io.swt`) for the
variants no public file shows: byes, the placeholder ``spielfrei``, individual forfeits,
rounds paired without results, broken pairings. Made-up names only."""

from __future__ import annotations

from dataclasses import dataclass, field

PAIRINGS = 13384
CARD = 655
RECORD = 19


@dataclass
class P:
    """A player card; ``points2`` defaults to the total of the player's records."""

    name: str
    ident: int
    dwz: str = ""
    elo: str = ""
    fide_id: str = ""
    birth: str = ""
    zps: str = ""
    member: str = ""
    pkz: str = ""
    sex: str = "m"
    team: int = 0
    board: int = 0
    placeholder: bool = False
    points2: int | None = None


@dataclass
class T:
    name: str
    ident: int  # 999, 1000, … (team ids start after field 185's offset 998)
    number: int


@dataclass
class Swt:
    players: list[P]
    rounds: int
    #: (player id, round) -> (colour, opponent id, result bits, status)
    records: dict[tuple[int, int], tuple[int, int, int, int]] = field(default_factory=dict)
    teams: list[T] = field(default_factory=list)
    #: (team id, round) -> (home 1 / away 3, opponent team id)
    team_records: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    version: int = 889
    name: str = "Synthetic Open"
    start: str = "06.03.2026"
    end: str = "08.03.2026"
    boards: int = 4
    mode: int = 0  # 0 Swiss, 1 round robin
    cycles: int = 1  # a round robin's "Durchgänge": records for rounds × cycles

    def game(self, rnd: int, white: int, black: int, result: str, status: int = 0) -> Swt:
        """Both records of a game; ``result`` 1-0, 0-1, 1/2 or none."""
        bits = {"1-0": (3, 1), "0-1": (1, 3), "1/2": (2, 2), "none": (0, 0), "0-0": (1, 1)}
        w, b = bits[result]
        self.records[(white, rnd)] = (1, black, w, status)
        self.records[(black, rnd)] = (3, white, b, status)
        return self

    def to_bytes(self) -> bytes:
        n, nt = len(self.players), len(self.teams)
        r = self.rounds * (self.cycles if self.mode == 1 else 1)  # records per player
        v7 = self.version < 800
        pairings, card = (3894, 292) if v7 else (PAIRINGS, CARD)
        size = pairings + (n + nt) * r * RECORD + (n + nt) * card
        data = bytearray(size)
        data[0] = 0xFF
        data[1], data[3], data[5] = self.rounds, self.rounds, self.rounds
        data[0x254] = self.mode
        data[7:9] = n.to_bytes(2, "little")
        data[0x241:0x243] = (998).to_bytes(2, "little")
        data[0x258] = self.cycles
        data[0x25C] = self.boards
        data[0x25E] = 0xFF if self.teams else 0
        data[0x261:0x263] = self.version.to_bytes(2, "little")
        data[0x534] = nt
        _text(data, 0x316, self.name, 40)
        _text(data, 0x41F, self.start, 20)
        _text(data, 0x434, self.end, 20)
        for k, p in enumerate(self.players):
            total = 0
            for rnd in range(1, r + 1):
                at = pairings + (k * r + rnd - 1) * RECORD
                colour, opp, res, status = self.records.get((p.ident, rnd), (0, 0, 0, 0))
                data[at + 8] = colour
                data[at + 9 : at + 11] = opp.to_bytes(2, "little")
                data[at + 11] = res
                data[at + 15] = status
                total += {1: 0, 2: 1, 3: 2}.get(res, 0)
            at = pairings + (n + nt) * r * RECORD + k * card
            _text(data, at, p.name, 32)
            _text(data, at + 0x46, p.elo, 4)
            _text(data, at + 0x4B, p.dwz, 4)
            _text(data, at + 0x80, p.birth, 10)
            _text(data, at + 0x99, p.zps, 5)
            _text(data, at + 0x9F, p.member, 4)
            data[at + 0xB8] = ord(p.sex or " ")
            if p.placeholder:
                data[at + 0xBD] = ord("f")
            data[at + 0xC9] = p.team
            data[at + 0xCB] = p.board
            data[at + 0xD9 : at + 0xDB] = p.ident.to_bytes(2, "little")
            data[at + (0xE9 if v7 else 0x124)] = total if p.points2 is None else p.points2
            if v7:
                _text(data, at + 0x8B, p.fide_id, 8)
            else:
                _text(data, at + 0x144, p.fide_id, 12)
                _text(data, at + 0x151, p.pkz, 12)
        for k, t in enumerate(self.teams):
            for rnd in range(1, r + 1):
                at = pairings + (n * r + k * r + rnd - 1) * RECORD
                home, opp = self.team_records.get((t.ident, rnd), (0, 0))
                data[at + 8] = home
                data[at + 9 : at + 11] = opp.to_bytes(2, "little")
            at = pairings + (n + nt) * r * RECORD + (n + k) * card
            _text(data, at, t.name, 32)
            data[at + 0xD9 : at + 0xDB] = t.ident.to_bytes(2, "little")
            data[at + 0xDB] = t.number
        return bytes(data)


def _text(data: bytearray, at: int, value: str, width: int) -> None:
    raw = value.encode("cp1252")[:width]
    data[at : at + len(raw)] = raw


def round_robin_of_three() -> Swt:
    """Three players and the placeholder ``spielfrei``: each round one player has the bye."""
    players = [P("Adler, Anna", 1, dwz="1850", sex="w", zps="C0501", member="12", birth="1990"),
               P("Bauer, Bernd", 2, dwz="1720", fide_id="4690001", birth="19851231"),
               P("Ceder, Carl", 3, birth="01.02.2001"),
               P("spielfrei", 4, placeholder=True, sex=" ")]  # fmt: skip
    s = Swt(players, rounds=3)
    s.game(1, 1, 2, "1-0").game(2, 3, 1, "1/2").game(3, 2, 3, "0-1")
    for rnd, bye in ((1, 3), (2, 2), (3, 1)):
        s.records[(bye, rnd)] = (1, 4, 3, 0)
        s.records[(4, rnd)] = (3, bye, 1, 0)
    return s
