"""Input and output shapes of the core domain, shared by the tracker's JSON API, its
HTML forms (through ``parse_form``) and the agent tools: input models validate,
output models document."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import (
    BeforeValidator,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from workspace.core.models import Priority, ProjectRole, StateCategory, TaskKind
from workspace.core.task_lists import MAX_OFFSET
from workspace.inputs import NOT_BLANK, InputModel, OutputModel, QueryModel, absent

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Text = Annotated[str, StringConstraints(max_length=20000)]


class OrgOut(OutputModel):
    id: uuid.UUID
    slug: str
    name: str
    timezone: str
    created_at: datetime


class AccountOut(OutputModel):
    id: uuid.UUID
    email: str
    name: str
    kind: str


class MemberOut(OutputModel):
    id: uuid.UUID
    account: AccountOut
    role: str
    active: bool
    created_at: datetime


class ProjectCreate(InputModel):
    name: Name
    identifier: Annotated[str, StringConstraints(min_length=1, max_length=12)] | None = None
    description: Annotated[str, StringConstraints(max_length=2000)] = ""


class ProjectPatch(InputModel):
    name: Name | None = None
    description: Annotated[str, StringConstraints(max_length=2000)] | None = None
    archived: bool | None = None


class ProjectOut(OutputModel):
    id: uuid.UUID
    name: str
    identifier: str
    description: str
    created_at: datetime
    archived_at: datetime | None


class ProjectMemberCreate(InputModel):
    account_id: uuid.UUID
    role: ProjectRole = ProjectRole.MEMBER


class ProjectMemberOut(OutputModel):
    id: uuid.UUID
    account: AccountOut
    role: str
    #: manual, or synced (owned by IdP group sync: changed through the mapping only).
    source: str
    #: The IdP group whose mapping grants a synced membership.
    synced_group: str | None = None
    #: Where that group comes from: sso, ldap or scim (docs/sso.md#group-sync).
    synced_source: str | None = None
    #: False for a person deactivated in the org: the row stays, with no access.
    org_active: bool = True
    created_at: datetime


class StateCreate(InputModel):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    category: StateCategory
    color: Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")] | None = None


class StateOut(OutputModel):
    id: uuid.UUID
    name: str
    category: str
    color: str
    position: int
    is_default: bool


class CycleCreate(InputModel):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    start_date: date | None = None
    end_date: date | None = None


class CycleOut(OutputModel):
    id: uuid.UUID
    name: str
    start_date: date | None
    end_date: date | None


class ModuleCreate(InputModel):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    description: Annotated[str, StringConstraints(max_length=2000)] = ""


class ModuleOut(OutputModel):
    id: uuid.UUID
    name: str
    description: str


# -- a project's workflow changed after creation (project settings page and API) -----

#: A state's, cycle's or module's name (blank is refused by the service, with its field).
ShortName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100), NOT_BLANK]
Description = Annotated[str, StringConstraints(max_length=2000)]


class StatePatch(InputModel):
    """Only the fields present change. ``position`` is the 0-based place on the board."""

    name: ShortName = absent()
    category: StateCategory = absent()
    position: Annotated[int, Field(ge=0, le=10_000)] = absent()


class StateCategoryForm(InputModel):
    """The recategorize form: the category, and ``confirm`` once the person has read
    how many tasks move."""

    category: StateCategory
    confirm: bool = False


class StateChangeOut(StateOut):
    #: How many tasks changed category with this change (0 unless it changed).
    moved_tasks: int = 0


class CyclePatch(InputModel):
    """Only the fields present change; ``null`` clears a date."""

    name: ShortName = absent()
    start_date: date | None = None
    end_date: date | None = None


class ModulePatch(InputModel):
    name: ShortName = absent()
    description: Description = absent()


class ProjectMemberRole(InputModel):
    role: ProjectRole


class ArchiveForm(InputModel):
    """Archive (true) or restore (false) a project: the settings page's two buttons."""

    archived: bool


class TaskCreate(InputModel):
    title: Title
    description: Text = ""
    state_id: uuid.UUID | None = None
    priority: Priority = Priority.NONE
    kind: TaskKind = TaskKind.TASK
    assignee_id: uuid.UUID | None = None
    cycle_id: uuid.UUID | None = None
    module_id: uuid.UUID | None = None
    due_date: date | None = None


class TaskPatch(InputModel):
    """Only the fields present change; ``null`` clears the assignee, cycle, module or
    due date. The others are never empty: a value, or left out."""

    title: Title = absent()
    description: Text = absent()
    state_id: uuid.UUID = absent()
    priority: Priority = absent()
    kind: TaskKind = absent()
    assignee_id: uuid.UUID | None = None
    cycle_id: uuid.UUID | None = None
    module_id: uuid.UUID | None = None
    due_date: date | None = None
    archived: bool = absent()


class TaskOut(OutputModel):
    id: uuid.UUID
    project_id: uuid.UUID
    key: str
    sequence: int
    title: str
    description: str
    state_id: uuid.UUID
    state_name: str
    state_category: str
    priority: str
    kind: str
    assignee_id: uuid.UUID | None
    cycle_id: uuid.UUID | None
    module_id: uuid.UUID | None
    due_date: date | None
    created_at: datetime
    updated_at: datetime
    completed_at: datetime | None
    archived_at: datetime | None


class ProjectListQuery(QueryModel):
    include_archived: bool = False


#: A column a task list sorts by (``workspace.core.task_lists.SORTS``).
TaskSort = Literal[
    "key", "title", "state", "priority", "kind", "assignee", "due", "created", "updated"
]
#: What a task list groups its rows by (``workspace.core.task_lists.GROUPS``).
TaskGroup = Literal["state", "priority", "kind", "assignee"]
#: A search of task titles: a case-insensitive substring.
TaskSearch = Annotated[str, StringConstraints(max_length=200)]
#: A PQL filter (docs/pql.md); the analytics layer's parser holds the same limit.
PqlText = Annotated[str, StringConstraints(max_length=2000)]


class TaskListQuery(QueryModel):
    """The JSON task list's query; the project page's list takes the same search,
    filter and sort (``workspace.tracker.listing.ListPageQuery``)."""

    project_id: uuid.UUID | None = None
    state_id: uuid.UUID | None = None
    state_category: StateCategory | None = None
    assignee_id: uuid.UUID | None = None
    priority: Priority | None = None
    kind: TaskKind | None = None
    include_archived: bool = False
    q: TaskSearch = ""
    pql: PqlText = ""
    sort: TaskSort = "created"
    dir: Literal["asc", "desc"] = "desc"
    group: TaskGroup | None = Field(
        default=None, description="Rows in groups of this field, each group sorted by sort and dir"
    )
    limit: int = Field(default=50, ge=1, le=200)
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)


class TaskPage(OutputModel):
    items: list[TaskOut]
    total: int
    limit: int
    offset: int


class ActivityOut(OutputModel):
    id: uuid.UUID
    task_id: uuid.UUID
    actor_id: uuid.UUID | None
    field: str
    old_value: str | None
    new_value: str | None
    old_category: str | None
    new_category: str | None
    created_at: datetime


CommentBody = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20000)
]


class CommentCreate(InputModel):
    body: CommentBody


class CommentForm(InputModel):
    """A task page's comment box: a blank one is left to the service, which says
    "A comment cannot be empty." rather than that a field is missing."""

    body: Annotated[str, StringConstraints(max_length=20000)] = ""


class CommentPatch(InputModel):
    """The new text of your own comment (only its author edits it)."""

    body: CommentBody


class CommentOut(OutputModel):
    """A comment; a deleted one keeps its place with ``deleted: true`` and no body."""

    id: uuid.UUID
    task_id: uuid.UUID
    author_id: uuid.UUID | None
    body: str
    created_at: datetime
    edited_at: datetime | None = None
    deleted_at: datetime | None = None
    deleted: bool = False

    @model_validator(mode="after")
    def _hide_deleted_body(self) -> CommentOut:
        if self.deleted_at is not None:
            self.body, self.deleted = "", True
        return self


class EventOut(OutputModel):
    id: uuid.UUID
    kind: str
    actor_id: uuid.UUID | None
    subject: str | None
    data: dict
    created_at: datetime


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _rfc3339(value: object) -> object:
    """Only a full timestamp with its offset (pydantic alone would take a number)."""
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise PydanticCustomError(
            "datetime", "Give a time like 2026-03-01T00:00:00Z (with Z or an offset)."
        )
    return value


Instant = Annotated[datetime, BeforeValidator(_rfc3339)]


class EventQuery(QueryModel):
    kind: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        default=None, description="Only kinds starting with this, e.g. `scim.` or `project.`"
    )
    actor_id: uuid.UUID | None = Field(default=None, description="Only this account's actions")
    since: Instant | None = Field(
        default=None, description="From this instant on (RFC 3339, with `Z` or an offset)"
    )
    until: Instant | None = Field(
        default=None, description="Before this instant (RFC 3339, with `Z` or an offset)"
    )
    limit: int = Field(default=100, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)


class AuditLogFilter(QueryModel):
    """The Audit log page's filter form (and its CSV link): dates in the org's zone."""

    kind: Annotated[str, StringConstraints(max_length=64)] | None = None
    actor: uuid.UUID | None = None
    date_from: date | None = None
    date_to: date | None = None
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)

    @field_validator("date_to")
    @classmethod
    def _after_from(cls, value: date | None, info: ValidationInfo) -> date | None:
        start = info.data.get("date_from")
        if value and start and value < start:
            raise PydanticCustomError("range", "The end date is before the start date.")
        return value


class OrgCreate(InputModel):
    """A new organization; the slug is derived from the name when not given."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    slug: (
        Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, max_length=63)]
        | None
    ) = None
