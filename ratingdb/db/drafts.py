"""Drafts of the officer's submission pages (migration 0015): an uploaded
tournament file kept between the steps upload → who is who → what changes → submit.

The file's bytes are kept as uploaded and read again at every step by the same readers as
the API (:func:`ratingdb.services.imports.read_trf`), so that what is submitted is exactly
what was shown. Chosen over the session store: a draft survives signing out and in again
(a session is one browser's), has its own expiry, and its size (at most
:data:`MAX_BYTES`) stays out of every request's session lookup. A draft is one user's only:
another user's draft is "not found", like an expired one.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from ratingdb.db.models import WebDraft
from ratingdb.errors import InputError, NotFound
from ratingdb.i18n import _

#: the largest file a draft keeps (the API's body limit)
MAX_BYTES = 20 * 1024 * 1024
DRAFT_HOURS = 24


def create(
    session: Session,
    user_id: int,
    filename: str,
    content: bytes,
    options: dict[str, Any],
    target: str | None = None,
    choices: dict[str, Any] | None = None,
) -> str:
    """A new draft of ``user_id`` (with who-is-who ``choices`` by start rank); returns its
    id (random, as a session token)."""
    if len(content) > MAX_BYTES:
        raise InputError(filename, _("the file has more than %(n)d bytes") % {"n": MAX_BYTES})
    session.execute(text("DELETE FROM web_drafts WHERE expires_at < now()"))
    draft_id = secrets.token_urlsafe(24)
    session.execute(
        text(
            "INSERT INTO web_drafts (id, user_id, filename, content, options, choices, target, "
            "expires_at) VALUES (:id, :u, :f, :c, CAST(:o AS jsonb), CAST(:ch AS jsonb), :t, "
            "now() + make_interval(hours => :h))"
        ),
        {
            "id": draft_id,
            "u": user_id,
            "f": filename[:200],
            "c": content,
            "o": _json(options),
            "ch": _json(choices or {}),
            "t": target,
            "h": DRAFT_HOURS,
        },
    )
    return draft_id


def _json(value: Any) -> str:
    import json

    return json.dumps(value, default=str)


def load(session: Session, draft_id: str, user_id: int) -> WebDraft:
    """The unexpired draft ``draft_id`` of ``user_id``; NotFound otherwise."""
    draft = session.scalar(
        select(WebDraft).where(
            WebDraft.id == draft_id[:64],
            WebDraft.user_id == user_id,
            WebDraft.expires_at > text("now()"),
        )
    )
    if draft is None:
        raise NotFound(_("no such draft (submitted, discarded or older than a day): upload again"))
    return draft


def drop(session: Session, draft_id: str, user_id: int) -> None:
    session.execute(
        delete(WebDraft).where(WebDraft.id == draft_id[:64], WebDraft.user_id == user_id)
    )
