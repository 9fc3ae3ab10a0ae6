"""Local passwords: for the first owner and orgs without SSO."""

from __future__ import annotations

from functools import cache

from flask import current_app, has_app_context
from werkzeug.security import check_password_hash, generate_password_hash

from workspace.core.models import Account

MIN_LENGTH = 10
# werkzeug's method string; the parameters are stored in each hash, so hashes made
# at any cost keep verifying. Tests set PASSWORD_HASH_METHOD to a cheap cost.
DEFAULT_METHOD = "scrypt:32768:8:1"


def _method() -> str:
    if has_app_context():
        return current_app.config.get("PASSWORD_HASH_METHOD") or DEFAULT_METHOD
    return DEFAULT_METHOD


@cache
def _dummy_hash(method: str) -> str:
    # Checked against when the account is unknown so both paths cost the same time.
    return generate_password_hash("not-a-real-password", method=method)


def set_password(account: Account, password: str) -> None:
    if len(password) < MIN_LENGTH:
        raise ValueError(f"A password needs at least {MIN_LENGTH} characters.")
    account.password_hash = generate_password_hash(password, method=_method())


def check_password(account: Account | None, password: str) -> bool:
    if account is None or not account.password_hash or not password:
        check_password_hash(_dummy_hash(_method()), password or "x")
        return False
    return check_password_hash(account.password_hash, password)
