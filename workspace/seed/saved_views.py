"""The demo's saved views of Web App (docs/saved_views.md): a shared triage list the
team opens every morning, and the owner's private board of what they are on."""

from __future__ import annotations

from workspace.security.permissions import org_access
from workspace.seed.demo import Demo
from workspace.tracker.saved_views.service import create, update

#: (days ago, name, fields): what each view was saved as.
VIEWS = (
    (
        18,
        "Open bugs by assignee",
        {
            "kind": "list",
            "pql": "kind = bug AND statusCategory IN (backlog, unstarted, started)",
            "sort": "priority",
            "direction": "desc",
            "group_by": "assignee",
            "shared": True,
        },
    ),
    (
        11,
        "My board",
        {"kind": "board", "pql": "assignee = currentUser()", "shared": False},
    ),
)


def saved_views(demo: Demo) -> None:
    """Saved by the owner; the shared one later narrowed to urgent and high bugs, as a
    team settles what its morning list is for."""
    access = org_access(demo.org.id, demo.owner)
    web = demo.projects["WEB"]
    made = {}
    for days, name, fields in VIEWS:
        with demo.at(days):
            made[name] = create(access, web, {"name": name, **fields})
    with demo.at(6):
        update(
            access,
            made["Open bugs by assignee"],
            {"pql": VIEWS[0][2]["pql"] + " AND priority IN (urgent, high)"},
        )
