"""Input and output shapes of a project's settings (states, cycles and modules changed
after creation; project members by id), shared by the project settings JSON API and
its HTML forms (through ``parse_form``). Kept apart from ``core/schemas.py`` for now;
the lead merges them."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from workspace.core.models import ProjectRole, StateCategory
from workspace.inputs import InputModel, OutputModel, absent

#: A state's, cycle's or module's name (blank is refused by the service, with its field).
ShortName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]
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


class StateChangeOut(OutputModel):
    id: uuid.UUID
    name: str
    category: str
    color: str
    position: int
    is_default: bool
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
    archived: bool


class MemberSettingsOut(OutputModel):
    id: uuid.UUID
    account_id: uuid.UUID
    role: str
    source: Literal["manual", "synced"]
    synced_group: str | None
    created_at: datetime
