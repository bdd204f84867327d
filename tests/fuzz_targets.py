"""The parsers a user's file or request reaches, as fuzz targets, with their seeds and
mutations: shared by the hypothesis test (tests/test_fuzz.py, a few thousand cases in CI)
and the long run (scripts/fuzz.py, 100,000 and more).

A target takes bytes and returns nothing; the only exceptions it may raise are the project's
own for bad input (:class:`ratingdb.errors.InputError`, and :class:`ratingdb.errors.
RulesError` where a document is evaluated too). Anything else is a finding.

Seeds are real files, read in place: tests/data, tests/fixtures and the shared corpus
(tests/shared_files.py; the latter only when present); a TournamentReport XML seed is
written from a TRF seed.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from ratingdb.errors import InputError, RulesError
from tests import shared_files

HERE = Path(__file__).parent
CORPUS = shared_files.CORPUS
#: the project's errors for bad input: nothing else may escape a target
EXPECTED: tuple[type[BaseException], ...] = (InputError, RulesError)

Target = Callable[[bytes], None]


# -- the targets ------------------------------------------------------------------------------
def tournament_file(data: bytes) -> None:
    """Format detection and every tournament reader (TRF, SWT, SWI, TournamentReport and
    DeWIS XML) through the one entry point of the import."""
    from ratingdb.io.tournament_file import read_tournament

    read_tournament(data, "fuzz")


def trf(data: bytes) -> None:
    from ratingdb.io import trf as reader

    reader.parse(reader.decode(data, "fuzz.trf", "latin-1"), "fuzz.trf")


def swt(data: bytes) -> None:
    from ratingdb.io import swt as reader

    reader.read(data, "fuzz.swt")


def swi(data: bytes) -> None:
    from ratingdb.io import swi as reader

    reader.read(data, "fuzz.swi")


def dsb_xml(data: bytes) -> None:
    from ratingdb.io import dsb_xml as reader

    reader.read(data, "fuzz.xml")


def dewis_xml(data: bytes) -> None:
    from ratingdb.io import dewis_xml as reader

    reader.parse(data, "fuzz.xml")


def dsb_lists(data: bytes) -> None:
    """The member list, the club list and the federation-level list."""
    from ratingdb.io.dsb_clubs import parse_orgs
    from ratingdb.io.dsb_list import parse_list

    for run in (
        lambda: parse_list(data, "spieler.csv"),
        lambda: parse_orgs(data, "vereine.csv", clubs=True),
        lambda: parse_orgs(data, "verbaende.csv", clubs=False),
    ):
        with contextlib.suppress(InputError):
            run()


def submission_json(data: bytes) -> None:
    """An officer's submission as the API reads it: the one loader, the document's checks
    that need no database, the officer's scope of new members."""
    from ratingdb.io.evaluate_json import parse_tournament
    from ratingdb.services.database import json_document
    from ratingdb.services.permissions import check_memberships
    from ratingdb.services.users import Principal

    doc = json_document(data, "body", named=False)
    parse_tournament(doc)
    try:
        check_memberships(Principal(user_id=0, name="o", role="officer", scopes=("A",)), doc)
    except Exception as err:  # Forbidden is a right answer here, not a crash
        if type(err).__name__ != "Forbidden":
            raise


def evaluate_json(data: bytes) -> None:
    """``ratingdb evaluate``: the loader, every family's reader, and the evaluation itself
    for the tournament shape (RulesError allowed)."""
    from ratingdb.io.families import PARSERS
    from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
    from ratingdb.services.database import json_document

    doc = json_document(data, "fuzz.json")
    for shape, parse in PARSERS.items():
        try:
            inputs, _ = parse(doc)
        except InputError:
            continue
        if shape == "tournament":
            for t in inputs[:3]:
                if len(t.players) <= 40:
                    evaluate(t, Dwz2026Parameters()).to_dict()


TARGETS: dict[str, Target] = {
    "tournament-file": tournament_file,
    "trf": trf,
    "swt": swt,
    "swi": swi,
    "dsb-xml": dsb_xml,
    "dewis-xml": dewis_xml,
    "dsb-lists": dsb_lists,
    "submission-json": submission_json,
    "evaluate-json": evaluate_json,
}


# -- seeds -------------------------------------------------------------------------------------
def _files(*patterns: tuple[Path, str]) -> list[bytes]:
    out = []
    for base, pattern in patterns:
        if base.is_dir():
            out.extend(p.read_bytes() for p in sorted(base.glob(pattern)) if p.is_file())
    return out


@cache
def _report_xml() -> list[bytes]:
    from ratingdb.io import dsb_xml
    from ratingdb.io.tournament_file import read_tournament

    out = []
    for raw in _files((HERE / "data" / "trf", "swiss-manager.trf"),
                      (HERE / "data" / "exchange", "wo-2026-example.trf")):  # fmt: skip
        t = read_tournament(raw, "seed.trf")
        report = dsb_xml.from_tournament(
            t,
            tournament_uuid="0f8fad5b-d9cb-469f-a165-70867728950e",
            head=dsb_xml.header("fuzz", when=datetime(2026, 11, 25, 12, 0, tzinfo=UTC)),
        )
        out.append(dsb_xml.write(report))
    return out


@cache
def _submissions() -> list[bytes]:
    example = json.loads((HERE / "fixtures" / "wo-2026-example.json").read_text())
    doc = {
        "tournament": {**example["tournament"], "vkz": "A0001"},
        "players": [
            {"id": "1", "player_id": 17},
            {"id": "2", "name": "Neu, Nina", "club": "A0002", "member_since": "2026-01-01",
             "birth_year": 2001, "sex": "f"},
            {"id": "3", "name": "Gast, Gustav", "member": False, "rating": 1850,
             "rating_source": "fide"},
        ],
        "games": [{"round": 1, "white": "1", "black": "2", "result": "1-0"},
                  {"round": 2, "white": "3", "black": "1", "result": "1/2-1/2"}],
    }  # fmt: skip
    return [json.dumps(doc).encode(), json.dumps([doc, doc], indent=1).encode()]


@cache
def seeds(name: str) -> tuple[bytes, ...]:
    """The real files a target starts from."""
    data, fixtures = HERE / "data", HERE / "fixtures"
    trf_files = _files((data / "trf", "*.trf"), (data / "exchange", "*.trf"))
    swt_files = _files((CORPUS / "swt", "*.swt"), (data / "swt", "*.swt"), (data / "swt", "*.SWT"))
    swi_files = _files((fixtures / "swi", "*.swi"), (CORPUS / "swi", "*.swi"))
    dewis = _files((fixtures / "dewis", "*.xml"))
    lists = _files((data / "dsb", "*.csv"), (data / "exchange", "*.csv"))
    evaluate = _files(
        (fixtures, "wo-2026-example.json"), (fixtures / "dwz-classic-cases", "*.json")
    )
    table: dict[str, list[bytes]] = {
        "trf": trf_files,
        "swt": swt_files,
        "swi": swi_files,
        "dsb-xml": _report_xml(),
        "dewis-xml": dewis,
        "dsb-lists": lists,
        "submission-json": _submissions(),
        "evaluate-json": evaluate[:8],
    }
    table["tournament-file"] = [*trf_files[:3], *swt_files[:1], *swi_files[:2], *dewis,
                                *_report_xml()[:1]]  # fmt: skip
    found = table[name]
    assert found, f"no seed files for {name}"
    return tuple(found)


# -- mutations ---------------------------------------------------------------------------------
#: values that broke or nearly broke readers: huge and odd numbers, dates, escapes, NUL
SPECIAL = [
    b"9E99", b"1E28", b"-0", b"NaN", b"Infinity", b"1e400", b"0x1F", b"99999999999999999999",
    b"-1", b"0000", b"9999-12-31", b"0001-01-01", b"2026/02/30", b"\x00", b"\xff\xfe",
    b"\\ud800", b"\\u0000", b"\xed\xa0\x80", b"\r", b"\n\n", b"\t", b"  ", b";", b",", b'"',
    b"[", b"{", b"}", b"]", b"<", b"&#0;", b"&#xD800;", b"]]>", b"<!DOCTYPE x [<!ENTITY a 'b'>]>",
    b"1" * 60, b"\xc3", b"\xe2\x80\xae",
]  # fmt: skip


def mutate(data: bytes, rng: random.Random, steps: int | None = None) -> bytes:
    """``data`` changed by 1..4 random edits: flipped, inserted, deleted, duplicated or
    swapped bytes and lines, special tokens in place of digits or fields, truncation."""
    buf = bytearray(data)
    for _ in range(steps or rng.randint(1, 4)):
        op = rng.randrange(10)
        n = len(buf)
        at = rng.randrange(n + 1)
        if op == 0 and n:
            buf[min(at, n - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2 and n:
            del buf[at : at + rng.randint(1, 64)]
        elif op == 3:
            buf[at:at] = rng.choice(SPECIAL)
        elif op == 4 and n:  # a run of digits replaced by a special token
            digits = [k for k in range(n) if 48 <= buf[k] <= 57]
            if digits:
                k = rng.choice(digits)
                end = k
                while end < n and 48 <= buf[end] <= 57:
                    end += 1
                buf[k:end] = rng.choice(SPECIAL)
        elif op == 5:  # a line duplicated or dropped
            lines = bytes(buf).split(b"\n")
            k = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(k, lines[k])
            else:
                del lines[k]
            buf = bytearray(b"\n".join(lines))
        elif op == 6:
            del buf[at:]
        elif op == 7 and n > 2:  # a slice copied elsewhere
            a = rng.randrange(n)
            piece = buf[a : a + rng.randint(1, 200)]
            buf[at:at] = piece
        elif op == 8 and n:  # a byte set to an edge value
            buf[min(at, n - 1)] = rng.choice((0, 0x7F, 0x80, 0xFF, 0x20, 0x30, 0x39))
        else:  # a JSON-ish value replaced (between quotes or colons)
            colon = bytes(buf).find(b":", at)
            if colon != -1:
                end = colon + 1
                while end < n and buf[end] not in b",}]\n":
                    end += 1
                buf[colon + 1 : end] = rng.choice(SPECIAL)
    return bytes(buf)


def check(name: str, data: bytes) -> BaseException | None:
    """Run target ``name`` on ``data``; the exception that is a finding, else None."""
    try:
        TARGETS[name](data)
    except EXPECTED:
        return None
    except RecursionError as err:  # a finding too, but never re-raised inside hypothesis
        return err
    except Exception as err:
        return err
    return None
