"""Floor sign-in: Argon2id hashes, sessions that expire, nothing usable in the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.floor.auth import SESSION_SECONDS, Auth, AuthError
from table_controller.floor.store import FloorStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def auth(tmp_path: Path) -> Auth:
    return Auth(FloorStore.open(tmp_path / "floor.sqlite3"), Clock())


def test_sign_in_gives_a_session_that_expires(auth: Auth) -> None:
    auth.add_user("anna", "correct horse battery")
    token = auth.sign_in("anna", "correct horse battery")
    staff = auth.staff_for(token)
    assert staff is not None and staff.username == "anna" and staff.sees_hole_cards
    clock = auth.clock
    assert isinstance(clock, Clock)
    clock.now += SESSION_SECONDS - 1
    assert auth.staff_for(token) is not None
    clock.now += 1
    assert auth.staff_for(token) is None


def test_wrong_password_and_unknown_user_say_the_same(auth: Auth) -> None:
    auth.add_user("anna", "correct horse battery")
    with pytest.raises(AuthError) as wrong:
        auth.sign_in("anna", "wrong password!")
    with pytest.raises(AuthError) as unknown:
        auth.sign_in("nobody", "correct horse battery")
    assert str(wrong.value) == str(unknown.value) == "unknown user or wrong password"


def test_the_store_holds_no_password_and_no_token(auth: Auth) -> None:
    auth.add_user("anna", "correct horse battery")
    token = auth.sign_in("anna", "correct horse battery")
    entry = auth.store.staff("anna")
    assert entry is not None
    assert entry[0].startswith("$argon2id$") and "correct horse" not in entry[0]
    assert auth.store.session(token, auth.clock()) is None  # only the token's hash is kept


def test_sign_out_ends_the_session(auth: Auth) -> None:
    auth.add_user("bob", "another long password", role="viewer")
    token = auth.sign_in("bob", "another long password")
    staff = auth.staff_for(token)
    assert staff is not None and not staff.sees_hole_cards
    auth.sign_out(token)
    assert auth.staff_for(token) is None


@pytest.mark.parametrize(("user", "password", "role", "problem"), [
    ("anna", "short", "floor", "at least 10 characters"),
    ("", "long enough password", "floor", "bad user name"),
    (" anna", "long enough password", "floor", "bad user name"),
    ("anna", "long enough password", "admin", "bad role"),
])
def test_bad_accounts_are_refused(auth: Auth, user: str, password: str, role: str,
                                  problem: str) -> None:
    with pytest.raises(AuthError, match=problem):
        auth.add_user(user, password, role)


def test_garbage_tokens_are_nobody(auth: Auth) -> None:
    assert auth.staff_for(None) is None
    assert auth.staff_for("") is None
    assert auth.staff_for("x" * 10_000) is None
