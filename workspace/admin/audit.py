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

from workspace.analytics.dashboards.models import Dashboard
from workspace.core.models import Account, AccountKind, Event, Project
from workspace.extensions import db

# -- describing ------------------------------------------------------------------------

#: How an event without an account says where it came from.
SOURCE_LABELS = {
    "scim": "Identity provider (SCIM)",
    "sso": "Identity provider",
    "ldap": "Directory",
    "system": "System",
}


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
    return [_row(org_id, e, people, projects, dashboards, gone) for e in rows]


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
        subject = Ref("(an id)" if _uuid(e.subject) else e.subject)

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
