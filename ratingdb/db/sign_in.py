"""Sign-in of people on the web pages: passwords, sessions, throttling.

* Passwords are stored only as argon2id hashes (``argon2-cffi``, its default parameters:
  RFC 9106's low-memory profile); a hash made with older parameters is renewed at the next
  successful sign-in.
* A session is a random token in an HttpOnly cookie, stored only as its SHA-256 hash in
  ``web_sessions`` with an expiry and the CSRF token of the session's forms. Server-side
  rather than a signed cookie: signing out, revoking a user or changing his password ends
  his sessions at once, and there is no signing key to configure or leak.
* Failed sign-ins are counted per submitted name and per client address, whether the name
  exists or not (the answer never tells). After :data:`FREE_FAILURES` failures of a key, the
  key is locked for :data:`FIRST_LOCK_SECONDS`, doubling with each further failure up to
  :data:`MAX_LOCK_SECONDS` (30 s, 1, 2, 4, 8 min, then 15 min); while locked, every attempt
  is refused without looking at the password, so the 21st try after 20 failures waits at
  least as long as the 20th. A success clears the name's count (not the address's).

The user a session belongs to is the same :class:`~ratingdb.db.users.Principal` an API
token gives, so both go through :mod:`ratingdb.services.permissions`.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry, User, WebSession
from ratingdb.db.users import Principal, hash_token
from ratingdb.io.errors import InputError

FREE_FAILURES = 5
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 900
SESSION_HOURS = 12
MIN_PASSWORD = 10
MAX_PASSWORD = 1000
#: random bytes of a password made by :func:`reset_password` (16 characters, 96 bits)
GENERATED_BYTES = 12

_hasher = PasswordHasher()
#: verified against when the name is unknown, so that both answers take as long
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def set_password(
    session: Session, name: str, password: str, *, actor: str = "cli", generated: bool = False
) -> None:
    """Store ``password`` for user ``name`` as an argon2id hash; ends his sessions.
    ``generated``: made by :func:`reset_password` (noted in the audit entry)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InputError("password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise InputError("user", f"no user {name!r}")
    user.password_hash = _hasher.hash(password)
    session.execute(delete(WebSession).where(WebSession.user_id == user.id))
    session.add(
        AuditEntry(
            actor=actor,
            action="password",
            entity="user",
            entity_id=name,
            details={"generated": True} if generated else {},
        )
    )


def reset_password(session: Session, name: str, *, actor: str = "cli") -> str:
    """Give user ``name`` a new random password (:data:`GENERATED_BYTES` random bytes,
    URL-safe) and return it: the only time it is seen, to be handed to him; ends his
    sessions like :func:`set_password`."""
    password = secrets.token_urlsafe(GENERATED_BYTES)
    set_password(session, name, password, actor=actor, generated=True)
    return password


@dataclass(frozen=True, slots=True)
class Locked:
    """A refused attempt: the key is locked for ``seconds`` more."""

    seconds: int


def locked_for(session: Session, keys: list[str]) -> Locked | None:
    """The longest remaining lock among ``keys``, None when none is locked."""
    seconds = session.scalar(
        text(
            "SELECT ceil(extract(epoch FROM max(locked_until) - now())) FROM sign_in_throttle "
            "WHERE key = ANY(:keys) AND locked_until > now()"
        ),
        {"keys": keys},
    )
    return None if seconds is None else Locked(max(int(seconds), 1))


def record_failure(session: Session, keys: list[str]) -> None:
    """Count a failed sign-in for each key and lock those past :data:`FREE_FAILURES`."""
    session.execute(
        text(
            "INSERT INTO sign_in_throttle AS t (key, failures, locked_until, updated_at) "
            "SELECT k, 1, NULL, now() FROM unnest(CAST(:keys AS text[])) AS k "
            "ON CONFLICT (key) DO UPDATE SET failures = t.failures + 1, updated_at = now(), "
            "locked_until = CASE WHEN t.failures + 1 >= :free THEN now() + "
            "make_interval(secs => least(:first * power(2, t.failures + 1 - :free), :max)) END"
        ),
        {"keys": keys, "free": FREE_FAILURES, "first": FIRST_LOCK_SECONDS, "max": MAX_LOCK_SECONDS},
    )


def throttle_keys(name: str, address: str) -> list[str]:
    return [f"name:{name.strip().lower()[:150]}", f"addr:{address[:150]}"]


def check_password(session: Session, name: str, password: str) -> Principal | None:
    """The user ``name`` if ``password`` is his, else None (same work either way)."""
    user = session.scalar(select(User).where(User.name == name)) if len(name) <= 100 else None
    stored = user.password_hash if user is not None else None
    try:
        _hasher.verify(stored or _DUMMY_HASH, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return None
    if user is None or stored is None:
        return None
    if _hasher.check_needs_rehash(stored):
        user.password_hash = _hasher.hash(password)
    return Principal(user.id, user.name, user.role, tuple(user.scopes or ()), user.full_name)


def sign_in(session: Session, name: str, password: str, address: str) -> Principal | Locked | None:
    """Check a sign-in attempt: the user, :class:`Locked` (refused unchecked) or None."""
    keys = throttle_keys(name, address)
    locked = locked_for(session, keys)
    if locked is not None:
        return locked
    user = check_password(session, name, password)
    if user is None:
        record_failure(session, keys)
        return None
    session.execute(text("DELETE FROM sign_in_throttle WHERE key = :k"), {"k": keys[0]})
    return user


def open_session(session: Session, user: Principal) -> tuple[str, str]:
    """A new session of ``user``: (the cookie's token, the CSRF token of its forms)."""
    token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    session.execute(
        text(
            "INSERT INTO web_sessions (user_id, token_hash, csrf, expires_at) "
            "VALUES (:u, :h, :c, now() + make_interval(hours => :hours))"
        ),
        {"u": user.user_id, "h": hash_token(token), "c": csrf, "hours": SESSION_HOURS},
    )
    session.execute(text("DELETE FROM web_sessions WHERE expires_at < now()"))
    return token, csrf


def find_session(
    session: Session, token: str, *, now: datetime | None = None
) -> tuple[Principal, str] | None:
    """The user and CSRF token of an unexpired session, or None."""
    if not token or len(token) > 200:
        return None
    row = session.execute(
        text(
            "SELECT u.id, u.name, u.role, u.scopes, u.full_name, s.csrf FROM web_sessions s "
            "JOIN users u ON u.id = s.user_id "
            "WHERE s.token_hash = :h AND s.expires_at > coalesce(:now, now())"
        ),
        {"h": hash_token(token), "now": now},
    ).first()
    if row is None:
        return None
    return Principal(row.id, row.name, row.role, tuple(row.scopes or ()), row.full_name), row.csrf


def close_session(session: Session, token: str) -> None:
    session.execute(delete(WebSession).where(WebSession.token_hash == hash_token(token)))


def same_token(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison of a form's CSRF token with the expected one."""
    return bool(given and expected) and hmac.compare_digest(str(given), str(expected))
