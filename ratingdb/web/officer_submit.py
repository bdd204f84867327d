"""The officer's submission pages: upload a tournament file, check
who is who, see what the next run would change, submit; correct and delete.

Steps and what each keeps (nothing is a tournament before "submit"):

1. ``/officer/upload`` (a form with the file or one of the examples, and the options the
   API takes as query parameters): the file is read with the API's readers; a file with
   problems comes back with every problem listed (422), a readable one becomes a draft
   (:mod:`ratingdb.services.drafts`) and the browser goes to its page.
2. ``/officer/drafts/{id}``: header, warnings, who is who (:mod:`ratingdb.services.
   who_is_who`), the games; participants the import cannot decide are decided here
   (``POST .../choices``), and when none is open, the what-if of the change
   (:func:`ratingdb.services.tournaments.preview`: the same checks, 403 with the API's
   message for a VKZ outside the officer's scope or a tournament older than a year).
   What-ifs run where the API's run (:func:`ratingdb.web.offload.off_the_readers`: the
   officer worker process of ``ratingdb serve``), writes in request threads as the API's.
3. ``POST /officer/drafts/{id}/submit``: the same change committed, the draft deleted in
   the same transaction, then evaluated at once (WO 6.4.3, :func:`ratingdb.services.recalc.
   evaluate_now`); the browser goes to ``/officer/done/{code}``: what was stored and its
   evaluation.
4. Corrections: ``/officer/upload?correct=CODE`` (a new file for a stored tournament) or
   ``POST /officer/tournaments/{code}/edit`` (a draft of the stored submission itself,
   :func:`ratingdb.services.drafts.correction`, whose results are edited on the draft
   page); deletion: ``/officer/tournaments/
   {code}/delete``, its what-if and a reason, kept in the audit entry.

Every change is a plan of :mod:`ratingdb.services.drafts` over :mod:`ratingdb.services.
tournaments`, the functions the API calls. Every POST checks the session's CSRF token first
(403); without a session a page redirects to the sign-in, a POST is 401.
"""

from __future__ import annotations

from datetime import date
from functools import partial
from pathlib import Path
from typing import Annotated, Any, cast
from urllib.parse import quote, urlencode

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from ratingdb import budget
from ratingdb.errors import InputError, RatingdbError, Unauthenticated
from ratingdb.i18n import _
from ratingdb.services import drafts, recalc, tournaments, who_is_who
from ratingdb.services.database import write
from ratingdb.web.deps import SignedIn, SignedInDep
from ratingdb.web.errors import describe
from ratingdb.web.guard import SIGN_IN, check_csrf, render, to_sign_in
from ratingdb.web.offload import in_a_request_thread, off_the_readers, read_off_the_readers
from ratingdb.web.timing import in_thread

router = APIRouter(include_in_schema=False)
#: the example files offered on the upload page (a source checkout's examples/)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_SUFFIXES = (".trf", ".swt", ".swi", ".xml", ".json")
MAX_REASON = 500


def examples() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        p.name for p in EXAMPLES.iterdir() if p.suffix.lower() in EXAMPLE_SUFFIXES and p.is_file()
    )


def _posting(user: SignedIn | None, csrf: str) -> SignedIn:
    """The signed-in user of a POST whose CSRF token is his session's (401 / 403)."""
    if user is None:
        raise Unauthenticated(_("sign in first: %(page)s") % {"page": SIGN_IN})
    check_csrf(user, csrf)
    return user


def _today(request: Request) -> date:
    return cast(date, request.app.state.today())


# -- 1. upload ---------------------------------------------------------------------------------
def _upload_page(
    request: Request,
    user: SignedIn,
    target: str | None,
    form: dict[str, Any] | None = None,
    error: RatingdbError | None = None,
) -> HTMLResponse:
    status, summary, items = describe(error) if error is not None else (200, None, [])
    return render(
        request,
        "officer_upload.html",
        {
            "user": user.user,
            "csrf": user.csrf,
            "target": target,
            "examples": examples(),
            "kinds": drafts.KINDS,
            "form": form or {},
            "summary": summary,
            "items": items,
        },
        status,
    )


def _stored_tournament(request: Request, user: SignedIn, code: str) -> dict[str, Any]:
    """Stored tournament ``code`` if the user may change it (WO 6.2, 6.3): the API's check
    and message (403), else 404."""
    with Session(request.app.state.engine) as session:
        return drafts.editable(session, code, user.user, _today(request))


@router.get("/officer/upload", response_class=HTMLResponse)
def upload_form(request: Request, user: SignedInDep, correct: str | None = None) -> Response:
    if user is None:
        return to_sign_in(request)
    target = _stored_tournament(request, user, correct)["code"] if correct else None
    return _upload_page(request, user, target)


def _options(
    code: str,
    vkz: str,
    kind: str,
    encoding: str,
    start: str,
    end: str,
    complete: str,
    create: str,
    allow_large: str = "",
) -> drafts.Options:
    def day(value: str, name: str) -> date | None:
        if not value.strip():
            return None
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            raise InputError(
                name, _("expected a date YYYY-MM-DD, got %(value)r") % {"value": value.strip()}
            ) from None

    if kind and kind not in drafts.KINDS:
        raise InputError(
            "kind",
            _("expected %(kinds)s, got %(kind)r")
            % {"kinds": ", ".join(drafts.KINDS), "kind": kind},
        )
    return drafts.Options(
        code=code.strip() or None,
        vkz=vkz.strip() or None,
        kind=kind or None,
        encoding=encoding.strip() or None,
        start=day(start, "start"),
        end=day(end, "end"),
        complete_rounds=bool(complete),
        create_organisation=bool(create),
        allow_large=bool(allow_large),
    )


@router.post("/officer/upload", response_class=HTMLResponse)
async def upload(
    request: Request,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
    file: Annotated[UploadFile | None, File()] = None,
    example: Annotated[str, Form(max_length=100)] = "",
    code: Annotated[str, Form(max_length=30)] = "",
    vkz: Annotated[str, Form(max_length=10)] = "",
    kind: Annotated[str, Form(max_length=20)] = "",
    encoding: Annotated[str, Form(max_length=20)] = "",
    start: Annotated[str, Form(max_length=20)] = "",
    end: Annotated[str, Form(max_length=20)] = "",
    complete_rounds: Annotated[str, Form(max_length=5)] = "",
    create_organisation: Annotated[str, Form(max_length=5)] = "",
    allow_large: Annotated[str, Form(max_length=5)] = "",
    target: Annotated[str, Form(max_length=30)] = "",
) -> Response:
    signed = _posting(user, csrf)
    form = {"code": code, "vkz": vkz, "kind": kind, "encoding": encoding, "start": start,
            "end": end, "complete_rounds": complete_rounds,
            "create_organisation": create_organisation, "allow_large": allow_large,
            "example": example}  # fmt: skip
    stored = None
    if target:
        stored = (await in_thread(_stored_tournament, request, signed, target))["code"]
    try:
        options = _options(code, vkz, kind, encoding, start, end, complete_rounds,
                           create_organisation, allow_large)  # fmt: skip
        filename, content = await in_thread(_uploaded, file, example)
        # every problem of the file (the first ones) and the size bounds before its players
        # are parsed, as heavy work within the file's time budget: never in the threads
        # that answer the pages
        parsed = await read_off_the_readers(
            request, filename, drafts.read, content, filename, options, signed.user
        )
    except InputError as err:
        return _upload_page(request, signed, stored, form, err)
    if stored is None:
        options = drafts.default_vkz(parsed, options, signed.user)
    draft_id = await in_thread(_new_draft, request, signed, filename, content, options, stored,
                               parsed)  # fmt: skip
    return RedirectResponse(f"/officer/drafts/{draft_id}", status_code=303)


def _new_draft(
    request: Request,
    user: SignedIn,
    filename: str,
    content: bytes,
    options: drafts.Options,
    stored: str | None,
    parsed: drafts.Parsed,
) -> str:
    with Session(request.app.state.engine) as session, session.begin():
        # a corrected file: who is who as stored where it cannot say
        return drafts.create(session, user.user, filename, content, options, stored, parsed)


def _uploaded(file: UploadFile | None, example: str) -> tuple[str, bytes]:
    """The uploaded file's name and bytes, or an example's (one of :func:`examples`)."""
    if file is not None and file.filename:
        content = file.file.read(drafts.MAX_BYTES + 1)
        name = Path(file.filename).name[:100] or "upload"
        if len(content) > drafts.MAX_BYTES:
            raise InputError(
                name, _("the file has more than %(n)d bytes") % {"n": drafts.MAX_BYTES}
            )
        if not content:
            raise InputError(name, _("the file is empty"))
        return name, content
    if example:
        if example not in examples():
            raise InputError("example", _("no example %(name)r") % {"name": example})
        return example, (EXAMPLES / example).read_bytes()
    raise InputError("file", _("choose a file to upload (or one of the examples)"))


# -- 2.-3. the draft: who is who, what changes, submit ------------------------------------------
def _draft_context(
    request: Request, session: Session, user: SignedIn, draft_id: str
) -> dict[str, Any]:
    draft = drafts.load(session, draft_id, user.user)
    options = drafts.Options.from_dict(draft.options)
    # read again on every view (a draft keeps the file, not its reading), within the
    # file's time budget as at the upload (ratingdb/budget.py)
    parsed = budget.within(draft.filename, drafts.read, draft.content, draft.filename, options)
    choices = drafts.choices_of(draft.choices or {})
    today = _today(request)
    if parsed.tournament is not None:
        rows = who_is_who.for_file(session, parsed.tournament, choices, today)
    else:
        rows = who_is_who.for_document(session, parsed.doc, today)
    return {
        "draft": draft,
        "draft_id": draft.id,
        "options": options,
        "parsed": parsed,
        "problems": drafts.header_problems(session, parsed, options, user.user, today),
        "kinds": drafts.KINDS,
        "view": drafts.view(parsed, options),
        "rows": rows,
        "open": who_is_who.open_rows(rows),
        "choices": choices,
        "target": draft.target,
        "results": drafts.RESULTS if parsed.format in ("trf", "json") else None,
        "at_once": request.app.state.evaluate_on_submit,
    }


def _plan(request: Request, user: SignedIn, ctx: dict[str, Any]) -> drafts.Plan:
    return drafts.plan(
        ctx["parsed"], ctx["options"], ctx["target"], user.user, _today(request), ctx["choices"]
    )


async def _what_if(request: Request, plan: drafts.Plan) -> dict[str, Any]:
    """The what-if of ``plan`` for a page (in the officer worker when the server has one:
    :mod:`ratingdb.web.offload`): the moved players, or the refusal (its status, the API's
    message and items)."""
    try:
        written, report = await off_the_readers(request, tournaments.preview, plan)
    except RatingdbError as err:
        status, summary, items = describe(err)
        return {"status": status, "summary": summary, "items": items}
    return {"status": 200, "written": written, "report": report}


@router.get("/officer/drafts/{draft_id}", response_class=HTMLResponse)
async def draft_page(request: Request, draft_id: str, user: SignedInDep) -> Response:
    if user is None:
        return to_sign_in(request)
    try:
        ctx = await in_thread(_read_draft, request, user, draft_id)
    except InputError as err:  # a draft whose players cannot be matched (file error)
        status, summary, items = describe(err)
        return render(
            request, "officer_draft.html",
            {"user": user.user, "csrf": user.csrf, "draft_id": draft_id, "summary": summary,
             "items": items, "broken": True},
            status,
        )  # fmt: skip
    blocked = ctx["open"] or ctx["problems"]
    what_if = None if blocked else await _what_if(request, _plan(request, user, ctx))
    ctx.update(user=user.user, csrf=user.csrf, what_if=what_if)
    return render(request, "officer_draft.html", ctx, what_if["status"] if what_if else 200)


def _read_draft(request: Request, user: SignedIn, draft_id: str) -> dict[str, Any]:
    with Session(request.app.state.engine) as session:
        return _draft_context(request, session, user, draft_id)


def _choice(value: str, club: str, player: str = "") -> dict[str, Any] | None:
    """A choice field's value (``p123``, ``new``, ``non``; ``id`` with the player id typed
    in ``player``) as stored; None when empty."""
    if value == "id":
        typed = player.strip()
        value = f"p{typed}" if typed.isascii() and typed.isdigit() else ""
        if not value:
            raise InputError("player", _("give the id of the database player (a number)"))
    if value.startswith("p") and value[1:].isascii() and value[1:].isdigit() and len(value) < 19:
        return {"kind": "player", "player_id": int(value[1:])}
    if value == "new":
        if not club.strip():
            raise InputError("club", _("a new member needs the VKZ of his club"))
        return {"kind": "new", "club": club.strip()[:10]}
    if value == "non":
        return {"kind": "nonmember"}
    if value:
        raise InputError("choice", _("unknown choice %(value)r") % {"value": value})
    return None


@router.post("/officer/drafts/{draft_id}/choices")
async def save_choices(request: Request, draft_id: str, user: SignedInDep) -> Response:
    form = await request.form(max_files=0, max_fields=20000)
    csrf = form.get("csrf")
    signed = _posting(user, csrf if isinstance(csrf, str) else "")
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    await in_thread(_store_choices, request, signed, draft_id, fields)
    return RedirectResponse(f"/officer/drafts/{draft_id}#who", status_code=303)


def _store_choices(request: Request, user: SignedIn, draft_id: str, fields: dict[str, str]) -> None:
    with Session(request.app.state.engine) as session, session.begin():
        ctx = _draft_context(request, session, user, draft_id)
        stored: dict[str, Any] = {}
        everyone_else = fields.get("all") == "non"
        for row in ctx["rows"]:
            if row.state not in ("open", "decided", "matched"):
                continue
            value = fields.get(f"c{row.key}", "")
            choice = _choice(
                value, fields.get(f"club{row.key}", ""), fields.get(f"id{row.key}", "")
            )
            if row.state == "matched":  # the import's match, unless the officer overrides it
                if choice is not None:
                    stored[row.key] = choice
                continue
            if choice is None and everyone_else:
                choice = {"kind": "nonmember"}
            if choice is not None:
                stored[row.key] = choice
        drafts.choose(session, ctx["draft"], stored)


@router.post("/officer/drafts/{draft_id}/options")
def save_options(
    request: Request,
    draft_id: str,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
    code: Annotated[str, Form(max_length=30)] = "",
    vkz: Annotated[str, Form(max_length=10)] = "",
    kind: Annotated[str, Form(max_length=20)] = "",
    start: Annotated[str, Form(max_length=20)] = "",
    end: Annotated[str, Form(max_length=20)] = "",
    create_organisation: Annotated[str, Form(max_length=5)] = "",
) -> Response:
    """The draft's tournament id, VKZ, kind, dates and "create the organisation" set in
    place: the file is read again with them, who is who stays as chosen."""
    signed = _posting(user, csrf)
    with Session(request.app.state.engine) as session, session.begin():
        draft = drafts.load(session, draft_id, signed.user)
        old = drafts.Options.from_dict(draft.options)
        new = _options(code, vkz, kind, old.encoding or "", start, end,
                       "1" if old.complete_rounds else "", create_organisation,
                       "1" if old.allow_large else "")  # fmt: skip
        # the file still reads with them (within its time budget)
        budget.within(draft.filename, drafts.set_options, session, draft, new)
    return RedirectResponse(f"/officer/drafts/{draft_id}#fix", status_code=303)


@router.post("/officer/drafts/{draft_id}/submit")
async def submit(
    request: Request,
    draft_id: str,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    signed = _posting(user, csrf)
    ctx = await in_thread(_read_draft, request, signed, draft_id)
    if ctx["open"]:
        names = ", ".join(f"{r.key} {r.name}" for r in ctx["open"][:10])
        raise InputError(
            _("who is who"),
            _("decide who these participants are first: %(names)s") % {"names": names},
        )
    change = partial(
        drafts.submitted, plan=_plan(request, signed, ctx), draft_id=draft_id,
        user_id=signed.user.user_id,
    )  # fmt: skip
    written = await in_a_request_thread(request, write, change)
    return await _evaluated(request, written)


async def _evaluated(request: Request, written: tournaments.Written) -> Response:
    """After a change: the recalculation for it at once (WO 6.4.3; unless switched off,
    :func:`ratingdb.services.recalc.evaluate_on_submit`), then the page of what was stored
    and evaluated (:func:`done_page`)."""
    query: dict[str, str] = {"action": written.action}
    if written.action != tournaments.UNCHANGED:
        if request.app.state.evaluate_on_submit:
            outcome = await off_the_readers(request, recalc.evaluate_now, None)
            if outcome.run_id is not None:
                query["run"] = str(outcome.run_id)
            elif not outcome.ok:
                query["busy"] = "1"
        else:
            query["night"] = "1"
    path = f"/officer/done/{quote(written.tournament, safe='')}?{urlencode(query)}"
    return RedirectResponse(path, status_code=303)


@router.get("/officer/done/{code}", response_class=HTMLResponse)
async def done_page(
    request: Request,
    code: str,
    user: SignedInDep,
    action: str = "add",
    run: int | None = None,
    busy: str = "",
    night: str = "",
) -> Response:
    """What a change stored and what its run evaluated: the run's outcome (evaluated, or
    failed with the reason: the change stays pending), the stored evaluation of the
    tournament; a deletion links to the overview."""
    if user is None:
        return to_sign_in(request)
    ctx = await in_thread(_done_context, request, user, code[:30], action, run)
    ctx.update(user=user.user, csrf=user.csrf, busy=bool(busy), night=bool(night))
    return render(request, "officer_done.html", ctx)


def _done_context(
    request: Request, user: SignedIn, code: str, action: str, run_id: int | None
) -> dict[str, Any]:
    from ratingdb.web.pages import table_for

    with Session(request.app.state.engine) as session:
        done = drafts.outcome(session, code, run_id)
        table = None
        if done.exists and done.run is not None and done.run.status == "succeeded":
            table = table_for(session, code, _today(request), user.user)
        return {
            "code": code,
            "action": action if action in ACTIONS else "add",
            "run": done.run,
            "exists": done.exists,
            "name": done.name,
            "status": done.status,
            "table": table,
        }


#: the changes an officer makes (:class:`ratingdb.services.tournaments.Written`)
ACTIONS = ("add", "correct", "delete", tournaments.UNCHANGED)


@router.post("/officer/drafts/{draft_id}/discard")
def discard(
    request: Request,
    draft_id: str,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    signed = _posting(user, csrf)
    with Session(request.app.state.engine) as session, session.begin():
        drafts.discard(session, draft_id, signed.user)
    return RedirectResponse("/officer", status_code=303)


@router.post("/officer/drafts/{draft_id}/results")
async def save_results(request: Request, draft_id: str, user: SignedInDep) -> Response:
    form = await request.form(max_files=0, max_fields=20000)
    csrf = form.get("csrf")
    signed = _posting(user, csrf if isinstance(csrf, str) else "")
    results = {}
    for key, value in form.items():
        number = key[1:]
        digits = number.isascii() and number.isdigit()
        if key.startswith("g") and digits and len(key) < 8 and isinstance(value, str):
            results[int(number)] = value
    await in_thread(_store_results, request, signed, draft_id, results)
    return RedirectResponse(f"/officer/drafts/{draft_id}#games", status_code=303)


def _store_results(
    request: Request, user: SignedIn, draft_id: str, results: dict[int, str]
) -> None:
    with Session(request.app.state.engine) as session, session.begin():
        drafts.set_results(session, drafts.load(session, draft_id, user.user), results)


# -- 4. correct the stored results, delete -------------------------------------------------------
@router.post("/officer/tournaments/{code}/edit")
def edit_stored(
    request: Request,
    code: str,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """A correction draft of the stored submission itself (every field it holds)."""
    signed = _posting(user, csrf)
    stored = _stored_tournament(request, signed, code)["code"]
    with Session(request.app.state.engine) as session, session.begin():
        draft_id = drafts.correction(session, stored, signed.user)
    return RedirectResponse(f"/officer/drafts/{draft_id}", status_code=303)


# -- delete ------------------------------------------------------------------------------------
def _delete_plan(request: Request, user: SignedIn, code: str, reason: str | None) -> drafts.Plan:
    return partial(
        tournaments.delete, ident=code, user=user.user, today=_today(request), reason=reason
    )


@router.get("/officer/tournaments/{code}/delete", response_class=HTMLResponse)
async def delete_form(request: Request, code: str, user: SignedInDep) -> Response:
    if user is None:
        return to_sign_in(request)
    stored = await in_thread(_stored_tournament, request, user, code)
    what_if = await _what_if(request, _delete_plan(request, user, stored["code"], None))
    return render(
        request,
        "officer_delete.html",
        {"user": user.user, "csrf": user.csrf, "t": stored, "what_if": what_if,
         "max_reason": MAX_REASON},
        what_if["status"],
    )  # fmt: skip


@router.post("/officer/tournaments/{code}/delete")
async def delete(
    request: Request,
    code: str,
    user: SignedInDep,
    csrf: Annotated[str, Form(max_length=200)] = "",
    reason: Annotated[str, Form(max_length=MAX_REASON)] = "",
) -> Response:
    signed = _posting(user, csrf)
    if len(reason.strip()) < 3:
        raise InputError(
            "reason", _("give the reason for the deletion (it goes into the audit log)")
        )
    written = await in_a_request_thread(
        request, write, _delete_plan(request, signed, code, reason.strip())
    )
    return await _evaluated(request, written)
