"""Directory group sync (docs/ldap.md#group-sync): read a person's groups from the
directory and feed them to the SSO group-sync reconcile, at sign-in and in the dry-run
preview.

Reading groups never blocks a sign-in: any failure (unreachable, refused search, too
many groups, nesting too deep) skips the sync and records why (``ldap.sync.skipped``).
A partial list of groups never changes roles, since it could wrongly downgrade or remove.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from functools import cached_property

import ldap3
from ldap3.core import exceptions as ldap_exc

from workspace.core.accounts import find_account
from workspace.core.events import record_event
from workspace.core.models import Account, Org
from workspace.errors import NotFoundError, ServiceError
from workspace.identity.groupsync import service as groupsync
from workspace.identity.ldap import directory
from workspace.identity.ldap.directory import DirectoryError, DirectorySettings, Entry
from workspace.identity.ldap.filters import (
    DnKey,
    dn_key,
    fill_filter,
    in_chain_filter,
    member_filter,
    posix_filter,
)
from workspace.identity.ldap.models import LdapConnection, connection_for
from workspace.identity.ldap.service import settings_for

#: The org's mappings (shared with SSO), for the Group sync page's directory preview.
list_mappings = groupsync.list_mappings

MODES = ("auto", "memberof", "groupofnames", "posixgroup")
#: Nesting levels followed for groupOfNames (AD's in-chain rule has no such limit).
MAX_DEPTH = 10
#: Groups read for one person; reaching it skips the sync (a partial list could demote).
MAX_GROUPS = 1000
#: Group DNs ORed into one search while walking nested groupOfNames.
BATCH = 50
#: rootDSE supportedCapabilities of Active Directory (LDAP_CAP_ACTIVE_DIRECTORY_OID).
AD_CAPABILITY = "1.2.840.113556.1.4.800"


class GroupReadFailed(Exception):
    """Groups could not be read completely; ``reason`` is for the audit trail."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message


class DirectoryUnavailable(ServiceError):
    """The preview could not read the directory (an upstream failure, not bad input)."""

    status = 502


@dataclass(frozen=True)
class DirectoryGroup:
    dn: str
    cn: str | None


@dataclass
class PersonGroups:
    """A person's directory groups, or why they could not be read."""

    mode: str
    groups: list[DirectoryGroup] = field(default_factory=list)
    reason: str | None = None
    error: str | None = None

    def matches(self, idp_group: str) -> bool:
        """How a directory group matches a mapping: a mapping that is a DN matches the
        group with that DN (attribute names and values compared case-insensitively,
        escapes and spacing normalized); any other mapping matches a group's CN,
        case-insensitively."""
        key = dn_key(idp_group) if "=" in idp_group else None
        if key is not None:
            return key in self._dn_keys
        return idp_group.strip().casefold() in self._cns

    @cached_property
    def _dn_keys(self) -> set[DnKey | None]:
        return {dn_key(g.dn) for g in self.groups}

    @cached_property
    def _cns(self) -> set[str]:
        return {g.cn.casefold() for g in self.groups if g.cn}


# -- settings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupSyncSettings:
    sync_groups_on_login: bool = False
    remove_stale_synced_memberships: bool = False
    group_search_base: str | None = None
    group_membership: str = "auto"


def check_group_settings(data: GroupSyncSettings) -> GroupSyncSettings:
    """The settings with the base trimmed (blank: the search base), or a ServiceError
    naming the field to fix."""
    base = (data.group_search_base or "").strip() or None
    if base is not None and (
        any(ord(ch) < 32 or ord(ch) == 127 for ch in base) or dn_key(base) is None
    ):
        raise ServiceError(
            "Enter the group search base as a DN, e.g. ou=groups,dc=example,dc=com, "
            "or leave it blank to use the search base.",
            field="group_search_base",
        )
    if data.group_membership not in MODES:
        raise ServiceError(
            "Group membership is one of auto, memberof, groupofnames, posixgroup.",
            field="group_membership",
        )
    return replace(data, group_search_base=base)


def save_group_settings(
    row: LdapConnection, data: GroupSyncSettings, *, actor_id: uuid.UUID | None
) -> LdapConnection:
    """Store checked group-sync settings on the connection; records
    ``ldap.group_sync_saved`` when they change. Does not commit."""
    data = check_group_settings(data)
    values = {
        "sync_groups_on_login": data.sync_groups_on_login,
        "remove_stale_synced_memberships": data.remove_stale_synced_memberships,
        "group_search_base": data.group_search_base,
        "group_membership": data.group_membership,
    }
    if all(getattr(row, name) == value for name, value in values.items()):
        return row
    for name, value in values.items():
        setattr(row, name, value)
    record_event(row.org_id, "ldap.group_sync_saved", actor_id=actor_id, **values)
    return row


# -- reading ----------------------------------------------------------------------------


def _group_settings(settings: DirectorySettings, row: LdapConnection) -> DirectorySettings:
    return replace(settings, search_base=(row.group_search_base or "").strip() or row.search_base)


def _is_active_directory(conn: ldap3.Connection) -> bool | None:
    """What the rootDSE says; None when it cannot be read."""
    try:
        ok = conn.search(
            "",
            "(objectClass=*)",
            search_scope=ldap3.BASE,
            attributes=["supportedCapabilities"],
            size_limit=1,
        )
    except (ldap_exc.LDAPException, OSError):
        return None
    if not ok or not conn.response:
        return None
    attributes = conn.response[0].get("attributes") or {}
    values = next((v for k, v in attributes.items() if k.lower() == "supportedcapabilities"), [])
    return AD_CAPABILITY in [str(v) for v in values]


def resolve_mode(row_mode: str, conn: ldap3.Connection, object_classes: list[str]) -> str:
    """``auto``: memberof when the rootDSE announces Active Directory; when the rootDSE
    cannot be read, when the person's entry is an AD ``user``; else groupofnames."""
    if row_mode in MODES and row_mode != "auto":
        return row_mode
    is_ad = _is_active_directory(conn)
    if is_ad is None:
        is_ad = "user" in {c.lower() for c in object_classes}
    return "memberof" if is_ad else "groupofnames"


def _search_groups(
    conn: ldap3.Connection, settings: DirectorySettings, search_filter: str, found: int
) -> list[Entry]:
    entries = directory.search(conn, settings, search_filter, ["cn"], size_limit=MAX_GROUPS + 1)
    if found + len(entries) >= MAX_GROUPS:
        raise GroupReadFailed(
            "too_many_groups",
            f"The person is in {MAX_GROUPS} or more groups, so the list may be incomplete; "
            "narrow the group search base.",
        )
    return entries


def _nested_groups(
    conn: ldap3.Connection, settings: DirectorySettings, person_dn: str
) -> list[DirectoryGroup]:
    """groupOfNames/groupOfUniqueNames, nesting followed breadth-first, each group read
    once (a cycle ends), at most MAX_DEPTH levels."""
    seen = {dn_key(person_dn)}
    found: list[DirectoryGroup] = []
    frontier = [person_dn]
    for _level in range(MAX_DEPTH):
        next_level: list[str] = []
        for start in range(0, len(frontier), BATCH):
            batch = frontier[start : start + BATCH]
            for entry in _search_groups(conn, settings, member_filter(batch), len(found)):
                key = dn_key(entry.dn)
                if key in seen:
                    continue
                seen.add(key)
                found.append(DirectoryGroup(entry.dn, entry.first("cn")))
                next_level.append(entry.dn)
        if not next_level:
            return found
        frontier = next_level
    raise GroupReadFailed(
        "nesting_too_deep",
        f"Groups are nested more than {MAX_DEPTH} levels deep, so the list may be "
        "incomplete; flatten the nesting or narrow the group search base.",
    )


def read_groups(
    conn: ldap3.Connection,
    settings: DirectorySettings,
    row: LdapConnection,
    person: Entry,
    username: str | None = None,
) -> PersonGroups:
    """The person's groups, read over an open service connection. Never raises for a
    directory problem: the answer carries the reason instead."""
    object_classes = person.attributes.get("objectClass") or []
    mode = resolve_mode(row.group_membership, conn, [str(c) for c in object_classes])
    base = _group_settings(settings, row)
    try:
        if mode == "memberof":
            entries = _search_groups(conn, base, in_chain_filter(person.dn), 0)
            groups = [DirectoryGroup(e.dn, e.first("cn")) for e in entries]
        elif mode == "posixgroup":
            uid = person.first("uid") or username
            if not uid:
                return PersonGroups(
                    mode, reason="no_uid", error="The person's entry has no uid for memberUid."
                )
            entries = _search_groups(conn, base, posix_filter(uid), 0)
            groups = [DirectoryGroup(e.dn, e.first("cn")) for e in entries]
        else:
            groups = _nested_groups(conn, base, person.dn)
    except GroupReadFailed as exc:
        return PersonGroups(mode, reason=exc.reason, error=exc.message)
    except DirectoryError as exc:
        return PersonGroups(mode, reason=exc.reason, error=exc.message)
    return PersonGroups(mode, sorted(groups, key=lambda g: g.dn.casefold()))


_PERSON_ATTRIBUTES = ["objectClass", "uid"]


def _person_entry(conn: ldap3.Connection, settings: DirectorySettings, dn: str) -> Entry:
    entries = directory.search(
        conn, replace(settings, search_base=dn), "(objectClass=*)", _PERSON_ATTRIBUTES, 1
    )
    return next((e for e in entries if dn_key(e.dn) == dn_key(dn)), Entry(dn, {}))


# -- sign-in ----------------------------------------------------------------------------


def sync_directory_groups(
    org: Org, account: Account, person_dn: str, row: LdapConnection | None, username: str = ""
) -> PersonGroups | None:
    """At LDAP sign-in, after the person is provisioned: read their groups as the
    service account and reconcile project roles (``ldap.sync.*`` events). Off unless
    ``sync_groups_on_login``; a failure to read skips the sync, records
    ``ldap.sync.skipped`` with why, and lets the sign-in go on. Does not commit."""
    if row is None or not row.sync_groups_on_login:
        return None
    settings = settings_for(row)
    try:
        with directory.as_service(settings) as conn:
            person = _person_entry(conn, settings, person_dn)
            found = read_groups(conn, settings, row, person, username or None)
    except DirectoryError as exc:
        found = PersonGroups(row.group_membership, reason=exc.reason, error=exc.message)
    if found.error is not None:
        record_event(
            org.id,
            "ldap.sync.skipped",
            subject=account.email,
            reason=found.reason,
            message=found.error,
        )
        return found
    apply_groups(org.id, account.id, account.email, found, row)
    return found


def apply_groups(
    org_id: uuid.UUID,
    account_id: uuid.UUID | None,
    email: str | None,
    found: PersonGroups,
    row: LdapConnection,
    *,
    dry_run: bool = False,
) -> groupsync.SyncPlan:
    """The one place directory groups reach group sync: sign-in, the scheduled sync
    (docs/ldap.md#scheduled-sync) and both previews. ``dry_run`` plans and writes
    nothing; otherwise reconcile and record ``ldap.sync.*``. Does not commit."""
    remove_stale = row.remove_stale_synced_memberships
    if dry_run or account_id is None or email is None:
        return groupsync.plan(
            org_id, account_id, found.matches, remove_stale=remove_stale, source="ldap"
        )
    return groupsync.reconcile(
        org_id, account_id, email, found.matches, remove_stale=remove_stale, source="ldap"
    )


# -- preview ----------------------------------------------------------------------------


@dataclass
class DirectoryPreview:
    username: str
    dn: str
    email: str | None
    remove_stale: bool
    found: PersonGroups
    matched: list = field(default_factory=list)
    plan: groupsync.SyncPlan | None = None


def preview(org_id: uuid.UUID, username: str) -> DirectoryPreview:
    """What sync would do for this directory username, changing nothing: find the person
    as sign-in does (service account, the search filter), read their groups, match the
    mappings and plan. A directory problem is a DirectoryUnavailable (502)."""
    username = (username or "").strip()
    if not username or len(username) > 256 or not username.isprintable():
        raise ServiceError("Enter the person's directory username.", field="username")
    row = connection_for(org_id)
    if row is None:
        raise NotFoundError("This organization has no LDAP connection yet.")
    settings = settings_for(row)
    try:
        with directory.as_service(settings) as conn:
            entries = directory.search(
                conn,
                settings,
                fill_filter(settings.search_filter, username),
                [settings.email_attribute, *_PERSON_ATTRIBUTES],
                size_limit=2,
            )
            if len(entries) != 1:
                raise _not_one(username, len(entries))
            found = read_groups(conn, settings, row, entries[0], username)
    except DirectoryError as exc:
        raise DirectoryUnavailable(exc.message) from None
    email = entries[0].first(settings.email_attribute)
    result = DirectoryPreview(
        username, entries[0].dn, email, row.remove_stale_synced_memberships, found
    )
    if found.error is None:
        account = find_account(email) if email else None
        result.matched = groupsync.matching_mappings(org_id, found.matches)
        result.plan = apply_groups(
            org_id, account.id if account else None, email, found, row, dry_run=True
        )
    return result


def _not_one(username: str, count: int) -> ServiceError:
    if count == 0:
        return NotFoundError(
            f"No directory entry matches {username!r} with the LDAP search filter.",
            field="username",
        )
    return ServiceError(
        f"More than one directory entry matches {username!r}, so sign-in would refuse it; "
        "make the search filter match one person.",
        field="username",
    )
