"""Reading the directory for a scheduled sync (docs/ldap.md#scheduled-sync): which
members linked to the org's directory are gone or disabled there, and what their
directory groups would change. Reads only; :mod:`.sync_job` applies the plan.

One service-account search per run lists every person the search filter matches
(``{username}`` as a wildcard, paged by RFC 2696 so a directory's size limit cannot
hand back a partial list that would look like people had left). Groups are read per
person, as at sign-in, on a few service connections, each under the one total deadline
a connection has (docs/security.md#deadlines).

Any failure to reach or search the directory makes the whole plan ``ok: false``:
nothing is changed from a view of the directory that may be incomplete.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import ldap3
from sqlalchemy import select

from workspace.auth.models import AccountIdentityLink, IdentitySource
from workspace.core.models import OrgMember
from workspace.extensions import db
from workspace.identity.ldap import directory
from workspace.identity.ldap.account_states import STATE_ATTRIBUTES, entry_state
from workspace.identity.ldap.directory import DirectoryError, DirectorySettings, Entry
from workspace.identity.ldap.filters import sample_filter
from workspace.identity.ldap.groups import PersonGroups, apply_groups, read_groups
from workspace.identity.ldap.models import LdapConnection
from workspace.identity.ldap.service import settings_for

#: Account states that end a membership: they last until a directory admin acts.
#: Locked out, password expired or to be changed pass on their own or by the person
#: themself, so they are reported, never a reason to deactivate (which sticks).
DEACTIVATING_STATES = {
    "account_disabled": "the directory account is disabled",
    "account_expired": "the directory account has expired",
}
GONE = "no entry with this email matches the search filter under the search base"
#: People whose groups are read on one service connection (one bind, one deadline).
GROUP_BATCH = 25
#: Entries per page of the people search (RFC 2696); AD's MaxPageSize is 1000.
PAGE_SIZE = 500
#: Group-read reasons that mean the directory itself failed, not this one person.
_DIRECTORY_DOWN = {
    "unreachable",
    "tls_failed",
    "tls_timeout",
    "tls_name_mismatch",
    "tls_untrusted",
    "tls_required",
    "service_bind_failed",
    "service_account_state",
}

Progress = Callable[[int, int, str], None]


@dataclass
class Deactivation:
    member_id: uuid.UUID
    email: str
    #: ``gone`` or an account state (``account_disabled``, ``account_expired``).
    reason: str
    why: str


@dataclass
class RoleChange:
    email: str
    #: added, changed or removed
    kind: str
    project_id: uuid.UUID
    role: str
    from_role: str | None = None


@dataclass
class OrgRoleChange:
    """The org's admin role granted or taken back by a directory group
    (docs/sso.md#org-role-from-groups)."""

    email: str
    #: granted or revoked
    kind: str
    role: str
    from_role: str
    #: The group that grants it, or that granted it.
    group: str | None = None


@dataclass
class Plan:
    """What a sync would do, or why it cannot: ``ok`` False changes nothing."""

    ok: bool = True
    reason: str | None = None
    message: str | None = None
    checked: int = 0
    deactivations: list[Deactivation] = field(default_factory=list)
    role_changes: list[RoleChange] = field(default_factory=list)
    org_role_changes: list[OrgRoleChange] = field(default_factory=list)
    #: Per person: {email, message}; that person's state or roles stay as they are.
    errors: list[dict[str, str]] = field(default_factory=list)
    #: Each remaining member's groups, for the apply step.
    groups: list[tuple[OrgMember, PersonGroups]] = field(default_factory=list)

    def failed(self, exc: DirectoryError) -> Plan:
        return Plan(ok=False, reason=exc.reason, message=exc.message, checked=self.checked)

    def counts(self) -> dict[str, int]:
        kinds = [c.kind for c in self.role_changes]
        org_kinds = [c.kind for c in self.org_role_changes]
        return {
            "checked": self.checked,
            "deactivated": len(self.deactivations),
            "roles_added": kinds.count("added"),
            "roles_changed": kinds.count("changed"),
            "roles_removed": kinds.count("removed"),
            "org_roles_granted": org_kinds.count("granted"),
            "org_roles_revoked": org_kinds.count("revoked"),
            "errors": len(self.errors),
        }


def linked_members(org_id: uuid.UUID) -> list[OrgMember]:
    """The org's active members whose account is linked to its directory."""
    linked = select(AccountIdentityLink.account_id).where(
        AccountIdentityLink.org_id == org_id, AccountIdentityLink.source == IdentitySource.LDAP
    )
    query = (
        select(OrgMember)
        .where(
            OrgMember.org_id == org_id,
            OrgMember.active.is_(True),
            OrgMember.account_id.in_(linked),
        )
        .order_by(OrgMember.created_at, OrgMember.id)
    )
    return list(db.session.scalars(query))


def all_people(conn: ldap3.Connection, settings: DirectorySettings) -> list[Entry]:
    """Every entry the search filter matches with ``{username}`` as a wildcard, page by
    page; a server that stops early fails the read (a partial list would look like
    people had left)."""
    attributes = [settings.email_attribute, "objectClass", "uid", *STATE_ATTRIBUTES]
    search_filter = sample_filter(settings.search_filter)
    return directory.search(conn, settings, search_filter, attributes, PAGE_SIZE, paged=True)


def plan_sync(row: LdapConnection, progress: Progress) -> Plan:
    """Read the directory and plan the sync of every linked member; writes nothing."""
    settings = settings_for(row)
    members = linked_members(row.org_id)
    plan = Plan(checked=len(members))
    progress(0, len(members) + 1, "Listing the people in the directory")
    try:
        with directory.as_service(settings) as conn:
            people = all_people(conn, settings)
    except DirectoryError as exc:
        return plan.failed(exc)
    by_email: dict[str, list[Entry]] = {}
    for entry in people:
        email = entry.first(settings.email_attribute)
        if email:
            by_email.setdefault(email.strip().lower(), []).append(entry)
    to_read: list[tuple[OrgMember, Entry]] = []
    for member in members:
        email = member.account.email
        found = by_email.get(email.lower(), [])
        if not found:
            plan.deactivations.append(Deactivation(member.id, email, "gone", GONE))
        elif len(found) > 1:
            plan.errors.append(
                {"email": email, "message": "more than one directory entry has this email"}
            )
        elif (state := entry_state(found[0].first)) in DEACTIVATING_STATES:
            why = DEACTIVATING_STATES[state]
            plan.deactivations.append(Deactivation(member.id, email, state, why))
        else:
            to_read.append((member, found[0]))
    if not row.sync_groups_on_login:
        return plan  # directory group sync is off: states only
    try:
        _plan_groups(plan, row, settings, to_read, progress)
    except DirectoryError as exc:
        return plan.failed(exc)
    return plan


def _plan_groups(
    plan: Plan,
    row: LdapConnection,
    settings: DirectorySettings,
    to_read: list[tuple[OrgMember, Entry]],
    progress: Progress,
) -> None:
    total = plan.checked + 1
    for start in range(0, len(to_read), GROUP_BATCH):
        progress(start + 1, total, f"Reading groups, {start + 1} of {len(to_read)}")
        with directory.as_service(settings) as conn:
            for member, entry in to_read[start : start + GROUP_BATCH]:
                found = read_groups(conn, settings, row, entry, entry.first("uid"))
                if found.reason in _DIRECTORY_DOWN:
                    raise DirectoryError("search_failed", detail=found.error or found.reason)
                if found.error is not None:
                    plan.errors.append({"email": member.account.email, "message": found.error})
                    continue
                plan.groups.append((member, found))
    for member, found in plan.groups:
        email = member.account.email
        todo = apply_groups(row.org_id, member.account_id, email, found, row, dry_run=True)
        for kind, changes in (
            ("added", todo.adds),
            ("changed", todo.changes),
            ("removed", todo.removes),
        ):
            plan.role_changes += [
                RoleChange(email, kind, c.project_id, c.role, c.from_role) for c in changes
            ]
        if (org := todo.org_role) is not None:
            kind = "granted" if org.granted else "revoked"
            plan.org_role_changes.append(
                OrgRoleChange(email, kind, org.role, org.from_role, org.group)
            )
