"""The user use cases: users of the web API and their tokens (WO 6.2, 6.3).

A user is a rating officer, responsible for the organisation levels named by VKZ prefixes
(WO 6.3: the first characters of a tournament's VKZ decide which officer is responsible),
or an administrator ("gesondert Berechtigte", WO 6.2). A user authenticates with API tokens:
random strings shown once when issued and stored only as SHA-256 hashes, so a stolen
database holds no usable token. Tokens are revoked, never deleted, so the audit trail keeps
its meaning. Every change here is written to the audit log.

Revoking a token ends that token only. Disabling a user (:func:`disable_user`) ends all of
him at once: every token is revoked, every signed-in session is deleted, and sign-in is
refused until an administrator enables him again (his old tokens stay revoked). A change of
his VKZ prefixes or his role applies to his open sessions and tokens from their next
request: both read the user's row on every request.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, text, update
from sqlalchemy.orm import Session

from ratingdb.db.models import ROLES, ApiToken, AuditEntry, User, WebSession
from ratingdb.errors import InputError
from ratingdb.i18n import _

TOKEN_PREFIX = "rdb_"
_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,100}$")
_SCOPE = re.compile(r"^[0-9A-Za-z]{1,10}$")


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated user: name, role and VKZ prefixes (officers only)."""

    user_id: int
    name: str
    role: str
    scopes: tuple[str, ...]
    full_name: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _audit(session: Session, actor: str, action: str, name: str, details: dict[str, Any]) -> None:
    session.add(
        AuditEntry(actor=actor, action=action, entity="user", entity_id=name, details=details)
    )


def _user(session: Session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise InputError("user", _("no user %(name)r") % {"name": name})
    return user


def add_user(
    session: Session,
    name: str,
    role: str,
    scopes: list[str] | tuple[str, ...] = (),
    *,
    full_name: str = "",
    actor: str = "cli",
) -> User:
    """A new officer (with at least one VKZ prefix) or admin (no prefixes)."""
    if not _NAME.match(name):
        raise InputError("name", _("a user name has 1-100 letters, digits or . _ @ -"))
    if role not in ROLES:
        raise InputError(
            "role",
            _("expected one of %(known)s, got %(role)r")
            % {"known": ", ".join(ROLES), "role": role},
        )
    _check_scopes(role, scopes)
    if len(full_name) > 200:
        raise InputError("full_name", _("a full name has at most 200 characters"))
    if session.scalar(select(User.id).where(User.name == name)) is not None:
        raise InputError("name", _("a user %(name)r exists already") % {"name": name})
    user = User(name=name, role=role, scopes=sorted(set(scopes)), full_name=full_name)
    session.add(user)
    session.flush()
    _audit(session, actor, "add", name, {"role": role, "scopes": list(user.scopes)})
    return user


def _check_scopes(role: str, scopes: list[str] | tuple[str, ...]) -> None:
    """WO 6.3: an officer acts for one or more VKZ prefixes, an admin for every VKZ."""
    for scope in scopes:
        if not _SCOPE.match(scope):
            raise InputError(
                "scope",
                _("a VKZ prefix has 1 to 10 letters or digits: %(scope)r") % {"scope": scope},
            )
    if role == "officer" and not scopes:
        raise InputError("scope", _("an officer needs at least one VKZ prefix (WO 6.3)"))
    if role == "admin" and scopes:
        raise InputError("scope", _("an admin acts on every VKZ: give no prefixes"))


def set_scopes(
    session: Session, name: str, scopes: list[str] | tuple[str, ...], *, actor: str = "cli"
) -> User:
    """Replace officer ``name``'s VKZ prefixes (WO 6.3); his tokens and sessions act on the
    new ones from their next request."""
    user = _user(session, name)
    _check_scopes(user.role, scopes)
    before = list(user.scopes or ())
    user.scopes = sorted(set(scopes))
    session.flush()
    _audit(session, actor, "scope", name, {"scopes": list(user.scopes), "before": before})
    return user


def set_role(
    session: Session,
    name: str,
    role: str,
    scopes: list[str] | tuple[str, ...] = (),
    *,
    actor: str = "cli",
) -> User:
    """Make ``name`` an officer (with his VKZ prefixes) or an admin (none); his tokens and
    sessions act in the new role from their next request."""
    if role not in ROLES:
        raise InputError(
            "role",
            _("expected one of %(known)s, got %(role)r")
            % {"known": ", ".join(ROLES), "role": role},
        )
    user = _user(session, name)
    _check_scopes(role, scopes)
    before = {"role": user.role, "scopes": list(user.scopes or ())}
    user.role, user.scopes = role, sorted(set(scopes))
    session.flush()
    details = {"role": role, "scopes": list(user.scopes), "before": before}
    _audit(session, actor, "role", name, details)
    return user


def disable_user(session: Session, name: str, *, actor: str = "cli") -> tuple[int, int]:
    """Disable ``name`` at once: revoke all his tokens, end all his sessions, refuse his
    sign-in from now on. Returns (tokens revoked, sessions ended)."""
    user = _user(session, name)
    session.execute(
        update(User)
        .where(User.id == user.id, User.disabled_at.is_(None))
        .values(disabled_at=text("now()"))
    )
    tokens = cast(
        CursorResult[Any],
        session.execute(
            update(ApiToken)
            .where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
            .values(revoked_at=text("now()"))
        ),
    ).rowcount
    sessions = cast(
        CursorResult[Any], session.execute(delete(WebSession).where(WebSession.user_id == user.id))
    ).rowcount
    session.flush()
    _audit(session, actor, "disable", name, {"tokens": tokens, "sessions": sessions})
    return tokens, sessions


def enable_user(session: Session, name: str, *, actor: str = "cli") -> None:
    """Let a disabled ``name`` sign in again (with his password; his old tokens stay
    revoked: he needs a new one)."""
    user = _user(session, name)
    session.refresh(user)
    if user.disabled_at is None:
        raise InputError("user", _("user %(name)r is not disabled") % {"name": name})
    user.disabled_at = None
    session.flush()
    _audit(session, actor, "enable", name, {})


def issue_token(session: Session, name: str, *, label: str = "", actor: str = "cli") -> str:
    """A new token for user ``name``; the only time the token itself is seen. A disabled
    user gets none."""
    user = _user(session, name)
    if user.disabled_at is not None:
        raise InputError("user", _("user %(name)r is disabled: enable him first") % {"name": name})
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    prefix = token[:12]
    session.add(
        ApiToken(user_id=user.id, token_hash=hash_token(token), prefix=prefix, label=label[:100])
    )
    session.flush()
    _audit(session, actor, "token", name, {"prefix": prefix, "label": label[:100]})
    return token


def revoke(session: Session, name: str, *, prefix: str | None = None, actor: str = "cli") -> int:
    """Revoke the user's active tokens (or the one starting with ``prefix``); returns how
    many were revoked."""
    user = _user(session, name)
    stmt = (
        update(ApiToken)
        .where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=text("now()"))
    )
    if prefix is not None:
        stmt = stmt.where(ApiToken.prefix == prefix[:12])
    count = cast(CursorResult[Any], session.execute(stmt)).rowcount
    if prefix is not None and count == 0:
        raise InputError(
            "token",
            _("user %(name)r has no active token %(prefix)r") % {"name": name, "prefix": prefix},
        )
    _audit(session, actor, "revoke", name, {"prefix": prefix, "tokens": count})
    return count


def list_users(session: Session, name: str | None = None) -> list[dict[str, Any]]:
    """Every user (or only ``name``) with role, prefixes, whether he has a password for
    the pages, when he was disabled (None: active), active tokens and their last use."""
    rows = session.execute(
        text(
            "SELECT u.name, u.full_name, u.role, u.scopes, u.created_at, "
            "u.password_hash IS NOT NULL AS has_password, u.disabled_at, "
            "count(t.id) FILTER (WHERE t.revoked_at IS NULL) AS active_tokens, "
            "max(t.last_used_at) AS last_used_at "
            "FROM users u LEFT JOIN api_tokens t ON t.user_id = u.id "
            "WHERE CAST(:name AS text) IS NULL OR u.name = :name "
            "GROUP BY u.id ORDER BY u.name"
        ),
        {"name": name},
    ).mappings()
    return [dict(r) for r in rows]


def user_tokens(session: Session, name: str) -> list[dict[str, Any]]:
    """User ``name``'s tokens, newest first: prefix, label, issued, last used, revoked."""
    user = _user(session, name)
    rows = session.execute(
        select(
            ApiToken.prefix,
            ApiToken.label,
            ApiToken.created_at,
            ApiToken.last_used_at,
            ApiToken.revoked_at,
        )
        .where(ApiToken.user_id == user.id)
        .order_by(ApiToken.id.desc())
    ).mappings()
    return [dict(r) for r in rows]


def authenticate(session: Session, token: str, *, now: datetime | None = None) -> Principal | None:
    """The user holding ``token`` (not revoked, the user not disabled), or None; records
    the token's last use."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = session.execute(
        text(
            "UPDATE api_tokens t SET last_used_at = coalesce(:now, now()) FROM users u "
            "WHERE t.token_hash = :h AND t.revoked_at IS NULL AND u.id = t.user_id "
            "AND u.disabled_at IS NULL "
            "RETURNING u.id, u.name, u.role, u.scopes, u.full_name"
        ),
        {"h": hash_token(token), "now": now},
    ).first()
    if row is None:
        return None
    return Principal(row.id, row.name, row.role, tuple(row.scopes or ()), row.full_name)
