"""@mentions in task descriptions and comments (docs/inbox.md#mentions).

A mention is ``@handle``. A member's handle is the part of their email address before
the ``@`` (``@mia`` for mia@acme.test), lowercased; when two active members of the org
share it, each one's handle is their whole address (``@mia@acme.test``), so a handle
always names one person. The people picker inserts the handle, and a handle typed by
hand works the same. Mentions are resolved once, when the text is saved, among the
org's active members only: nobody outside the org (or deactivated) can be reached by
typing their address, so a mention never tells anyone about a task they cannot read.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from sqlalchemy import func, or_, select

from workspace.core.models import Account, OrgMember
from workspace.extensions import db

#: ``@`` not preceded by a word character, a dot or another ``@`` (so an email address
#: in the text is not a mention of its domain), then a handle or a whole address.
MENTION = re.compile(
    r"(?<![\w@.])@([a-z0-9._%+-]+(?:@[a-z0-9-]+(?:\.[a-z0-9-]+)+)?)", re.IGNORECASE
)
#: Most handles one text resolves: a pasted list of addresses is not a mass notification.
MAX_MENTIONS = 20


def handles_in(text: str | None) -> set[str]:
    """The handles written in ``text``, lowercased, without a sentence's final dot."""
    found = {m.group(1).lower().rstrip(".") for m in MENTION.finditer(text or "")}
    return {h for h in found if h}


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _members():
    return (
        select(Account.id, Account.email)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(OrgMember.active.is_(True))
    )


def resolve(org_id: uuid.UUID, handles: set[str]) -> set[uuid.UUID]:
    """The active members of the org that ``handles`` name; an ambiguous or unknown
    handle names nobody."""
    wanted = sorted(handles)[:MAX_MENTIONS]
    if not wanted:
        return set()
    conditions = []
    for handle in wanted:
        if "@" in handle:
            conditions.append(func.lower(Account.email) == handle)
        else:
            conditions.append(func.lower(Account.email).like(_escape_like(handle) + "@%", "\\"))
    rows = db.session.execute(_members().where(OrgMember.org_id == org_id, or_(*conditions))).all()
    by_local: dict[str, list[uuid.UUID]] = {}
    found: set[uuid.UUID] = set()
    for account_id, email in rows:
        email = email.lower()
        if email in wanted:
            found.add(account_id)
        by_local.setdefault(email.partition("@")[0], []).append(account_id)
    for handle in wanted:
        ids = by_local.get(handle, []) if "@" not in handle else []
        if len(ids) == 1:
            found.add(ids[0])
    return found


def mentioned(org_id: uuid.UUID, text: str | None) -> set[uuid.UUID]:
    """Who ``text`` mentions among the org's active members."""
    return resolve(org_id, handles_in(text))


def newly_mentioned(org_id: uuid.UUID, before: str | None, after: str | None) -> set[uuid.UUID]:
    """Who ``after`` mentions that ``before`` did not: an edit notifies only them."""
    added = handles_in(after) - handles_in(before)
    return resolve(org_id, added) - resolve(org_id, handles_in(before)) if added else set()


@dataclass(frozen=True)
class Mentionable:
    id: uuid.UUID
    name: str
    handle: str
    is_agent: bool


def handle_of(org_id: uuid.UUID, email: str) -> str:
    """The handle of the member with ``email``: the local part, or the whole address
    when another active member of the org shares the local part."""
    email = email.lower()
    local = email.partition("@")[0]
    same = db.session.scalar(
        select(func.count())
        .select_from(Account)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == org_id,
            OrgMember.active.is_(True),
            func.lower(Account.email).like(_escape_like(local) + "@%", "\\"),
        )
    )
    return email if (same or 0) > 1 else local


def people(org_id: uuid.UUID, query: str, limit: int = 8) -> list[Mentionable]:
    """Active members whose name or address contains ``query``, by name: what the
    picker offers while someone types after ``@``."""
    term = f"%{_escape_like(query.strip().lower())}%"
    rows = db.session.scalars(
        select(Account)
        .join(OrgMember, OrgMember.account_id == Account.id)
        .where(
            OrgMember.org_id == org_id,
            OrgMember.active.is_(True),
            or_(
                func.lower(Account.name).like(term, "\\"),
                func.lower(Account.email).like(term, "\\"),
            ),
        )
        .order_by(func.lower(Account.name), Account.email)
        .limit(limit)
    ).all()
    return [
        Mentionable(a.id, a.name or a.email, handle_of(org_id, a.email), a.is_agent) for a in rows
    ]
