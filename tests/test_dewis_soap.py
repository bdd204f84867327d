"""The DeWIS SOAP interface called as the club-website plugins call it: PHP's ``SoapClient``
in non-WSDL mode, RPC/encoded (Debian's php-cli and php-soap, installed by ``.ci/run``), with
the argument shapes of the Contao bundle's helper and ChessLeagueManager's functions, on a
hand-made federation whose answers are known (tests/data/dewis: two clubs of a district, a
club of another region, six players, a former member, a textual guest, two tournaments).

The answers are read back as PHP decoded them (JSON of the objects PHP built), so every field
a plugin reads is checked with the type PHP gives it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.services.users import add_user
from ratingdb.web.app import create_app
from tests.builders import ok
from tests.web_support import TODAY, client_for, database, engine_for, served

DATA = Path(__file__).parent / "data" / "dewis"
CLIENT = Path(__file__).parent / "php" / "dewis_calls.php"
PHP = shutil.which("php")
ENVELOPE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
    'xmlns:ns1="https://soap" xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><SOAP-ENV:Body>{body}'
    "</SOAP-ENV:Body></SOAP-ENV:Envelope>"
)


@pytest.fixture(scope="module")
def federation(pg_server: Any) -> Iterator[dict[str, Any]]:
    """The federation served under uvicorn: its base URL, player and officer ids."""
    with database(pg_server, "dewis") as url:
        ok(["clubs", "import", str(DATA / "vereine.csv"), str(DATA / "verbaende.csv")], url)
        ok(["players", "import", str(DATA / "spieler-2026-01-01.csv"), "--date", "2026-01-01",
            "--quiet"], url)  # fmt: skip
        ok(["tournament", "import", str(DATA / "stadtmeisterschaft-2026.trf")], url)
        ok(["tournament", "import", str(DATA / "open-weissenfels-2026.trf")], url)
        # Otto Alt leaves: a former member from 2026-06-01 on (one of seven memberships)
        ok(["players", "import", str(DATA / "spieler-2026-06-01.csv"), "--date", "2026-06-01",
            "--quiet", "--force"], url)  # fmt: skip
        ok(["recalc", "--quiet"], url)
        engine = engine_for(url)
        with Session(engine) as session, session.begin():
            # FIDE data as a tournament file and a FIDE rating list would give them
            session.execute(
                text("UPDATE players SET federation = 'GER', title = 'WFM' WHERE surname = 'Weiß'")
            )
            session.execute(
                text(
                    "INSERT INTO external_ratings (player_id, system, federation, rating, "
                    "rated_on) SELECT id, 'fide', 'AUT', 1902, DATE '2026-01-01' FROM players "
                    "WHERE surname = 'Müller'"
                )
            )
            add_user(session, "anna", "officer", ["106"], full_name="Anna Amtlich")
            add_user(session, "bernd", "officer", ["2"], full_name="Bernd Bote")
            add_user(session, "root", "admin", [], full_name="Ada Admin")
            players = dict(session.execute(text("SELECT surname, id FROM players")).all())
            users = dict(session.execute(text("SELECT name, id FROM users")).all())
        app = create_app(engine, today=lambda: TODAY)
        with served(app) as base:
            yield {"base": base, "url": url, "players": players, "users": users}


def php_calls(
    base: str, calls: list[tuple[str, list[Any]]], path: str = "/services/soap/index.php"
):
    """``calls`` made with PHP's SoapClient; what PHP decoded, one entry per call."""
    assert PHP, "php is missing: apt-get install php-cli php-soap (.ci/run installs them)"
    done = subprocess.run(
        [PHP, str(CLIENT), base + path], input=json.dumps(calls), capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one(base: str, operation: str, *args: Any) -> Any:
    (answer,) = php_calls(base, [(operation, list(args))])
    assert "result" in answer, answer
    return answer["result"]


def fault(base: str, operation: str, *args: Any) -> str:
    (answer,) = php_calls(base, [(operation, list(args))])
    assert "fault" in answer, answer
    return str(answer["fault"])


def public_card(federation: dict[str, Any], surname: str) -> dict[str, Any]:
    client = client_for(federation["url"])
    answer = client.get(f"/api/players/{federation['players'][surname]}")
    assert answer.status_code == 200
    return dict(answer.json())


def test_search_by_name_answers_members_with_the_fields_the_plugins_read(federation):
    base, ids = federation["base"], federation["players"]
    # the Contao helper: searchByName(nachname, vorname, 0, 500)
    (m,) = one(base, "searchByName", "Müller", "", 0, 500)["members"]
    card = public_card(federation, "Müller")
    assert m == {
        "pid": ids["Müller"], "surname": "Müller", "firstname": "Jörg", "title": "",
        "gender": "m", "yearOfBirth": 1980, "membership": 17, "vkz": "10614",
        "club": "SC Musterstadt 1920", "state": "", "rating": card["current_rating"],
        "ratingIndex": card["current_index"], "tcode": "DW-2026-2", "finishedOn": "2026-04-20",
        "idfide": 4699001, "nationfide": "AUT", "elo": 1902, "fideTitle": "",
    }  # fmt: skip
    # umlaut spellings fold; ChessLeagueManager passes surname and first name only
    assert [m["pid"] for m in one(base, "searchByName", "Mueller", "Jörg")["members"]] == [
        ids["Müller"]
    ]
    # a first name narrows; the member list is by name
    assert one(base, "searchByName", "Müller", "Hans", 0, 50)["members"] == []


def test_search_by_name_finds_neither_former_members_nor_textual_participants(federation):
    base = federation["base"]
    assert one(base, "searchByName", "Alt", "", 0, 500)["members"] == []
    assert one(base, "searchByName", "Gast", "", 0, 500)["members"] == []


def test_search_by_name_pages_with_offset_and_limit(federation):
    base, ids = federation["base"], federation["players"]
    everyone = one(base, "searchByName", "We", "", 0, 500)["members"]
    assert [m["pid"] for m in everyone] == [ids["Weiß"]]
    first = one(base, "searchByName", "Me", "", 0, 1)["members"]
    assert [m["surname"] for m in first] == ["Meier"]
    assert one(base, "searchByName", "Me", "", 1, 1)["members"] == []


def test_search_by_name_refuses_short_and_bad_surnames_and_limits(federation):
    base = federation["base"]
    assert fault(base, "searchByName", "M", "", 0, 10) == "surname too short"
    assert fault(base, "searchByName", "", "Jörg") == "surname too short"
    assert fault(base, "searchByName", ["Müller"], "") == "that is not a valid surname"
    assert fault(base, "searchByName", "Müller", "", 0, 10**9) == "that is not a valid limit"
    assert fault(base, "searchByName", "Müller", "", -1, 10) == "that is not a valid offset"
    assert fault(base, "searchByName", "Müller", "", "zehn", 10) == "that is not a valid offset"


def test_tournament_card_for_id_is_the_public_karteikarte(federation):
    base, ids, users = federation["base"], federation["players"], federation["users"]
    # the Contao helper passes the id as it comes from the URL: a string
    card = one(base, "tournamentCardForId", str(ids["Müller"]))
    public = public_card(federation, "Müller")
    assert card["member"] == {
        "pid": ids["Müller"], "surname": "Müller", "firstname": "Jörg", "title": "",
        "gender": "", "yearOfBirth": 0, "idfide": 4699001, "fideNation": "AUT", "elo": 1902,
        "fideTitle": "", "rating": public["current_rating"], "ratingIndex": public["current_index"],
    }  # fmt: skip
    assert card["memberships"] == [
        {"vkz": "10614", "club": "SC Musterstadt 1920", "membership": 0, "state": "",
         "assessor": str(users["anna"])},
        {"vkz": "10615", "club": "Schachfreunde Beispieldorf", "membership": 0, "state": "P",
         "assessor": str(users["anna"])},
    ]  # fmt: skip
    evaluations = [e for e in public["evaluations"] if e["kind"] == "evaluation"]
    assert [t["tcode"] for t in card["tournaments"]] == ["DW-2026-1", "DW-2026-2"]
    for row, e in zip(card["tournaments"], evaluations, strict=True):
        assert (row["ratingOld"], row["ratingOldIndex"]) == (e["rating_old"], e["index_old"])
        assert (row["ratingNew"], row["ratingNewIndex"]) == (e["rating_new"], e["index_new"])
        assert row["level"] == e["opponents_avg"]
        assert row["eCoefficient"] == f"{float(e['k']):g}"
    first, second = card["tournaments"]
    # the takeover of the January list is the first R_o; a forfeit win is an unrated game
    assert (first["ratingOld"], first["ratingOldIndex"]) == (1850, 45)
    assert (first["points"], first["games"], first["unratedGames"]) == ("2.5", 4, 1)
    assert (second["points"], second["games"], second["unratedGames"]) == ("1.5", 2, 0)
    assert first["tname"] == "Stadtmeisterschaft Musterstadt 2026"
    assert first["finishedOn"] == "2026-03-15"
    # ranking[1]: the places in the clubs (o6) and the levels above them
    date, places = card["ranking"]
    assert date == TODAY.isoformat()
    assert places[0] == {
        "vkz": "10614",
        "organization": "SC Musterstadt 1920",
        "organizationType": "o6",
        "rank": 1,
        "assessor": str(users["anna"]),
    }
    assert [(p["vkz"], p["organizationType"]) for p in places] == [
        ("10614", "o6"), ("106", "o3"), ("100", "o2"), ("000", "o1"), ("10615", "o6"),
    ]  # fmt: skip


def test_tournament_card_refuses_former_members_and_bad_ids(federation):
    base, ids = federation["base"], federation["players"]
    assert fault(base, "tournamentCardForId", ids["Alt"]) == "that is not a member"
    assert fault(base, "tournamentCardForId", 999_999) == "that is not a member"
    assert fault(base, "tournamentCardForId", "abc") == "no valid id given"
    assert fault(base, "tournamentCardForId", True) == "no valid id given"
    assert fault(base, "tournamentCardForId", {"id": 1}) == "no valid id given"


def test_tournament_card_for_zps_finds_the_member_by_club_and_number(federation):
    base, ids = federation["base"], federation["players"]
    card = one(base, "tournamentCardForZps", "10614-17")
    assert card["member"]["pid"] == ids["Müller"]
    assert one(base, "tournamentCardForZps", "10614-0021")["member"]["surname"] == "Wolf"
    assert fault(base, "tournamentCardForZps", "10614-30") == "that is not a member"  # Alt
    assert fault(base, "tournamentCardForZps", "10614") == "no valid id given"


def test_union_rating_list_is_the_clubs_public_list(federation):
    base, ids, users = federation["base"], federation["players"], federation["users"]
    answer = one(base, "unionRatingList", "10614")
    assert answer["union"] == {"vkz": "10614", "name": "SC Musterstadt 1920"}
    assert answer["ratingOfficer"] == str(users["anna"])
    public = client_for(federation["url"]).get("/api/lists", params={"club": "10614"}).json()
    assert [(m["pid"], m["rating"], m["ratingIndex"]) for m in answer["members"]] == [
        (r["player_id"], r["rating"], r["index"]) for r in public["rows"]
    ]
    # Otto Alt left the club: he is on no list; Hans Meier is a passive member
    assert {m["surname"] for m in answer["members"]} == {"Müller", "Meier", "Wolf"}
    meier = next(m for m in answer["members"] if m["pid"] == ids["Meier"])
    assert (meier["state"], meier["membership"], meier["yearOfBirth"]) == ("P", 18, 1955)
    wolf = next(m for m in answer["members"] if m["pid"] == ids["Wolf"])
    assert (wolf["gender"], wolf["tcode"], wolf["finishedOn"]) == ("f", "DW-2026-2", "2026-04-20")
    # a member without a DWZ but with residual games: rating 0 and a tcode ("Restp.")
    muller, schoen = one(base, "unionRatingList", "10615")["members"]
    assert (muller["surname"], muller["state"], muller["membership"]) == ("Müller", "P", 44)
    assert (schoen["surname"], schoen["rating"], schoen["ratingIndex"]) == ("Schön", 0, 0)
    assert schoen["tcode"] == "DW-2026-2"


def test_union_rating_list_refuses_unknown_and_malformed_clubs(federation):
    base = federation["base"]
    assert fault(base, "unionRatingList", "99999") == "that union does not exists"
    assert fault(base, "unionRatingList", "106") == "that union does not exists"  # a district
    assert fault(base, "unionRatingList", "10-614") == "that is not a valid union id"
    assert fault(base, "unionRatingList") == "that is not a valid union id"


def test_best_of_federation_is_the_public_top_list(federation):
    base, ids, users = federation["base"], federation["players"], federation["users"]
    # the Contao helper sends empty ages and sex when the form leaves them out
    answer = one(base, "bestOfFederation", "00000", 30, "", "", "")
    assert answer["organization"] == {"vkz": "000", "name": "Deutscher Musterbund"}
    public = client_for(federation["url"]).get(
        "/api/lists/top", params={"organisation": "000", "limit": 30}
    )
    assert public.status_code == 200
    assert [(m["pid"], m["rating"], m["ratingIndex"]) for m in answer["members"]] == [
        (r["player_id"], r["rating"], r["index"]) for r in public.json()["rows"]
    ]
    # members with a DWZ only: neither the former member nor the unrated Schön
    assert {m["surname"] for m in answer["members"]} == {"Weiß", "Müller", "Meier", "Wolf"}
    weiss = answer["members"][0]
    assert (weiss["pid"], weiss["vkz"], weiss["club"], weiss["gender"]) == (
        ids["Weiß"], "20101", "SK Weißenfels", "f",
    )  # fmt: skip
    assert (weiss["yearOfBirth"], weiss["tcode"], weiss["idfide"]) == (2001, "DW-2026-2", 4699002)
    assert (weiss["nationfide"], weiss["fideTitle"], weiss["elo"]) == ("GER", "WFM", 0)
    # a district by its DeWIS form (trailing zeros), its officer
    district = one(base, "bestOfFederation", "10600", 10)
    assert district["organization"]["vkz"] == "106"
    assert district["ratingOfficer"] == str(users["anna"])
    assert {m["surname"] for m in district["members"]} == {"Müller", "Meier", "Wolf"}
    meier = next(m for m in district["members"] if m["surname"] == "Meier")
    assert meier["state"] == "P"


def test_best_of_federation_selects_by_age_sex_and_limit(federation):
    base = federation["base"]

    def names(*args: Any) -> list[str]:
        return [m["surname"] for m in one(base, "bestOfFederation", *args)["members"]]

    everyone = names("00000", 100)
    assert names("00000", 1) == everyone[:1]
    # Rangliste.php's lists: all (0-120), women, U20, 60+ (ages in 2026)
    assert names("00000", 1000, 0, 120, "") == everyone
    assert names("00000", 500, 0, 120, "f") == ["Weiß", "Wolf"]
    assert names("00000", 1000, 0, 20, "") == ["Wolf"]  # born 2008: 18
    assert names("00000", 1000, 60, 120, "") == ["Meier"]  # born 1955: 71
    assert names("00000", 1000, 25, 25, "") == ["Weiß"]  # born 2001: 25
    # the Contao bundle asks for 500 more places than it shows: served, at most 1000
    assert names("00000", 1450, 0, 140, "") == everyone


def test_best_of_federation_refuses_bad_arguments(federation):
    base = federation["base"]
    assert fault(base, "bestOfFederation", "X9", 10) == "that federation does not exists"
    assert fault(base, "bestOfFederation", "1 0", 10) == "that is not a valid federation id"
    assert fault(base, "bestOfFederation", "000", 10**6) == "that is not a valid limit"
    assert fault(base, "bestOfFederation", "000", -5) == "that is not a valid limit"
    assert fault(base, "bestOfFederation", "000", 10, 30, 20) == "that is not a valid age"
    assert fault(base, "bestOfFederation", "000", 10, 0, 200) == "that is not a valid age"
    assert fault(base, "bestOfFederation", "000", 10, 0, 20, "x") == "that is not a valid sex"
    assert fault(base, "bestOfFederation", "000", [1, 2]) == "that is not a valid limit"


def test_tournament_lists_the_published_participants_evaluation(federation):
    base, ids, users = federation["base"], federation["players"], federation["users"]
    answer = one(base, "tournament", "DW-2026-1")
    head = answer["tournament"]
    assert {k: head[k] for k in ("tcode", "tname", "finishedOn", "rounds", "cntPlayer",
                                 "cntGames", "assessor1", "assessor2", "recomputedOn")} == {
        "tcode": "DW-2026-1", "tname": "Stadtmeisterschaft Musterstadt 2026",
        "finishedOn": "2026-03-15", "rounds": 5, "cntPlayer": 6, "cntGames": 15,
        "assessor1": str(users["anna"]), "assessor2": "", "recomputedOn": "",
    }  # fmt: skip
    assert head["computedOn"][:4] == "2026" and len(head["computedOn"]) == 19
    rows = {r["pid"]: r for r in answer["evaluation"]}
    # the former member and the guest are textual participants: not in the evaluation
    assert set(rows) == {ids["Weiß"], ids["Müller"], ids["Meier"], ids["Wolf"]}
    weiss = rows[ids["Weiß"]]
    assert (weiss["surname"], weiss["firstname"], weiss["vkz"], weiss["club"]) == (
        "Weiß", "Wiebke", "20101", "SK Weißenfels",
    )  # fmt: skip
    assert (weiss["points"], weiss["games"], weiss["ratingOld"]) == ("4.5", 5, 2011)
    card = public_card(federation, "Weiß")
    stored = next(e for e in card["evaluations"] if e.get("tournament") == "DW-2026-1")
    assert (weiss["ratingNew"], weiss["ratingNewIndex"]) == (
        stored["rating_new"],
        stored["index_new"],
    )
    assert weiss["we"] == f"{float(stored['expected']):.3f}"
    assert weiss["achievement"] == stored["performance"]
    assert rows[ids["Müller"]]["unratedGames"] == 1


def test_tournament_pairings_name_textual_participants_without_a_player_id(federation):
    base, ids = federation["base"], federation["players"]
    answer = one(base, "tournamentPairings", "DW-2026-1")
    assert answer["tournament"]["tcode"] == "DW-2026-1"
    assert [r["no"] for r in answer["rounds"]] == [1, 2, 3, 4, 5]
    assert all(len(r["games"]) == 3 for r in answer["rounds"])
    forfeit = next(g for g in answer["rounds"][3]["games"] if g["result"] == "+:-")
    assert (forfeit["idWhite"], forfeit["white"], forfeit["black"]) == (
        ids["Müller"], "Müller, Jörg", "Alt, Otto",
    )  # fmt: skip
    assert forfeit["idBlack"] < 0  # a textual participant: minus his participant number
    # the Contao helper sums points from the result's first and third character
    points: dict[int, float] = {}
    value = {"1": 1.0, "½": 0.5, "+": 1.0, "0": 0.0, "-": 0.0}
    for r in answer["rounds"]:
        for g in r["games"]:
            points[g["idWhite"]] = points.get(g["idWhite"], 0) + value[g["result"][0]]
            points[g["idBlack"]] = points.get(g["idBlack"], 0) + value[g["result"][2]]
    assert points[ids["Weiß"]] == 4.5 and points[ids["Müller"]] == 3.5
    assert sorted(points.values()) == [0.0, 2.0, 2.0, 3.0, 3.5, 4.5]
    # the former member and the guest: two textual participants
    assert len([pid for pid in points if pid < 0]) == 2


def test_tournament_pairings_by_player_are_one_published_players_games(federation):
    base, ids = federation["base"], federation["players"]
    answer = one(base, "tournamentPairingsByPlayer", "DW-2026-1", str(ids["Müller"]))
    assert answer["tournament"]["tcode"] == "DW-2026-1"
    assert [(g["white"], g["black"], g["result"]) for g in answer["games"]] == [
        ("Müller, Jörg", "Wolf, Lea", "½:½"), ("Weiß, Wiebke", "Müller, Jörg", "1:0"),
        ("Müller, Jörg", "Gast, Gustav", "1:0"), ("Müller, Jörg", "Alt, Otto", "+:-"),
        ("Meier, Hans", "Müller, Jörg", "0:1"),
    ]  # fmt: skip
    # a former member is a textual participant: no games under his player id
    assert one(base, "tournamentPairingsByPlayer", "DW-2026-1", ids["Alt"])["games"] == []
    assert fault(base, "tournamentPairingsByPlayer", "DW-2026-1", "x") == "no valid id given"
    assert fault(base, "tournamentPairingsByPlayer", "NOPE", 1) == "that is not a valid tournament"


def test_tournament_and_pairings_refuse_unknown_codes(federation):
    base = federation["base"]
    assert fault(base, "tournament", "NO-SUCH") == "that is not a valid tournament"
    assert fault(base, "tournamentPairings", "NO-SUCH") == "that is not a valid tournament"
    assert fault(base, "tournament", "") == "that is not a valid tournament code"
    assert fault(base, "tournamentPairings", "x" * 31) == "that is not a valid tournament code"


def test_tournaments_by_period_filter_by_level_and_name(federation):
    base, users = federation["base"], federation["users"]

    def codes(*args: Any) -> list[str]:
        return [t["tcode"] for t in one(base, "tournamentsByPeriod", *args)["tournaments"]]

    # the Contao helper: (von, bis, zps, true, "", suche)
    assert codes("2026-01-01", "2026-12-31", "000", True, "", "") == ["DW-2026-2", "DW-2026-1"]
    assert codes("2026-01-01", "2026-12-31", "100", True, "", "") == ["DW-2026-1"]
    assert codes("2026-01-01", "2026-12-31", "200", True, "", "") == ["DW-2026-2"]
    assert codes("2026-01-01", "2026-12-31", "000", True, "", "weiß") == ["DW-2026-2"]
    assert codes("2026-04-01", "2026-04-30", "000", True, "", "") == ["DW-2026-2"]
    assert codes("2025-01-01", "2025-12-31", "000", True, "", "") == []
    (t,) = one(base, "tournamentsByPeriod", "2026-03-01", "2026-03-31", "000", True, "", "")[
        "tournaments"
    ]
    assert {k: t[k] for k in ("tname", "finishedOn", "cntPlayer", "cntGames", "rounds",
                              "assessor1")} == {
        "tname": "Stadtmeisterschaft Musterstadt 2026", "finishedOn": "2026-03-15",
        "cntPlayer": 6, "cntGames": 15, "rounds": 5, "assessor1": str(users["anna"]),
    }  # fmt: skip
    assert isinstance(t["tid"], int)


def test_tournaments_by_period_refuse_periods_and_levels(federation):
    base = federation["base"]
    period = "from and to must lie in the same year, from not after to"
    assert fault(base, "tournamentsByPeriod", "2025-06-01", "2026-05-31", "000") == period
    assert fault(base, "tournamentsByPeriod", "2026-06-01", "2026-05-31", "000") == period
    assert (
        fault(base, "tournamentsByPeriod", "2026-13-01", "2026-12-31") == "that is not a valid date"
    )
    assert fault(base, "tournamentsByPeriod", "2026-01-01", "2026-12-31", "900") == (
        "tournament level not valid"
    )


def test_organizations_is_the_tree_of_levels_and_clubs(federation):
    base, users = federation["base"], federation["users"]
    tree = one(base, "organizations", "00000")
    assert (tree["vkz"], tree["club"], tree["p"]) == ("000", "Deutscher Musterbund", 0)
    assert [c["vkz"] for c in tree["children"]] == ["100", "200"]
    region = tree["children"][0]
    (district,) = region["children"]
    assert (district["vkz"], district["p"], district["assessor"]) == (
        "106", region["id"], str(users["anna"]),
    )  # fmt: skip
    assert [(c["vkz"], c["club"], c["children"]) for c in district["children"]] == [
        ("10614", "SC Musterstadt 1920", []), ("10615", "Schachfreunde Beispieldorf", []),
    ]  # fmt: skip
    # ChessLeagueManager calls it without an argument and flattens club and vkz in order
    whole = one(base, "organizations")
    assert whole == tree

    def flat(node: dict[str, Any]) -> list[str]:
        return [node["club"], node["vkz"], *(x for c in node["children"] for x in flat(c))]

    assert flat(whole)[:6] == [
        "Deutscher Musterbund",
        "000",
        "Musterländischer Schachverband",
        "100",
        "Bezirk Musterstadt",
        "106",
    ]
    # a level named with trailing zeros, as the Contao bundle sends it
    assert one(base, "organizations", "10600")["vkz"] == "106"
    assert one(base, "organizations", "20101")["children"] == []
    assert fault(base, "organizations", "X9") == "that federation does not exists"
    assert fault(base, "organizations", "1 0") == "that is not a valid federation id"


def test_rating_officer_gives_the_officers_name(federation):
    base, users = federation["base"], federation["users"]
    officer = one(base, "ratingOfficer", str(users["anna"]))
    assert (officer["firstname"], officer["surname"]) == ("Anna", "Amtlich")
    assert (officer["street"], officer["zip"], officer["city"], officer["email"]) == (
        "",
        "",
        "",
        "",
    )
    assert fault(base, "ratingOfficer", users["root"]) == "that rating officer does not exists"
    assert fault(base, "ratingOfficer", 10**6) == "that rating officer does not exists"
    assert fault(base, "ratingOfficer", "x") == "no valid id given"


def test_the_clean_alias_answers_the_same(federation):
    base = federation["base"]
    (alias,) = php_calls(base, [("unionRatingList", ["10614"])], path="/dewis/soap")
    assert alias["result"] == one(base, "unionRatingList", "10614")


def test_unknown_operations_are_faults(federation):
    base = federation["base"]
    assert fault(base, "deleteEverything", 1) == "unknown operation: deleteEverything"


def _post(base: str, body: bytes | str) -> httpx.Response:
    return httpx.post(
        base + "/services/soap/index.php", content=body, timeout=30,
        headers={"Content-Type": "text/xml; charset=utf-8"},
    )  # fmt: skip


def _faultstring(answer: httpx.Response) -> str:
    assert answer.headers["content-type"].startswith("text/xml"), answer.text
    start = answer.text.index("<faultstring>") + len("<faultstring>")
    return answer.text[start : answer.text.index("</faultstring>")]


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 or "")) * 10}">' for i in range(1, 10))
    + ']><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/">'
    "<SOAP-ENV:Body><searchByName><a>&lol9;</a></searchByName></SOAP-ENV:Body>"
    "</SOAP-ENV:Envelope>"
)
EXTERNAL_ENTITY = (
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/">'
    "<SOAP-ENV:Body><searchByName><a>&e;</a></searchByName></SOAP-ENV:Body></SOAP-ENV:Envelope>"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (BILLION_LAUGHS, "that is not a SOAP request: document type declarations and entities "
         "are not allowed"),
        (EXTERNAL_ENTITY, "that is not a SOAP request: document type declarations and entities "
         "are not allowed"),
        ("<Envelope", "that is not a SOAP request: not well-formed XML"),
        ("", "that is not a SOAP request: not well-formed XML"),
        ("<a/>", "that is not a SOAP request: no SOAP envelope"),
        (ENVELOPE.format(body=""), "that is not a SOAP request: the body must hold exactly one "
         "operation"),
        (ENVELOPE.format(body="<ns1:unionRatingList><z>10614</z><y/></ns1:unionRatingList>"
                              "<ns1:tournament/>"),
         "that is not a SOAP request: the body must hold exactly one operation"),
        ("<x>" + "a" * 70_000 + "</x>", "request too large"),
    ],
    ids=["billion-laughs", "external-entity", "broken", "empty", "no-envelope", "no-operation",
         "two-operations", "too-large"],
)  # fmt: skip
def test_bad_envelopes_are_faults_never_500(federation, body, expected):
    answer = _post(federation["base"], body)
    assert answer.status_code == 200
    assert _faultstring(answer) == expected
    assert "Traceback" not in answer.text


def test_a_raw_rpc_call_without_types_is_answered(federation):
    body = ENVELOPE.format(body="<ns1:unionRatingList><zps>10614</zps></ns1:unionRatingList>")
    answer = _post(federation["base"], body)
    assert answer.status_code == 200
    assert "<ns1:unionRatingListResponse>" in answer.text
    assert '<name xsi:type="xsd:string">SC Musterstadt 1920</name>' in answer.text
    assert 'xsi:type="SOAP-ENC:Array"' in answer.text


def test_get_is_no_server_error(federation):
    answer = httpx.get(federation["base"] + "/services/soap/index.php", timeout=30)
    assert answer.status_code == 405


def test_the_page_cache_keeps_calls_by_their_body_until_a_change_touches_them(federation):
    """Answers come from the page cache while nothing changes, per call (its body); a
    committed change of a listed player is shown at once."""
    from fastapi.testclient import TestClient

    url, ids = federation["url"], federation["players"]
    call = ENVELOPE.format(body="<ns1:unionRatingList><zps>10614</zps></ns1:unionRatingList>")
    other = ENVELOPE.format(body="<ns1:unionRatingList><zps>10615</zps></ns1:unionRatingList>")
    engine = engine_for(url)
    with TestClient(create_app(engine, today=lambda: TODAY, cache=True)) as client:

        def post(body: str) -> Any:
            return client.post("/services/soap/index.php", content=body.encode())

        first, again = post(call), post(call)
        assert (first.status_code, again.status_code) == (200, 200)
        assert (first.headers["x-cache"], again.headers["x-cache"]) == ("miss", "hit")
        assert again.content == first.content and "Jörg<" in first.text
        assert post(other).headers["x-cache"] == "miss"
        assert post(other).headers["x-cache"] == "hit"
        try:
            with engine.begin() as conn:  # a player of another club: the list stays
                conn.execute(
                    text("UPDATE players SET given_name = 'Wibke' WHERE id = :p"),
                    {"p": ids["Weiß"]},
                )
            assert post(call).headers["x-cache"] == "hit"
            with engine.begin() as conn:
                conn.execute(
                    text("UPDATE players SET given_name = 'Jörgen' WHERE id = :p"),
                    {"p": ids["Müller"]},
                )
            changed = post(call)
            assert changed.headers["x-cache"] == "miss" and "Jörgen<" in changed.text
        finally:
            with engine.begin() as conn:
                for surname, given in (("Müller", "Jörg"), ("Weiß", "Wiebke")):
                    conn.execute(
                        text("UPDATE players SET given_name = :g WHERE id = :p"),
                        {"g": given, "p": ids[surname]},
                    )


def test_a_call_over_its_statement_time_is_a_server_fault_not_a_500(federation, monkeypatch):
    from ratingdb.web.dewis import service

    def slow(session: Session, today: Any, args: Any) -> Any:
        return session.execute(text("SELECT pg_sleep(5)")).scalar()

    monkeypatch.setattr(service, "STATEMENT_TIMEOUT", "50ms")
    monkeypatch.setitem(service.OPERATIONS, "organizations", slow)
    body = ENVELOPE.format(body="<ns1:organizations><zps>00000</zps></ns1:organizations>")
    answer = _post(federation["base"], body)
    assert answer.status_code == 503
    assert _faultstring(answer) == "the rating database is not available, try again later"
    assert "<faultcode>SOAP-ENV:Server</faultcode>" in answer.text


def test_calls_beyond_the_concurrent_ones_wait_then_get_busy(federation, monkeypatch):
    from ratingdb.web.dewis import service

    monkeypatch.setattr(service, "CONCURRENT", 0)  # every slot taken
    monkeypatch.setattr(service, "WAIT", 0.05)
    service._slots.clear()
    try:
        (answer,) = php_calls(federation["base"], [("unionRatingList", ["10614"])])
        assert answer == {"fault": "too many requests, try again later", "code": "SOAP-ENV:Server"}
    finally:
        monkeypatch.undo()
        service._slots.clear()
    assert one(federation["base"], "unionRatingList", "10614")["union"]["vkz"] == "10614"


def test_chessleaguemanagers_wsdl_mode_calls_are_answered(federation):
    """ChessLeagueManager's older functions load the WSDL and call by it: the club tree
    without an argument, a club's list, a card per member, a search by two names."""
    base, ids = federation["base"], federation["players"]
    assert PHP, "php is missing: apt-get install php-cli php-soap (.ci/run installs them)"
    calls = [
        ("organizations", []),
        ("unionRatingList", ["10614"]),
        ("tournamentCardForId", [ids["Wolf"]]),
        ("searchByName", ["Wolf", "Lea"]),
        ("unionRatingList", ["99999"]),
        ("tournamentsByPeriod", ["2026-01-01", "2026-12-31", "000", True, "", ""]),
    ]
    done = subprocess.run(
        [PHP, str(CLIENT), base + "/services/files/dewis.wsdl", "wsdl"], input=json.dumps(calls),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    tree, union, card, search, unknown, period = json.loads(done.stdout)
    assert tree["result"] == one(base, "organizations")
    assert union["result"] == one(base, "unionRatingList", "10614")
    assert card["result"]["member"]["surname"] == "Wolf"
    assert [m["pid"] for m in search["result"]["members"]] == [ids["Wolf"]]
    assert unknown["fault"] == "that union does not exists"
    assert [t["tcode"] for t in period["result"]["tournaments"]] == ["DW-2026-2", "DW-2026-1"]


def test_the_wsdl_names_every_operation_and_this_server(federation):
    from ratingdb.web.dewis.operations import OPERATIONS, PARAMETERS

    assert set(PARAMETERS) == set(OPERATIONS)
    answer = httpx.get(federation["base"] + "/dewis/dewis.wsdl", timeout=30)
    assert answer.status_code == 200
    for name in OPERATIONS:
        assert f'<operation name="{name}">' in answer.text
    assert f'location="{federation["base"]}/services/soap/index.php"' in answer.text


def test_a_deeply_nested_argument_is_a_wrong_type_not_a_crash(federation):
    nested = "<a>" * 8_000 + "x" + "</a>" * 8_000  # 56 KiB, within the limit
    body = ENVELOPE.format(body=f"<ns1:unionRatingList>{nested}</ns1:unionRatingList>")
    answer = _post(federation["base"], body)
    assert answer.status_code == 200
    assert _faultstring(answer) == "that is not a valid union id"
