"""The sign-in use case: people signing in on the web pages: passwords, sessions, throttling.

* Passwords are stored only as argon2id hashes (``argon2-cffi``, its default parameters:
  RFC 9106's low-memory profile); a hash made with older parameters is renewed at the next
  successful sign-in.
* A session is a random token in an HttpOnly cookie, stored only as its SHA-256 hash in
  ``web_sessions`` with an expiry and the CSRF token of the session's forms. Server-side
  rather than a signed cookie: signing out, disabling a user or changing his password ends
  his sessions at once, and there is no signing key to configure or leak.
* Sign-in attempts are counted per pair of client address and submitted name, and per
  client address alone, whether the name exists or not (the answer never tells). Nothing is
  counted per name alone: a stranger guessing an officer's password from his own address
  locks only his own address, never the officer's sign-in from another one.

  - the pair ``pair:ADDRESS|NAME``: after :data:`FREE_FAILURES` failures it is locked for
    :data:`FIRST_LOCK_SECONDS`, doubling with each further failure up to
    :data:`MAX_LOCK_SECONDS` (30 s, 1, 2, 4, 8 min, then 15 min);
  - the address ``addr:ADDRESS`` (someone trying many names): after
    :data:`ADDRESS_FREE_FAILURES` failures it is locked longer,
    :data:`ADDRESS_FIRST_LOCK_SECONDS` doubling up to :data:`ADDRESS_MAX_LOCK_SECONDS`.

  While a key is locked, every attempt is refused without looking at the password (and not
  counted), so the 21st try after 20 failures waits at least as long as the 20th. A success
  clears the pair's count (not the address's).

  The count is taken *before* the password is checked, in one short transaction that
  holds the keys' rows locked (``SELECT ... FOR UPDATE``): of any number of simultaneous
  attempts exactly :data:`FREE_FAILURES` are checked before the lock, never more. A success
  takes its attempt back. Every failure and every lock is written to the audit log
  (action ``sign-in failed`` / ``sign-in locked``, the entity the submitted name).
* A disabled user (:func:`ratingdb.services.users.disable_user`) is refused like a wrong
  password, and his sessions and tokens end when he is disabled.

The user a session belongs to is the same :class:`~ratingdb.services.users.Principal` an API
token gives, so both go through :mod:`ratingdb.services.permissions`.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, delete, select, text
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry, User, WebSession
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.services.users import Principal, hash_token

FREE_FAILURES = 5
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 900
ADDRESS_FREE_FAILURES = 20
ADDRESS_FIRST_LOCK_SECONDS = 300
ADDRESS_MAX_LOCK_SECONDS = 3600
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
        raise InputError(
            "password",
            _("a password has %(least)d to %(most)d characters")
            % {"least": MIN_PASSWORD, "most": MAX_PASSWORD},
        )
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise InputError("user", _("no user %(name)r") % {"name": name})
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


@dataclass(frozen=True, slots=True)
class _Key:
    key: str
    free: int
    first: int
    most: int


def throttle_keys(name: str, address: str) -> list[str]:
    """The counted keys of an attempt: the pair (address, name) and the address."""
    address = address[:60]
    return [f"pair:{address}|{name.strip().lower()[:100]}", f"addr:{address}"]


def _keys(name: str, address: str) -> list[_Key]:
    pair, addr = throttle_keys(name, address)
    return [
        _Key(pair, FREE_FAILURES, FIRST_LOCK_SECONDS, MAX_LOCK_SECONDS),
        _Key(addr, ADDRESS_FREE_FAILURES, ADDRESS_FIRST_LOCK_SECONDS, ADDRESS_MAX_LOCK_SECONDS),
    ]


def _audit(session: Session, action: str, name: str, details: dict[str, Any]) -> None:
    entry = AuditEntry(actor="anonymous", action=action, entity="sign-in", details=details)
    entry.entity_id = name[:50]
    session.add(entry)


def take_attempt(session: Session, name: str, address: str) -> Locked | None:
    """Count an attempt for each key of ``(name, address)`` as a failure, or refuse it
    (:class:`Locked`, nothing counted) while a key is locked. The keys' rows stay locked
    until ``session`` commits: run it in a transaction of its own, committed before the
    password is checked, so that simultaneous attempts are counted one after the other."""
    keys = _keys(name, address)
    names = sorted(k.key for k in keys)  # one order for every transaction: no deadlock
    session.execute(
        text(
            "INSERT INTO sign_in_throttle (key, failures) "
            "SELECT k, 0 FROM unnest(CAST(:keys AS text[])) AS k ON CONFLICT (key) DO NOTHING"
        ),
        {"keys": names},
    )
    rows = session.execute(
        text(
            "SELECT key, failures, ceil(extract(epoch FROM locked_until - now())) AS left "
            "FROM sign_in_throttle WHERE key = ANY(:keys) ORDER BY key FOR UPDATE"
        ),
        {"keys": names},
    ).all()
    left = [int(r.left) for r in rows if r.left is not None and r.left > 0]
    if left:
        return Locked(max(max(left), 1))
    failures = {r.key: r.failures + 1 for r in rows}
    for key in keys:
        count = failures[key.key]
        lock = min(key.first * 2 ** (count - key.free), key.most) if count >= key.free else None
        session.execute(
            text(
                "UPDATE sign_in_throttle SET failures = :n, updated_at = now(), "
                "locked_until = CASE WHEN CAST(:lock AS integer) IS NULL THEN NULL "
                "ELSE now() + make_interval(secs => :lock) END WHERE key = :k"
            ),
            {"n": count, "lock": lock, "k": key.key},
        )
        if lock is not None:
            kind = key.key.split(":")[0]
            details = {"key": kind, "address": address[:60], "failures": count, "seconds": lock}
            _audit(session, "sign-in locked", name, details)
    return None


def give_back(session: Session, name: str, address: str) -> None:
    """A successful sign-in: the pair's count starts again (the address's is kept, less
    the successful attempt)."""
    pair, addr = throttle_keys(name, address)
    session.execute(text("DELETE FROM sign_in_throttle WHERE key = :k"), {"k": pair})
    session.execute(
        text(
            "UPDATE sign_in_throttle SET failures = greatest(failures - 1, 0), "
            "locked_until = CASE WHEN failures - 1 < :free THEN NULL ELSE locked_until END "
            "WHERE key = :k"
        ),
        {"k": addr, "free": ADDRESS_FREE_FAILURES},
    )


def check_password(session: Session, name: str, password: str) -> Principal | str:
    """The user ``name`` if ``password`` is his and he is not disabled, else why not (for
    the audit log: ``unknown name``, ``no password``, ``wrong password``, ``disabled``);
    the same work either way."""
    user = session.scalar(select(User).where(User.name == name)) if len(name) <= 100 else None
    stored = user.password_hash if user is not None else None
    try:
        _hasher.verify(stored or _DUMMY_HASH, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return "unknown name" if user is None else "wrong password"
    if user is None or stored is None:
        return "unknown name" if user is None else "no password"
    if user.disabled_at is not None:
        return "disabled"
    if _hasher.check_needs_rehash(stored):
        user.password_hash = _hasher.hash(password)
    return Principal(user.id, user.name, user.role, tuple(user.scopes or ()), user.full_name)


def sign_in(engine: Engine, name: str, password: str, address: str) -> Principal | Locked | None:
    """Check a sign-in attempt: the user, :class:`Locked` (refused unchecked) or None.

    Three short transactions: the attempt is counted (:func:`take_attempt`) and committed,
    the password is checked, then a success is taken back (:func:`give_back`) or a failure
    written to the audit log with its reason (the answer does not tell it)."""
    with Session(engine) as session, session.begin():
        locked = take_attempt(session, name, address)
    if locked is not None:
        return locked
    with Session(engine) as session, session.begin():
        user = check_password(session, name, password)
        if isinstance(user, str):
            _audit(session, "sign-in failed", name, {"address": address[:60], "reason": user})
            return None
        give_back(session, name, address)
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
            "WHERE s.token_hash = :h AND s.expires_at > coalesce(:now, now()) "
            "AND u.disabled_at IS NULL"
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
