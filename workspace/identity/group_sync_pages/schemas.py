"""The Group sync page's own forms: the SCIM preview, and the add-mapping form's
target select."""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from workspace.identity.sso.schemas import GroupMappingIn
from workspace.inputs import InputModel, needed

#: The target select's value for the org's admin role.
ORG_CHOICE = "org"


class ScimSyncPreviewIn(InputModel):
    #: The person's email address.
    scim_email: str = needed(max_length=320)
    #: A SCIM group's displayName to add for the dry run; blank: their groups as now.
    scim_group: str | None = None


class GroupMappingForm(GroupMappingIn):
    """The page's add-mapping form: one select names the target, a project's id or
    ``org`` for the org's admin role (the API sends ``target`` instead)."""

    @model_validator(mode="before")
    @classmethod
    def _org_choice(cls, value: Any) -> Any:
        if isinstance(value, dict) and value.get("project_id") == ORG_CHOICE:
            return {**value, "project_id": None, "target": "org"}
        return value
