"""SCIM Groups (RFC 7643 §4.2) as the IdP pushes them: a named set of this org's SCIM
users. A group does not grant anything by itself; its name feeds group sync
(docs/scim.md#groups)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class ScimGroup(db.Model):
    __tablename__ = "scim_groups"
    __table_args__ = (
        # displayName names one group per org: it is what group mappings match.
        UniqueConstraint("org_id", "display_name_key"),
        Index("ix_scim_groups_org_external_id", "org_id", "external_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    display_name: Mapped[str] = mapped_column(String(256))
    #: displayName lowercased: the uniqueness and filter key (RFC 7643 §4.2 leaves
    #: caseExact to the provider; Okta and Entra treat names case-insensitively).
    display_name_key: Mapped[str] = mapped_column(String(256))
    external_id: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ScimGroupMember(db.Model):
    """One member (an OrgMember, the SCIM user id) of one group."""

    __tablename__ = "scim_group_members"

    group_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("scim_groups.id", ondelete="CASCADE"), primary_key=True
    )
    member_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("org_members.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    #: The member's display as the IdP sent it (shown back; else the account's name).
    display: Mapped[str | None] = mapped_column(String(256))
