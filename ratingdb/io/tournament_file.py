"""One entry point for tournament files: the format is detected from the content.

* ``DSB_DWZ_TournamentReport`` in the DSB namespace: the TournamentReport 2.5 XML
  (:mod:`ratingdb.io.dsb_xml`);
* root element ``dewis``: the DeWIS XML (:mod:`ratingdb.io.dewis_xml`);
* a ruler line `` ttt. rrr nnnn…``: the SWI/ELOBASE text (:mod:`ratingdb.io.swi`);
* binary content (a NUL byte near the start): a SwissChess ``.SWT`` file
  (:mod:`ratingdb.io.swt`; its version field at bytes 609–610 and the size its counts give
  are then checked);
* anything else: a FIDE TRF (:mod:`ratingdb.io.trf`).

All give the same neutral model (:class:`~ratingdb.io.trf.TrfTournament`) for the one import
path (:func:`ratingdb.db.dsb_exchange.import_tournament`). A TournamentReport's
``tournamentUUID``/``fileUUID`` ride along in ``other``.
"""

from __future__ import annotations

from datetime import date

from ratingdb.io import dewis_xml, dsb_xml, swi, swt, trf
from ratingdb.io.errors import InputError
from ratingdb.io.text import check_strings
from ratingdb.io.trf import TrfTournament

FORMATS = ("dsb-xml", "dewis-xml", "swi", "swt", "trf")


def detect(data: bytes) -> str:
    """``dsb-xml``, ``dewis-xml``, ``swi``, ``swt`` or ``trf``."""
    head = data.lstrip()[:1]
    if head == b"<" or data.startswith(b"\xef\xbb\xbf<"):
        root = dsb_xml.root_element(data)
        if root == (dsb_xml.NS, dsb_xml.ROOT):
            return "dsb-xml"
        if root is not None and root[1] == dewis_xml.ROOT:
            return "dewis-xml"
        if root is None and data.lstrip().lstrip(b"\xef\xbb\xbf").startswith(b"<?xml"):
            dsb_xml.safe_root(data, "")  # declared XML that cannot be read: its own error
        if root is not None:
            ns, local = root
            raise InputError(
                "",
                f"XML with root element {local!r}{f' in {ns!r}' if ns else ''}: neither a "
                f"{dsb_xml.ROOT} ({dsb_xml.NS}) nor a DeWIS file",
            )
    if swt.looks_like_swt(data):
        return "swt"
    if swi.looks_like_swi(data):
        return "swi"
    return "trf"


def read_tournament(
    data: bytes,
    source: str,
    encoding: str | None = None,
    *,
    start: date | None = None,
    end: date | None = None,
    complete_rounds: bool = False,
) -> TrfTournament:
    """Detect the format and read the file; ``encoding`` applies to the texts (TRF: UTF-8 by
    default; SWI: detected by default; SWT: cp1252 by default). ``start``/``end`` replace the
    file's dates (an SWT or TRF file may have none); ``complete_rounds`` leaves out the
    rounds of a TRF that are paired but have no results yet. No text of the file may hold
    a NUL or a lone surrogate (:mod:`ratingdb.io.text`). Raises :class:`InputError` (all
    problems of the file, located)."""
    try:
        kind = detect(data)
    except InputError as err:
        raise InputError(source, err.message) from None
    if kind == "swt":
        t = swt.read(data, source, encoding, start=start, end=end)
        check_strings(t, source)
        return t
    if kind == "trf":
        text = trf.decode(data, source, encoding or "utf-8")
        t = trf.parse(text, source, complete_rounds=complete_rounds, start=start, end=end)
    else:
        t = _read(kind, data, source, encoding)
    check_strings(t, source)
    t.start, t.end = start or t.start, end or t.end
    if t.end < t.start:
        raise InputError(source, f"end date {t.end} is before the start {t.start}")
    return t


def _read(kind: str, data: bytes, source: str, encoding: str | None) -> TrfTournament:
    if kind == "dsb-xml":
        return dsb_xml.read(data, source)[1]
    if kind == "dewis-xml":
        return dewis_xml.parse(data, source)
    return swi.read(data, source, encoding)
