"""The officer's submission pages on top of the one implementation of
submitting, correcting and deleting (:mod:`ratingdb.services.tournaments`).

A draft (stored by :mod:`ratingdb.db.drafts`) holds an uploaded file, the upload form's
options and the officer's who-is-who choices. :func:`read` reads the file with the API's
readers (every tournament format by content through :func:`ratingdb.services.imports.read_trf`, a
submission document through :func:`ratingdb.services.database.json_document`); :func:`plan`
turns draft, user and date into the same change the API makes
(:func:`~ratingdb.services.tournaments.add_trf`, ``correct_trf``, ``add_json``,
``correct_json``): the same scope and deadline checks (WO 6.2, 6.3), the same audit entries.
:func:`ratingdb.services.tournaments.preview` runs it as a what-if, :func:`ratingdb.services.
database.write` commits it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.db import drafts as draft_store
from ratingdb.db.models import RecalcRun, Tournament, WebDraft
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.io.trf import TrfTournament
from ratingdb.services import tournaments
from ratingdb.services.database import json_document
from ratingdb.services.imports import read_trf
from ratingdb.services.permissions import check_edit
from ratingdb.services.tournaments import Written
from ratingdb.services.trf_import import Choice
from ratingdb.services.users import Principal

#: the largest file a draft keeps (the web's body limit for an upload, too)
MAX_BYTES = draft_store.MAX_BYTES

#: how the pages ask for a tournament id or VKZ a file does not give
WEB_HINTS = (
    "the field 'Tournament id' (or a '### ratingdb id:' line)",
    "the field 'VKZ' (or a '### ratingdb vkz:' line)",
)
KINDS = ("individual", "team", "match")


@dataclass
class Options:
    """The upload form's fields, as the API's query parameters (``FileQuery``)."""

    code: str | None = None
    vkz: str | None = None
    kind: str | None = None
    encoding: str | None = None
    start: date | None = None
    end: date | None = None
    complete_rounds: bool = False
    create_organisation: bool = False
    #: an administrator's override of the size bounds (:func:`ratingdb.services.
    #: tournaments.within_bounds`; an officer's is not honoured)
    allow_large: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["start"] = self.start.isoformat() if self.start else None
        out["end"] = self.end.isoformat() if self.end else None
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        def day(key: str) -> date | None:
            value = data.get(key)
            return date.fromisoformat(value) if isinstance(value, str) and value else None

        def text(key: str) -> str | None:
            value = data.get(key)
            return str(value) if value else None

        return cls(
            code=text("code"),
            vkz=text("vkz"),
            kind=text("kind"),
            encoding=text("encoding"),
            start=day("start"),
            end=day("end"),
            complete_rounds=bool(data.get("complete_rounds")),
            create_organisation=bool(data.get("create_organisation")),
            allow_large=bool(data.get("allow_large")),
        )


@dataclass
class Parsed:
    """A draft's file as read: a tournament file (``tournament``) or a submission document
    (``doc``), and what the page shows of it (``view``)."""

    format: str
    tournament: TrfTournament | None = None
    doc: Any = None
    warnings: list[str] = field(default_factory=list)


def is_json(content: bytes) -> bool:
    return content.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def read(content: bytes, filename: str, options: Options, user: Principal | None = None) -> Parsed:
    """Read the draft's file; InputError with every problem the reader finds (located).
    With the uploading ``user``, the size bounds are checked as soon as the file is read,
    before a document's players are parsed (:func:`within_bounds`)."""
    if is_json(content):
        doc = json_document(content, filename)
        if isinstance(doc, list):
            raise InputError(filename, _("one tournament per upload, not a list of tournaments"))
        try:
            if user is not None:
                within_bounds(Parsed("json", doc=doc), options, user)
            parse_tournament(doc)
        except InputError as err:
            raise err.with_context(filename) from None
        return Parsed("json", doc=doc)
    from ratingdb.io.tournament_file import detect

    t = read_trf(
        content, filename, options.encoding, start=options.start, end=options.end,
        complete_rounds=options.complete_rounds,
    )  # fmt: skip
    if user is not None:
        within_bounds(Parsed("trf", tournament=t), options, user)
    try:
        kind = detect(content)
    except InputError:  # pragma: no cover - read_trf already refused it
        kind = "trf"
    return Parsed(kind, tournament=t, warnings=list(t.warnings))


def within_bounds(parsed: Parsed, options: Options, user: Principal) -> None:
    """The size bounds of the file or document (:func:`ratingdb.services.tournaments.
    within_bounds`), checked as it is uploaded (:func:`read` with the user): a file above
    one is never kept as a draft (whose pages match every player) unless an administrator
    allows it."""
    tournaments.within_bounds(
        parsed.tournament if parsed.tournament is not None else parsed.doc,
        user,
        options.allow_large,
    )


def view(parsed: Parsed, options: Options) -> dict[str, Any]:
    """Header, players and games of the file, the same for every format."""
    if parsed.tournament is not None:
        t = parsed.tournament
        names = {p.start_rank: p.name for p in t.players}
        return {
            "name": t.name,
            "code": options.code or t.meta.get("id"),
            "vkz": options.vkz or t.meta.get("vkz"),
            "kind": options.kind or t.meta.get("kind") or ("team" if t.team else "individual"),
            "start": t.start,
            "end": t.end,
            "city": t.city,
            "arbiter": t.arbiter,
            "rounds": max((g.round for g in t.games), default=0),
            "players": [
                {
                    "key": str(p.start_rank),
                    "name": p.name,
                    "birth_year": p.birth_year,
                    "fide_id": p.fide_id,
                    "number": rec.number if (rec := p.national.get("GER")) else None,
                    "rating": p.rating,
                    "line": p.line,
                }
                for p in t.players
            ],
            "games": [
                {
                    "round": g.round,
                    "white": f"{g.white} {names.get(g.white, '')}",
                    "black": f"{g.black} {names.get(g.black, '')}",
                    "result": g.result,
                }
                for g in t.games
            ],
        }
    doc = parsed.doc
    parsed_doc = parse_tournament(doc)
    info = parsed_doc.tournament
    raw = {str(p.get("id")): p for p in doc.get("players", []) if isinstance(p, dict)}
    shown = {p.id: p.name or "" for p in parsed_doc.players}
    return {
        "name": info.name or info.id,
        "code": info.id,
        "vkz": info.vkz,
        "kind": info.kind,
        "start": info.start,
        "end": info.end,
        "city": "",
        "arbiter": "",
        "rounds": max((g.round or 0 for g in parsed_doc.games), default=0),
        "players": [
            {
                "key": p.id,
                "name": p.name
                or (f"#{raw[p.id]['player_id']}" if "player_id" in raw[p.id] else p.id),
                "birth_year": p.birth_year,
                "fide_id": None,
                "number": None,
                "rating": p.rating,
                "line": None,
            }
            for p in parsed_doc.players
        ],
        "games": [
            {
                "round": g.round,
                "white": f"{g.white} {shown.get(g.white, '')}".strip(),
                "black": f"{g.black} {shown.get(g.black, '')}".strip(),
                "result": g.result,
            }
            for g in parsed_doc.games
        ],
    }


def choices_of(stored: dict[str, Any]) -> dict[int, Choice]:
    """The draft's choices (JSON by start rank) as the import takes them."""
    out = {}
    for rank, c in stored.items():
        out[int(rank)] = Choice(c["kind"], c.get("player_id"), c.get("club"))
    return out


Plan = Callable[[Session], Written]


def submitted(session: Session, *, plan: Plan, draft_id: str, user_id: int) -> Written:
    """The draft's change made and the draft deleted, in the caller's transaction (a
    module-level function: the web hands ``partial(submitted, ...)`` to its worker process)."""
    written = plan(session)
    draft_store.drop(session, draft_id, user_id)
    return written


def plan(
    parsed: Parsed,
    options: Options,
    target: str | None,
    user: Principal,
    today: date,
    choices: dict[int, Choice],
) -> Plan:
    """The change the draft makes: a submission, or a correction of stored ``target``."""
    if parsed.tournament is None:
        if target is None:
            return partial(
                tournaments.add_json, doc=parsed.doc, user=user, today=today,
                allow_large=options.allow_large,
            )  # fmt: skip
        return partial(
            tournaments.correct_json, ident=target, doc=parsed.doc, user=user, today=today,
            allow_large=options.allow_large,
        )  # fmt: skip
    if target is None:
        return partial(
            tournaments.add_trf, parsed=parsed.tournament, code=options.code, vkz=options.vkz,
            kind=options.kind, user=user, today=today, hints=WEB_HINTS,
            create_organisation=options.create_organisation, choices=choices,
            allow_large=options.allow_large,
        )  # fmt: skip
    return partial(
        tournaments.correct_trf, code=target, parsed=parsed.tournament, vkz=options.vkz,
        kind=options.kind, user=user, today=today,
        create_organisation=options.create_organisation, choices=choices,
        allow_large=options.allow_large,
    )  # fmt: skip


#: the results an officer may set when editing a tournament's games (stored codes)
RESULTS = ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--")


def stored_file(session: Session, code: str) -> bytes:
    """Stored tournament ``code`` as the file the correction editor starts from: its stored
    submission itself, every field it holds (:func:`ratingdb.services.stored_tournament.
    document`: players with their entry ratings, sources and indices, clubs, byes, titles,
    federations; games with rounds), as a submission document (JSON). Taken over unchanged
    it changes nothing."""
    import json

    from ratingdb.db.store import find_tournament
    from ratingdb.services.stored_tournament import document

    doc = document(session, find_tournament(session, code))
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


def with_results(content: bytes, filename: str, options: Options, results: dict[int, str]) -> bytes:
    """The draft's file with the results of games ``results`` (index in the file's game
    order -> stored result code) replaced: a submission document gets the new codes, a TRF
    file is written again (the points column follows the results)."""
    import json
    from dataclasses import replace

    from ratingdb.io import trf

    parsed = read(content, filename, options)
    games = parsed.doc.get("games", []) if parsed.tournament is None else parsed.tournament.games
    for k, result in results.items():
        if not 0 <= k < len(games):
            raise InputError(_("game %(n)d") % {"n": k + 1}, _("no such game"))
        if result not in RESULTS:
            raise InputError(
                _("game %(n)d") % {"n": k + 1}, _("unknown result %(result)r") % {"result": result}
            )
    if parsed.tournament is None:
        doc = parsed.doc
        for k, result in results.items():
            doc["games"][k]["result"] = result
        return json.dumps(doc, ensure_ascii=False, indent=1).encode()
    t = parsed.tournament
    if parsed.format != "trf":
        raise InputError(
            filename, _("results are edited in TRF files only: upload a corrected file")
        )
    for k, result in results.items():
        t.games[k] = replace(t.games[k], result=result, coloured=True)
    return trf.write(t).encode()


def header_problems(
    session: Session, parsed: Parsed, options: Options, user: Principal, today: date
) -> list[tuple[str, str]]:
    """Everything about the draft that can be checked without the matching, at once and in
    the officer's language: the VKZ missing (a plain Swiss-Manager TRF names none) or
    unknown, outside the officer's organisation levels (WO 6.3), the tournament more than a
    year ago (WO 6.2). (where, message) pairs; the draft page lets the officer fix them in
    place (:func:`with_options`)."""
    from sqlalchemy import select

    from ratingdb.db.models import Organisation
    from ratingdb.services.permissions import in_scope, within_deadline

    shown = view(parsed, options)
    vkz, end = shown["vkz"], shown["end"]
    out: list[tuple[str, str]] = []
    if not vkz:
        out.append(("VKZ", _("The file names no VKZ (a plain TRF of a pairing program has "
                             "none): enter the tournament's VKZ below.")))  # fmt: skip
    else:
        known = session.scalar(select(Organisation.id).where(Organisation.vkz == vkz))
        if known is None and not options.create_organisation:
            out.append(("VKZ", _("VKZ %(vkz)s is unknown: correct it below, or tick "
                                 "“create the organisation”.") % {"vkz": vkz}))  # fmt: skip
        if not in_scope(user, vkz):
            out.append(("VKZ", _("VKZ %(vkz)s is outside your organisation levels "
                                 "(%(scopes)s) (WO 6.3).")
                        % {"vkz": vkz, "scopes": ", ".join(user.scopes)}))  # fmt: skip
    if not user.is_admin and not within_deadline(end, today):
        out.append((_("End"), _("The tournament ended on %(end)s, more than one year ago: "
                                "only an administrator may submit it (WO 6.2).")
                    % {"end": end.isoformat()}))  # fmt: skip
    return out


def default_vkz(parsed: Parsed, options: Options, user: Principal) -> Options:
    """A file that names no VKZ gets the VKZ of an officer with a single organisation level
    (his one scope) as the default; he can change it on the draft page."""
    from dataclasses import replace

    if options.vkz or user.is_admin or len(user.scopes) != 1 or view(parsed, options)["vkz"]:
        return options
    return replace(options, vkz=user.scopes[0])


def stored_choices(session: Session, code: str, parsed: Parsed) -> dict[str, dict[str, Any]]:
    """Who is who as stored, for a corrected file of tournament ``code``: a participant of
    the file the import cannot identify (no DSB id, FIDE id or unique name and birth year)
    whose name is a stored participant's gets that participant's decision (his database
    player, or a non-member) — a field the file does not carry keeps its stored value; the
    officer can change it on the draft page."""
    from ratingdb.db.store import find_tournament
    from ratingdb.services.stored_tournament import document
    from ratingdb.services.trf_import import match_players

    if parsed.tournament is None:
        return {}
    stored: dict[str, dict[str, Any]] = {}
    for entry in document(session, find_tournament(session, code))["players"]:
        if "player_id" in entry:
            stored.setdefault(entry["name"], {"kind": "player", "player_id": entry["player_id"]})
        elif not entry.get("computer"):
            stored.setdefault(entry["name"], {"kind": "nonmember"})
    out = {}
    for p, m in zip(parsed.tournament.players, match_players(session, parsed.tournament),
                    strict=True):  # fmt: skip
        if m.player_id is None and not p.computer and p.name in stored:
            out[str(p.start_rank)] = stored[p.name]
    return out


# -- the draft's steps (upload, who is who, options, results, discard) ----------------------------
def create(
    session: Session,
    user: Principal,
    filename: str,
    content: bytes,
    options: Options,
    target: str | None = None,
    parsed: Parsed | None = None,
) -> str:
    """A new draft of ``user`` with the uploaded file (at most :data:`MAX_BYTES`); a
    correction of stored ``target`` takes who is who as stored where the file cannot say
    (:func:`stored_choices`). Returns the draft's id."""
    choices = stored_choices(session, target, parsed) if target and parsed else None
    return draft_store.create(
        session, user.user_id, filename, content, options.to_dict(), target, choices
    )


def load(session: Session, draft_id: str, user: Principal) -> WebDraft:
    """The unexpired draft ``draft_id`` of ``user``; :class:`NotFound` otherwise (another
    user's draft is not found either)."""
    return draft_store.load(session, draft_id, user.user_id)


def choose(session: Session, draft: WebDraft, choices: dict[str, Any]) -> None:
    """The draft's who-is-who choices replaced (JSON by start rank)."""
    draft.choices = choices


def discard(session: Session, draft_id: str, user: Principal) -> None:
    """The draft deleted (nothing was submitted)."""
    draft_store.drop(session, draft_id, user.user_id)


def set_options(session: Session, draft: WebDraft, options: Options) -> None:
    """The draft's options replaced; the file must still read with them (:class:`InputError`
    otherwise, and nothing changes)."""
    read(draft.content, draft.filename, options)
    draft.options = options.to_dict()


def set_results(session: Session, draft: WebDraft, results: dict[int, str]) -> None:
    """The draft's file with the results of games ``results`` (:func:`with_results`)."""
    options = Options.from_dict(draft.options)
    draft.content = with_results(draft.content, draft.filename, options, results)


def correction(session: Session, code: str, user: Principal) -> str:
    """A correction draft of stored tournament ``code``: its stored submission itself
    (:func:`stored_file`), so that taken over unchanged it changes nothing."""
    content = stored_file(session, code)
    return draft_store.create(session, user.user_id, f"{code}.json", content, {}, code)


def editable(session: Session, code: str, user: Principal, today: date) -> dict[str, Any]:
    """Stored tournament ``code`` (its code, name, VKZ and end) if ``user`` may change it
    (WO 6.2, 6.3: :class:`~ratingdb.errors.Forbidden` otherwise, the API's check and
    message); :class:`NotFound` if there is none."""
    t = tournaments.existing(session, code[:30])
    check_edit(user, code=t.code, vkz=t.vkz, end=t.end_date, today=today)
    return {"code": t.code, "name": t.name, "vkz": t.vkz, "end": t.end_date}


@dataclass(frozen=True)
class Outcome:
    """What became of a submitted draft: the run that evaluated it (None if there was
    none) and the tournament's name and state (``exists`` False after a deletion)."""

    run: RecalcRun | None
    exists: bool
    name: str
    status: str | None


def outcome(session: Session, code: str, run_id: int | None) -> Outcome:
    """The run ``run_id`` and the state of tournament ``code`` after a submission."""
    run = session.get(RecalcRun, run_id) if run_id is not None else None
    t = session.scalar(select(Tournament).where(Tournament.code == code))
    if t is None:
        return Outcome(run, False, code, None)
    return Outcome(run, True, t.name, t.status)
