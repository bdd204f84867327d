"""One entry point for tournament files: the format is detected from the content.

* ``DSB_DWZ_TournamentReport`` in the DSB namespace: the TournamentReport 2.5 XML
  (:mod:`ratingdb.io.dsb_xml`);
* root element ``dewis``: the DeWIS XML (:mod:`ratingdb.io.dewis_xml`);
* a ruler line `` ttt. rrr nnnn…``: the SWI/ELOBASE text (:mod:`ratingdb.io.swi`);
* binary content (a NUL byte near the start): a SwissChess ``.SWT`` file
  (:mod:`ratingdb.io.swt`; its version field at bytes 609–610 and the size its counts give
  are then checked);
* anything else with a TRF record line (``012 …``, ``001 …``) in its first 64 KiB: a FIDE
  TRF (:mod:`ratingdb.io.trf`); a file with none is of no known format.

All give the same neutral model (:class:`~ratingdb.io.trf.TrfTournament`) for the one import
path (:func:`ratingdb.services.dsb_exchange.import_tournament`). A TournamentReport's
``tournamentUUID``/``fileUUID`` ride along in ``other``.
"""

from __future__ import annotations

from datetime import date

from ratingdb.errors import InputError
from ratingdb.i18n import _, date_text
from ratingdb.io import dewis_xml, dsb_xml, swi, swt, trf
from ratingdb.io.trf import TrfTournament
from ratingdb.safe_text import check_strings

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
        if root is None:
            dsb_xml.safe_root(data, "")  # XML that cannot be read (or has a DOCTYPE): its error
        if root is not None:
            ns, local = root
            facts = {"root": local, "ns": ns, "report": dsb_xml.ROOT, "dsb_ns": dsb_xml.NS}
            raise InputError(
                "",
                (
                    _(
                        "XML with root element %(root)r in %(ns)r: neither a %(report)s "
                        "(%(dsb_ns)s) nor a DeWIS file"
                    )
                    if ns
                    else _(
                        "XML with root element %(root)r: neither a %(report)s (%(dsb_ns)s) nor "
                        "a DeWIS file"
                    )
                )
                % facts,
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
    a NUL or a lone surrogate (:mod:`ratingdb.safe_text`). Raises :class:`InputError` (all
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
        _check_some_trf_record(data, source, encoding)
        text = trf.decode(data, source, encoding or "utf-8")
        t = trf.parse(text, source, complete_rounds=complete_rounds, start=start, end=end)
    else:
        t = _read(kind, data, source, encoding)
    check_strings(t, source)
    t.start, t.end = start or t.start, end or t.end
    if t.end < t.start:
        raise InputError(
            source,
            _("end date %(end)s is before the start %(start)s")
            % {"end": date_text(t.end), "start": date_text(t.start)},
        )
    return t


#: how far :func:`_check_some_trf_record` looks for a TRF record line (the header comes first)
TRF_HEAD = 65536


def _check_some_trf_record(data: bytes, source: str, encoding: str | None) -> None:
    """A file detected as none of the other formats is a TRF only if it has a record line
    (``012 …``, ``001 …``); else one line saying what it is not, rather than the TRF reader's
    list of missing records or "byte 0xff is not valid utf-8" for a file named ``x.swt``."""
    if not data.strip():
        raise InputError(source, _("the file is empty"))
    head = data[:TRF_HEAD].decode("latin-1")  # ASCII record codes, whatever the encoding
    lines = (line.rstrip("\r") for line in head.split("\n"))
    if any(trf.line_kind(line) != "comment" for line in lines if line.strip()):
        return
    why = _("no XML root element, SWI ruler line or TRF record line such as '012 ' or '001 '")
    if encoding is None:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
            why += "; " + _("byte 0x%(byte)02x at %(line)d:%(column)d is not UTF-8") % {
                "byte": data[err.start],
                "line": line,
                "column": column,
            }
    raise InputError(
        source,
        _(
            "not a tournament file of a known format: neither a SwissChess SWT (binary: no NUL "
            "byte in its first 4 KiB) nor DSB/DeWIS XML, SWI or TRF text (%(why)s)"
        )
        % {"why": why},
    )


def _read(kind: str, data: bytes, source: str, encoding: str | None) -> TrfTournament:
    if kind == "dsb-xml":
        return dsb_xml.read(data, source)[1]
    if kind == "dewis-xml":
        return dewis_xml.parse(data, source)
    return swi.read(data, source, encoding)
