"""The audit log as people read it: who acted (a person, an agent, the identity
provider, the directory or the system) and what they acted on, by name with a link,
never a raw id (docs/core.md, "Audit log"). The tracker owns it because it names things
of every capability below it (projects, dashboards)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from workspace.analytics.alerts.models import Alert
from workspace.analytics.dashboards.models import Dashboard
from workspace.core.models import Account, AccountKind, Event, Project
from workspace.delivery.webhooks.models import WebhookEndpoint
from workspace.extensions import db

# -- describing ------------------------------------------------------------------------

#: How an event without an account says where it came from.
SOURCE_LABELS = {
    "scim": "Identity provider (SCIM)",
    "sso": "Identity provider",
    "ldap": "Directory",
    "system": "System",
}


#: What each event kind is called on the page (docs/admin.md#audit-log): one place,
#: so the list, the filter and the tests say the same. A kind missing here is named
#: by :func:`event_name`'s fallback from its own words.
EVENT_NAMES = {
    "agent.created": "Agent created",
    "agent.removed": "Agent removed",
    "ai.settings_removed": "AI model settings removed",
    "ai.settings_saved": "AI model settings saved",
    "api.token_refused": "API token refused",
    "api_token.created": "API token created",
    "api_token.revoked": "API token revoked",
    "auth.break_glass": "Break-glass sign-in",
    "auth.break_glass.named": "Break-glass owner named",
    "auth.break_glass.unnamed": "Break-glass owner removed",
    "auth.link.confirmed": "Account link confirmed",
    "auth.link.declined": "Account link declined",
    "auth.link.requested": "Account link requested",
    "auth.login": "Signed in",
    "auth.sso.backchannel_logout": "Signed out by the identity provider",
    "auth.sso_enforced.refused": "Sign-in refused: SSO required",
    "dashboard.created": "Dashboard created",
    "dashboard.deleted": "Dashboard deleted",
    "dashboard.updated": "Dashboard changed",
    "dashboard.widget_added": "Widget added",
    "dashboard.widget_removed": "Widget removed",
    "dashboard.widget_updated": "Widget changed",
    "dashboard.widgets_reordered": "Widgets reordered",
    "domain.added": "Domain added",
    "domain.removed": "Domain removed",
    "domain.verified": "Domain verified",
    "domain.verify_failed": "Domain verification failed",
    "groupsync.mapping.added": "Group mapping added",
    "groupsync.mapping.removed": "Group mapping removed",
    "groupsync.org_role_revoked": "Org role taken back by group sync",
    "groupsync.org_role_handed_back": "Org role handed back to group sync",
    "sso.mapping.added": "Group mapping added",
    "sso.mapping.removed": "Group mapping removed",
    "ldap.connection_deleted": "LDAP connection deleted",
    "ldap.connection_saved": "LDAP connection saved",
    "ldap.directory_sync": "Directory synced",
    "ldap.group_sync_saved": "LDAP group sync saved",
    "ldap.login_failed": "LDAP sign-in failed",
    "ldap.sync.skipped": "Directory sync skipped",
    "ldap.sync_schedule_saved": "Directory sync schedule saved",
    "member.added": "Member added",
    "member.deactivated": "Member deactivated",
    "member.invite_resent": "Invitation resent",
    "member.invite_revoked": "Invitation revoked",
    "member.invite_used": "Invitation accepted",
    "member.invited": "Member invited",
    "member.role_changed": "Role changed",
    "member.signed_out": "Signed out everywhere",
    "org.session_policy_changed": "Session policy changed",
    "org.updated": "Organization settings changed",
    "project.created": "Project created",
    "project.deleted": "Project deleted",
    "project.updated": "Project changed",
    "project.cycle_created": "Cycle created",
    "project.cycle_updated": "Cycle changed",
    "project.cycle_deleted": "Cycle deleted",
    "project.module_created": "Module created",
    "project.module_deleted": "Module deleted",
    "project.module_updated": "Module changed",
    "project.member_added": "Project member added",
    "project.member_changed": "Project member's role changed",
    "project.member_removed": "Project member removed",
    "project.state_created": "Workflow state added",
    "project.state_deleted": "Workflow state deleted",
    "project.state_moved": "Workflow state moved",
    "project.state_recategorized": "Workflow state recategorized",
    "project.state_renamed": "Workflow state renamed",
    "scim.auth_failed": "SCIM request refused",
    "scim.group.created": "SCIM group created",
    "scim.group.deleted": "SCIM group deleted",
    "scim.group.member_added": "SCIM group member added",
    "scim.group.member_removed": "SCIM group member removed",
    "scim.group.updated": "SCIM group changed",
    "scim.oauth_client.created": "SCIM OAuth client created",
    "scim.oauth_client.deleted": "SCIM OAuth client deleted",
    "scim.oauth_secret.added": "SCIM OAuth secret added",
    "scim.oauth_secret.revoked": "SCIM OAuth secret revoked",
    "scim.oauth_token.issued": "SCIM OAuth token issued",
    "scim.oauth_token.refused": "SCIM OAuth token refused",
    "scim.token.generated": "SCIM token generated",
    "scim.token.revoked": "SCIM token revoked",
    "scim.user.deactivated": "Deactivated by SCIM",
    "scim.user.provisioned": "Provisioned by SCIM",
    "scim.user.reactivated": "Reactivated by SCIM",
    "scim.user.renamed": "Renamed by SCIM",
    "sso.connection.deleted": "SSO connection deleted",
    "sso.connection.disabled": "SSO connection turned off",
    "sso.connection.enabled": "SSO connection turned on",
    "sso.connection.saved": "SSO connection saved",
    "sso.enforced": "SSO required",
    "sso.enforcement_ended": "SSO no longer required",
    "sso.sync.skipped": "SSO group sync skipped",
}

#: The filter's names for the first part of a kind; others by :func:`humanize`.
KIND_GROUPS = {
    "agent": "Agents",
    "ai": "AI model",
    "api": "API",
    "api_token": "API tokens",
    "auth": "Sign-in",
    "dashboard": "Dashboards",
    "domain": "Domains",
    "groupsync": "Group sync",
    "ldap": "LDAP",
    "member": "Members",
    "org": "Organization",
    "project": "Projects",
    "scim": "SCIM",
    "sso": "Single sign-on",
}

#: Words a humanized kind writes in capitals.
_ACRONYMS = {"ai", "api", "scim", "sso", "ldap", "oauth", "oidc", "saml", "mcp", "csv", "pdf"}


def humanize(kind: str) -> str:
    """A kind nobody named yet, in words: ``custom.thing_done`` → "Custom thing done"."""
    words = [w for w in kind.replace(".", " ").replace("_", " ").replace("-", " ").split() if w]
    if not words:
        return kind or "Event"
    out = [w.upper() if w.lower() in _ACRONYMS else w.lower() for w in words]
    out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)


def event_name(kind: str) -> str:
    """What people call an event of ``kind`` (the mapping, else its words)."""
    return EVENT_NAMES.get(kind) or humanize(kind)


def kind_group(prefix: str) -> str:
    """The filter's name for a kind's first part (``scim`` → "SCIM")."""
    return KIND_GROUPS.get(prefix) or humanize(prefix)


@dataclass(frozen=True)
class Actor:
    label: str
    #: person, agent, scim, sso, ldap or system.
    kind: str
    account_id: uuid.UUID | None = None


@dataclass(frozen=True)
class Ref:
    """A thing an event names: its text, and what a link to it needs (or none)."""

    text: str
    link: str | None = None  # "project" or "dashboard"
    id: uuid.UUID | None = None


@dataclass(frozen=True)
class EventRow:
    event: Event
    actor: Actor
    subject: Ref | None
    #: The project the event happened in, when it is not the subject itself.
    where: Ref | None
    #: The details for people: ids resolved to names, other ids left out.
    details: list[tuple[str, str]]

    @property
    def name(self) -> str:
        return event_name(self.event.kind)

    @property
    def labelled_details(self) -> list[tuple[str, str]]:
        """The details with their keys in words (``old_role`` → "Old role")."""
        return [(humanize(key), value) for key, value in self.details]


def source_of(event: Event) -> str:
    """Where an event without an account came from, from its kind and details."""
    kind = event.kind
    data = event.data or {}
    hint = str(data.get("via") or data.get("source") or "").lower()
    if kind.startswith("scim.") or hint == "scim":
        return "scim"
    if kind.startswith(("ldap.", "auth.ldap")) or hint == "ldap":
        return "ldap"
    if kind.startswith(("sso.", "auth.sso")) or hint in ("sso", "oidc"):
        return "sso"
    return "system"


def _uuid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError):
        return None


def _dashboard_names(ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    if not ids:
        return {}
    rows = db.session.execute(select(Dashboard.id, Dashboard.name).where(Dashboard.id.in_(ids)))
    return {row.id: row.name for row in rows}


def _deleted_names(org_id: uuid.UUID, kind: str, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Names of things that are gone, from the event that recorded their deletion."""
    if not ids:
        return {}
    rows = db.session.execute(
        select(Event.subject, Event.data).where(
            Event.org_id == org_id, Event.kind == kind, Event.subject.in_([str(i) for i in ids])
        )
    )
    return {
        uuid.UUID(subject): data["name"]
        for subject, data in rows
        if _uuid(subject) and (data or {}).get("name")
    }


def describe(org_id: uuid.UUID, rows: Iterable[Event]) -> list[EventRow]:
    """Actors, subjects and details for people, with one query per kind of thing
    named (accounts, projects, dashboards) for the whole page, never one per row."""
    rows = list(rows)
    account_ids: set[uuid.UUID] = set()
    project_ids: set[uuid.UUID] = set()
    dashboard_ids: set[uuid.UUID] = set()
    for e in rows:
        data = e.data or {}
        if e.actor_id:
            account_ids.add(e.actor_id)
        if pid := _uuid(data.get("project_id")):
            project_ids.add(pid)
        if aid := _uuid(data.get("agent_id")):
            account_ids.add(aid)
        if e.kind.startswith("dashboard.") and (did := _uuid(e.subject)):
            dashboard_ids.add(did)
    people = (
        {a.id: a for a in db.session.scalars(select(Account).where(Account.id.in_(account_ids)))}
        if account_ids
        else {}
    )
    projects = (
        {
            p.id: p.name
            for p in db.session.execute(
                select(Project.id, Project.name).where(
                    Project.org_id == org_id, Project.id.in_(project_ids)
                )
            )
        }
        if project_ids
        else {}
    )
    dashboards = _dashboard_names(dashboard_ids)
    gone = _deleted_names(org_id, "dashboard.deleted", dashboard_ids - dashboards.keys())
    named = _subject_names(org_id, rows)
    return [_row(org_id, e, people, projects, dashboards, gone | named) for e in rows]


#: Subjects that are another table's id, by event kind prefix: the text that names
#: them (a webhook endpoint by its URL, an alert by its name), read in one query each.
_NAMED_SUBJECTS = (
    (("webhook.endpoint.", "webhook.secret."), WebhookEndpoint, WebhookEndpoint.url),
    (("alert.",), Alert, Alert.name),
)


def _subject_names(org_id: uuid.UUID, rows: list[Event]) -> dict[uuid.UUID, str]:
    """``{subject id: text}`` for the rows whose subject is an endpoint or alert id
    ("(an id)" said nothing); a removed one is named by what its event kept (its
    URL), else not at all."""
    out: dict[uuid.UUID, str] = {}
    removed = {_uuid(e.subject) for e in rows if e.kind.endswith(".deleted")}
    for prefixes, model, column in _NAMED_SUBJECTS:
        ids = {
            sid for e in rows
            if e.kind.startswith(prefixes) and (sid := _uuid(e.subject))
        }  # fmt: skip
        for e in rows:
            if (sid := _uuid(e.subject)) in ids and (e.data or {}).get("url"):
                out[sid] = e.data["url"] + (" (removed)" if sid in removed else "")
        if ids:
            found = db.session.execute(
                select(model.id, column).where(model.org_id == org_id, model.id.in_(ids))
            )
            out.update({row_id: text for row_id, text in found})
    return out


def _row(
    org_id: uuid.UUID,
    e: Event,
    people: dict[uuid.UUID, Account],
    projects: dict[uuid.UUID, str],
    dashboards: dict[uuid.UUID, str],
    gone: dict[uuid.UUID, str],
) -> EventRow:
    data = dict(e.data or {})
    account = people.get(e.actor_id) if e.actor_id else None
    if account is not None:
        kind = "agent" if account.kind == AccountKind.AGENT else "person"
        actor = Actor(account.name or account.email, kind, account.id)
    else:
        source = source_of(e)
        actor = Actor(SOURCE_LABELS[source], source)

    pid = _uuid(data.get("project_id"))
    project_ref = None
    if pid:
        name = projects.get(pid) or data.get("project")
        if pid in projects:
            project_ref = Ref(projects[pid], "project", pid)
        elif name:
            project_ref = Ref(f"{name} (deleted)")
        else:
            project_ref = Ref("a deleted project")

    subject: Ref | None = None
    where: Ref | None = project_ref
    if e.kind.startswith("dashboard.") and (did := _uuid(e.subject)):
        if did in dashboards:
            subject = Ref(dashboards[did], "dashboard", did)
        else:
            name = gone.get(did) or data.get("name")
            subject = Ref(f"{name} (deleted)" if name else "a deleted dashboard")
    elif e.kind in ("project.created", "project.updated", "project.deleted") and project_ref:
        gone = f"{e.subject} (deleted)" if e.subject else project_ref.text
        subject = project_ref if project_ref.link else Ref(gone)
        where = None
    elif e.subject:
        sid = _uuid(e.subject)
        subject = Ref(gone.get(sid, "(an id)") if sid else e.subject)

    details: list[tuple[str, str]] = []
    for key, value in data.items():
        if key in ("project_id", "project", "name") and (where or subject):
            continue
        if key == "agent_id":
            agent = people.get(_uuid(value))  # type: ignore[arg-type]
            if agent is not None:
                details.append(("agent", agent.name))
            continue
        if key.endswith("_id") or _uuid(value):
            continue  # internal ids say nothing to a person; the API and CSV keep them
        details.append((key, _text(value)))
    return EventRow(e, actor, subject, where, details)


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return "—" if value is None else str(value)
