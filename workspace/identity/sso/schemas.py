"""JSON shapes of the SSO routes (docs/api.md#record-shapes). The client secret is input only."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, computed_field, field_validator, model_validator

from workspace.inputs import InputModel, OutputModel, needed

Role = Literal["viewer", "commenter", "member", "admin"]


class SsoConnectionIn(InputModel):
    # Blank or absent: the service says what to enter (the form shows it on the field).
    email_domain: str = needed(max_length=400)
    issuer_url: str = needed(max_length=500)
    client_id: str = needed(max_length=500)
    #: Write-only. Empty or absent keeps the stored secret.
    client_secret: str | None = Field(default=None, max_length=2000)
    #: Defaults to {BASE_URL}/auth/sso/callback.
    redirect_uri: str | None = Field(default=None, max_length=500)
    enabled: bool = False
    sync_groups_on_login: bool = True
    groups_claim: str = Field(default="groups", max_length=100)
    remove_stale_synced_memberships: bool = False
    #: Scopes to request beside ``openid email profile``, space-separated.
    extra_scopes: str = Field(default="", max_length=400)
    #: Signing out of an SSO session ends it at the IdP too (RP-initiated logout).
    idp_logout: bool = True


class SsoEnabledForm(InputModel):
    """The settings page's Enable and Disable buttons: Enable sends ``enabled``."""

    enabled: bool = False


class SsoConnectionOut(OutputModel):
    email_domain: str
    issuer_url: str
    client_id: str
    redirect_uri: str
    enabled: bool
    sync_groups_on_login: bool
    groups_claim: str
    remove_stale_synced_memberships: bool
    extra_scopes: str
    idp_logout: bool
    #: Register at the provider: its back-channel logout URI, and where it sends the
    #: browser back after an RP-initiated logout (docs/sso.md#sign-out).
    backchannel_logout_uri: str
    post_logout_redirect_uri: str
    has_client_secret: bool
    #: False when the email domain is no longer verified: sign-in is off until it is.
    domain_verified: bool


class DiscoveryOut(OutputModel):
    ok: bool
    message: str
    issuer: str | None = None
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    userinfo_endpoint: str | None = None
    jwks_uri: str | None = None


class SsoSaveOut(SsoConnectionOut):
    #: What the issuer's discovery document said when the connection was saved.
    discovery: DiscoveryOut


class GroupMappingIn(InputModel):
    """A group -> a project role, or (``target`` "org", no project) the org's admin
    role; never owner (docs/sso.md#org-role-from-groups)."""

    # The document says what the service refuses: a project mapping names a project.
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["project_id"], "properties": {"target": {"const": "project"}}},
                {
                    "required": ["target"],
                    "properties": {"target": {"const": "org"}, "project_id": {"type": "null"}},
                },
            ]
        }
    )

    #: Blank or absent: the service says to enter the group name.
    idp_group: str = needed(max_length=256)
    #: "project" (the default) or "org" (the org's admin role).
    target: Literal["project", "org"] = "project"
    #: The project; none for a mapping to the org.
    project_id: uuid.UUID | None = None
    #: A project role; for the org only admin (owner is refused with a 400).
    role: Literal["viewer", "commenter", "member", "admin", "owner"]


class GroupMappingOut(OutputModel):
    id: uuid.UUID
    idp_group: str
    #: None: the mapping grants the org's admin role.
    project_id: uuid.UUID | None
    role: str

    @computed_field
    @property
    def target(self) -> str:
        return "org" if self.project_id is None else "project"


_EMAIL = {"email": {"type": "string"}}
_MEMBER = {"member_id": {"type": "string"}}


class SyncPreviewIn(InputModel):
    # The document says what ``_one_person`` and the service refuse: exactly one of
    # an email (with its @) and a member id.
    model_config = ConfigDict(
        json_schema_extra={
            "not": {"required": ["email", "member_id"], "properties": _EMAIL | _MEMBER},
            "anyOf": [
                {"required": ["email"], "properties": _EMAIL},
                {"required": ["member_id"], "properties": _MEMBER},
            ],
        }
    )

    email: Annotated[str, Field(max_length=320, json_schema_extra={"pattern": "@"})] | None = None
    member_id: uuid.UUID | None = None
    #: The groups a sign-in would carry; absent means none. ``null`` stands for a
    #: sign-in whose provider sent no groups claim at all, which changes nothing.
    groups: list[str] | None = Field(default_factory=list, max_length=500)

    @model_validator(mode="after")
    def _one_person(self) -> SyncPreviewIn:
        # Neither is the service's to refuse ("Enter the person's email address").
        if self.email is not None and self.member_id is not None:
            raise ValueError("give exactly one of email or member_id")
        return self


class SyncPreviewForm(SyncPreviewIn):
    """The Group sync page's preview: the groups typed one per line, since a name may
    hold commas (an Active Directory DN such as CN=Eng,OU=Groups,DC=acme,DC=com), and
    whether the provider is to send no groups claim at all."""

    no_claim: bool = False

    @field_validator("groups", mode="before")
    @classmethod
    def _one_per_line(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [line.strip() for text in value for line in str(text).splitlines() if line.strip()]


class OrgRoleChangeOut(OutputModel):
    role: str
    from_role: str
    #: The granting group with its source ("SCIM group Admins").
    group: str | None = None


class RoleChangeOut(OutputModel):
    project_id: uuid.UUID
    role: str
    from_role: str | None = None


class SyncPreviewOut(OutputModel):
    adds: list[RoleChangeOut]
    changes: list[RoleChangeOut]
    removes: list[RoleChangeOut]
    #: Why a sign-in like this would skip group sync (no groups claim); else null.
    skipped: str | None = None
    #: The org's admin role granted or taken back; else null.
    org_role: OrgRoleChangeOut | None = None
