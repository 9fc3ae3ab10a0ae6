"""JSON shapes of the LDAP connection and the directory sync preview (docs/api.md#record-shapes)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import StringConstraints

from workspace.identity.ldap.groups import GroupSyncSettings
from workspace.identity.ldap.models import DEFAULT_SYNC_MINUTES
from workspace.identity.ldap.service import ConnectionInput
from workspace.inputs import NOT_BLANK, InputModel, OutputModel, needed

Short = Annotated[str, StringConstraints(max_length=500)]
AttributeName = Annotated[str, StringConstraints(max_length=100), NOT_BLANK]
#: Kept exactly as typed: a password may begin or end with a space.
Password = Annotated[str, StringConstraints(strip_whitespace=False, max_length=500)]
Pem = Annotated[str, StringConstraints(max_length=100_000)]
Membership = Literal["auto", "memberof", "groupofnames", "posixgroup"]

_GROUP_FIELDS = {
    "sync_groups_on_login",
    "remove_stale_synced_memberships",
    "group_search_base",
    "group_membership",
}


class LdapConnectionIn(InputModel):
    """Replaces the connection; ``bind_password`` is write-only and blank keeps it."""

    # Blank or absent: the service says what to enter (the form shows it on the field).
    server_uri: str = needed(max_length=500)
    bind_dn: str = needed(max_length=500)
    bind_password: Password | None = None
    search_base: str = needed(max_length=500)
    search_filter: str = needed(max_length=1000)
    email_attribute: AttributeName = "mail"
    given_name_attribute: AttributeName = "givenName"
    family_name_attribute: AttributeName = "sn"
    use_tls: bool = True
    #: PEM CA bundle for the directory's certificate; absent: the system trust store.
    ca_cert: Pem | None = None
    #: Directory group sync (docs/ldap.md#group-sync); off unless turned on.
    sync_groups_on_login: bool = False
    remove_stale_synced_memberships: bool = False
    #: Where groups live; blank or absent: the search base.
    group_search_base: Short | None = None
    group_membership: Membership = "auto"
    #: Scheduled directory sync (docs/ldap.md#scheduled-sync): every this many minutes
    #: (5 to 10080); 0 turns it off.
    sync_every_minutes: int = DEFAULT_SYNC_MINUTES

    def to_input(self) -> ConnectionInput:
        return ConnectionInput(**self.model_dump(exclude=_GROUP_FIELDS | {"sync_every_minutes"}))

    def group_settings(self) -> GroupSyncSettings:
        return GroupSyncSettings(**self.model_dump(include=_GROUP_FIELDS))


class LdapSettingsForm(LdapConnectionIn):
    """The settings page's form. A blank sync box keeps the stored period instead of
    the API's "absent: hourly": that default, taken from a cleared box, turned on an
    hourly sync that deactivates people where it was off."""

    sync_every_minutes: int | None = None  # type: ignore[assignment]


class LdapConnectionOut(OutputModel):
    server_uri: str
    bind_dn: str
    search_base: str
    search_filter: str
    email_attribute: str
    given_name_attribute: str
    family_name_attribute: str
    use_tls: bool
    ca_cert: str | None
    has_bind_password: bool
    sync_groups_on_login: bool
    remove_stale_synced_memberships: bool
    group_search_base: str | None
    group_membership: str
    sync_every_minutes: int
    #: The last scheduled or admin-started sync: when it ended, and
    #: ``{ok, message, counts, job_id, by}``; null before the first.
    last_sync_at: datetime | None = None
    last_sync: dict[str, Any] | None = None
    #: When the next scheduled sync starts; null when the schedule is off.
    next_sync_at: datetime | None = None


class LdapTestOut(OutputModel):
    ok: bool
    message: str
    sample_count: int


class DirectorySyncPreviewIn(InputModel):
    #: The directory username, as the person types it at sign-in.
    username: str = needed(max_length=256)


class DirectorySyncIn(InputModel):
    #: True: plan and report, change nothing (the preview).
    dry_run: bool = False


class DirectoryGroupOut(OutputModel):
    dn: str
    cn: str | None


class MatchedMappingOut(OutputModel):
    id: uuid.UUID
    idp_group: str
    project_id: uuid.UUID
    role: str


class PlannedChangeOut(OutputModel):
    project_id: uuid.UUID
    role: str
    from_role: str | None = None


class DirectorySyncPreviewOut(OutputModel):
    username: str
    #: The person's entry, found with the connection's search filter.
    dn: str
    email: str | None
    #: The membership reading used (``auto`` resolved to what the directory is).
    group_membership: str
    #: False when the groups could not be read completely; ``message`` says why, and a
    #: sign-in would skip the sync (no adds, changes or removes below).
    ok: bool
    message: str | None = None
    groups: list[DirectoryGroupOut]
    matched_mappings: list[MatchedMappingOut]
    remove_stale_synced_memberships: bool
    adds: list[PlannedChangeOut]
    changes: list[PlannedChangeOut]
    removes: list[PlannedChangeOut]
