"""The org task search (``/o/<org>/tasks``), where an org-wide figure drills down to:
who may open it, what it lists, and how it answers bad input."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import urlencode

import pytest

from tests.factories import (
    add_person,
    bearer,
    create_agent,
    create_project,
    login,
    new_task,
    project_states,
)

ROLES = ["viewer", "commenter", "member", "admin", "agent"]
ROW = re.compile(r'<tr id="task-[0-9a-f-]{36}" data-task-key="([A-Z]+-\d+)"')


def _total(html: str) -> int:
    return int(re.search(r"data-task-total>([\d,]+)<", html).group(1).replace(",", ""))


@pytest.fixture
def tasks(client, acme, globex):
    """Two Acme projects (one bug in triage, which every new project's workflow has)
    and a Globex task."""
    web = create_project(client, acme, "Web App", "WEB")
    ops = create_project(client, acme, "Operations", "OPS")
    states = project_states(client, acme, web["id"])
    new_task(client, acme, web, title="Login fails", kind="bug", priority="high")
    new_task(client, acme, web, title="Add SSO", kind="feature")
    new_task(client, acme, ops, title="Disk full", kind="bug", priority="urgent")
    triage = next(s for s in states.values() if s["category"] == "triage")
    new_task(client, acme, web, title="Crash report", kind="bug", state_id=triage["id"])
    other = create_project(client, globex, "Globex", "GLX")
    new_task(client, globex, other, title="Globex bug", kind="bug")
    return {"web": web, "ops": ops, "triage": triage}


def _url(org, **args) -> str:
    return f"/o/{org.slug}/tasks" + (f"?{urlencode(args)}" if args else "")


@pytest.mark.parametrize("role", ROLES)
def test_permission_table(app, client, acme, tasks, role):
    url = _url(acme, pql="kind = bug")
    if role == "agent":
        agent = create_agent(client, acme, project_ids=[tasks["web"]["id"]])
        resp = app.test_client().get(url, headers=bearer(agent["token"]))
        assert resp.status_code == 302 and "/signin" in resp.location
        return
    if role == "admin":
        caller = add_person(app, acme.org_id, "boss@acme.test", role="admin")
    else:
        caller = add_person(app, acme.org_id, f"{role}@acme.test")
        resp = client.post(
            acme.url(f"/projects/{tasks['web']['id']}/members"),
            json={"account_id": str(caller.owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code in (200, 201), resp.get_json()
    browser = app.test_client()
    login(browser, caller.owner_email)
    resp = browser.get(url)
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    # Every project of the org, as a project's list would show them to any member.
    keys = set(ROW.findall(html))
    assert {k.split("-")[0] for k in keys} == {"WEB", "OPS"}
    assert _total(html) == len(keys) == 3


def test_another_orgs_member_gets_404(client, acme, globex, tasks):
    login(client, globex.owner_email)
    assert client.get(_url(acme)).status_code == 404
    # Their own org's search lists only their tasks.
    html = client.get(_url(globex)).get_data(as_text=True)
    assert set(ROW.findall(html)) == {"GLX-1"} and _total(html) == 1


def test_is_counted_leaves_out_triage_and_drafts(client, acme, tasks):
    login(client, acme.owner_email)
    everything = client.get(_url(acme, pql="kind = bug")).get_data(as_text=True)
    counted = client.get(_url(acme, pql="isCounted() AND kind = bug")).get_data(as_text=True)
    assert _total(everything) == 3 and _total(counted) == 2
    assert "Crash report" in everything and "Crash report" not in counted


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"pql": "kind = "}, "PQL error at line 1, column"),
        ({"pql": "colour = red"}, "unknown field 'colour'"),
        ({"pql": "project = NOPE"}, "no project named 'NOPE' in this organization"),
        ({"pql": "isCounted() AND " + "x" * 2000}, "2000 characters"),
        ({"q": "x" * 201}, "200 characters"),
    ],
)
def test_bad_input_is_a_400_next_to_the_field(client, acme, tasks, args, message):
    login(client, acme.owner_email)
    resp = client.get(_url(acme, **args))
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    field = "pql" if "pql" in args else "search"
    error = re.search(
        rf'<p class="field-error" id="task-{field}-error" role="alert">(.*?)</p>', html
    )
    assert error and message in html_lib.unescape(error.group(1)), html[:2000]
    assert 'aria-invalid="true"' in html and "The filter cannot run" in html


@pytest.mark.parametrize("args", [{"sort": "bogus"}, {"offset": "-5"}, {"dir": "up"}])
def test_a_wrong_sort_or_page_falls_back_to_the_default(client, acme, tasks, args):
    login(client, acme.owner_email)
    resp = client.get(_url(acme, **args))
    assert resp.status_code == 200
    # No filter: every task of the org's projects, triage included.
    assert _total(resp.get_data(as_text=True)) == 4


def test_pages_of_fifty(client, acme, tasks):
    for i in range(52):
        new_task(client, acme, tasks["ops"], title=f"Chore {i}", kind="task")
    login(client, acme.owner_email)
    first = client.get(_url(acme, pql="project = OPS", sort="key", dir="asc")).get_data(
        as_text=True
    )
    assert _total(first) == 53 and len(ROW.findall(first)) == 50 and "Next 50" in first
    second = client.get(_url(acme, pql="project = OPS", sort="key", dir="asc", offset=50)).get_data(
        as_text=True
    )
    assert len(ROW.findall(second)) == 3 and "Previous 50" in second
    assert not set(ROW.findall(first)) & set(ROW.findall(second))
