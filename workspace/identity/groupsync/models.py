"""Group mappings: an identity-provider or directory group -> a project role or the
org's admin role
(docs/sso.md#group-sync, docs/ldap.md#group-sync)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import created_at_column, uuid_pk


class GroupMapping(db.Model):
    """IdP or directory group -> project role, shared by SSO and LDAP group sync."""

    # The table keeps its first name: SSO had group sync first.
    __tablename__ = "sso_group_mappings"
    __table_args__ = (UniqueConstraint("org_id", "idp_group", "project_id"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: Compared exactly (case-sensitive) with the names in the groups claim.
    idp_group: Mapped[str] = mapped_column(String(256))
    #: The project whose role the group grants; None: the org's admin role (never
    #: owner; docs/sso.md#org-role-from-groups).
    project_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    #: viewer, commenter, member or admin (of the project, or of the org).
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = created_at_column()


class MemberGroup(db.Model):
    """A group a person holds now, per source (sso, ldap, scim): written when a sign-in
    reports groups or SCIM changes a group, read by every reconcile, which maps the
    union over all sources (docs/sso.md#group-sync)."""

    __tablename__ = "member_groups"
    __table_args__ = (UniqueConstraint("org_id", "account_id", "source", "group_name"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    #: sso, ldap or scim.
    source: Mapped[str] = mapped_column(String(16))
    #: Compared exactly with a mapping's ``idp_group``. The directory's groups match
    #: mappings by DN or CN, so for ldap this is the mapping name they matched.
    group_name: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[datetime] = created_at_column()
