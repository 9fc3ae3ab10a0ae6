"""The Group sync page's own form: the SCIM preview."""

from __future__ import annotations

from workspace.inputs import InputModel, needed


class ScimSyncPreviewIn(InputModel):
    #: The person's email address.
    scim_email: str = needed(max_length=320)
    #: A SCIM group's displayName to add for the dry run; blank: their groups as now.
    scim_group: str | None = None
