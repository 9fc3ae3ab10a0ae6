"""The dry-run sync preview: reconcile's plan for a person and a group set, with the
stale-removal setting of the sign-in method the groups come from. Writes nothing."""

from __future__ import annotations

import uuid

from workspace.core.accounts import canonical_email, find_account, get_member
from workspace.errors import ServiceError
from workspace.identity.groupsync import service as groupsync
from workspace.identity.sso import connection


def preview(
    org_id: uuid.UUID,
    *,
    email: str | None,
    member_id: uuid.UUID | None,
    groups: groupsync.Groups,
    remove_stale: bool | None = None,
) -> groupsync.SyncPlan:
    """``remove_stale`` None: the SSO connection's setting (a typed group set stands for
    an SSO sign-in); the directory preview passes its own connection's."""
    account_id = person_account(org_id, email=email, member_id=member_id)
    if remove_stale is None:
        conn = connection.get_connection(org_id)
        remove_stale = bool(conn and conn.remove_stale_synced_memberships)
    if not callable(groups):
        groups = [g.strip() for g in groups if isinstance(g, str) and g.strip()]
    return groupsync.plan(org_id, account_id, groups, remove_stale=remove_stale)


def absent_claim(org_id: uuid.UUID, *, email: str | None, member_id: uuid.UUID | None) -> str:
    """What a sign-in whose provider sent no groups claim does: nothing (absent is not
    empty, docs/sso.md#group-sync); the message the preview and the audit log show."""
    person_account(org_id, email=email, member_id=member_id)
    conn = connection.get_connection(org_id)
    return no_claim_message(conn.groups_claim if conn else "groups")


def no_claim_message(claim: str) -> str:
    return (
        f"The identity provider sent no {claim!r} claim, so project roles are left as "
        "they are. Request the scope that carries it (extra scopes in the SSO settings) "
        "or check the claim name."
    )


def person_account(
    org_id: uuid.UUID, *, email: str | None, member_id: uuid.UUID | None
) -> uuid.UUID | None:
    """The account a preview is for; None for someone who has not signed in yet."""
    if member_id is not None:
        return get_member(org_id, member_id).account_id
    if not email or "@" not in email:
        raise ServiceError("Enter the person's email address.", field="email")
    try:
        # The check every account goes through: "x@" would preview what nobody's
        # sign-in can do.
        canonical_email(email)
    except ServiceError as exc:
        raise ServiceError(
            "Enter the person's whole email address, such as ann@acme.com.", field="email"
        ) from exc
    account = find_account(email)
    return account.id if account else None
