"""A saved view of a project's task list or board (docs/saved_views.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class ViewKind(StrEnum):
    LIST = "list"
    BOARD = "board"


class SavedView(db.Model):
    """One person's named filter, sort, grouping and columns of one project's tasks;
    only they see it until ``shared`` is set, then everyone who reads the project."""

    __tablename__ = "saved_views"
    __table_args__ = (
        # The same person cannot have two views of one name in one project; two people
        # can (the tab shows whose a shared one is).
        UniqueConstraint("project_id", "owner_id", "name", name="uq_saved_views_name"),
        # The project's tabs: its views, the caller's and the shared ones.
        Index("ix_saved_views_project", "project_id", "shared"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    owner_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(80))
    #: :class:`ViewKind`: the list or the board.
    kind: Mapped[str] = mapped_column(String(8), default=ViewKind.LIST)
    #: The PQL filter, "" for none; compiled when the view is saved and when it is used.
    pql: Mapped[str] = mapped_column(Text, default="")
    sort: Mapped[str] = mapped_column(String(16), default="created")
    direction: Mapped[str] = mapped_column(String(4), default="desc")
    #: Rows grouped by this field (docs/saved_views.md#grouping); None: not grouped.
    group_by: Mapped[str | None] = mapped_column(String(16))
    #: The list's visible columns in order; None: every column.
    columns: Mapped[list[str] | None] = mapped_column(JSON)
    shared: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
