"""What the task page shows: its fields' choices and one timeline of comments and
history in human words (state and people's names, not ids), oldest first."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from workspace.core import accounts, comments, planning, tasks, workflow
from workspace.core.dates import day, iso_day
from workspace.core.models import (
    Account,
    Comment,
    Priority,
    Task,
    TaskActivity,
    TaskKind,
)
from workspace.security.permissions import Access, can
from workspace.types import utcnow

#: The page's fields, in the order the side panel shows them: URL name -> TaskPatch name.
FIELDS: dict[str, str] = {
    "title": "title",
    "description": "description",
    "state": "state_id",
    "priority": "priority",
    "kind": "kind",
    "assignee": "assignee_id",
    "cycle": "cycle_id",
    "module": "module_id",
    "due_date": "due_date",
}
SIDE_FIELDS = ("state", "priority", "kind", "assignee", "cycle", "module", "due_date")
LABELS = {
    "title": "Title",
    "description": "Description",
    "state": "State",
    "priority": "Priority",
    "kind": "Kind",
    "assignee": "Assignee",
    "cycle": "Cycle",
    "module": "Module",
    "due_date": "Due date",
}
#: Activity fields the timeline does not list as changes: comments show themselves.
COMMENT_FIELDS = ("comment", "comment_edited", "comment_deleted")
#: Activity field -> the words for it ("changed the priority from High to Low").
FIELD_WORDS = {
    "priority": "priority",
    "kind": "kind",
    "assignee_id": "assignee",
    "cycle_id": "cycle",
    "module_id": "module",
    "due_date": "due date",
    "state": "state",
}


@dataclass
class Choices:
    """What the page's selects offer, and the names ids stand for."""

    states: list
    cycles: list
    modules: list
    #: Active members (people and agents) for the assignee select.
    assignees: list[Account]
    #: Every account that ever was a member, for names in the history.
    names: dict[uuid.UUID, Account]


def choices(access: Access, task: Task) -> Choices:
    members = accounts.list_members(access.org.id, include_inactive=True)
    return Choices(
        states=workflow.list_states(task.project_id),
        cycles=planning.list_cycles(task.project_id),
        modules=planning.list_modules(task.project_id),
        assignees=[m.account for m in members if m.active],
        names={m.account_id: m.account for m in members},
    )


@dataclass
class Entry:
    """One line of the timeline: a comment, or a change someone made."""

    kind: str  # "comment" or "activity"
    at: datetime
    actor: Account | None
    text: str = ""
    comment: Comment | None = None


def _word(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _name(names: dict[uuid.UUID, Account], value: str | None, gone: str) -> str:
    if not value:
        return "nobody"
    try:
        account = names.get(uuid.UUID(value))
    except ValueError:
        return gone
    return account.name if account else gone


def _ref(rows: list, value: str | None, gone: str) -> str:
    if not value:
        return "none"
    by_id = {str(r.id): r.name for r in rows}
    return by_id.get(value, gone)


def describe(row: TaskActivity, ch: Choices) -> str:
    """The change in words, e.g. 'changed the state from Todo to In Progress'."""
    field, old, new = row.field, row.old_value, row.new_value
    if field == "created":
        return "created the task"
    if field == "deleted":
        return "deleted the task"
    if field == "restored":
        return "restored the deleted task"
    if field == "archived":
        return "archived the task" if new == "True" else "restored the task"
    if field == "title":
        return f"renamed the task from “{old}” to “{new}”"
    if field == "description":
        return "updated the description" if new else "cleared the description"
    if field == "assignee_id":
        gone = "a former member"
        if not new:
            return f"unassigned {_name(ch.names, old, gone)}"
        if not old:
            return f"assigned {_name(ch.names, new, gone)}"
        return f"reassigned from {_name(ch.names, old, gone)} to {_name(ch.names, new, gone)}"
    if field == "cycle_id":
        old, new = _ref(ch.cycles, old, "a removed cycle"), _ref(ch.cycles, new, "a removed cycle")
    elif field == "module_id":
        gone = "a removed module"
        old, new = _ref(ch.modules, old, gone), _ref(ch.modules, new, gone)
    elif field == "due_date":
        old, new = iso_day(old), iso_day(new)
    elif field in ("priority", "kind"):
        old, new = _word(old), _word(new)
    words = FIELD_WORDS.get(field, field.replace("_", " "))
    return f"changed the {words} from {old or 'none'} to {new or 'none'}"


def timeline(task: Task, ch: Choices) -> list[Entry]:
    """Comments and changes together, oldest first (a comment after the change made in
    the same instant)."""
    entries = [
        Entry("activity", row.created_at, ch.names.get(row.actor_id), describe(row, ch))
        for row in tasks.task_activity(task)
        if row.field not in COMMENT_FIELDS
    ]
    entries += [
        Entry("comment", c.created_at, ch.names.get(c.author_id), comment=c)
        for c in comments.list_comments(task)
    ]
    order = {"activity": 0, "comment": 1}
    return sorted(entries, key=lambda e: (e.at, order[e.kind]))


def relative(at: datetime, now: datetime | None = None) -> str:
    """'just now', '5 minutes ago', '3 days ago', or the date for older ones."""
    delta = (now or utcnow()) - at
    if delta < timedelta(minutes=1):
        return "just now"
    for size, unit in ((timedelta(days=1), "day"), (timedelta(hours=1), "hour")):
        if delta >= size and delta < size * (30 if unit == "day" else 24):
            n = int(delta / size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    if delta < timedelta(hours=1):
        n = int(delta / timedelta(minutes=1))
        return f"{n} minute{'s' if n != 1 else ''} ago"
    return day(at.date())


def page_context(access: Access, task: Task, **extra: Any) -> dict[str, Any]:
    """Everything the page and its partials render from."""
    ch = choices(access, task)
    return {
        "task": task,
        "project": task.project,
        "choices": ch,
        "entries": timeline(task, ch),
        "fields": FIELDS,
        "side_fields": SIDE_FIELDS,
        "labels": LABELS,
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", task.project_id),
        "can_comment": can(access, "task.comment", task.project_id),
        "is_moderator": access.is_admin,
        "me": access.account.id,
        "errors": {},
        #: The field whose form is open (``?edit=``, a refused or previewed draft).
        "editing": None,
        #: What was typed, shown again in its box (a refused value, a previewed draft).
        "rejected": {},
        #: The description draft to show rendered under its box (no-JS preview).
        "preview": None,
        "comment_errors": {},
        #: A refused new comment's text, and a refused edit's by comment id.
        "draft": "",
        "comment_drafts": {},
        "nav_active": "projects",
        **extra,
    }
