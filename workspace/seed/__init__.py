"""Demo data: the demo org Acme (docs/demo.md), one module per area, and the bulk task
rows it shares with ``flask bench-data`` (:mod:`workspace.seed.bulk`).

Everything goes through the services the app itself uses, so the audit trail, the
memberships and the settings are the ones a real org would have; the few places that
cannot (a DNS lookup, a sign-in's session cookie) write the same rows and events
directly and say so. Each area module reads and fills one :class:`~.demo.Demo`, in
the order below (the areas share one random generator, so the order is the demo):

- :mod:`~.people`: the owner and the colleagues who join by hand or by password, the
  org's domain, the recent sign-ins;
- :mod:`~.projects`: three teams, their workflow, bulk tasks and their discussion;
- :mod:`~.identity`: LDAP, SSO and SCIM, group mappings, the people they bring, and
  what changes later; :mod:`~.scim_groups`, :mod:`~.enforced_sso` (required SSO and
  break-glass owners), :mod:`~.scim_oauth` (the OAuth client, a rename) and
  :mod:`~.ldap_sync` (the scheduled directory sync) tell one story each;
- :mod:`~.agents`: agents, API tokens, AI settings;
- :mod:`~.dashboards`: a shared and a private dashboard;
- :mod:`~.delivery`: subscriptions to the shared one, and an alert on it;
- :mod:`~.demo`: what they share, and the clock that back-dates the audit trail.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Insert, event, select
from sqlalchemy.orm import ORMExecuteState

from workspace.core.models import Org, Task
from workspace.extensions import db
from workspace.seed import (
    agents,
    dashboards,
    delivery,
    enforced_sso,
    identity,
    ldap_sync,
    people,
    projects,
    saved_views,
    scim_groups,
    scim_oauth,
    sessions,
    system,
)
from workspace.seed.demo import Demo, Stamp


@dataclass
class DemoResult:
    org_id: uuid.UUID
    owner_email: str
    password: str


def seed_demo(
    task_count: int = 2000,
    password: str | None = None,
    seed: int = 7,
    on_tasks: Callable[[int], None] | None = None,
) -> DemoResult | None:
    """The demo org Acme; None when it exists already. The caller commits.

    ``on_tasks(n)`` hears of each batch of ``n`` task rows as it is inserted (the
    command's progress), from the session, so the areas need not know of it."""
    if db.session.scalar(select(Org.id).where(Org.slug == "acme")):
        return None
    password = password or secrets.token_urlsafe(9)
    stamp = Stamp()
    session = db.session()
    event.listen(session, "transient_to_pending", stamp.collect)

    def count_tasks(execution: ORMExecuteState) -> None:
        statement = execution.statement
        if on_tasks and isinstance(statement, Insert) and statement.table is Task.__table__:
            rows = execution.parameters
            on_tasks(len(rows) if isinstance(rows, list) else 1)

    if on_tasks is not None:
        event.listen(session, "do_orm_execute", count_tasks)
    try:
        demo = Demo(random.Random(seed), datetime.now(UTC), stamp)
        people.org_and_people(demo, password)
        people.domains(demo)
        shapes = projects.projects_and_teams(demo)
        identity.connections(demo)
        identity.mappings(demo)
        identity.directory_people(demo)
        scim_groups.groups(demo)
        enforced_sso.enforcement(demo)
        agents.agents_and_tokens(demo)
        projects.tasks(demo, shapes, task_count)
        projects.discussion(demo)
        identity.reorganisation(demo)
        identity.synced_groups(demo)
        projects.late_people(demo)
        dashboards.dashboards(demo)
        saved_views.saved_views(demo)
        delivery.delivery(demo)
        people.sign_ins(demo)
        sessions.sessions(demo)
        scim_oauth.client(demo)
        ldap_sync.schedule(demo)
        system.probe(demo)
        db.session.flush()
    finally:
        event.remove(session, "transient_to_pending", stamp.collect)
        if on_tasks is not None:
            event.remove(session, "do_orm_execute", count_tasks)
    return DemoResult(org_id=demo.org.id, owner_email=demo.owner.email, password=password)
