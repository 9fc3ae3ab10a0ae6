"""What the command menu (Ctrl-K) offers one person: tasks, projects, dashboards,
people, pages and actions, each only when that person may open it.

    items = menu_items(access, q="login", recent=["task:WEB-12", "project:<id>"])

Every kind of item is checked by its own rule: tasks and projects of this org only,
never an archived project or its tasks (they are hidden from every list); dashboards
through the dashboards' own read rule (yours, or published); pages through the action
their view declares, so the menu never offers a page that would answer 403.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from flask import current_app, url_for

from workspace.analytics.dashboards.service import list_dashboards
from workspace.core import accounts, projects
from workspace.core.models import Project, Task
from workspace.core.tasks import get_task_by_key
from workspace.errors import NotFoundError
from workspace.security.permissions import ACTIONS, Access, can
from workspace.tracker.search.service import search_tasks

#: Most items one answer carries; the menu shows them all without paging.
MAX_ITEMS = 20
#: Most tasks found by words (after the exact key), so other kinds still show.
MAX_TASKS = 8
#: Most recent references read from the client; more are ignored.
MAX_RECENT = 10

#: A task key as typed: ``WEB-12`` (the identifier rule of projects, any case).
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,11}-[0-9]{1,9}$")

#: Pages the menu can open: label, endpoint, and words people type for them. Each is
#: shown only when the view's declared action allows the caller.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("Home", "core_pages.org_home", "start overview"),
    ("Projects", "core_pages.projects", "all projects"),
    ("My work", "inbox_pages.my_work", "assigned to me mine"),
    ("Inbox", "inbox_pages.inbox", "notifications mentions unread"),
    ("Search", "tracker_search.find", "find full text"),
    ("Task list of the org", "tracker_search.search", "find filter pql all tasks"),
    ("Analytics", "analytics_pages.index", "charts reports"),
    ("Dashboards", "dashboards_pages.index", "all dashboards"),
    ("Alerts", "alerts_pages.index", "alert threshold notify"),
    ("API tokens", "auth.tokens", "personal access token"),
    ("Your sessions", "session_pages.mine", "devices sign out"),
    ("Settings: General", "admin_pages.settings", "organization name time zone"),
    ("Settings: Members", "admin_pages.settings_members", "people invite roles"),
    ("Settings: Sessions", "session_pages.policy", "session policy timeout"),
    ("Settings: Domains", "domains_pages.domains", "verified domains dns"),
    ("Settings: Single sign-on", "sso_pages.sso", "sso saml oidc"),
    ("Settings: Enforced SSO", "enforced_sso_pages.enforced_sso", "require sso break-glass"),
    ("Settings: Group sync", "group_sync_pages.group_sync", "groups mappings"),
    ("Settings: SCIM", "scim_pages.settings", "provisioning"),
    ("Settings: LDAP", "ldap_pages.settings", "directory active directory"),
    ("Settings: AI model", "agents_pages.ai_settings", "llm provider"),
    ("Settings: Agents", "agents_pages.agents", "bots"),
    ("Settings: Webhooks", "webhooks_pages.index", "webhook endpoints events deliveries"),
    ("Settings: Audit log", "admin_pages.events", "events history"),
)

#: What each kind is called on screen.
KIND_LABELS = {
    "task": "Task",
    "project": "Project",
    "dashboard": "Dashboard",
    "person": "Person",
    "page": "Page",
    "action": "Action",
}

CREATE_TASK = "action:create-task"


@dataclass(frozen=True)
class MenuItem:
    #: ``task``, ``project``, ``dashboard``, ``person``, ``page`` or ``action``.
    kind: str
    #: ``kind:reference`` (``task:WEB-12``): what the client keeps as a recent item.
    ref: str
    title: str
    detail: str
    #: Where choosing it goes; empty for an action the menu itself performs.
    url: str


def _matches(words: list[str], *texts: str) -> bool:
    haystack = " ".join(texts).lower()
    return all(word in haystack for word in words)


class _Menu:
    """The caller's candidates, loaded once per request and only when asked for."""

    def __init__(self, access: Access) -> None:
        self.access = access
        self.slug = access.org.slug
        self._projects: dict[uuid.UUID, Project] | None = None

    # -- loaders ---------------------------------------------------------------------

    @property
    def projects(self) -> dict[uuid.UUID, Project]:
        """The org's live projects: an archived one is hidden, as on every list."""
        if self._projects is None:
            live = projects.list_projects(self.access.org.id)
            self._projects = {p.id: p for p in live}
        return self._projects

    def task_item(self, task: Task) -> MenuItem | None:
        project = self.projects.get(task.project_id)
        if project is None or task.deleted_at is not None:
            return None
        detail = f"{project.name} · {task.state.name}"
        if task.archived_at is not None:
            detail += " · archived"
        return MenuItem(
            "task",
            f"task:{task.key}",
            f"{task.key} {task.title}",
            detail,
            url_for("task_pages.task", org=self.slug, task_key=task.key),
        )

    def project_item(self, project: Project) -> MenuItem:
        return MenuItem(
            "project",
            f"project:{project.id}",
            project.name,
            project.identifier,
            url_for("core_pages.project", org=self.slug, project_id=project.id),
        )

    def dashboard_items(self) -> list[MenuItem]:
        return [
            MenuItem(
                "dashboard",
                f"dashboard:{d.id}",
                d.name,
                "Published" if d.owner_id != self.access.account.id else "Yours",
                url_for("dashboards_pages.show", org=self.slug, dashboard_id=d.id),
            )
            for d in list_dashboards(self.access.org.id, self.access.account.id)
        ]

    def person_items(self) -> list[MenuItem]:
        """Active members. An admin opens the person's row on the Members page; anyone
        else the tasks assigned to them (there is no profile page)."""
        items = []
        admin = can(self.access, "org.manage_members")
        for member in accounts.list_members(self.access.org.id):
            account = member.account
            name = account.name or account.email or "Unnamed"
            if admin:
                url = url_for("admin_pages.settings_members", org=self.slug)
                url += f"#member-{member.id}"
                detail = f"{account.email or ''} · member row".strip(" ·")
            else:
                who = (account.email or name).replace("\\", "\\\\").replace('"', '\\"')
                pql = f'assignee = "{who}"'
                url = url_for("tracker_search.search", org=self.slug, pql=pql)
                detail = f"{account.email or ''} · assigned tasks".strip(" ·")
            items.append(MenuItem("person", f"person:{account.id}", name, detail, url))
        return items

    def page_items(self) -> list[MenuItem]:
        items = []
        for label, endpoint, _words in PAGES:
            if self.may_open(endpoint):
                url = url_for(endpoint, org=self.slug)
                items.append(MenuItem("page", f"page:{endpoint}", label, "", url))
        return items

    def may_open(self, endpoint: str) -> bool:
        """Whether the page's declared action lets the caller in (an org-wide action;
        a page that needs a project or no action is never offered)."""
        view = current_app.view_functions.get(endpoint)
        action = getattr(view, "permission_action", None)
        if action is None or ACTIONS[action].project_role is not None:
            return False
        return can(self.access, action)

    def action_items(self) -> list[MenuItem]:
        if not any(True for _ in self.writable_projects()):
            return []
        return [MenuItem("action", CREATE_TASK, "Create task", "Shortcut: C", "")]

    def writable_projects(self) -> Iterable[Project]:
        """Projects where the caller may create tasks, lazily (``any`` stops early)."""
        return (p for p in self.projects.values() if can(self.access, "task.write", p.id))

    # -- finding ---------------------------------------------------------------------

    def task_by_key(self, key: str) -> MenuItem | None:
        if not KEY.match(key):
            return None
        try:
            return self.task_item(get_task_by_key(self.access.org.id, key))
        except NotFoundError:
            return None

    def tasks_by_words(self, q: str) -> list[MenuItem]:
        """The org search's ranked hits (an exact key, then full text, then similar
        titles); it reads only what a member may read."""
        hits = search_tasks(self.access, q, limit=MAX_TASKS)
        found = (self.task_item(hit.task) for hit in hits)
        return [item for item in found if item is not None]

    def all_tasks_item(self, q: str) -> MenuItem:
        """The search page for ``q``: every task that matches, not the first few."""
        url = url_for("tracker_search.find", org=self.slug, q=q)
        return MenuItem("page", f"search:{q}", f"All tasks matching “{q}”",
                        "Search", url)  # fmt: skip

    def resolve(self, ref: str) -> MenuItem | None:
        """A recent item the client kept, checked again now (gone or no longer
        allowed: dropped)."""
        kind, _, value = ref.partition(":")
        if kind == "task":
            return self.task_by_key(value)
        if kind == "action":
            return next((i for i in self.action_items() if i.ref == ref), None)
        pools = {
            "project": lambda: [self.project_item(p) for p in self.projects.values()],
            "dashboard": self.dashboard_items,
            "person": self.person_items,
            "page": self.page_items,
        }
        if kind not in pools:
            return None
        return next((item for item in pools[kind]() if item.ref == ref), None)


def parse_recent(raw: str) -> list[str]:
    """The client's recent references (comma-separated, newest first), de-duplicated;
    malformed ones are ignored, since they come from the browser's storage."""
    refs: list[str] = []
    for part in raw.split(","):
        ref = part.strip()
        kind = ref.partition(":")[0]
        if kind in KIND_LABELS and len(ref) <= 120 and ref not in refs:
            refs.append(ref)
    return refs[:MAX_RECENT]


def menu_items(access: Access, q: str, recent: list[str]) -> list[MenuItem]:
    """The menu's items for ``q``: with no query the recent items (still allowed) and
    the actions; otherwise an exact task key first, then recent items that match,
    then actions, projects, dashboards, people, pages, and tasks found by words."""
    menu = _Menu(access)
    q = q.strip()
    if not q:
        recent_items = [item for item in map(menu.resolve, recent) if item is not None]
        defaults = [i for i in menu.action_items() if i.ref not in recent]
        return (recent_items + defaults)[:MAX_ITEMS]

    words = q.lower().split()
    keywords = {f"page:{endpoint}": extra for _label, endpoint, extra in PAGES}
    exact = menu.task_by_key(q)
    candidates: list[MenuItem] = [
        *menu.action_items(),
        *(menu.project_item(p) for p in menu.projects.values()),
        *menu.dashboard_items(),
        *menu.person_items(),
        *menu.page_items(),
    ]
    named = [
        item
        for item in candidates
        if _matches(words, item.title, item.detail, keywords.get(item.ref, ""))
        or (item.ref == CREATE_TASK and _matches(words, "create new add task issue"))
    ]
    tasks = menu.tasks_by_words(q)
    ordered: list[MenuItem] = [exact] if exact else []
    rank = {ref: i for i, ref in enumerate(recent)}
    found = named + tasks
    found.sort(key=lambda item: rank.get(item.ref, len(rank)))  # stable: recent first
    for item in found:
        if item not in ordered:
            ordered.append(item)
    if len(tasks) < MAX_TASKS:
        return ordered[:MAX_ITEMS]
    # The tasks were cut at MAX_TASKS: the last item leads to every match.
    return [*ordered[: MAX_ITEMS - 1], menu.all_tasks_item(q)]


def create_targets(access: Access) -> list[Project]:
    """The projects where the caller may create a task, by name."""
    return sorted(_Menu(access).writable_projects(), key=lambda p: p.name.lower())
