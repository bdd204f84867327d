#!/usr/bin/env python3
"""The message catalogs (docs/i18n.md).

``python scripts/i18n.py`` extracts the messages of the code and the templates (the mapping
of ``babel.cfg``, the same one ``pybabel extract -F babel.cfg`` reads) into
``ratingdb/locale/ratingdb.pot`` and merges them into the German and English ``.po`` files:
new messages arrive with an empty translation, changed ones keep theirs marked fuzzy, gone
ones are dropped. The files carry no source locations and no dates, so two branches that
add messages merge as text.

``--check`` writes nothing and exits 1 when the ``.pot`` is out of date, a message has no
German translation (empty or fuzzy) or a ``.po`` lacks a message; the tests run it.

``--compile DIR`` writes the ``.mo`` files under ``DIR/<lang>/LC_MESSAGES`` (``setup.py``
does the same for the wheel; a source checkout compiles in memory, ratingdb/i18n.py).
"""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "ratingdb" / "locale"
POT = LOCALE / "ratingdb.pot"
LANGUAGES = ("de", "en")
#: fixed dates: the files change only when the messages do
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _catalog(locale: str | None = None) -> Catalog:
    return Catalog(
        locale=locale,
        domain="ratingdb",
        project="ratingdb",
        version="",
        copyright_holder="ratingdb",
        msgid_bugs_address="",
        creation_date=EPOCH,
        revision_date=EPOCH,
        fuzzy=False,
    )


def extract() -> Catalog:
    """Every message of ratingdb/ (Python and templates) as a template catalog (the paths of
    babel.cfg are relative to ratingdb/)."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    template = _catalog()
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT / "ratingdb",
        method_map,
        options_map,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def _po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=100, no_location=True, sort_output=True, ignore_obsolete=True)
    # no tool version in the files: another Babel writes the same bytes
    return b"".join(
        line
        for line in out.getvalue().splitlines(keepends=True)
        if not line.startswith(b'"Generated-By:')
    )


def _keys(catalog: Catalog) -> set[tuple[object, str | None]]:
    return {(m.id, m.context) for m in catalog if m.id}


def _read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale, domain="ratingdb")


def merged(template: Catalog, lang: str) -> Catalog:
    """The ``.po`` of ``lang`` brought up to ``template``."""
    path = LOCALE / lang / "LC_MESSAGES" / "ratingdb.po"
    catalog = _read(path, lang) if path.exists() else _catalog(lang)
    catalog.update(template, update_creation_date=False)
    catalog.creation_date = catalog.revision_date = EPOCH
    catalog.fuzzy = False
    return catalog


def problems(template: Catalog) -> list[str]:
    """What is out of date or untranslated (empty when all is well)."""
    out = []
    if not POT.exists() or _keys(_read(POT)) != _keys(template):
        out.append(f"{POT.relative_to(ROOT)} is out of date: run python scripts/i18n.py")
    wanted = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template if m.id}
    for lang in LANGUAGES:
        path = LOCALE / lang / "LC_MESSAGES" / "ratingdb.po"
        if not path.exists():
            out.append(f"{path.relative_to(ROOT)} is missing")
            continue
        have = {}
        for m in _read(path, lang):
            if m.id:
                have[(m.id if isinstance(m.id, str) else m.id[0], m.context)] = m
        for key in sorted(wanted, key=lambda k: (k[0], k[1] or "")):
            m = have.get(key)
            label = key[0] if key[1] is None else f"{key[1]}|{key[0]}"
            if m is None:
                out.append(f"{lang}: {label!r} is not in the catalog: run python scripts/i18n.py")
            elif lang == "de" and m.fuzzy:
                out.append(f"de: {label!r} is marked fuzzy: check its translation")
            elif lang == "de" and not all(m.string if isinstance(m.string, tuple) else [m.string]):
                out.append(f"de: {label!r} has no German translation")
    return out


def compile_to(target: Path) -> None:
    for lang in LANGUAGES:
        folder = target / lang / "LC_MESSAGES"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "ratingdb.mo").open("wb") as f:
            write_mo(f, _read(LOCALE / lang / "LC_MESSAGES" / "ratingdb.po", lang))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--compile"] and len(argv) == 2:
        compile_to(Path(argv[1]))
        return 0
    template = extract()
    if argv == ["--check"]:
        found = problems(template)
        for line in found:
            print(line)
        return 1 if found else 0
    if argv:
        print(__doc__)
        return 2
    POT.parent.mkdir(parents=True, exist_ok=True)
    POT.write_bytes(_po_bytes(template))
    for lang in LANGUAGES:
        path = LOCALE / lang / "LC_MESSAGES" / "ratingdb.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_po_bytes(merged(template, lang)))
    untranslated = [line for line in problems(template) if line.startswith("de:")]
    print(f"wrote {POT.relative_to(ROOT)} ({len(template)} messages) and the .po files")
    for line in untranslated:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
