"""The repository describes the software, not the work that made it: no session ordinals,
issue numbers or paths outside the repository in the README, the changelog, docs/, the code
(docstrings, comments), the scripts and the tests (their names included), and no commit
hashes in the README and docs/. History goes to CHANGELOG.md, by feature and date."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what is read: the tracked text files of these places
PLACES = ("README.md", "CHANGELOG.md", "docs", "ratingdb", "scripts", "tests")
TEXT = {".md", ".py", ".pyi", ".c", ".h", ".html", ".txt", ".po", ".pot", ".sh", ".cfg", ".toml"}
#: tests/data and tests/fixtures hold other people's files as they were found
FOREIGN = ("tests/data/", "tests/fixtures/")

ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
WORK_LOG = [
    ("a session ordinal", re.compile(rf"\b(?:{ORDINALS})[ -]session\b", re.IGNORECASE)),
    ("an issue number", re.compile(r"\bissues? #?\d+", re.IGNORECASE)),
    ("a path outside the repository", re.compile(r"\.\./shared")),
    ("how a test was found", re.compile(r"\bdef test_\w*(?:held_out|second_pair|review)")),
]
#: 7 to 40 hexadecimal digits with a letter and a digit among them, as a word of its own
COMMIT = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")


def tracked(*places: str) -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "--", *places], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ROOT / n
        for n in names
        if Path(n).suffix in TEXT and not n.startswith(FOREIGN) and (ROOT / n).is_file()
    ]


def findings(paths: list[Path], patterns: list[tuple[str, re.Pattern[str]]]) -> list[str]:
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for what, pattern in patterns:
                for match in pattern.finditer(line):
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    found.append(f"{where}:{number}: {what}: {match.group(0)!r}")
    return found


def test_the_checked_places_are_read():
    """The check reads what it claims to (a git checkout, the places not empty)."""
    paths = tracked(*PLACES)
    assert ROOT / "README.md" in paths and ROOT / "docs" / "engine.md" in paths
    assert ROOT / "ratingdb" / "engine" / "replay.py" in paths
    assert Path(__file__).resolve() in paths


def test_no_work_log_wording_in_docs_code_and_tests():
    assert findings(tracked(*PLACES), WORK_LOG) == []


def test_no_commit_hashes_in_the_docs():
    assert findings(tracked("README.md", "CHANGELOG.md", "docs"), [("a commit hash", COMMIT)]) == []


@pytest.mark.parametrize(
    ("line", "what"),
    [
        # put together here, so that this file does not hold what it looks for
        ("measured in the twelfth " + "session", "a session ordinal"),
        ("Seventh-" + "session, 2026-11-29", "a session ordinal"),
        ("the regression of iss" + "ue 23", "an issue number"),
        ("(Iss" + "ue 24, item 3)", "an issue number"),
        ("see ." + "./shared/tools/federation-run", "a path outside the repository"),
        ("def test_" + "held_out_submissions(world):", "how a test was found"),
    ],
)
def test_the_check_finds_each_kind_of_wording(tmp_path, line, what):
    page = tmp_path / "page.md"
    page.write_text(f"fine text\n{line}\n")
    found = findings([page], WORK_LOG)
    assert len(found) == 1 and f": {what}: " in found[0], found


@pytest.mark.parametrize(
    ("line", "hashes"),
    [
        ("main at `1b7dba1` against 4eaa2c7", ["1b7dba1", "4eaa2c7"]),
        ("sha256 `88ac3f06ed5b92f31be752f45ec68eebe0eef83d678269dabde96421f459154c`", []),
        ("tournament 12345678, member 24600001, the word deadbeef", []),
        ("a DSB id NU4005017 and ZPS C0327-12", []),
        (
            "@ 335f3cbef5a2d6867bb2b17027511a52fdfff4d5",
            ["335f3cbef5a2d6867bb2b1" + "7027511a52fdfff4d5"],
        ),
    ],
)
def test_commit_hashes_are_told_from_other_numbers(line, hashes):
    assert [m.group(0) for m in COMMIT.finditer(line)] == hashes
