"""The AI settings, agents and Ask pages, as a signed-in user sees them."""

from __future__ import annotations

import re

from tests.agents.conftest import API_KEY, make_project, make_task
from tests.conftest import add_person, login

HX = {"HX-Request": "true"}


def test_ai_settings_page_saves_tests_and_never_shows_the_key(client, app, acme, fake_model):
    login(client, acme.owner_email)
    page = client.get(f"/o/{acme.slug}/settings/ai")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "AI model" in html and "offline interpreter" in html and "500" in html
    resp = client.post(
        f"/o/{acme.slug}/settings/ai",
        data={"base_url": fake_model.base_url, "model": "fake-chart", "api_key": API_KEY},
    )
    assert resp.status_code == 302
    html = client.get(f"/o/{acme.slug}/settings/ai").get_data(as_text=True)
    assert "configured" in html and "fake-chart" in html and API_KEY not in html
    # The fake model serves http:// on loopback: allowed, and said while it lasts.
    assert fake_model.base_url.startswith("http://")
    assert 'id="ai-cleartext"' in html and "cross the network unencrypted" in html
    result = client.post(f"/o/{acme.slug}/settings/ai/test", headers=HX).get_data(as_text=True)
    assert "answered" in result and "<html" not in result
    bad = client.post(
        f"/o/{acme.slug}/settings/ai", data={"base_url": "nope", "model": "m", "api_key": ""}
    )
    assert bad.status_code == 400 and "https://" in bad.get_data(as_text=True)
    https = {"base_url": "https://models.example/v1", "model": "fake-chart", "api_key": API_KEY}
    assert client.post(f"/o/{acme.slug}/settings/ai", data=https).status_code == 302
    html = client.get(f"/o/{acme.slug}/settings/ai").get_data(as_text=True)
    assert "configured" in html and 'id="ai-cleartext"' not in html


def test_settings_pages_are_for_admins(client, app, acme):
    bob = add_person(app, acme.org_id, "bob@acme.test")
    login(client, bob.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/ai").status_code == 403
    assert client.get(f"/o/{acme.slug}/settings/agents").status_code == 403
    assert client.get(f"/o/{acme.slug}/analytics/ask").status_code == 200


def test_agents_page_creates_agent_and_shows_token_once(client, acme):
    project = make_project(client, acme)
    login(client, acme.owner_email)
    resp = client.post(
        f"/o/{acme.slug}/settings/agents",
        data={"name": "Triage Bot", "description": "Sorts bugs", "project_ids": [project["id"]]},
    )
    # To the list, which shows the token: a reload there makes no second agent.
    assert resp.status_code == 303
    html = client.get(resp.location).get_data(as_text=True)
    assert "Triage Bot was created" in html
    token = re.search(r"(ws_[A-Za-z0-9_\-]+)", html).group(1)
    assert "shown only once" in html and "/api/v1/agent/mcp" in html
    again = client.get(f"/o/{acme.slug}/settings/agents").get_data(as_text=True)
    assert "Triage Bot" in again and token not in again
    assert again.count("Remove Triage Bot?") == 1
    tools = client.get("/api/v1/agent/tools", headers={"Authorization": f"Bearer {token}"})
    assert tools.status_code == 200
    empty = client.post(f"/o/{acme.slug}/settings/agents", data={"name": "  "})
    assert empty.status_code == 400 and "name" in empty.get_data(as_text=True)


def test_ask_box_answers_with_htmx_and_without_js(client, acme):
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    login(client, acme.owner_email)
    part = client.post(f"/o/{acme.slug}/analytics/ask", data={"text": "bugs by kind"}, headers=HX)
    html = part.get_data(as_text=True)
    assert part.status_code == 200 and "<html" not in html
    assert "Work items by kind" in html and "offline interpreter" in html and "data-plotly" in html
    full = client.post(f"/o/{acme.slug}/analytics/ask", data={"text": "zzz"})
    html = full.get_data(as_text=True)
    assert "<html" in html and "Work items by status" in html and "default chart" in html
    long = client.post(f"/o/{acme.slug}/analytics/ask", data={"text": "x" * 501}, headers=HX)
    assert "at most 500 characters" in long.get_data(as_text=True)


def test_answer_is_saved_as_a_widget_in_one_click(client, acme):
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    dashboard = client.post(
        acme.url("/dashboards"), json={"name": "Bugs"}, headers=acme.headers
    ).get_json()
    login(client, acme.owner_email)
    html = client.post(
        f"/o/{acme.slug}/analytics/ask", data={"text": "open bugs by assignee"}, headers=HX
    ).get_data(as_text=True)
    assert "Save as widget" in html and dashboard["id"] in html
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))
    fields["dashboard_id"] = dashboard["id"]
    resp = client.post(f"/o/{acme.slug}/analytics/ask/save", data=fields)
    assert resp.status_code == 302 and dashboard["id"] in resp.headers["Location"]
    saved = client.get(acme.url(f"/dashboards/{dashboard['id']}"), headers=acme.headers).get_json()
    widget = saved["widgets"][0]
    assert widget["title"] == "Open bugs by assignee"
    assert (widget["metric"], widget["dimension"], widget["filter"]) == (
        "open",
        "assignee",
        "kind = bug",
    )


def test_saving_an_answer_says_which_dashboards_narrow_it(client, acme):
    """The answer counts every task; saved on a dashboard with a filter (or, over time,
    a date range) the widget shows fewer. The save form names those dashboards."""
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    for body in (
        {"name": "Plain"},
        {"name": "Urgent only", "pql_filter": "priority = urgent"},
        {"name": "Last month", "range": "last_30_days"},
    ):
        made = client.post(acme.url("/dashboards"), json=body, headers=acme.headers)
        assert made.status_code == 201, made.get_json()
    login(client, acme.owner_email)

    def note(text):
        html = client.post(
            f"/o/{acme.slug}/analytics/ask", data={"text": text}, headers=HX
        ).get_data(as_text=True)
        assert "Save as widget" in html
        found = re.search(r"<p [^>]*data-save-narrowed>(.*?)</p>", html, re.S)
        return found and " ".join(found.group(1).split())

    by_assignee = note("open bugs by assignee")
    assert "Urgent only (its filter priority = urgent)" in by_assignee
    assert "Plain" not in by_assignee and "Last month" not in by_assignee
    over_time = note("tasks created per week")
    assert "Last month (its date range)" in over_time and "Urgent only" in over_time


def test_a_full_dashboard_is_offered_but_cannot_be_chosen(client, app, acme, monkeypatch):
    """Choosing a dashboard at the widget cap lost the answer to a refusal page; it is
    now listed as full and disabled, and with every dashboard full no form is shown."""
    monkeypatch.setitem(app.config, "DASHBOARD_MAX_WIDGETS", 1)
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    made = [
        client.post(acme.url("/dashboards"), json=body, headers=acme.headers).get_json()
        for body in ({"name": "Full one", "pql_filter": "kind = bug"}, {"name": "Room left"})
    ]
    widget = {"title": "Only", "metric": "count", "dimension": "status"}
    added = client.post(
        acme.url(f"/dashboards/{made[0]['id']}/widgets"), json=widget, headers=acme.headers
    )
    assert added.status_code == 201, added.get_json()
    login(client, acme.owner_email)

    def ask(**form):
        return client.post(
            f"/o/{acme.slug}/analytics/ask",
            data={"text": "open bugs by assignee", **form},
            headers=HX,
        ).get_data(as_text=True)

    html = ask(dashboard_id=made[0]["id"])  # asked on the full one
    options = dict(re.findall(r'<option value="([0-9a-f-]{36})"([^>]*)>', html))
    assert "disabled" in options[made[0]["id"]] and "selected" not in options[made[0]["id"]]
    assert "disabled" not in options[made[1]["id"]] and "Full one (full)" in html
    # Asked there, it says the chart goes elsewhere; the full one narrows nothing.
    assert "“Full one”, where you asked, is full" in html
    assert "data-save-narrowed" not in html
    client.post(acme.url(f"/dashboards/{made[1]['id']}/widgets"), json=widget, headers=acme.headers)
    html = ask()
    assert "Save as widget" not in html
    assert "Each of your dashboards is full (1 widgets" in html


def test_ask_box_is_on_the_analytics_and_dashboard_pages(client, acme):
    """The analytics page shows the box open; a dashboard page shows it folded, and
    an answer asked there offers that dashboard first for one-click saving."""
    project = make_project(client, acme)
    make_task(client, acme, project["id"], kind="bug")
    first = client.post(acme.url("/dashboards"), json={"name": "Aaa"}, headers=acme.headers)
    second = client.post(acme.url("/dashboards"), json={"name": "Zzz"}, headers=acme.headers)
    here = second.get_json()["id"]
    login(client, acme.owner_email)

    analytics = client.get(f"/o/{acme.slug}/analytics").get_data(as_text=True)
    assert 'class="card ask-box"' in analytics and 'id="f-ask-text"' in analytics
    assert f'action="/o/{acme.slug}/analytics/ask"' in analytics
    scoped = client.get(f"/o/{acme.slug}/analytics", query_string={"project_id": project["id"]})
    assert f'name="project_id" value="{project["id"]}"' in scoped.get_data(as_text=True)

    board = client.get(f"/o/{acme.slug}/dashboards/{here}").get_data(as_text=True)
    assert (
        '<details class="card ask-box">' in board and "<summary>Ask for a chart</summary>" in board
    )
    assert f'name="dashboard_id" value="{here}"' in board

    answer = client.post(
        f"/o/{acme.slug}/analytics/ask",
        data={"text": "open bugs by assignee", "dashboard_id": here},
        headers=HX,
    ).get_data(as_text=True)
    saving = re.search(r'<select id="f-dashboard_id".*?</select>', answer, re.S).group(0)
    options = re.findall(r'<option value="([^"]+)"( selected)?>', saving)
    assert dict(options) == {first.get_json()["id"]: "", here: " selected"}
    # The reading's controls carry the dashboard, so a redrawn answer offers it first.
    assert f'<input type="hidden" name="dashboard_id" value="{here}">' in answer


def test_agent_form_refuses_too_long_input_on_its_field(client, acme):
    """The form goes through the API's AgentCreate: too long is an error beside the
    field (a 400 that creates nothing), never a silent cut."""
    login(client, acme.owner_email)
    resp = client.post(
        f"/o/{acme.slug}/settings/agents", data={"name": "Bot", "description": "d" * 501}
    )
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "at most 500 characters" in html
    assert 'id="f-description-error"' in html
    agents = client.get(acme.url("/agents"), headers=acme.headers).get_json()
    assert agents == []
