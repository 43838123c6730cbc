"""Sign-in for floor staff: passwords hashed with Argon2id (argon2-cffi), sessions that expire.

A session is a random token (``secrets``) given to the browser in an HttpOnly cookie; the store
keeps only its SHA-256, so a copy of the database cannot be used to sign in. A session expires
:data:`SESSION_SECONDS` after sign-in; signing out drops it at once.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from table_controller.floor.store import FloorStore

SESSION_SECONDS = 8 * 3600.0
"""A shift."""
ROLES = ("floor", "viewer")
MIN_PASSWORD = 10

_HASHER = PasswordHasher()  # Argon2id with the library's current recommended parameters


class AuthError(ValueError):
    """A sign-in that cannot be done; the text says why (never which of user or password)."""


@dataclass(frozen=True, slots=True)
class Staff:
    username: str
    role: str

    @property
    def sees_hole_cards(self) -> bool:
        return self.role == "floor"


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _check_username(username: str) -> str:
    if not (1 <= len(username) <= 64) or not username.isprintable() or username != username.strip():
        raise AuthError(f"bad user name {username!r}: 1-64 printable characters")
    return username


class Auth:
    """Staff accounts and sessions in ``store``; ``clock`` gives wall seconds (sessions outlive
    a restart of the floor, so they are wall time, not monotonic)."""

    def __init__(self, store: FloorStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    def add_user(self, username: str, password: str, role: str = "floor") -> None:
        if role not in ROLES:
            raise AuthError(f"bad role {role!r}: one of {', '.join(ROLES)}")
        if len(password) < MIN_PASSWORD:
            raise AuthError(f"a password needs at least {MIN_PASSWORD} characters")
        self.store.put_staff(_check_username(username), _HASHER.hash(password), role)

    def sign_in(self, username: str, password: str) -> str:
        """A new session token, or :class:`AuthError`."""
        entry = self.store.staff(username) if 1 <= len(username) <= 64 else None
        if entry is None:
            _HASHER.hash(password)  # as slow as a real check: no user-name probing by timing
            raise AuthError("unknown user or wrong password")
        stored, _role = entry
        try:
            _HASHER.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            raise AuthError("unknown user or wrong password") from None
        if _HASHER.check_needs_rehash(stored):
            self.store.put_staff(username, _HASHER.hash(password), _role)
        token = secrets.token_urlsafe(32)
        now = self.clock()
        self.store.drop_sessions(before=now)
        self.store.put_session(_token_hash(token), username, now + SESSION_SECONDS)
        return token

    def staff_for(self, token: str | None) -> Staff | None:
        """Who holds the session ``token``, if it is valid and has not expired."""
        if not token or len(token) > 128:
            return None
        username = self.store.session(_token_hash(token), self.clock())
        if username is None:
            return None
        entry = self.store.staff(username)
        return None if entry is None else Staff(username, entry[1])

    def sign_out(self, token: str) -> None:
        self.store.drop_sessions(token_hash=_token_hash(token))
