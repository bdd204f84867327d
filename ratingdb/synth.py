"""A synthetic federation for demos, tests and benchmarks; deterministic per seed.

Clubs with a VKZ hierarchy (region letter, district, club: ``C0327``), players of all ages
who join and leave clubs, and per year: club championships (round robins in about 40 % of
the clubs), Swiss opens with guests and unrated newcomers (one per 10 clubs), team seasons
(one tournament per league of 8 clubs, 4 boards), and a few matches. At 250,000 players
and 17 years this gives about 80,000 tournaments and 4 million games. Members who joined
before the history starts bring a listed rating (a stand-in for the takeover of the
federation's current rating list), entered as a national rating with its index. Results follow
the players' hidden strength; some games are forfeits; some tournaments are submitted
late (processed long after they ended).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta


@dataclass
class SynthPlayer:
    id: int
    surname: str
    given_name: str
    sex: str
    birth_year: int
    strength: float
    club: str
    joined: date
    left: date | None = None
    fide_rating: int | None = None
    #: the rating a member had before the synthetic history starts (a stand-in for the
    #: takeover of the federation's current list): sent as a national rating with index
    listed_rating: int | None = None
    listed_index: int | None = None


@dataclass
class SynthParticipant:
    id: int
    player_id: int | None
    textual_name: str | None = None
    rating_source: str | None = None
    external_rating: int | None = None
    start_rank: int = 0
    club_vkz: str | None = None
    external_index: int | None = None


@dataclass
class SynthTournament:
    id: int
    code: str
    name: str
    vkz: str
    kind: str
    start: date
    end: date
    processed_at: datetime
    participants: list[SynthParticipant] = field(default_factory=list)
    #: (round, white participant id, black participant id, result)
    games: list[tuple[int, int, int, str]] = field(default_factory=list)


@dataclass
class Federation:
    clubs: dict[str, str]
    players: list[SynthPlayer]
    tournaments: list[SynthTournament]


SURNAMES = (
    "Müller",
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weber",
    "Meyer",
    "Wagner",
    "Becker",
    "Schulz",
    "Hoffmann",
    "Koch",
    "Richter",
    "Klein",
    "Wolf",
    "Neumann",
    "Braun",
)
GIVEN = {
    "m": ("Lukas", "Jonas", "Felix", "Paul", "Max", "Jan", "Tim", "Tom", "Ben", "Emil"),
    "f": ("Anna", "Lena", "Mia", "Emma", "Lea", "Sofia", "Marie", "Laura", "Julia", "Nina"),
}


def generate(
    players: int,
    years: int,
    seed: int = 1,
    start_year: int | None = None,
    today: date | None = None,
) -> Federation:
    """``years`` years of history up to ``start_year`` (default: this year). Nothing ends,
    is received (processed) or is born after ``today`` (default: the real today), and no
    member joins before the age of 6; tournaments that would end later are left out, so
    the history follows the real Rechenmodul timeline up to today."""
    today = today or date.today()
    start_year = start_year or today.year
    rng = random.Random(seed)
    n_clubs = max(4, players // 40)
    regions = "ABCDE"
    clubs: dict[str, str] = {}
    for k in range(n_clubs):  # region letter, district 00-99, club 01-40: unique VKZ
        region, index = regions[k % len(regions)], k // len(regions)
        vkz = f"{region}{index // 40:02d}{index % 40 + 1:02d}"
        clubs[vkz] = f"SK {SURNAMES[k % len(SURNAMES)]} {k + 1}"
    assert len(clubs) == n_clubs, "too many clubs for the VKZ scheme"
    club_list = sorted(clubs)
    first = date(start_year - years, 1, 1)
    last = date(start_year, 12, 31)
    roster: list[SynthPlayer] = []
    for pid in range(1, players + 1):
        sex = "f" if rng.random() < 0.15 else "m"
        birth = rng.randint(start_year - 80, start_year - 8)
        joined = (
            first - timedelta(days=rng.randint(0, 3000))
            if rng.random() < 0.7
            else (first + timedelta(days=rng.randint(0, (last - first).days)))
        )
        left = None
        if rng.random() < 0.15:
            left = joined + timedelta(days=rng.randint(200, 3000))
        roster.append(
            SynthPlayer(
                pid,
                rng.choice(SURNAMES),
                rng.choice(GIVEN[sex]),
                sex,
                birth,
                rng.gauss(1650, 280) + min(0, (start_year - birth - 20) * 15),
                rng.choice(club_list),
                joined,
                left,
                fide_rating=int(rng.gauss(1900, 200)) if rng.random() < 0.05 else None,
            )
        )
        member = roster[-1]
        if member.joined < first and rng.random() < 0.8:
            member.listed_rating = max(1100, int(member.strength + rng.gauss(0, 80)))
            member.listed_index = rng.randint(3, 60)
    by_club: dict[str, list[SynthPlayer]] = {c: [] for c in club_list}
    for p in roster:
        by_club[p.club].append(p)

    tournaments: list[SynthTournament] = []
    ids = {"t": 0, "p": 0}
    strength: dict[int, float] = {}

    def active(p: SynthPlayer, day: date) -> bool:
        return p.joined <= day and (p.left is None or day <= p.left)

    def new_tournament(name: str, vkz: str, kind: str, start: date, days: int) -> SynthTournament:
        ids["t"] += 1
        end = start + timedelta(days=days)
        late = rng.random() < 0.05
        processed = datetime.combine(
            end + timedelta(days=rng.randint(400, 700) if late else rng.randint(1, 40)),
            datetime.min.time(),
        )
        t = SynthTournament(
            ids["t"], f"S{seed}-{ids['t']:06d}", name, vkz, kind, start, end, processed
        )
        tournaments.append(t)
        return t

    def enter(t: SynthTournament, p: SynthPlayer | None, guest: str | None = None) -> int:
        ids["p"] += 1
        part = SynthParticipant(
            ids["p"],
            None if p is None else p.id,
            start_rank=len(t.participants) + 1,
            club_vkz=None if p is None else p.club,
        )
        if p is None:
            part.textual_name = guest
            if rng.random() < 0.5:
                part.rating_source, part.external_rating = "fide", int(rng.gauss(1900, 250))
        elif p.listed_rating is not None:
            part.rating_source, part.external_rating = "national", p.listed_rating
            part.external_index = p.listed_index
        elif p.fide_rating and rng.random() < 0.5:
            part.rating_source, part.external_rating = "fide", p.fide_rating
        t.participants.append(part)
        return part.id

    def play(t: SynthTournament, rnd: int, a: int, b: int) -> str:
        if rng.random() < 0.02:  # a forfeit: recorded, never rated (WO 2.2.5.2)
            forfeit = rng.choice(("+-", "-+"))
            t.games.append((rnd, a, b, forfeit))
            return forfeit
        d = strength[a] - strength[b]
        p_win = 1 / (1 + 10 ** (-d / 400))
        draw = 0.3 * math.exp(-abs(d) / 400)
        x = rng.random()
        result = "1-0" if x < p_win - draw / 2 else ("1/2-1/2" if x < p_win + draw / 2 else "0-1")
        t.games.append((rnd, a, b, result))
        return result

    def sample_active(day: date, size: int) -> list[SynthPlayer]:
        """``size`` distinct players active on ``day`` (rejection sampling, O(size))."""
        chosen: dict[int, SynthPlayer] = {}
        for _ in range(size * 20):
            p = roster[rng.randrange(len(roster))]
            if active(p, day):
                chosen[p.id] = p
                if len(chosen) == size:
                    break
        return list(chosen.values())

    def seed_strength(pid: int, p: SynthPlayer) -> int:
        strength[pid] = p.strength
        return pid

    for year in range(start_year - years + 1, start_year + 1):
        for vkz in club_list:  # club championships: round robins in about 40 % of clubs
            if rng.random() > 0.4:
                continue
            day = date(year, 1, 10) + timedelta(days=rng.randint(0, 30))
            members = [p for p in by_club[vkz] if active(p, day)]
            if len(members) < 4:
                continue
            field_ = rng.sample(members, min(len(members), rng.randint(6, 10)))
            t = new_tournament(
                f"Club championship {year} {clubs[vkz]}",
                vkz,
                "individual",
                day,
                rng.randint(60, 200),
            )
            pids = [seed_strength(enter(t, p), p) for p in field_]
            for i, a in enumerate(pids):
                for b in pids[i + 1 :]:
                    play(t, 1 + (i % 9), a, b)
        for k in range(max(1, len(club_list) // 10)):  # Swiss opens with guests
            day = date(year, 3, 1) + timedelta(days=rng.randint(0, 250))
            region = club_list[k % len(club_list)][0]
            t = new_tournament(
                f"Open {region} {year}/{k + 1}", f"{region}00", "individual", day, rng.randint(2, 8)
            )
            pids = [seed_strength(enter(t, p), p) for p in sample_active(day, rng.randint(20, 60))]
            for g in range(rng.randint(0, 4)):
                pid = enter(t, None, f"Guest {year}-{k}-{g}")
                strength[pid] = rng.gauss(1800, 250)
                pids.append(pid)
            if len(pids) < 2:
                continue
            score = dict.fromkeys(pids, 0.0)
            for rnd in range(1, rng.randint(5, 9) + 1):
                order = sorted(pids, key=lambda x: (-score[x], -strength[x]))
                for a, b in zip(order[0::2], order[1::2], strict=False):
                    res = play(t, rnd, a, b)
                    score[a] += {"1-0": 1, "+-": 1, "1/2-1/2": 0.5}.get(res, 0)
                    score[b] += {"0-1": 1, "-+": 1, "1/2-1/2": 0.5}.get(res, 0)
        for region in sorted({c[0] for c in club_list}):  # team seasons: leagues of 8 clubs
            regional = [c for c in club_list if c[0] == region]
            rng.shuffle(regional)
            for n, first_club in enumerate(range(0, len(regional), 8)):
                league = regional[first_club : first_club + 8]
                if len(league) < 2:
                    continue
                day = date(year, 9, 15) + timedelta(days=rng.randint(0, 20))
                t = new_tournament(
                    f"League {region}{n + 1} {year}/{year + 1}",
                    f"{region}00",
                    "team",
                    day,
                    rng.randint(150, 220),
                )
                teams = {}
                for c in league:
                    members = [p for p in by_club[c] if active(p, day)]
                    team = sorted(members, key=lambda p: -p.strength)[:4]
                    teams[c] = [seed_strength(enter(t, p), p) for p in team]
                for i, club_a in enumerate(league):
                    for rnd, club_b in enumerate(league[i + 1 :], start=1):
                        for board in range(min(len(teams[club_a]), len(teams[club_b]))):
                            play(t, rnd, teams[club_a][board], teams[club_b][board])
        for _ in range(max(1, len(club_list) // 10)):  # matches (Zweikampf)
            day = date(year, rng.randint(1, 11), rng.randint(1, 28))
            pair = sample_active(day, 2)
            if len(pair) < 2:
                continue
            a_p, b_p = pair
            t = new_tournament(
                f"Match {a_p.surname}-{b_p.surname} {year}",
                a_p.club[:3],
                "match",
                day,
                rng.randint(1, 10),
            )
            a, b = seed_strength(enter(t, a_p), a_p), seed_strength(enter(t, b_p), b_p)
            for rnd in range(1, rng.randint(2, 6) + 1):
                play(t, rnd, a, b) if rnd % 2 else play(t, rnd, b, a)
    return _until(Federation(clubs, roster, tournaments), today)


def _until(fed: Federation, today: date) -> Federation:
    """The federation as of ``today``, applied after the generation so that the random
    stream (and every tournament up to today) stays the same for a seed: tournaments
    ending later are left out, processing times and club entries are capped at today,
    memberships ending later stay open, and a member is at least 6 in the year of joining
    (the birth year moves back where needed: nobody joins before birth)."""
    now = datetime.combine(today, datetime.min.time())
    past = [t for t in fed.tournaments if t.end <= today]
    for t in past:
        t.processed_at = min(t.processed_at, now)
    for p in fed.players:
        p.joined = min(p.joined, today)
        p.birth_year = min(p.birth_year, p.joined.year - 6)
        if p.left is not None and p.left > today:
            p.left = None
    return Federation(fed.clubs, fed.players, past)
