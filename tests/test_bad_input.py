"""Bad input of every kind: one error line and exit code 2 on the command
line, a 4xx on the web, and the database unchanged; then the plausibility bounds (dates,
known organisations, the share of memberships one member list may end) and the officer's
scope for new members (WO 6.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from ratingdb.io.json_input import MAX_DEPTH, load_json
from ratingdb.io.tournament_file import read_tournament
from ratingdb.io.trf import MAX_POINTS
from tests.cli import run
from tests.web_support import bearer, client_for, document, engine_for, synth_database, user_token

DATA = Path(__file__).parent / "data"
FIXTURES = Path(__file__).parent / "fixtures"
RECENT_A = "S3-000016"  # Open A 2026/1, VKZ A00, ended 2026-07-29
#: the tables a bad input could touch
TABLES = (
    "organisations", "players", "memberships", "tournaments", "participants", "games",
    "change_points", "audit_log", "rating_adjustments", "rechenmodule", "rating_takeovers",
)  # fmt: skip


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        tokens = {
            "officer_c": user_token(url, "officer-c", "officer", ["C00"]),
            "admin": user_token(url, "admin", "admin"),
        }
        yield url, client_for(url), tokens


def state(url) -> dict[str, object]:
    """Row counts of every table a write touches, and the memberships' end dates."""
    with engine_for(url).connect() as conn:
        out: dict[str, object] = {
            t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in TABLES
        }
        out["ended"] = conn.execute(
            text("SELECT count(*), max(valid_to) FROM memberships WHERE valid_to IS NOT NULL")
        ).one()
    return out


def one_error_line(out, *needles: str) -> str:
    """Exit code 2, nothing on stdout, exactly one line ``error: ...`` holding ``needles``
    (a file's ``warning:`` lines may come first)."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr and out.stdout == ""
    lines = [x for x in out.stderr.strip().splitlines() if not x.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def deep(levels: int, kind: str = "array") -> str:
    if kind == "array":
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


def example() -> dict:
    return json.loads((FIXTURES / "wo-2026-example.json").read_text())


# -- the one JSON loader ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "where", "problem"),
    [
        (deep(1000), "$", "nested deeper than 64 levels"),
        (deep(1000, "object"), "$", "nested deeper than 64 levels"),
        (deep(MAX_DEPTH + 1), "$" + "[0]" * MAX_DEPTH, "nested deeper than 64 levels"),
        ('{"t": {"name": "x", "name": "y"}}', "$.t.name", "the key is given twice"),
        ('{"name": "\\ud800"}', "$.name", "lone surrogate \\ud800"),
        ('{"name": "a\\u0000b"}', "$.name", "a NUL character at position 2"),
        ('{"\\u0000": 1}', "$", "a key holds a NUL"),
        ('{"index": ' + "1" + "0" * 400 + "}", "$.index", "has 401 digits"),
        ('{"k": 1e400}', "$.k", "the number 1e400 is out of range"),
        ('{"k": [NaN]}', "$.k[0]", "NaN is not a JSON value"),
        ('{"k": -Infinity}', "$.k", "-Infinity is not a JSON value"),
        ('{"k": 1', "line 1, column 8", "malformed JSON"),
    ],
)
@pytest.mark.usefixtures("in_english")
def test_the_loader_refuses_with_the_place(raw, where, problem):
    with pytest.raises(Exception) as caught:
        load_json(raw)
    assert type(caught.value).__name__ in ("InputError", "JsonSyntaxError")
    assert caught.value.location == where and problem in caught.value.message  # type: ignore[attr-defined]


def test_the_loader_keeps_what_is_fine():
    assert load_json(deep(MAX_DEPTH)) is not None
    assert load_json('{"a": [1, 2.5, "Müller, Änne", null, true]}') == {
        "a": [1, 2.5, "Müller, Änne", None, True]
    }
    assert load_json('{"a": {"b": 1}, "c": {"b": 2}}')["c"]["b"] == 2  # same key, other objects


# -- the command line: one line, exit code 2, nothing written --------------------------------
def test_deep_json_everywhere_on_the_command_line(world, tmp_path):
    url, _, _ = world
    before = state(url)
    for kind in ("array", "object"):
        path = tmp_path / f"deep-{kind}.json"
        path.write_text(deep(1000, kind))
        for args in (
            ["evaluate", str(path)],
            ["tournament", "add", str(path)],
            ["tournament", "correct", RECENT_A, str(path)],
            ["rechenmodul", "add", "--version", "x", "--valid-from", "2026-09-01",
             "--parameters", str(path)],
        ):  # fmt: skip
            one_error_line(run(args, url), str(path), "nested deeper than 64 levels")
    one_error_line(
        run(["rechenmodul", "add", "--version", "x", "--valid-from", "2026-09-01",
             "--set", f"k0={deep(1000, 'object')}"], url),
        "parameter k0",  # the parameter schema names it (tests/test_parameter_schema.py)
    )  # fmt: skip
    assert state(url) == before


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda raw: raw.replace('"name": "Test"', '"name": "Test", "name": "Other"'),
         "$.tournament.name: the key is given twice"),
        (lambda raw: raw.replace('"Test"', '"Te\\ud800st"'), "lone surrogate \\ud800"),
        (lambda raw: raw.replace('"Test"', '"Te\\u0000st"'), "a NUL character"),
        (lambda raw: raw.replace('"2026-10-01"', '"9999-12-31"'), "not plausible"),
    ],
)  # fmt: skip
def test_bad_submission_strings_and_keys(world, tmp_path, change, needle):
    url, _, _ = world
    doc = document(url, RECENT_A, id="X-BAD", name="Test", start="2026-10-01", end="2026-10-01")
    path = tmp_path / "t.json"
    path.write_text(change(json.dumps(doc)))
    before = state(url)
    one_error_line(run(["tournament", "add", str(path)], url), "t.json", needle)
    assert state(url) == before


def test_a_new_member_named_with_a_surrogate(world, tmp_path):
    url, _, _ = world
    doc = document(url, RECENT_A, id="X-SUR", name="S", start="2026-10-01", end="2026-10-01")
    doc["players"][0] = {"id": doc["players"][0]["id"], "name": "Neu\ud800, Nina",
                         "club": "A0001", "member_since": "2026-01-01"}  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))  # json.dumps writes the lone surrogate as \ud800
    before = state(url)
    one_error_line(run(["tournament", "add", str(path)], url), "$.players[0].name", "\\ud800")
    assert state(url) == before


def test_evaluate_refuses_indexes_ratings_and_dates_outside_their_ranges(world, tmp_path):
    url, _, _ = world
    cases = [
        (("players", 0, "index"), 10**400, "$.players[0].index", "has 401 digits"),
        (("players", 0, "index"), 1000, "$.players[0].index", "an index is 0 to 999, got 1000"),
        (("players", 0, "index"), -1, "$.players[0].index", "an index is 0 to 999"),
        (("players", 0, "rating"), 4001, "$.players[0].rating", "at most 4000"),
        (("players", 0, "rating"), 0, "$.players[0].rating", "must be positive"),
        (("tournament", "end"), "9999-12-31", "$.tournament.end", "not plausible"),
        (("tournament", "start"), "0001-01-01", "$.tournament.start", "not plausible"),
        (("games", 0, "round"), 10**6, "$.games[0].round", "a round number is 0 to 9999"),
    ]
    for keys, value, where, needle in cases:
        doc = example()
        target = doc
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
        path = tmp_path / "e.json"
        path.write_text(json.dumps(doc))
        line = one_error_line(run(["evaluate", str(path)], url), where, needle)
        assert "0" * 40 not in line  # a huge number is never printed back


def test_trf_points_column_beyond_any_score(world, tmp_path):
    """9E99 and 1E28 in the points column: a warning (the column is only checked against the
    results, as any other unreadable points column), never decimal.InvalidOperation."""
    url, _, _ = world
    lines = (DATA / "trf" / "swiss-manager.trf").read_text(encoding="utf-8").split("\n")
    players = [k for k, line in enumerate(lines) if line.startswith("001")]
    for k, value in zip(players, ("9E99", "1E28", "-0.5", "99E9"), strict=False):
        lines[k] = lines[k][:80] + value + lines[k][84:]
    data = "\n".join(lines).encode()
    t = read_tournament(data, "p.trf")
    flagged = [w for w in t.warnings if "Spalte 81: die Punkte sind keine Zahl" in w]
    assert len(flagged) == 4 and all(p.points is None for p in t.players[:4])
    assert MAX_POINTS == 9999
    path = tmp_path / "p.trf"
    path.write_bytes(data)
    before = state(url)
    out = run(["tournament", "import", str(path), "--id", "P1", "--vkz", "A00", "--end",
               "2026-05-01"], url)  # fmt: skip
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "9E99" in out.stderr and state(url)["tournaments"] == before["tournaments"] + 1  # type: ignore[operator]
    assert run(["tournament", "delete", "P1"], url).returncode == 0


@pytest.mark.parametrize(
    ("encoding", "needle"),
    [
        ("utf\x00", "a NUL character"),  # the command line refuses it as an argument
        ("rot13", "unknown encoding"),
        ("no-such-codec", "unknown encoding"),
    ],
)
def test_bad_encodings_are_one_line(world, encoding, needle):
    url, _, _ = world
    before = state(url)
    path = str(DATA / "trf" / "swiss-manager.trf")
    one_error_line(
        run(["tournament", "import", path, "--id", "E1", "--vkz", "A00", "--encoding", encoding],
            url),
        needle,
    )  # fmt: skip
    assert state(url) == before


def test_unicode_escape_cannot_smuggle_a_nul_or_surrogate(world, tmp_path):
    url, _, _ = world
    lines = (DATA / "trf" / "swiss-manager.trf").read_text(encoding="utf-8").split("\n")
    k = next(k for k, line in enumerate(lines) if line.startswith("001"))
    lines[k] = lines[k][:14] + "Anker\\x00Arne" + lines[k][27:]
    path = tmp_path / "nul.trf"
    path.write_text("\n".join(lines), encoding="utf-8")
    before = state(url)
    one_error_line(
        run(["tournament", "import", str(path), "--id", "N1", "--vkz", "A00", "--encoding",
             "unicode_escape"], url),
        f"nul.trf:{k + 1}:20", "a NUL character",
    )  # fmt: skip
    assert state(url) == before


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "show", "\udcff"],
        ["export", "list", "--club", "A\udcc3"],
        ["tournament", "add", "/tmp/\udcff.json"],
    ],
)
def test_arguments_that_are_not_utf8(world, args):
    """Bytes that are not UTF-8 on the command line arrive as lone surrogates."""
    url, _, _ = world
    one_error_line(run(args, url), "not UTF-8 text")


# -- dates -------------------------------------------------------------------------------------
def test_dates_out_of_range_are_one_line(world, tmp_path):
    url, _, _ = world
    before = state(url)
    one_error_line(
        run(["export", "list", "--federation", "A", "--date", "9999-12-31"], url),
        "date: 9999-12-31 is not plausible",
    )
    one_error_line(
        run(["export", "list", "--federation", "A", "--date", "1900-01-01", "--format",
             "dsb-csv"], url),
        "1900-01-01 is not plausible",
    )  # fmt: skip
    one_error_line(run(["adjustment", "add", "--date", "0001-01-01"], url), "--date: 0001-01-01")
    one_error_line(run(["player", "join", "1", "--club", "A0001", "--from", "1800-01-01"], url),
                   "--from: 1800-01-01")  # fmt: skip
    # a correction to the year 1800, a tournament from 0001 to 9999, one that ends tomorrow
    for start, end, needle in [
        ("1800-05-01", "1800-05-02", "$.tournament.start: 1800-05-01 is not plausible"),
        ("0001-01-01", "9999-12-31", "$.tournament.start"),
        ("2026-12-30", "2027-01-01", "$.tournament.end: end 2027-01-01 is after today"),
    ]:
        doc = document(url, RECENT_A, start=start, end=end)
        path = tmp_path / "c.json"
        path.write_text(json.dumps(doc))
        one_error_line(run(["tournament", "correct", RECENT_A, str(path)], url), needle)
        doc["tournament"]["id"] = "X-DATES"
        path.write_text(json.dumps(doc))
        one_error_line(run(["tournament", "add", str(path)], url), needle)
    assert state(url) == before
    assert run(["recalc", "--quiet"], url).returncode == 0


def test_plausibility_bounds_are_configurable(world, tmp_path, monkeypatch):
    url, _, _ = world
    doc = document(url, RECENT_A, id="X-OLD", start="1949-06-01", end="1949-06-02")
    path = tmp_path / "o.json"
    path.write_text(json.dumps(doc))
    one_error_line(run(["tournament", "add", str(path)], url), "(from 1950-01-01 to")
    monkeypatch.setenv("RATINGDB_EARLIEST_DATE", "1900-01-01")
    assert run(["tournament", "add", str(path)], url).returncode == 0
    assert run(["tournament", "delete", "X-OLD"], url).returncode == 0
    monkeypatch.setenv("RATINGDB_EARLIEST_DATE", "19")
    one_error_line(run(["tournament", "add", str(path)], url), "RATINGDB_EARLIEST_DATE")


# -- known organisations ---------------------------------------------------------------------
def test_a_tournament_vkz_must_name_a_known_organisation(world, tmp_path):
    url, _, _ = world
    doc = document(url, RECENT_A, id="X-ORG", vkz="A05", start="2026-10-01", end="2026-10-01")
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    before = state(url)
    one_error_line(run(["tournament", "add", str(path)], url),
                   "$.tournament.vkz: no organisation has the VKZ 'A05'")  # fmt: skip
    doc["tournament"]["create_organisation"] = "yes"
    path.write_text(json.dumps(doc))
    one_error_line(run(["tournament", "add", str(path)], url), "expected true or false")
    trf = str(DATA / "trf" / "swiss-manager.trf")
    one_error_line(run(["tournament", "import", trf, "--id", "X-T", "--vkz", "A05"], url),
                   "no organisation has the VKZ 'A05'")  # fmt: skip
    assert state(url) == before
    doc["tournament"]["create_organisation"] = True
    path.write_text(json.dumps(doc))
    assert run(["tournament", "add", str(path)], url).returncode == 0
    with engine_for(url).connect() as conn:
        made = conn.execute(
            text(
                "SELECT o.name, o.kind, p.vkz FROM organisations o "
                "JOIN organisations p ON p.id = o.parent_id WHERE o.vkz = 'A05'"
            )
        ).one()
    assert tuple(made) == ("Verband A05", "district", "A")
    out = run(["tournament", "import", trf, "--id", "X-T", "--vkz", "A0599",
               "--create-organisation", "--end", "2026-05-01"], url)  # fmt: skip
    assert out.returncode == 0, out.stderr
    for code in ("X-ORG", "X-T"):
        assert run(["tournament", "delete", code], url).returncode == 0


# -- the member list ------------------------------------------------------------------------
def test_a_header_only_member_list_ends_nothing_without_force(world, tmp_path):
    url, _, _ = world
    header = (DATA / "dsb" / "spieler-current.csv").read_bytes().splitlines()[0]
    path = tmp_path / "spieler.csv"
    path.write_bytes(header + b"\r\n")
    before = state(url)
    with engine_for(url).connect() as conn:
        open_ones = conn.execute(
            text(
                "SELECT count(*) FROM memberships "
                "WHERE valid_to IS NULL AND valid_from <= '2026-11-01'"
            )
        ).scalar_one()
    one_error_line(
        run(["players", "import", str(path), "--date", "2026-11-01", "--quiet"], url),
        f"would end {open_ones} of {open_ones} open memberships, more than 5 %",
        "--force",
    )
    one_error_line(run(["players", "import", str(path), "--date", "9999-01-01", "--quiet"], url),
                   "--date: 9999-01-01 is not plausible")  # fmt: skip
    assert state(url) == before


# -- the web: 4xx, never a 500 ----------------------------------------------------------------
def test_the_web_answers_4xx(world):
    url, client, tokens = world
    admin = bearer(tokens["admin"])
    before = state(url)
    for body in (deep(1000), deep(1000, "object")):
        for method, path in (("post", "/api/tournaments"), ("post", "/api/what-if/tournaments"),
                             ("put", f"/api/tournaments/{RECENT_A}")):  # fmt: skip
            r = client.request(method, path, content=body, headers=admin)
            assert r.status_code == 422, (path, r.status_code, r.text)
            assert "nested deeper than 64 levels" in r.json()["errors"][0]["message"]
    doc = document(url, RECENT_A, id="X-WEB", start="2026-10-01", end="2026-10-01")
    raw = json.dumps(doc)
    for bad, needle in [
        (raw.replace('"id": "X-WEB"', '"id": "X-WEB", "id": "X-TWO"'), "given twice"),
        (raw.replace('"X-WEB"', '"X-\\ud800"'), "lone surrogate"),
        (raw.replace('"X-WEB"', '"X-\\u0000"'), "NUL"),
    ]:
        r = client.post("/api/tournaments", content=bad, headers=admin)
        assert r.status_code == 422 and needle in r.text, r.text
    assert client.get("/api/lists", params={"federation": "A", "date": "9999-12-31"}
                      ).status_code == 422  # fmt: skip
    assert client.get("/lists", params={"federation": "A", "date": "9999-12-31"}
                      ).status_code == 422  # fmt: skip
    trf = (DATA / "trf" / "swiss-manager.trf").read_bytes()
    for encoding in ("utf%00", "rot13", "unicode_escape"):
        r = client.post(f"/api/tournaments/trf?id=E1&vkz=A00&encoding={encoding}",
                        content=trf.replace(b"Anker", b"\\x00nke"), headers=admin)  # fmt: skip
        assert 400 <= r.status_code < 500, (encoding, r.status_code, r.text)
    assert state(url) == before


# -- a submission's fields, names, ids, hierarchies, addresses, sizes ------------------------
#: a new member of a known club, as a submission describes one
NEW_MEMBER = {"name": "Neu, Nina", "club": "A0001", "member_since": "2026-01-01"}


def _member(**changes):
    return lambda doc: doc["players"].append({"id": "NEW", **NEW_MEMBER, **changes})


def _guest(**changes):
    return lambda doc: doc["players"].append({"id": "NEW", "member": False, **changes})


def _set(*keys, value):
    def change(doc):
        target = doc
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "where", "needle"),
    [
        # a traceback before: an object reached the INSERT
        (_member(member_number={"a": 1}), "$.players[-1].member_number",
         "expected a member number"),
        (_guest(name="Gast", club={"a": 1}), "$.players[-1].club", "expected a string"),
        (_set("players", 0, "club", value={"a": 1}), "$.players[0].club", "expected a string"),
        # stored as the text '{1,2}' / '{x}' before
        (_member(member_number=[1, 2]), "$.players[-1].member_number", "expected a member number"),
        (_guest(name="Gast", club=["x"]), "$.players[-1].club", "expected a string, got an array"),
        # "refused by the database: value too long" / "bigint out of range" without a place
        (_member(member_number="1" * 11), "$.players[-1].member_number", "1 to 10 characters"),
        (_guest(name="Gast", club_vkz="z" * 50), "$.players[-1].club_vkz",
         "at most 10 characters, got 50"),
        (_set("tournament", "id", value="x" * 31), "$.tournament.id", "at most 30 characters"),
        (_set("tournament", "name", value="x" * 201), "$.tournament.name",
         "at most 200 characters, got 201"),
        (_member(name="x" * 101), "$.players[-1].name", "at most 100 characters each"),
        (_guest(name="y" * 201), "$.players[-1].name", "at most 200 characters, got 201"),
        (_set("players", 0, "player_id", value=2**63), "$.players[0].player_id",
         "no player with id 9223372036854775808"),
        # accepted before: nonsense that parses
        (_guest(name="   "), "$.players[-1].name", "a textual participant needs a name"),
        (_member(member_since="2026-11-01"), "$.players[-1].member_since",
         "2026-11-01 is after the tournament's end 2026-10-01"),
        (_set("tournament", "id", value="X/../P1"), "$.tournament.id", "cannot hold '/'"),
        (_set("tournament", "id", value=".."), "$.tournament.id", "'..' is not a tournament id"),
        (_set("tournament", "id", value="X P1\t"), "$.tournament.id",
         "cannot hold the control character '\\t'"),
        (_set("tournament", "id", value=" X-P1"), "$.tournament.id",
         "cannot begin or end with a blank"),
        # stored before: a line break splits the fixed-column exports, an escape sequence
        # recolours the terminal of whoever lists the tournament
        (_member(name="Neu\n, Nina"), "$.players[-1].name",
         "the name holds the control character '\\n' at position 4"),
        (_guest(name="Gast\x1b[31m"), "$.players[-1].name", "control character '\\x1b'"),
        (_set("tournament", "name", value="Open\x07"), "$.tournament.name",
         "control character '\\x07' at position 5"),
    ],
)  # fmt: skip
def test_a_bad_submission_field_is_refused_with_its_place(world, tmp_path, change, where, needle):
    url, client, tokens = world
    doc = document(url, RECENT_A, id="X-HELD", start="2026-10-01", end="2026-10-01")
    change(doc)
    where = where.replace("[-1]", f"[{len(doc['players']) - 1}]")
    path = tmp_path / "h.json"
    path.write_text(json.dumps(doc))
    before = state(url)
    one_error_line(run(["tournament", "add", str(path)], url), f"h.json: {where}: ", needle)
    r = client.post("/api/tournaments", json=doc, headers=bearer(tokens["admin"]))
    assert r.status_code == 422, (r.status_code, r.text)
    assert [(e["location"], needle in e["message"]) for e in r.json()["errors"]] == [(where, True)]
    assert state(url) == before
    assert run(["recalc", "--quiet"], url).returncode == 0


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("Ank\x1b[31m,Arne", "the control character '\\x1b'"),
        ("Ank\u202eenrA ,re", "the bidirectional control character '\\u202e' at position 4"),
    ],
    ids=["escape-sequence", "bidi-override"],
)
def test_a_trf_name_with_a_control_character_is_refused(world, tmp_path, name, needle):
    url, _, _ = world
    lines = (DATA / "trf" / "swiss-manager.trf").read_bytes().split(b"\r\n")
    k = next(k for k, line in enumerate(lines) if line.startswith(b"001    1"))
    line = lines[k]  # no FIDE id: a textual participant, the file's name is stored
    raw = name.encode()
    lines[k] = line[:14] + raw + b" " * (33 - len(name)) + line[47:57] + b" " * 11 + line[68:]
    path = tmp_path / "ctl.trf"
    path.write_bytes(b"\r\n".join(lines))
    before = state(url)
    one_error_line(
        run(["tournament", "import", str(path), "--id", "CTL", "--vkz", "A00", "--end",
             "2026-05-01"], url),
        f"ctl.trf: $.players[0].name: the name holds {needle}",
    )  # fmt: skip
    assert state(url) == before


@pytest.mark.parametrize(
    ("code", "needle"),
    [("Y/../Z", "cannot hold '/'"), ("..", "is not a tournament id"), ("x" * 31, "at most 30")],
)
def test_an_import_id_the_web_or_database_cannot_hold_is_refused(world, code, needle):
    """An id the web cannot address (``/api/tournaments/Y/../Z``) or the database cannot
    hold: refused with its place, not stored or 'value too long'."""
    url, _, _ = world
    before = state(url)
    trf = str(DATA / "trf" / "swiss-manager.trf")
    one_error_line(
        run(["tournament", "import", trf, "--id", code, "--vkz", "A00", "--end", "2026-05-01"],
            url),
        "$.tournament.id", needle,
    )  # fmt: skip
    assert state(url) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # "refused by the database, nothing written: bigint out of range" before
        (["player", "join", "99999999999999999999", "--club", "A0001", "--from", "2026-01-01"],
         "error: player: no player with id 99999999999999999999"),
        (["player", "leave", "99999999999999999999", "--club", "A0001", "--on", "2026-01-01"],
         "error: player: no player with id 99999999999999999999"),
        (["player", "search", "x", "--offset", "99999999999999999999"],
         "error: Invalid value for '--offset'"),
        # a membership in the federation or a district was stored before
        (["player", "join", "1", "--club", "000", "--from", "2026-01-01"],
         "error: club: '000' is a federation, not a club"),
        (["player", "join", "1", "--club", "A00", "--from", "2026-01-01"],
         "error: club: 'A00' is a district, not a club"),
    ],
)  # fmt: skip
def test_player_commands_refuse_unknown_ids_and_non_clubs(world, args, needle):
    url, _, _ = world
    before = state(url)
    assert one_error_line(run(args, url)).startswith(needle)
    assert state(url) == before


def test_a_new_member_of_the_federation_is_refused(world, tmp_path):
    url, _, _ = world
    doc = document(url, RECENT_A, id="X-FED", start="2026-10-01", end="2026-10-01")
    doc["players"].append({"id": "NEW", **NEW_MEMBER, "club": "000"})
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    before = state(url)
    one_error_line(
        run(["tournament", "add", str(path)], url),
        f"$.players[{len(doc['players']) - 1}].club: '000' is a federation, not a club",
    )
    assert state(url) == before


@pytest.mark.parametrize(
    ("rows", "line", "needle"),
    [
        # two levels above each other: stored before (every later list kept the cycle)
        (["100,1,106,Verband Cycle", "106,1,100,Bezirk Cycle"], 2,
         "100 would lie below itself (100 → 106 → 100, top to bottom)"),
        (["300,3,301,A", "301,3,302,B", "302,3,300,C"], 2, "(300 → 302 → 301 → 300"),
        # a region the database holds above A00 put below it
        (["A,1,A00,Region A"], 2, "A would lie below itself (A → A00 → A"),
    ],
)  # fmt: skip
def test_a_club_hierarchy_with_a_cycle_is_refused(world, tmp_path, rows, line, needle):
    url, _, _ = world
    header = (DATA / "dsb" / "verbaende-current.csv").read_bytes().splitlines()[0]
    levels = tmp_path / "verbaende.csv"
    levels.write_bytes(header + b"\r\n" + "\r\n".join(rows).encode("cp1252") + b"\r\n")
    before = state(url)
    one_error_line(
        run(["clubs", "import", str(DATA / "dsb" / "vereine-current.csv"), str(levels)], url),
        f"verbaende.csv:{line}: ", needle, "the hierarchy has a cycle",
    )  # fmt: skip
    assert state(url) == before


@pytest.mark.parametrize(
    ("method", "address", "where"),
    [
        ("get", "/api/players?q=%00", "query.q"),
        ("get", "/api/players?dsb_id=%00", "query.dsb_id"),
        ("get", "/api/lists?federation=%00", "query.federation"),
        ("get", "/api/admin/audit?actor=%00", "query.actor"),
        ("get", "/players?q=a%00b", "query.q"),
        ("get", "/api/tournaments/%00", "path"),
        ("get", "/tournaments/%00", "path"),
        ("delete", "/api/tournaments/%00", "path"),
    ],
)
def test_a_nul_in_an_address_is_a_4xx(world, method, address, where):
    """``%00`` reached the database, whose refusal was answered as "refused by the database,
    nothing written" at location ``database`` (on a search); now a 422 naming the place."""
    url, client, tokens = world
    before = state(url)
    r = client.request(method, address, headers=bearer(tokens["admin"]))
    assert r.status_code == 422, (r.status_code, r.text)
    if address.startswith("/api"):
        (item,) = r.json()["errors"]
        assert item["location"] == where and "a NUL character" in item["message"], item
    else:
        assert "NUL" in r.text
    assert state(url) == before


def test_a_correction_with_another_tournaments_file_is_refused(world, tmp_path):
    """``tournament correct A other.json`` replaced A's players and games with those of the
    file naming B (the API refused it): now the same one line as the API's."""
    url, _, _ = world
    with engine_for(url).connect() as conn:
        other, number = conn.execute(
            text("SELECT t.code, (SELECT id FROM tournaments WHERE code = :a) FROM tournaments t "
                 "WHERE t.code <> :a ORDER BY t.id LIMIT 1"), {"a": RECENT_A}
        ).one()  # fmt: skip
    path = tmp_path / "other.json"
    path.write_text(json.dumps(document(url, other)))
    before = state(url)
    for ident in (RECENT_A, str(number)):
        one_error_line(
            run(["tournament", "correct", ident, str(path)], url),
            f"other.json: $.tournament.id: the document is {other!r}, not {RECENT_A!r}",
        )
    assert state(url) == before


def test_endless_and_oversized_files_are_refused(world, tmp_path, monkeypatch):
    """``/dev/zero`` as a member list or tournament file was read until memory ran out; a
    body beyond the API's 20 MB was read whole before it was refused."""
    from ratingdb.commands import common
    from ratingdb.web import api_officer

    url, client, tokens = world
    before = state(url)
    one_error_line(run(["players", "import", "/dev/zero", "--date", "2026-11-01"], url),
                   "/dev/zero: the file has more than 268435456 bytes")  # fmt: skip
    monkeypatch.setattr(common, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(" " * 1001)
    for args in (
        ["tournament", "add", str(path)],
        ["tournament", "import", str(path), "--vkz", "A00"],
        ["evaluate", str(path)],
        ["clubs", "import", str(path)],
    ):
        one_error_line(run(args, url), "big.json: the file has more than 1000 bytes")
    monkeypatch.setattr(api_officer, "MAX_BODY", 1000)
    r = client.post("/api/tournaments", content=b" " * 1001, headers=bearer(tokens["admin"]))
    assert r.status_code == 422 and "more than 1000 bytes" in r.text, r.text
    assert state(url) == before


@pytest.mark.parametrize("wildcard", ["%", "_", "A%", "A_"])
def test_like_wildcards_in_a_vkz_match_nothing(world, wildcard):
    """``--federation %`` listed the members of every federation and ``club=%`` searched all
    clubs: a VKZ prefix is matched literally, as ``clubs list`` and the tournament search do."""
    url, client, _ = world
    one_error_line(
        run(["export", "list", "--federation", wildcard, "--format", "csv"], url),
        f"no members in {wildcard}*",
    )
    listed = client.get("/api/lists", params={"federation": wildcard})
    assert listed.status_code == 200 and listed.json()["rows"] == []
    assert client.get("/api/lists", params={"federation": "A"}).json()["rows"] != []
    found = client.get("/api/players", params={"club": wildcard, "q": "S"})
    assert found.status_code == 200 and found.json() == []
    assert client.get("/api/players", params={"club": "A", "q": "S"}).json() != []


# -- empty tournaments, a new member's identifiers, memberships, the DSB formats ------------
@pytest.mark.parametrize("kept", [0, 1])
def test_a_tournament_without_two_players_is_refused(world, tmp_path, kept):
    """``"players": []`` was stored as a tournament nobody played (a correction emptied one):
    a tournament to store has two players at least, one alone cannot be rated."""
    url, client, tokens = world
    doc = document(url, RECENT_A, id="X-EMPTY", start="2026-10-01", end="2026-10-01")
    doc["players"], doc["games"] = doc["players"][:kept], []
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    message = f"a tournament needs at least 2 players to be rated, got {kept}"
    before = state(url)
    one_error_line(run(["tournament", "add", str(path)], url), f"e.json: $.players: {message}")
    r = client.post("/api/tournaments", json=doc, headers=bearer(tokens["admin"]))
    assert r.status_code == 422, (r.status_code, r.text)
    assert [(e["location"], e["message"]) for e in r.json()["errors"]] == [("$.players", message)]
    doc["tournament"]["id"] = RECENT_A
    path.write_text(json.dumps(doc))
    hint = "; to remove the tournament, delete it (ratingdb tournament delete)"
    one_error_line(run(["tournament", "correct", RECENT_A, str(path)], url),
                   f"e.json: $.players: {message}{hint}")  # fmt: skip
    r = client.put(f"/api/tournaments/{RECENT_A}", json=doc, headers=bearer(tokens["admin"]))
    assert r.status_code == 422, (r.status_code, r.text)
    assert [(e["location"], e["message"]) for e in r.json()["errors"]] == [
        ("$.players", message + hint)
    ]
    assert state(url) == before
    assert run(["recalc", "--quiet"], url).returncode == 0


FIDE_ID = "a FIDE id is a whole number from 1 to 9999999999, got "
DSB_ID = "a DSB id is a string of 1 to 20 letters, digits or hyphens (e.g. 'NU4005017'), got "


@pytest.mark.parametrize(
    ("change", "where", "needle"),
    [
        # a new member's identifiers were unknown keys, dropped whatever they held
        (_member(fide_id="abc"), "$.players[-1].fide_id", FIDE_ID + "the string 'abc'"),
        (_member(fide_id=-5), "$.players[-1].fide_id", FIDE_ID + "the number -5"),
        (_member(fide_id=1.5), "$.players[-1].fide_id", FIDE_ID + "the number 1.5"),
        (_member(fide_id=True), "$.players[-1].fide_id", FIDE_ID + "true"),
        (_member(fide_id=10**10), "$.players[-1].fide_id", FIDE_ID + "the number 10000000000"),
        (_member(fide_id=10**20), "$.players[-1].fide_id",
         FIDE_ID + "the number 100000000000000000000"),
        (_member(dsb_id=-5), "$.players[-1].dsb_id", DSB_ID + "the number -5"),
        (_member(dsb_id=1.5), "$.players[-1].dsb_id", DSB_ID + "the number 1.5"),
        (_member(dsb_id=False), "$.players[-1].dsb_id", DSB_ID + "false"),
        (_member(dsb_id="NU 4005017"), "$.players[-1].dsb_id", DSB_ID + "the string 'NU 4005017'"),
        (_member(dsb_id="9" * 21), "$.players[-1].dsb_id", DSB_ID + "the string '9999"),
        (_guest(name="Gast", fide_id="abc"), "$.players[-1].fide_id", FIDE_ID),
        # bidirectional controls reorder what follows them on every page and terminal
        (_member(name="Neu, \u202eaniN"), "$.players[-1].name",
         "the name holds the bidirectional control character '\\u202e' at position 6"),
        (_member(name="Neu\u200f, Nina"), "$.players[-1].name",
         "bidirectional control character '\\u200f' at position 4"),
        (_guest(name="Gast \u2066X\u2069"), "$.players[-1].name",
         "bidirectional control character '\\u2066' at position 6"),
        (_set("tournament", "name", value="Open \u202a2026"), "$.tournament.name",
         "bidirectional control character '\\u202a' at position 6"),
        (_set("tournament", "id", value="X-\u200eP1"), "$.tournament.id",
         "a tournament id cannot hold the bidirectional control character '\\u200e'"),
    ],
)  # fmt: skip
def test_bad_identifiers_and_bidi_controls_are_refused(world, tmp_path, change, where, needle):
    test_a_bad_submission_field_is_refused_with_its_place(world, tmp_path, change, where, needle)


def test_a_new_members_identifiers_are_stored_once(world, tmp_path):
    """A new member's valid ``fide_id`` and ``dsb_id`` are stored with the player; one that
    another player holds, or another entry of the document, is refused with its path (the
    database's unique index answered "refused by the database" before)."""
    url, client, tokens = world
    with engine_for(url).connect() as conn:
        holder = conn.execute(text("SELECT min(id) FROM players")).scalar_one()
        conn.execute(text("UPDATE players SET fide_id = 24600001, dsb_id = 'NU4005017' "
                          "WHERE id = :p"), {"p": holder})  # fmt: skip
        conn.commit()
    doc = document(url, RECENT_A, id="X-IDS", start="2026-10-01", end="2026-10-01")
    k = len(doc["players"])
    doc["players"].append({"id": "NEW", **NEW_MEMBER, "fide_id": 24600001})
    path = tmp_path / "i.json"
    path.write_text(json.dumps(doc))
    before = state(url)
    one_error_line(
        run(["tournament", "add", str(path)], url),
        f"i.json: $.players[{k}].fide_id: 24600001 is the fide_id of player {holder}: "
        f'name them with "player_id": {holder} instead of as a new member',
    )
    doc["players"][k] = {"id": "NEW", **NEW_MEMBER, "dsb_id": "NU4005017"}
    r = client.post("/api/tournaments", json=doc, headers=bearer(tokens["admin"]))
    assert r.status_code == 422 and r.json()["errors"][0]["location"] == f"$.players[{k}].dsb_id"
    doc["players"][k] = {"id": "NEW", **NEW_MEMBER, "dsb_id": "NU1"}
    doc["players"].append({"id": "NEW2", **NEW_MEMBER, "name": "Neu, Nora", "dsb_id": "NU1"})
    path.write_text(json.dumps(doc))
    one_error_line(
        run(["tournament", "add", str(path)], url),
        f"$.players[{k + 1}].dsb_id: 'NU1' is also the dsb_id of players[{k}]",
    )
    assert state(url) == before
    doc["players"][k + 1] = {"id": "NEW2", **NEW_MEMBER, "name": "Neu, Nora", "fide_id": 1234}
    path.write_text(json.dumps(doc))
    added = run(["tournament", "add", str(path)], url)
    assert added.returncode == 0, added.stderr
    with engine_for(url).connect() as conn:
        assert conn.execute(text(
            "SELECT p.surname, p.given_name, p.fide_id, p.dsb_id FROM participants pa "
            "JOIN players p ON p.id = pa.player_id JOIN tournaments t ON t.id = pa.tournament_id "
            "WHERE t.code = 'X-IDS' AND p.surname = 'Neu' ORDER BY p.given_name")
        ).all() == [("Neu", "Nina", None, "NU1"), ("Neu", "Nora", 1234, None)]  # fmt: skip
    assert run(["tournament", "delete", "X-IDS"], url).returncode == 0
    assert run(["recalc", "--quiet"], url).returncode == 0


def test_an_overlapping_membership_is_refused(world):
    """``player join`` into a club the player is a member of gave "refused by the database
    … no_overlap": now the membership it would overlap, with its period."""
    url, _, _ = world
    with engine_for(url).connect() as conn:
        pid, vkz, since = conn.execute(text(
            "SELECT m.player_id, o.vkz, m.valid_from FROM memberships m JOIN organisations o "
            "ON o.id = m.organisation_id WHERE m.valid_to IS NULL AND o.kind = 'club' "
            "ORDER BY m.player_id LIMIT 1")).one()  # fmt: skip
    before = state(url)
    one_error_line(
        run(["player", "join", str(pid), "--club", vkz, "--from", "2026-01-01"], url),
        f"error: --from: player {pid} is a member of {vkz} since {since} (not ended), which a "
        f"membership from 2026-01-01 would overlap: end it first (ratingdb player leave {pid} "
        f"--club {vkz} --on DATE)",
    )
    assert state(url) == before


def test_ff_bytes_named_swt_are_no_known_format(world, tmp_path):
    """A file of 0xFF bytes named ``x.swt`` was "not valid utf-8" (read as a TRF)."""
    url, client, tokens = world
    path = tmp_path / "x.swt"
    path.write_bytes(b"\xff" * 2000)
    message = (
        "not a tournament file of a known format: neither a SwissChess SWT (binary: no NUL "
        "byte in its first 4 KiB) nor DSB/DeWIS XML, SWI or TRF text (no XML root element, "
        "SWI ruler line or TRF record line such as '012 ' or '001 '; byte 0xff at 1:1 is not "
        "UTF-8)"
    )
    before = state(url)
    one_error_line(run(["tournament", "import", str(path), "--id", "FF", "--vkz", "A00"], url),
                   f"error: {path}: {message}")  # fmt: skip
    r = client.post("/api/tournaments/trf?id=FF&vkz=A00", content=path.read_bytes(),
                    headers=bearer(tokens["admin"]))  # fmt: skip
    assert r.status_code == 422 and message in r.text, (r.status_code, r.text)
    assert state(url) == before


def test_a_dsb_xml_birth_year_out_of_range_is_refused(world, tmp_path):
    """``dobYear`` 99999 was dropped without a word (a matched player kept the database's
    year, a textual one had none)."""
    from tests.test_dsb_xml import small_report

    url, _, _ = world
    path = tmp_path / "r.xml"
    path.write_bytes(small_report_with_year(small_report(), 3, 99999))
    before = state(url)
    one_error_line(
        run(["tournament", "import", str(path), "--id", "XMLY", "--vkz", "A00"], url),
        "r.xml: /DSB_DWZ_TournamentReport/players/player[3]/dobYear: birth year 99999 is not "
        "plausible (1850..2200)",
    )
    assert state(url) == before


def small_report_with_year(report, number: int, year: int) -> bytes:
    from dataclasses import replace

    from ratingdb.io import dsb_xml

    report.players = [replace(p, dob_year=year) if p.number == number else p
                      for p in report.players]  # fmt: skip
    return dsb_xml.write(report)


def test_the_dsb_lists_refuse_control_characters_in_names(world, tmp_path):
    """The member and club lists refuse the names a submission refuses (ratingdb/names.py:
    control and bidirectional control characters), at their line and column, nothing
    written."""
    url, _, _ = world
    members = (DATA / "dsb" / "spieler-current.csv").read_bytes().decode("cp1252")
    header, first, *rest = members.split("\r\n")
    bidi = first.replace("Müller", "Mü\u202eller")  # "Name,Vorname" and Nachname
    assert bidi != first
    members_file = tmp_path / "spieler.csv"
    members_file.write_bytes("\r\n".join([header, bidi, *rest]).encode("utf-8"))
    clubs = (DATA / "dsb" / "vereine-current.csv").read_bytes().decode("cp1252")
    clubs_file = tmp_path / "vereine.csv"
    clubs_file.write_bytes(clubs.replace("SC Musterstadt", "SC \x1b[31mMusterstadt").encode())
    before = state(url)
    one_error_line(
        run(["players", "import", str(members_file), "--date", "2026-11-01",
             "--encoding", "utf-8", "--quiet"], url),
        "spieler.csv:2", "the bidirectional control character '\\u202e'",
    )  # fmt: skip
    one_error_line(
        run(["clubs", "import", str(clubs_file), "--encoding", "utf-8"], url),
        "vereine.csv:2",
        "column Vereinsname: the name holds the control character '\\x1b'",
    )
    assert state(url) == before


def test_numbers_no_format_reads_are_a_4xx_on_the_web(world, tmp_path):
    """The mutated files of tests/test_number_fields.py (other scripts' digits, a sign), one
    per format, uploaded: 422 with the one problem, nothing written."""
    from tests.test_number_fields import _files

    url, client, tokens = world
    admin = bearer(tokens["admin"])
    before = state(url)
    expected = {
        "t.trf": "FIDE rating is not a number: '１８００'",
        "t.SWT": "national rating is not a number: '18²0'",
        "t.xml": "rating is not a number: '１８５０'",
        "d.xml": "rating is not a number: '-1802' (no sign)",
    }
    for name, path in _files(tmp_path).items():
        r = client.post("/api/tournaments/trf?id=N1&vkz=A00", content=path.read_bytes(),
                        headers=admin)  # fmt: skip
        assert r.status_code == 422, (name, r.status_code, r.text)
        errors = r.json()["errors"]
        assert len(errors) == 1 and expected[name] in errors[0]["message"], (name, errors)
    assert state(url) == before
