"""`ratingdb tournament import` with SWI, TournamentReport XML and DeWIS files, and
`ratingdb tournament export --format dsb-xml`, on an empty database."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ratingdb.io import dsb_xml
from tests import shared_files
from tests.builders import ok, organisations
from tests.cli import run
from tests.conftest import at_head

CORPUS = shared_files.CORPUS / "swi"
XSD = shared_files.DSB_XSD
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def empty_db(scratch_db):
    at_head(scratch_db)
    organisations(scratch_db, "C01", "C05")
    return scratch_db


def games(url, code: str) -> list[tuple[int, int, int, str]]:
    eng = create_engine(url, poolclass=NullPool)
    with eng.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT g.round, w.start_rank, b.start_rank, g.result FROM games g "
                "JOIN participants w ON w.id = g.white_id "
                "JOIN participants b ON b.id = g.black_id "
                "JOIN tournaments t ON t.id = g.tournament_id WHERE t.code = :c ORDER BY 1, 2"
            ),
            {"c": code},
        ).all()
    eng.dispose()
    return [tuple(r) for r in rows]


def test_swi_import_export_xml_and_import_again(empty_db, tmp_path):
    url = empty_db
    cp850 = CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.derived-cp850-crlf.swi"
    out = ok(["tournament", "import", str(cp850), "--id", "LE2011", "--vkz", "C05"], url)
    assert "12 players" in out and "42 games" in out and "Böhmler, Thomas" in out
    xml = run(["tournament", "export", "LE2011", "--format", "dsb-xml"], url)
    assert xml.returncode == 0, xml.stderr
    data = xml.stdout.encode()
    assert dsb_xml.xsd_problems(data, XSD) == []
    path = tmp_path / "le.xml"
    path.write_bytes(data)
    # the same tournamentUUID: a correction of LE2011, not a second tournament
    again = ok(["tournament", "import", str(path)], url)
    assert "LE2011" in again
    report = dsb_xml.parse(data)
    report.tournament_uuid = dsb_xml.new_uuid()
    path.write_bytes(dsb_xml.write(report))
    ok(["tournament", "import", str(path), "--id", "LE2011B", "--vkz", "C05"], url)
    assert games(url, "LE2011B") == games(url, "LE2011") and len(games(url, "LE2011")) == 42


def test_dewis_and_bad_files_through_the_command(empty_db, tmp_path):
    url = empty_db
    ok(["tournament", "import", str(FIXTURES / "dewis" / "clm-individual.xml"), "--id", "VM24",
        "--vkz", "C01"], url)  # fmt: skip
    assert len(games(url, "VM24")) == 6
    bad = tmp_path / "bad.swi"
    bad.write_bytes(
        (FIXTURES / "swi" / "swisschess-cp850-crlf.swi").read_bytes().replace(b" 1W  4", b" 1X  4")
    )
    out = run(["tournament", "import", str(bad), "--id", "B1", "--vkz", "C01"], url)
    assert out.returncode == 2 and "bad.swi:5:" in out.stderr and "Traceback" not in out.stderr
    xml = tmp_path / "bad.xml"
    xml.write_text("<DSB_DWZ_TournamentReport xmlns='urn:x'/>")
    out = run(["tournament", "import", str(xml), "--id", "B2", "--vkz", "C01"], url)
    assert out.returncode == 2 and "neither a DSB_DWZ_TournamentReport" in out.stderr
    assert games(url, "B1") == [] and games(url, "B2") == []


def test_a_file_without_an_id_gets_vkz_and_end_date(empty_db, tmp_path):
    """A real SwissChess SWI names no tournament id: the import gives one (VKZ and end date,
    then -2 for a second tournament of the club ending that day) and prints it; export -o
    writes the DSB XML to a file."""
    url = empty_db
    swi = CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.swi"
    first = ok(["tournament", "import", str(swi), "--vkz", "C05"], url)
    assert "imported tournament C05-2012-02-16 (ends 2012-02-16)" in first
    cp850 = CORPUS / "marceljuenemann__stadtmeisterschaft-le-2011.derived-cp850-crlf.swi"
    second = ok(["tournament", "import", str(cp850), "--vkz", "C05"], url)
    assert "imported tournament C05-2012-02-16-2 " in second
    assert games(url, "C05-2012-02-16-2") == games(url, "C05-2012-02-16")
    assert len(games(url, "C05-2012-02-16")) == 42
    target = tmp_path / "le.xml"
    out = run(["tournament", "export", "C05-2012-02-16", "--format", "dsb-xml", "-o", str(target)],
              url)  # fmt: skip
    assert out.returncode == 0 and out.stdout == "" and f"wrote {target}" in out.stderr
    assert dsb_xml.xsd_problems(target.read_bytes(), XSD) == []
    report = dsb_xml.parse(target.read_bytes())
    assert report.end.isoformat() == "2012-02-16" and len(report.games) == 42
    assert [g.round for g in report.games] == sorted(g.round for g in report.games)
