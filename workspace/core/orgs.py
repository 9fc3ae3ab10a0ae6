"""Organizations: creation and lookup."""

from __future__ import annotations

import re
import uuid

from sqlalchemy import select

from workspace.core.accounts import add_member
from workspace.core.models import Account, Org, OrgMember, OrgRole
from workspace.errors import ConflictError, ServiceError
from workspace.extensions import db

_SLUG_OK = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:63].strip("-") or "org"


def create_org(name: str, owner: Account, slug: str | None = None) -> Org:
    """A new org with ``owner`` as its first owner."""
    name = name.strip()
    if not name:
        raise ServiceError("Give the organization a name.", field="name")
    slug = (slug or slugify(name)).lower()
    if not _SLUG_OK.match(slug):
        raise ServiceError(
            "A slug uses lowercase letters, digits and dashes, up to 63 characters.",
            field="slug",
        )
    if db.session.scalar(select(Org.id).where(Org.slug == slug)):
        raise ConflictError(f"The slug '{slug}' is taken; choose another.", field="slug")
    org = Org(name=name, slug=slug)
    db.session.add(org)
    db.session.flush()
    add_member(org, owner, OrgRole.OWNER, actor_id=owner.id)
    return org


def orgs_for_account(account_id: uuid.UUID) -> list[Org]:
    return list(
        db.session.scalars(
            select(Org)
            .join(OrgMember, OrgMember.org_id == Org.id)
            .where(OrgMember.account_id == account_id, OrgMember.active.is_(True))
            .order_by(Org.name)
        )
    )


def find_org(ref: str | uuid.UUID) -> Org | None:
    """An org by UUID or slug."""
    if isinstance(ref, uuid.UUID):
        return db.session.get(Org, ref)
    try:
        return db.session.get(Org, uuid.UUID(ref))
    except ValueError:
        return db.session.scalar(select(Org).where(Org.slug == ref.lower()))


def active_membership(org_id: uuid.UUID, account_id: uuid.UUID) -> OrgMember | None:
    """The account's membership of the org, when it is active."""
    return db.session.scalar(
        select(OrgMember).where(
            OrgMember.org_id == org_id,
            OrgMember.account_id == account_id,
            OrgMember.active.is_(True),
        )
    )
