"""Every number field of every reader read the one strict way (ratingdb/io/numbers.py): a
mutation per field with other scripts' digits, full-width digits, a superscript, a sign, an
exponent, a decimal point and a value beyond the plausible range gives exactly one problem
at the field's place (line:column, element path, byte offset, CSV line and column), never a
traceback; the command line ends with that one line and exit code 2. The web's 4xx for the
same files is in tests/test_bad_input.py."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from ratingdb.errors import InputError
from ratingdb.i18n import use
from ratingdb.io import dsb_xml, swt
from ratingdb.io.dsb_list import parse_list
from ratingdb.io.numbers import NotANumber, optional_number, whole_number
from ratingdb.io.tournament_file import read_tournament
from ratingdb.plausibility import FIDE_ID, RATING, ROUND, START_RANK
from tests.cli import run
from tests.swt_builder import round_robin_of_three

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent / "data"
#: values no number field may take, each as wide as the narrowest field (four characters)
#: the messages pinned here are the English ones
pytestmark = pytest.mark.usefixtures("in_english")
BAD4 = ["１８００", "١٨٠٠", "18²0", "-150", "+150", "1e3", "15.0", "1 50", "0x1F"]


# -- the reader itself -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("１８００", "rating is not a number: '１８００' (only the digits 0-9 count)"),
        ("١٨٠٠", "rating is not a number: '١٨٠٠' (only the digits 0-9 count)"),
        ("²", "rating is not a number: '²' (only the digits 0-9 count)"),
        ("-5", "rating is not a number: '-5' (no sign)"),
        ("+5", "rating is not a number: '+5' (no sign)"),
        ("1e3", "rating is not a number: '1e3' (a whole number: no decimal point, no exponent)"),
        ("1800.0", "(a whole number: no decimal point, no exponent)"),
        ("4001", "rating 4001 is not plausible (1..4000)"),
        ("9" * 5000, "rating 9999999999999… (5000 digits) is not plausible (1..4000)"),
        ("", "rating is missing (a number 1..4000)"),
    ],
)
def test_the_one_reader_refuses_with_one_message(text, message):
    with pytest.raises(NotANumber) as err:
        whole_number(text, RATING)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("de", "Startnummer ist keine Zahl: '-5' (ohne Vorzeichen)"),
        ("en", "start rank is not a number: '-5' (no sign)"),
    ],
)
def test_a_number_refusal_is_worded_in_the_language_in_force(lang, message):
    with use(lang), pytest.raises(NotANumber) as err:
        whole_number("-5", START_RANK)
    assert str(err.value) == message


def test_zeros_are_none_only_where_a_field_may_be_empty():
    assert optional_number("0000", RATING) is None and optional_number("  ", FIDE_ID) is None
    assert whole_number(" 0042 ", START_RANK) == 42 and whole_number("9999", ROUND) == 9999
    with pytest.raises(NotANumber, match="start rank 0 is not plausible"):
        whole_number("0000", START_RANK)


def one_problem(call) -> str:
    """The single problem ``call()`` raises, as ``place: message``."""
    with pytest.raises(InputError) as err:
        call()
    lines = str(err.value).splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# -- TRF ---------------------------------------------------------------------------------------
def trf_line(fields: dict[int, str]) -> str:
    out: list[str] = []
    for column, value in sorted(fields.items()):
        out += [" "] * (column - 1 - len(out))
        out[column - 1 : column - 1 + len(value)] = list(value)
    return "".join(out)


def trf_text() -> list[str]:
    return [
        "012 Numbers Open",
        "042 2026/01/10",
        "052 2026/01/11",
        trf_line(
            {
                1: "001",
                5: "   1",
                10: "m",
                15: "Adler, Anna",
                49: "1850",
                54: "GER",
                58: "    4612345",
                70: "1980/01/01",
                81: " 1.0",
                92: "   2",
                97: "w",
                99: "1",
            }
        ),
        trf_line(
            {
                1: "001",
                5: "   2",
                10: "m",
                15: "Bauer, Bernd",
                49: "1720",
                54: "GER",
                58: "    4612346",
                70: "1985/00/00",
                81: " 0.0",
                92: "   1",
                97: "b",
                99: "0",
            }
        ),
        trf_line({1: "GER", 5: "   1", 15: "Adler, Anna", 49: "1850", 58: "   C0501-12"}),
    ]


#: (what, line number, first column, width)
TRF_FIELDS = [
    ("start rank", 4, 5, 4),
    ("FIDE rating", 4, 49, 4),
    ("FIDE id", 5, 58, 11),
    ("opponent", 4, 92, 4),
    ("national rating", 6, 49, 4),
]


def trf_mutations():
    for what, line, column, width in TRF_FIELDS:
        values = BAD4 + (["4001", "9999"] if "rating" in what else [])
        if width == 11:
            values = [v.rjust(7, "4") for v in BAD4] + ["99999999999"]
        for value in values:
            yield pytest.param(what, line, column, width, value, id=f"{what}-{value}")


@pytest.mark.parametrize(("what", "line", "column", "width", "value"), trf_mutations())
def test_trf_number_fields(what, line, column, width, value):
    lines = trf_text()
    text = lines[line - 1]
    lines[line - 1] = text[: column - 1] + value.rjust(width) + text[column - 1 + width :]
    data = "\n".join(lines).encode()
    problem = one_problem(lambda: read_tournament(data, "t.trf"))
    assert problem.startswith(f"t.trf:{line}:{column}"), problem
    if what != "opponent":
        assert what in problem, problem


@pytest.mark.parametrize("value", ["１.５", "1e0", "-1.0", "1.２"])
def test_trf_points_column_is_a_warning_not_a_number(value):
    lines = trf_text()
    lines[3] = lines[3][:80] + value.rjust(4) + lines[3][84:]
    t = read_tournament("\n".join(lines).encode(), "t.trf")
    assert t.player(1).points is None
    assert any(w.startswith("line 4: column 81: points are not") for w in t.warnings), t.warnings


def test_trf_counts_are_warnings():
    lines = trf_text()
    lines.insert(3, "062 ２")
    lines.insert(4, "072 " + "9" * 6000)
    t = read_tournament("\n".join(lines).encode(), "t.trf")
    assert "line 4: number of players is not a number: '２' (only the digits 0-9 count) " \
        "(ignored)" in t.warnings  # fmt: skip
    assert any(w.startswith("line 5: number of rated players 9999999999999… (6000 digits)")
               for w in t.warnings), t.warnings  # fmt: skip


# -- SWT (binary: its texts are cp1252, which has superscripts but no other script's digits) --
SWT_BAD = ["18²0", "-150", "+150", "1e3", "15.0", "1 50", "³"]


@pytest.mark.parametrize("value", [*SWT_BAD, "4001", "9999"])
@pytest.mark.parametrize(("attribute", "what"), [("dwz", "national rating"),
                                                 ("elo", "FIDE rating")])  # fmt: skip
def test_swt_rating_fields(attribute, what, value):
    s = round_robin_of_three()
    setattr(s.players[1], attribute, value)
    problem = one_problem(lambda: read_tournament(s.to_bytes(), "t.SWT"))
    assert re.match(r"t\.SWT: byte \d+ \(0x[0-9A-F]+\) " + what, problem), problem
    assert "card 2" in problem, problem


@pytest.mark.parametrize("value", [v.rjust(7, "4") for v in SWT_BAD] + ["99999999999"])
def test_swt_fide_id_field(value):
    s = round_robin_of_three()
    s.players[1].fide_id = value
    problem = one_problem(lambda: read_tournament(s.to_bytes(), "t.SWT"))
    assert "FIDE id (field 2033) of card 2" in problem, problem


def test_swt_implausible_birth_year_is_a_warning_and_left_empty():
    s = round_robin_of_three()
    s.players[0].birth = "1837"
    t = read_tournament(s.to_bytes(), "t.SWT")
    assert t.player(1).birth is None
    assert any("birth year 1837 is not plausible (1850..2200); left empty" in w
               for w in t.warnings), t.warnings  # fmt: skip
    assert swt.parse(s.to_bytes(), "t.SWT").players[0].birth is None


# -- SWI ---------------------------------------------------------------------------------------
SWI = (FIXTURES / "swi" / "bmm-utf8-lf.swi").read_text()
#: the player line of participant 1 and the columns of its fields (0-based, from the ruler)
SWI_LINE = 7


def swi_columns() -> dict[str, tuple[int, int]]:
    ruler = SWI.splitlines()[2]
    return {m.group(1): (m.start(), m.end()) for m in re.finditer(r"([a-z])\1*", ruler)}


@pytest.mark.parametrize("value", [*BAD4, "4001", "9999"])
@pytest.mark.parametrize(("key", "what"), [("e", "FIDE rating"), ("d", "DWZ")])
def test_swi_rating_fields(key, what, value):
    first, end = swi_columns()[key]
    lines = SWI.splitlines()
    row = lines[SWI_LINE - 1]
    lines[SWI_LINE - 1] = row[:first] + value.rjust(end - first) + row[end:]
    problem = one_problem(lambda: read_tournament("\n".join(lines).encode(), "t.swi"))
    assert problem.startswith(f"t.swi:{SWI_LINE}:{first + 1}: {what}"), problem


@pytest.mark.parametrize("value", ["１", "²", "-1", "+1", "1e0", "1.5"])
def test_swi_participant_number(value):
    lines = SWI.splitlines()
    row = lines[SWI_LINE - 1]
    lines[SWI_LINE - 1] = value.rjust(4) + row[4:]
    problem = one_problem(lambda: read_tournament("\n".join(lines).encode(), "t.swi"))
    assert f"t.swi:{SWI_LINE}:" in problem and "participant number" in problem, problem


# -- DSB TournamentReport XML --------------------------------------------------------------------
REPORT = dsb_xml.write(
    dsb_xml.DsbReport(
        tournament_uuid="0b3e7a5c-1a2b-4c3d-8e9f-001122334455", label="Numbers", type="SW",
        timecontrol="90", rounds=1, start=date(2026, 1, 10),
        end=date(2026, 1, 11), location="Köln",
        players=[dsb_xml.DsbPlayer(1, "Adler", "Anna", 1980, vkz="C0501", member_number=12,
                                   fide_id=4612345, fide_rating=1850),
                 dsb_xml.DsbPlayer(2, "Bauer", "Bernd", 1985)],
        games=[dsb_xml.DsbGame(1, 1, 2, "1", "0")],
    )
).decode()  # fmt: skip
XML_FIELDS = [
    ("rounds", "1", "/tournament/rounds"),
    ("tournamentPlayerNumber", "2", "/players/player[2]/tournamentPlayerNumber"),
    ("numberClubMember", "12", "/players/player[1]/numberClubMember"),
    ("fideId", "4612345", "/players/player[1]/fideId"),
    ("fideRating", "1850", "/players/player[1]/fideRating"),
    ("dobYear", "1985", "/players/player[2]/dobYear"),
]
XML_BAD = ["１８", "١٨", "1²", "-5", "+5", "1e3", "1.0", "9" * 40]


@pytest.mark.parametrize("value", XML_BAD)
@pytest.mark.parametrize(("element", "old", "path"), XML_FIELDS)
def test_dsb_xml_number_elements(element, old, path, value):
    tag = f"<{element}>{old}</{element}>"
    assert tag in REPORT
    data = REPORT.replace(tag, f"<{element}>{value}</{element}>", 1).encode()
    problem = one_problem(lambda: read_tournament(data, "t.xml"))
    assert problem.startswith(f"t.xml: /DSB_DWZ_TournamentReport{path}: "), problem


# -- DeWIS XML -----------------------------------------------------------------------------------
DEWIS = (FIXTURES / "dewis" / "clm-individual.xml").read_text()
DEWIS_FIELDS = [
    ("<rounds>3</rounds>", "rounds", "/dewis/tournamentSection/tournament/rounds"),
    ("<round>2</round><matchday>", "round",
     "/dewis/tournamentSection/appointments/appointment[2]/round"),
    ("<noPlayer>3</noPlayer>", "noPlayer", "/dewis/playerSection/players/player[3]/noPlayer"),
    ("<idFide>4612345</idFide>", "idFide", "/dewis/playerSection/players/player[1]/idFide"),
    ("<rating>1802</rating>", "rating", "/dewis/playerSection/players/player[1]/rating"),
    ("<round>2</round><noWhite>4", "round", "/dewis/playerSection/games/game[4]/round"),
    ("<noWhite>4</noWhite>", "noWhite", "/dewis/playerSection/games/game[4]/noWhite"),
]  # fmt: skip
DEWIS_BAD = ["１８００", "١٨٠٠", "²", "-5", "+5", "1e3", "1.0", "9" * 40, "1" + "0" * 30]


@pytest.mark.parametrize("value", DEWIS_BAD)
@pytest.mark.parametrize(("old", "element", "path"), DEWIS_FIELDS)
def test_dewis_number_elements(old, element, path, value):
    assert DEWIS.count(old) == 1, old
    inner = re.search(rf"<{element}>([^<]*)</{element}>", old)
    assert inner is not None
    new = old.replace(f">{inner.group(1)}<", f">{value}<", 1)
    data = DEWIS.replace(old, new).encode()
    problem = one_problem(lambda: read_tournament(data, "t.xml"))
    assert problem.startswith(f"t.xml: {path}: "), problem


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE dewis SYSTEM "http://example.invalid/x.dtd">',
        '<!DOCTYPE dewis PUBLIC "-//X//EN" "x.dtd">',
        "<!DOCTYPE dewis>",
        '<!DOCTYPE dewis [<!ENTITY a "b">]>',
    ],
)
def test_one_dtd_rule_for_both_xml_formats(doctype):
    """A DOCTYPE of any kind is refused, with the same one message, in both XML formats."""
    for text, root in ((DEWIS, "<dewis"), (REPORT, "<DSB_DWZ_TournamentReport")):
        declared = doctype.replace("dewis", root[1:])
        data = text.replace(root, declared + root, 1).encode()
        problem = one_problem(lambda data=data: read_tournament(data, "t.xml"))
        assert problem == f"t.xml: {dsb_xml.DOCTYPE_REFUSED}", problem
        # the same without the XML declaration: still XML, still the one rule
        bare = re.sub(rb"^<\?xml[^>]*\?>", b"", data)
        assert one_problem(lambda bare=bare: read_tournament(bare, "t.xml")) == problem


# -- the DSB member list ----------------------------------------------------------------------
LIST = (DATA / "dsb" / "spieler-current.csv").read_bytes()
LIST_FIELDS = [(8, "Geburtsjahr", "1980"), (10, "DWZ", "1850"), (11, "Index", "45"),
               (12, "FIDE-Elozahl", "1902"), (14, "FIDE-ID", "4699001")]  # fmt: skip


@pytest.mark.parametrize("value", ["１８５０", "١٨٥٠", "18²0", "-150", "+150", "1e3", "15.0",
                                   "9" * 40])  # fmt: skip
@pytest.mark.parametrize(("index", "column", "old"), LIST_FIELDS)
def test_member_list_number_columns(index, column, old, value):
    rows = list(csv.reader(io.StringIO(LIST.decode("cp1252"))))
    assert rows[1][index - 1] == old, rows[1]
    rows[1][index - 1] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    data = out.getvalue().encode("utf-8")
    problem = one_problem(lambda: parse_list(data, "s.csv", "utf-8"))
    assert problem.startswith(f"s.csv:2: column {column}: "), problem


# -- the command line: one line, exit code 2, for a mutated file of every format ----------------
def _files(tmp_path: Path) -> dict[str, Path]:
    lines = trf_text()
    lines[3] = lines[3][:48] + "１８００" + lines[3][52:]
    s = round_robin_of_three()
    s.players[1].dwz = "18²0"
    out = {
        "t.trf": "\n".join(lines).encode(),
        "t.SWT": s.to_bytes(),
        "t.xml": REPORT.replace("<fideRating>1850<", "<fideRating>１８５０<").encode(),
        "d.xml": DEWIS.replace("<rating>1802<", "<rating>-1802<").encode(),
    }
    for name, data in out.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in out}


def test_the_command_line_says_one_line_and_exits_2(tmp_path):
    nowhere = make_url("postgresql://nobody@127.0.0.1:9/none")  # the file fails first
    for name, path in _files(tmp_path).items():
        out = run(["tournament", "import", str(path), "--id", "N1", "--vkz", "C01"], nowhere)
        assert out.returncode == 2, (name, out.returncode, out.stderr)
        assert "Traceback" not in out.stderr and out.stdout == ""
        lines = [x for x in out.stderr.splitlines() if not x.startswith("warning: ")]
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}"), lines


@pytest.mark.parametrize(
    ("value", "message"),
    [("1837", "birth year 1837 is not plausible"), ("１９８０", "birth field is not a year")],
)
def test_swi_birth_dates_no_rating_needs_are_warnings(value, message):
    """An SWI birth field that cannot be read or is implausible: a warning naming line and
    column, the birth left empty, the file imported."""
    first, end = swi_columns()["g"]
    lines = SWI.splitlines()
    row = lines[SWI_LINE - 1]
    lines[SWI_LINE - 1] = row[:first] + value.ljust(end - first) + row[end:]
    t = read_tournament("\n".join(lines).encode(), "t.swi")
    assert any(w.startswith(f"line {SWI_LINE}: column {first + 1}: {message}")
               and w.endswith("(left empty)") for w in t.warnings), t.warnings  # fmt: skip


@pytest.mark.parametrize("value", ["１９９０", "1837", "-1990", "1990-13-01", "9" * 40])
def test_dewis_birth_dates_no_rating_needs_are_warnings(value):
    """A DeWIS dob that cannot be read or is implausible: a warning naming the element, the
    birth left empty, the file imported."""
    data = DEWIS.replace("<dob>1990</dob>", f"<dob>{value}</dob>").encode()
    t = read_tournament(data, "t.xml")
    assert t.player(4).birth is None
    assert any(w.startswith("/dewis/playerSection/players/player[4]/dob: ")
               and w.endswith("(left empty)") for w in t.warnings), t.warnings  # fmt: skip
