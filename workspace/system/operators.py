"""Who runs this instance. Orgs are tenants; the job queue is the instance's and shows
every org's job kinds and errors, so no org role (not even an owner) opens the System
page. Its operators are named by email in ``SYSTEM_OPERATORS`` (a comma-separated
environment variable; ``make run`` names the demo's owner). Anyone else is told the
page does not exist (404), as a non-member is told about an org."""

from __future__ import annotations

from collections.abc import Iterable

from flask import current_app

from workspace.core.accounts import canonical_email
from workspace.core.models import Account
from workspace.errors import NotFoundError, ServiceError


def operator_emails(configured: str | Iterable[str] | None = None) -> frozenset[str]:
    """The operators' emails in their stored form; a malformed entry names nobody."""
    if configured is None:
        configured = current_app.config.get("SYSTEM_OPERATORS") or ()
    if isinstance(configured, str):
        configured = configured.split(",")
    emails = set()
    for raw in configured:
        try:
            emails.add(canonical_email(raw))
        except ServiceError:
            continue
    return frozenset(emails)


def is_operator(account: Account | None) -> bool:
    """A signed-in person with a verified email that ``SYSTEM_OPERATORS`` names."""
    return (
        account is not None
        and not account.is_agent
        and account.email_verified
        and account.email in operator_emails()
    )


def require_operator(account: Account | None) -> None:
    if not is_operator(account):
        raise NotFoundError("No such page.")
