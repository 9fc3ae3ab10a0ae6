"""The dry-run sync preview: reconcile's plan for a person and a typed group set,
with the connection's stale-removal setting. Writes nothing."""

from __future__ import annotations

import uuid

from workspace.core.accounts import find_account, get_member
from workspace.errors import ServiceError
from workspace.identity.sso import connection, groupsync


def preview(
    org_id: uuid.UUID, *, email: str | None, member_id: uuid.UUID | None, groups: list[str]
) -> groupsync.SyncPlan:
    if member_id is not None:
        account_id: uuid.UUID | None = get_member(org_id, member_id).account_id
    else:
        if not email or "@" not in email:
            raise ServiceError("Enter the person's email address.", field="email")
        account = find_account(email)
        account_id = account.id if account else None  # someone who has not signed in yet
    conn = connection.get_connection(org_id)
    remove_stale = bool(conn and conn.remove_stale_synced_memberships)
    cleaned = [g.strip() for g in groups if isinstance(g, str) and g.strip()]
    return groupsync.plan(org_id, account_id, cleaned, remove_stale=remove_stale)
