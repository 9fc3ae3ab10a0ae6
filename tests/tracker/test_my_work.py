"""My work, the home page's tasks and overdue due dates as pages show them, plus the
inbox page's forms with and without HTMX (docs/inbox.md)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tests.factories import (
    add_person,
    create_project,
    login,
    new_task,
    setup_project,
    state_in,
)

TODAY = datetime.now(UTC).date()  # the org is on UTC


def _rows(html: str) -> list[str]:
    """The task keys of a page's table rows, in order."""
    return re.findall(r'<td class="mono"><a href="[^"]+">(WEB-\d+)</a>', html)


def _work(client, acme):
    """Five of the owner's open tasks in a shuffled order, one done and overdue."""
    project, states = setup_project(client, acme)
    days = lambda n: (TODAY + timedelta(days=n)).isoformat()  # noqa: E731
    me = str(acme.owner_id)
    specs = [
        ("No date, urgent", None, "urgent"),  # WEB-1
        ("Later, low", days(9), "low"),  # WEB-2
        ("Later, high", days(9), "high"),  # WEB-3
        ("Three days late", days(-3), "none"),  # WEB-4
        ("One day late", days(-1), "medium"),  # WEB-5
    ]
    for title, due, priority in specs:
        new_task(
            client, acme, project, title=title, due_date=due, priority=priority, assignee_id=me
        )
    done = new_task(client, acme, project, title="Done late", due_date=days(-5), assignee_id=me)
    client.patch(
        acme.url(f"/tasks/{done['id']}"),
        json={"state_id": state_in(states, "completed")},
        headers=acme.headers,
    )
    return project


def test_my_work_orders_by_due_date_then_priority_and_says_overdue(client, acme, app):
    project = _work(client, acme)
    mia = add_person(app, acme.org_id, "mia@acme.test")
    theirs = new_task(client, acme, project, title="Mia's", assignee_id=str(mia.owner_id))
    login(client, acme.owner_email)
    html = client.get(f"/o/{acme.slug}/my-work").get_data(as_text=True)
    assert _rows(html) == ["WEB-4", "WEB-5", "WEB-3", "WEB-2", "WEB-1"]  # the done one is out
    assert "Overdue · 3 days" in html and "Overdue · 1 day<" in html
    assert html.count("Overdue ·") == 2
    assert re.search(r"Assigned to me <span class=\"badge\">5</span>", html)
    assert re.search(r"Created by me <span class=\"badge\">6</span>", html)

    # Created by me holds Mia's task too; Subscribed: everything the owner created.
    created = client.get(f"/o/{acme.slug}/my-work?section=created").get_data(as_text=True)
    assert f"WEB-{theirs['sequence']}" in _rows(created)
    assert client.get(f"/o/{acme.slug}/my-work?section=nope").status_code == 400

    # The home page lists the same tasks in the same order, overdue in words.
    home = client.get(f"/o/{acme.slug}/").get_data(as_text=True)
    assert _rows(home) == ["WEB-4", "WEB-5", "WEB-3", "WEB-2", "WEB-1"]
    assert "Overdue · 3 days" in home

    # The project's task list and the task page say it too.
    listing = client.get(f"/o/{acme.slug}/projects/{project['id']}").get_data(as_text=True)
    assert listing.count("Overdue ·") == 2  # not the completed one
    task_page = client.get(f"/o/{acme.slug}/tasks/WEB-4").get_data(as_text=True)
    assert "Overdue · 3 days" in task_page
    assert "Overdue" not in client.get(f"/o/{acme.slug}/tasks/WEB-6").get_data(as_text=True)


def test_subscribe_button_and_inbox_forms_with_and_without_htmx(client, acme, app):
    project, _ = setup_project(client, acme)
    mia = add_person(app, acme.org_id, "mia@acme.test")
    for title in ("One", "Two"):
        new_task(client, acme, project, title=title, assignee_id=str(mia.owner_id))
    login(client, "mia@acme.test")
    base = f"/o/{acme.slug}"
    inbox = client.get(f"{base}/inbox").get_data(as_text=True)
    assert re.search(r'id="nav-inbox"[^>]*>.*?>2<span class="visually-hidden"> unread', inbox, re.S)
    assert inbox.count(">Unread</span>") == 2  # in words, not colour alone
    first = re.search(r'id="notification-([0-9a-f-]+)"', inbox).group(1)

    htmx = {"HX-Request": "true"}
    resp = client.post(f"{base}/inbox/{first}/read", data={"read": "true"}, headers=htmx)
    fragment = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "Mark unread" in fragment
    assert re.search(r'id="nav-inbox"[^>]*hx-swap-oob="true"', fragment)
    assert '1<span class="visually-hidden"> unread' in fragment
    resp = client.post(f"{base}/inbox/read-all", data={"unread": "true"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/inbox?unread=true")
    assert "unread</span>" not in client.get(f"{base}/my-work").get_data(as_text=True)

    # Subscribe button: Mia follows WEB-1 (assigned), and stops.
    page = client.get(f"{base}/tasks/WEB-1").get_data(as_text=True)
    assert ">Unsubscribe</button>" in page
    resp = client.post(
        f"{base}/tasks/WEB-1/subscription", data={"subscribed": "false"}, headers=htmx
    )
    assert ">Subscribe</button>" in resp.get_data(as_text=True)
    resp = client.post(f"{base}/tasks/WEB-1/subscription", data={"subscribed": "maybe"})
    assert resp.status_code == 400
    subscribed = client.get(f"{base}/my-work?section=subscribed").get_data(as_text=True)
    assert _rows(subscribed) == ["WEB-2"]


def test_a_section_it_does_not_know_is_named_on_the_error_page(client, acme):
    """A query string has no form to show errors by: the error page names the field
    and the values it takes, not only "Some fields need your attention"."""
    login(client, acme.owner_email)
    resp = client.get(f"/o/{acme.slug}/my-work?section=zzz")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert '<dt class="mono">section</dt>' in html
    assert "Input should be &#39;assigned&#39;, &#39;created&#39; or &#39;subscribed&#39;" in html


def test_an_archived_projects_tasks_leave_my_work_and_the_home_page(client, acme):
    project = _work(client, acme)
    other = create_project(client, acme, name="Ops", identifier="OPS")
    new_task(client, acme, other, title="Still mine", assignee_id=str(acme.owner_id))
    url = acme.url(f"/projects/{project['id']}")
    assert client.patch(url, json={"archived": True}, headers=acme.headers).status_code == 200
    login(client, acme.owner_email)

    html = client.get(f"/o/{acme.slug}/my-work").get_data(as_text=True)
    assert "Still mine" in html and _rows(html) == []  # no WEB- task is anyone's work now
    assert re.search(r"Assigned to me <span class=\"badge\">1</span>", html)
    home = client.get(f"/o/{acme.slug}/").get_data(as_text=True)
    assert "Still mine" in home and _rows(home) == []

    assert client.patch(url, json={"archived": False}, headers=acme.headers).status_code == 200
    html = client.get(f"/o/{acme.slug}/my-work").get_data(as_text=True)
    assert _rows(html) == ["WEB-4", "WEB-5", "WEB-3", "WEB-2", "WEB-1"]
