"""SCIM Groups (docs/scim.md#groups, RFC 7643 §4.2): create, read, list, replace, patch
and delete the groups an IdP pushes. Members are this org's SCIM users (the SCIM id is
the OrgMember id). A group's displayName feeds group sync as the person's "scim" groups
(workspace.identity.groupsync.held), and every membership change reconciles the
affected people's synced project roles in the same transaction.

Functions raise scim2-models exceptions, which the blueprint renders as SCIM errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from scim2_models import (
    Group,
    InvalidValueException,
    NotFoundException,
    ScimFilter,
    UniquenessException,
)
from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.exc import IntegrityError

from workspace.core.events import record_event
from workspace.core.models import Account, AccountKind, OrgMember
from workspace.extensions import db
from workspace.identity.groupsync import held, org_role
from workspace.identity.groupsync import service as groupsync
from workspace.scim import group_filter
from workspace.scim.group_models import ScimGroup, ScimGroupMember
from workspace.scim.models import ScimIdentity
from workspace.scim.resources import GROUP_SCHEMA
from workspace.scim.tokens import Caller, revoke_minted_by
from workspace.types import utcnow


@dataclass
class ScimGroupView:
    """A group and its members (OrgMember, Account), as SCIM shows them."""

    group: ScimGroup
    #: (member, account, the display the IdP sent or None).
    members: list[tuple[OrgMember, Account, str | None]] = field(default_factory=list)


# -- reads ----------------------------------------------------------------------------


def _with_members(groups: list[ScimGroup]) -> list[ScimGroupView]:
    """The groups with their members, in one query for the whole page."""
    views = {g.id: ScimGroupView(g) for g in groups}
    if not views:
        return []
    rows = db.session.execute(
        select(ScimGroupMember.group_id, OrgMember, Account, ScimGroupMember.display)
        .join(OrgMember, OrgMember.id == ScimGroupMember.member_id)
        .join(Account, Account.id == OrgMember.account_id)
        .where(ScimGroupMember.group_id.in_(list(views)))
        .order_by(Account.email)
    )
    for group_id, member, account, display in rows:
        views[group_id].members.append((member, account, display))
    return [views[g.id] for g in groups]


def list_groups(
    org_id: uuid.UUID, scim_filter: ScimFilter | None, start_index: int, count: int
) -> tuple[int, list[ScimGroupView]]:
    """One page of the org's groups, oldest first, and the total that match."""
    where: list[ColumnElement[bool]] = [ScimGroup.org_id == org_id]
    if scim_filter is not None:
        where.append(group_filter.to_sql(scim_filter.ast))
    total = db.session.scalar(select(func.count(ScimGroup.id)).where(*where)) or 0
    if count == 0 or start_index > total:
        return total, []
    page = db.session.scalars(
        select(ScimGroup)
        .where(*where)
        .order_by(ScimGroup.created_at, ScimGroup.id)
        .offset(start_index - 1)
        .limit(count)
    )
    return total, _with_members(list(page))


def get_group(org_id: uuid.UUID, group_id: str, *, for_update: bool = False) -> ScimGroupView:
    """The group. ``for_update`` writes its row before reading anything of it: that
    locks the row on PostgreSQL and takes the write lock on SQLite, so concurrent
    PATCHes of one group apply one after the other, each reading the other's result,
    instead of losing each other's members."""
    try:
        key = uuid.UUID(group_id)
    except ValueError:
        key = None
    if for_update and key:
        db.session.execute(
            update(ScimGroup)
            .where(ScimGroup.id == key, ScimGroup.org_id == org_id)
            .values(updated_at=utcnow())
        )
    group = db.session.get(ScimGroup, key) if key else None
    if group is None or group.org_id != org_id:
        raise NotFoundException(detail=f"No group with id {group_id!r} in this organization.")
    return _with_members([group])[0]


def document(view: ScimGroupView) -> Group:
    """The current state as an input document, which PATCH operations apply to."""
    return Group.model_validate(
        {
            "schemas": [GROUP_SCHEMA],
            "displayName": view.group.display_name,
            "externalId": view.group.external_id,
            "members": [
                {"value": str(m.id), "type": "User", "display": d} for m, _a, d in view.members
            ],
        }
    )


# -- writes ---------------------------------------------------------------------------


def _display_name(doc: Group) -> str:
    name = (doc.display_name or "").strip()
    if not name or len(name) > held.NAME_MAX or not name.isprintable():
        raise InvalidValueException(
            detail="displayName is required: the group's name, at most 256 printable "
            "characters (group mappings match it exactly)."
        )
    return name


def _member_ids(org_id: uuid.UUID, doc: Group) -> list[uuid.UUID]:
    """The members' SCIM ids, each checked to be one of this org's SCIM users."""
    wanted: list[uuid.UUID] = []
    for item in doc.members or []:
        raw = str(item.value or "")
        if item.type and str(item.type).lower() == "group":
            raise InvalidValueException(
                detail=f"Member {raw!r} is a group; nested groups are not supported here. "
                "Push the users themselves."
            )
        try:
            member_id = uuid.UUID(raw)
        except ValueError:
            member_id = None
        if member_id is None:
            raise InvalidValueException(
                detail=f"Member {raw!r} is not a user id of this organization's SCIM /Users."
            )
        if member_id not in wanted:
            wanted.append(member_id)
    if not wanted:
        return []
    found = set(
        db.session.scalars(
            select(OrgMember.id)
            .join(Account, Account.id == OrgMember.account_id)
            .outerjoin(ScimIdentity, ScimIdentity.member_id == OrgMember.id)
            .where(
                OrgMember.org_id == org_id,
                OrgMember.id.in_(wanted),
                Account.kind == AccountKind.PERSON,
                ScimIdentity.deleted_at.is_(None),
            )
        )
    )
    missing = [str(m) for m in wanted if m not in found]
    if missing:
        raise InvalidValueException(
            detail=f"Member {missing[0]!r} is not a user of this organization's SCIM /Users "
            "(unknown, deleted or another organization's). Provision the user first."
        )
    return wanted


def _check_unique(org_id: uuid.UUID, name: str, group_id: uuid.UUID | None) -> None:
    other = db.session.scalar(
        select(ScimGroup.id).where(
            ScimGroup.org_id == org_id, ScimGroup.display_name_key == group_filter.name_key(name)
        )
    )
    if other is not None and other != group_id:
        raise UniquenessException(
            detail=f"A group named {name!r} already exists in this organization. "
            f'Look it up with filter=displayName eq "{name}".'
        )


def _flush_unique(name: str) -> None:
    try:
        db.session.flush()
    except IntegrityError as exc:
        # A concurrent request created the same name a moment ago.
        raise UniquenessException(
            detail=f"A group named {name!r} already exists in this organization."
        ) from exc


def create_group(org_id: uuid.UUID, doc: Group, caller: Caller) -> ScimGroupView:
    """POST /Groups: 409 when the displayName is taken, 400 for an unknown member."""
    name = _display_name(doc)
    _check_unique(org_id, name, None)
    members = _member_ids(org_id, doc)
    group = ScimGroup(
        org_id=org_id,
        display_name=name,
        display_name_key=group_filter.name_key(name),
        external_id=doc.external_id,
    )
    db.session.add(group)
    _flush_unique(name)
    record_event(
        org_id,
        "scim.group.created",
        subject=name,
        scim_group_id=str(group.id),
        external_id=doc.external_id,
        members=len(members),
        by=caller.by,
    )
    _set_members(group, members, caller, _displays(doc))
    return get_group(org_id, str(group.id))


def write_group(view: ScimGroupView, doc: Group, caller: Caller) -> ScimGroupView:
    """PUT, and PATCH with the operations applied to :func:`document`: the document is
    the whole new state (absent members: none)."""
    group = view.group
    name = _display_name(doc)
    members = _member_ids(group.org_id, doc)
    old_name = group.display_name
    if name != old_name:
        _check_unique(group.org_id, name, group.id)
        group.display_name, group.display_name_key = name, group_filter.name_key(name)
        _flush_unique(name)
        record_event(
            group.org_id,
            "scim.group.updated",
            subject=name,
            scim_group_id=str(group.id),
            from_name=old_name,
            by=caller.by,
        )
    group.external_id = doc.external_id
    group.updated_at = utcnow()
    before = {m[0].id for m in view.members}
    _set_members(group, members, caller, _displays(doc))
    if name != old_name:
        # Every member's "scim" groups change name; the ones _set_members touched
        # are already reconciled.
        _sync_people(group.org_id, before & set(members))
    return get_group(group.org_id, str(group.id))


def delete_group(view: ScimGroupView, caller: Caller) -> None:
    group = view.group
    member_ids = {m[0].id for m in view.members}
    record_event(
        group.org_id,
        "scim.group.deleted",
        subject=group.display_name,
        scim_group_id=str(group.id),
        members=len(member_ids),
        by=caller.by,
    )
    db.session.execute(
        ScimGroupMember.__table__.delete().where(ScimGroupMember.group_id == group.id)
    )
    db.session.delete(group)
    db.session.flush()
    _sync_people(group.org_id, member_ids)


def _displays(doc: Group) -> dict[str, str | None]:
    return {str(m.value): m.display for m in doc.members or []}


def _set_members(
    group: ScimGroup, member_ids: list[uuid.UUID], caller: Caller, displays: dict[str, str | None]
) -> None:
    """The group's members become exactly ``member_ids`` (with the displays sent);
    each change is an event and reconciles that person's roles."""
    current = set(
        db.session.scalars(
            select(ScimGroupMember.member_id).where(ScimGroupMember.group_id == group.id)
        )
    )
    wanted = set(member_ids)
    added, removed = wanted - current, current - wanted
    if removed:
        db.session.execute(
            ScimGroupMember.__table__.delete().where(
                ScimGroupMember.group_id == group.id, ScimGroupMember.member_id.in_(removed)
            )
        )
    for row in db.session.scalars(
        select(ScimGroupMember).where(ScimGroupMember.group_id == group.id)
    ):
        row.display = (displays.get(str(row.member_id)) or "")[:256] or None
    for member_id in sorted(added, key=str):
        display = (displays.get(str(member_id)) or "")[:256] or None
        db.session.add(ScimGroupMember(group_id=group.id, member_id=member_id, display=display))
    db.session.flush()
    emails = _emails(added | removed)
    for member_id in sorted(added, key=str) + sorted(removed, key=str):
        record_event(
            group.org_id,
            "scim.group.member_added" if member_id in added else "scim.group.member_removed",
            subject=emails.get(member_id, str(member_id)),
            group=group.display_name,
            scim_group_id=str(group.id),
            scim_id=str(member_id),
            by=caller.by,
        )
    _sync_people(group.org_id, added | removed)


def _emails(member_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, str]:
    ids = list(member_ids)
    if not ids:
        return {}
    rows = db.session.execute(
        select(OrgMember.id, Account.email)
        .join(Account, Account.id == OrgMember.account_id)
        .where(OrgMember.id.in_(ids))
    )
    return {row.id: row.email for row in rows}


# -- feeding group sync ---------------------------------------------------------------


def person_changed(member: OrgMember, *, deleted: bool = False) -> None:
    """A SCIM user was deactivated, reactivated or deleted: their SCIM groups count
    only while they are an active, provisioned member; reconcile now. A deleted user
    leaves their groups (a deactivated one stays listed, as IdPs expect)."""
    if deleted:
        db.session.execute(
            ScimGroupMember.__table__.delete().where(ScimGroupMember.member_id == member.id)
        )
    _sync_people(member.org_id, {member.id})


def _sync_people(org_id: uuid.UUID, member_ids: Iterable[uuid.UUID]) -> None:
    """Store each person's current SCIM group names as their "scim" groups and
    reconcile their synced project roles (``scim.sync.*`` events)."""
    ids = sorted(set(member_ids), key=str)
    if not ids:
        return
    # Each person's row first: another request may be changing their other groups.
    org_role.lock_members(ids)
    people = db.session.execute(
        select(OrgMember, Account, ScimIdentity.deleted_at)
        .join(Account, Account.id == OrgMember.account_id)
        .outerjoin(ScimIdentity, ScimIdentity.member_id == OrgMember.id)
        .where(OrgMember.id.in_(ids))
    ).all()
    names: dict[uuid.UUID, list[str]] = {}
    for member_id, name in db.session.execute(
        select(ScimGroupMember.member_id, ScimGroup.display_name)
        .join(ScimGroup, ScimGroup.id == ScimGroupMember.group_id)
        .where(ScimGroupMember.member_id.in_(ids))
    ):
        names.setdefault(member_id, []).append(name)
    for member, account, deleted_at in people:
        counts = member.active and deleted_at is None
        groups = names.get(member.id, []) if counts else []
        held.replace_groups(org_id, account.id, "scim", groups)
        todo = groupsync.reconcile(
            org_id, account.id, account.email, None, remove_stale=False, source="scim"
        )
        if todo.org_role is not None and not todo.org_role.granted:
            # As a demotion on the Members page: their SCIM token would keep their rights.
            revoke_minted_by(org_id, account.id, "minter_demoted", actor_id=None)
