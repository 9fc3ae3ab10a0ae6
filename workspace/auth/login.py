"""The one way every sign-in method ends (Redash style): find or create the account,
make it an org member, record the login, start the session."""

from __future__ import annotations

from workspace.auth.sessions import start_session
from workspace.core.accounts import add_member, ensure_account, find_account
from workspace.core.events import record_event
from workspace.core.models import Account, Org, OrgMember, OrgRole
from workspace.errors import ForbiddenError


def provision_member(
    org: Org, email: str, name: str | None, *, via: str
) -> tuple[Account, OrgMember, bool]:
    """Just-in-time account and membership for a person an org's IdP or directory
    vouched for. Returns (account, member, account_was_created)."""
    created = find_account(email) is None
    account = ensure_account(email, name, email_verified=True)
    if account.is_agent:
        raise ForbiddenError("Agents do not sign in; they use the agent tool interface.")
    member = add_member(org, account, OrgRole.MEMBER, via=via)
    return account, member, created


def complete_login(org: Org, account: Account, *, method: str, **details) -> None:
    """Record the login in the org's events and issue the session cookie; the sign-in
    request commits both."""
    record_event(
        org.id, "auth.login", actor_id=account.id, subject=account.email, method=method, **details
    )
    start_session(account, method)
