"""Organizations: creation and lookup."""

from __future__ import annotations

import re
import uuid
from functools import cache
from zoneinfo import available_timezones

from sqlalchemy import select

from workspace.core.accounts import add_member
from workspace.core.events import record_event
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


#: The longest org name (``Org.name``).
MAX_NAME = 200


@cache
def time_zones() -> tuple[str, ...]:
    """The IANA zones an org may choose, sorted (``zoneinfo.available_timezones``)."""
    return tuple(sorted(available_timezones()))


#: The days a week may start on (``Org.week_start``), Monday first as ISO 8601 has it.
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def update_org(
    org: Org, actor_id: uuid.UUID, *, name: str, timezone: str, week_start: str | None = None
) -> Org:
    """Rename the org and set its time zone (analytics' "today") and the day its weeks
    start on (None: unchanged); the slug never changes, so URLs and API clients keep
    working. Records ``org.updated`` with what changed, old and new; an unchanged form
    records nothing."""
    name = (name or "").strip()
    if not name:
        raise ServiceError("Give the organization a name.", field="name")
    if len(name) > MAX_NAME:
        raise ServiceError(f"A name has at most {MAX_NAME} characters.", field="name")
    timezone = (timezone or "").strip()
    if timezone not in time_zones():
        raise ServiceError(
            "Choose a time zone from the list, such as Europe/Berlin or UTC.", field="timezone"
        )
    week_start = org.week_start if week_start is None else week_start
    if week_start not in WEEKDAYS:
        raise ServiceError("Choose the day weeks start on, such as monday.", field="week_start")
    changes = {
        key: [old, new]
        for key, old, new in (
            ("name", org.name, name),
            ("timezone", org.timezone, timezone),
            ("week_start", org.week_start, week_start),
        )
        if old != new
    }
    if not changes:
        return org
    org.name, org.timezone, org.week_start = name, timezone, week_start
    record_event(org.id, "org.updated", actor_id=actor_id, subject=name, **changes)
    db.session.flush()
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
