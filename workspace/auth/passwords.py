"""Local passwords: for the first owner and orgs without SSO."""

from __future__ import annotations

from werkzeug.security import check_password_hash, generate_password_hash

from workspace.core.models import Account

MIN_LENGTH = 10
# Checked against when the account is unknown so both paths cost the same time.
_DUMMY_HASH = generate_password_hash("not-a-real-password")


def set_password(account: Account, password: str) -> None:
    if len(password) < MIN_LENGTH:
        raise ValueError(f"A password needs at least {MIN_LENGTH} characters.")
    account.password_hash = generate_password_hash(password)


def check_password(account: Account | None, password: str) -> bool:
    if account is None or not account.password_hash or not password:
        check_password_hash(_DUMMY_HASH, password or "x")
        return False
    return check_password_hash(account.password_hash, password)
