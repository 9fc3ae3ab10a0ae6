"""What every area of the demo shares: the org, its people, projects and agents, and
the clock that back-dates the audit trail (:class:`Stamp`)."""

from __future__ import annotations

import random
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from workspace.auth.models import AuthSession
from workspace.core.events import record_event
from workspace.core.models import Account, Event, Org, OrgMember, Project
from workspace.extensions import db
from workspace.scim import tokens as scim_tokens
from workspace.security import tokens


class Stamp:
    """Back-dates what a service writes: every row the session gets while the stamp is
    open (events, memberships, comments, activity...) is given ``created_at = when``,
    so the audit trail and the members list tell a story over the past weeks instead
    of all happening in the second the seed ran."""

    def __init__(self) -> None:
        self.when: datetime | None = None
        self.rows: list = []
        self.actor_id: uuid.UUID | None = None

    def collect(self, session, instance) -> None:
        if self.when is not None:
            self.rows.append(instance)

    @contextmanager
    def at(self, when: datetime, actor_id: uuid.UUID | None = None):
        """``actor_id`` names who acted on the events a service records without one
        when the seed knows better (the admin who created an agent also put it on its
        projects; a person who signed in through SSO joined by doing so)."""
        self.when, self.rows, self.actor_id = when, [], actor_id
        try:
            yield self
        finally:
            actor_id = self.actor_id
            for row in self.rows:
                for column in ("created_at", "updated_at"):
                    if hasattr(row, column):
                        setattr(row, column, when)
                if actor_id is not None and isinstance(row, Event) and row.actor_id is None:
                    row.actor_id = actor_id
            self.when, self.rows = None, []


class Demo:
    """The demo being written: each area module reads and fills it in turn."""

    org: Org
    owner: Account
    #: The SCIM caller (the token's prefix and minter) the provisioning runs as.
    scim_caller: scim_tokens.Caller

    def __init__(self, rng: random.Random, now: datetime, stamp: Stamp) -> None:
        self.rng, self.now, self.stamp = rng, now, stamp
        self.people: dict[str, Account] = {}
        self.members: dict[str, OrgMember] = {}
        self.projects: dict[str, Project] = {}
        self.agents: list[Account] = []

    def ago(self, days: float, hours: float = 0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def at(self, days: float, hours: float = 0, actor_id: uuid.UUID | None = None):
        return self.stamp.at(self.ago(days, hours), actor_id)

    def login(self, account: Account, method: str, days: float) -> None:
        # signin.finish starts a browser session, which needs a request: this writes
        # the same session row (its raw key thrown away, so no cookie can use it) and
        # the same event, so members show a last sign-in and the log the sign-in.
        with self.at(days, self.rng.uniform(0, 8)) as stamp:
            db.session.add(
                AuthSession(
                    account_id=account.id,
                    token_hash=tokens.digest(tokens.generate("")),
                    method=method,
                    user_agent="Demo seed",
                    expires_at=stamp.when + timedelta(days=14),
                )
            )
            record_event(
                self.org.id,
                "auth.login",
                actor_id=account.id,
                subject=account.email,
                method=method,
            )

    def after(self, start: datetime) -> datetime:
        start = start if start.tzinfo else start.replace(tzinfo=UTC)
        return start + (self.now - start) * self.rng.uniform(0.1, 0.6)
