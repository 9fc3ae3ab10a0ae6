"""The groups each person holds now, per source (docs/sso.md#group-sync): SSO sign-in
writes its claim, LDAP sign-in and the directory sync the mappings the directory's
groups matched, SCIM its pushed groups. Every reconcile maps the union, so one source
never strips a role another grants."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from typing import NamedTuple

from sqlalchemy import case, delete, distinct, func, select

from workspace.core.models import OrgMember
from workspace.core.models.projects import SYNC_SOURCE_LABELS
from workspace.extensions import db
from workspace.identity.groupsync.models import MemberGroup

#: The sources, in the order a tie between equal grants is decided.
SOURCES = ("scim", "sso", "ldap")
#: How a synced membership names where its group comes from ("SCIM group Backend").
LABELS = SYNC_SOURCE_LABELS
#: A group name longer than a mapping can hold matches no mapping.
NAME_MAX = 256

Held = dict[str, set[str]]


def label(source: str | None, group: str | None) -> str | None:
    """ "SCIM group Backend"; a membership synced before sources were recorded says
    "group Backend"."""
    if not group:
        return None
    return f"{LABELS.get(source or '', 'group')} {group}"


def held_groups(org_id: uuid.UUID, account_id: uuid.UUID | None) -> Held:
    """Source -> the group names this person holds now in this org."""
    if account_id is None:
        return {}
    return held_groups_of(org_id, [account_id]).get(account_id, {})


def held_groups_of(org_id: uuid.UUID, account_ids: Collection[uuid.UUID]) -> dict[uuid.UUID, Held]:
    """:func:`held_groups` of many people in one query (a page listing members)."""
    out: dict[uuid.UUID, Held] = {}
    if not account_ids:
        return out
    rows = db.session.execute(
        select(MemberGroup.account_id, MemberGroup.source, MemberGroup.group_name).where(
            MemberGroup.org_id == org_id, MemberGroup.account_id.in_(account_ids)
        )
    )
    for account_id, source, name in rows:
        out.setdefault(account_id, {}).setdefault(source, set()).add(name)
    return out


def replace_groups(
    org_id: uuid.UUID, account_id: uuid.UUID, source: str, names: Iterable[str]
) -> None:
    """The person's groups from ``source`` are now exactly ``names`` (only the rows
    that differ are written, so a sign-in with unchanged groups writes nothing)."""
    if source not in LABELS:
        raise ValueError(f"unknown group source {source!r}")
    wanted = {n for n in names if n and len(n) <= NAME_MAX}
    have = held_groups(org_id, account_id).get(source, set())
    gone = have - wanted
    if gone:
        db.session.execute(
            delete(MemberGroup).where(
                MemberGroup.org_id == org_id,
                MemberGroup.account_id == account_id,
                MemberGroup.source == source,
                MemberGroup.group_name.in_(gone),
            )
        )
    for name in sorted(wanted - have):
        db.session.add(
            MemberGroup(org_id=org_id, account_id=account_id, source=source, group_name=name)
        )
    db.session.flush()


class Reach(NamedTuple):
    """Who a mapping reaches now: how many active members hold its group, and, when
    that is no one, the held names that differ from it only in letter case."""

    holders: int
    near: list[str]


def reach(org_id: uuid.UUID, groups: Iterable[str]) -> dict[str, Reach]:
    """Per group name, its :class:`Reach`, from one query over the org's held groups:
    what the group sync page shows beside each mapping, so one that maps no one
    stands out (mappings match exactly: "engineering" maps no one who holds
    "Engineering")."""
    # The directory's held names are the mappings its groups matched, by CN or DN and
    # ignoring case (identity/ldap/groups.py): a mapping cased otherwise still reaches
    # them, so only names the IdP sent (SSO, SCIM) can be a case slip.
    sent_by_idp = func.max(case((MemberGroup.source != "ldap", 1), else_=0))
    rows = db.session.execute(
        select(
            MemberGroup.group_name,
            func.count(distinct(MemberGroup.account_id)),
            sent_by_idp,
        )
        .join(
            OrgMember,
            (OrgMember.org_id == MemberGroup.org_id)
            & (OrgMember.account_id == MemberGroup.account_id),
        )
        .where(MemberGroup.org_id == org_id, OrgMember.active.is_(True))
        .group_by(MemberGroup.group_name)
    ).all()
    held = {name: count for name, count, _ in rows}
    sent = [name for name, _, by_idp in rows if by_idp]
    out = {}
    for group in groups:
        folded = group.casefold()
        near = [h for h in sent if h != group and h.casefold() == folded]
        out[group] = Reach(held.get(group, 0), sorted(near))
    return out
