"""The SCIM dry run of the Group sync page (docs/scim.md#groups): for a person, their
groups from every source, the mappings those match, and what a reconcile would change
if they were (also) in one SCIM group. Reads only."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select

from workspace.core.accounts import find_account
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.identity.groupsync import held
from workspace.identity.groupsync import service as groupsync
from workspace.identity.groupsync.models import GroupMapping, MemberGroup


@dataclass
class ScimPreview:
    email: str
    group: str | None
    #: (label, name) of every group counted, e.g. ("SCIM group", "Backend").
    groups: list[tuple[str, str]]
    matched: list[GroupMapping]
    plan: groupsync.SyncPlan


def scim_group_names(org_id: uuid.UUID) -> list[str]:
    """The SCIM groups people in this org hold now (the page offers them to pick)."""
    return list(
        db.session.scalars(
            select(MemberGroup.group_name)
            .where(MemberGroup.org_id == org_id, MemberGroup.source == "scim")
            .distinct()
            .order_by(MemberGroup.group_name)
        )
    )


def scim_preview(org_id: uuid.UUID, email: str, group: str | None) -> ScimPreview:
    """What SCIM would change for ``email`` with ``group`` added to their SCIM groups
    (blank: as they are now), counting their SSO and directory groups too."""
    email = (email or "").strip().lower()
    if not email or "@" not in email:
        raise ServiceError("Enter the person's email address.", field="scim_email")
    group = (group or "").strip() or None
    if group is not None and (len(group) > held.NAME_MAX or not group.isprintable()):
        raise ServiceError("Enter the SCIM group's displayName.", field="scim_group")
    account = find_account(email)
    account_id = account.id if account else None
    by_source = held.held_groups(org_id, account_id)
    scim = set(by_source.get("scim", set())) | ({group} if group else set())
    by_source["scim"] = scim
    names = set().union(*by_source.values())
    return ScimPreview(
        email=email,
        group=group,
        groups=sorted(
            (held.LABELS[s], n) for s, ns in by_source.items() if s in held.LABELS for n in ns
        ),
        matched=groupsync.matching_mappings(org_id, names),
        plan=groupsync.plan(org_id, account_id, scim, remove_stale=False, source="scim"),
    )
