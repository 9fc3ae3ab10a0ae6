"""Every tracker write goes through a service that records its event with its actor;
HTML forms share the JSON API's input models; ending a membership is one path."""

from __future__ import annotations

from tests.factories import add_person, create_project, login


def _events(client, acme, prefix: str) -> list[dict]:
    resp = client.get(acme.url(f"/events?kind={prefix}"), headers=acme.headers)
    assert resp.status_code == 200
    return resp.get_json()


def test_project_member_add_change_remove_are_recorded(app, client, acme):
    project = create_project(client, acme)
    mia = add_person(app, acme.org_id, "mia@acme.test")
    base = acme.url(f"/projects/{project['id']}/members")
    added = client.post(base, json={"account_id": str(mia.owner_id)}, headers=acme.headers)
    assert added.status_code == 201
    changed = client.post(
        base, json={"account_id": str(mia.owner_id), "role": "admin"}, headers=acme.headers
    )
    assert changed.get_json()["role"] == "admin"
    member_id = changed.get_json()["id"]
    assert client.delete(f"{base}/{member_id}", headers=acme.headers).status_code == 204
    listed = client.get(base, headers=acme.headers).get_json()
    assert str(mia.owner_id) not in {m["account"]["id"] for m in listed}
    kinds = sorted(e["kind"] for e in _events(client, acme, "project.member"))
    assert kinds == ["project.member_added", "project.member_changed", "project.member_removed"]
    assert {e["actor_id"] for e in _events(client, acme, "project.member")} == {str(acme.owner_id)}


def test_project_update_and_workflow_writes_are_recorded(client, acme):
    project = create_project(client, acme)
    url = acme.url(f"/projects/{project['id']}")
    resp = client.patch(url, json={"name": "Renamed", "archived": True}, headers=acme.headers)
    assert resp.status_code == 200
    [event] = _events(client, acme, "project.updated")
    assert event["actor_id"] == str(acme.owner_id)
    assert event["data"]["changes"]["name"][1] == "Renamed"
    assert event["data"]["changes"]["archived"] == [False, True]
    # Nothing changed: nothing recorded.
    client.patch(url, json={"name": "Renamed"}, headers=acme.headers)
    assert len(_events(client, acme, "project.updated")) == 1
    client.patch(url, json={"archived": False}, headers=acme.headers)
    for path, body in (
        ("/states", {"name": "QA", "category": "started"}),
        ("/cycles", {"name": "Sprint 1"}),
        ("/modules", {"name": "Billing"}),
    ):
        assert client.post(url + path, json=body, headers=acme.headers).status_code == 201
    kinds = {e["kind"] for e in _events(client, acme, "project.")}
    assert {"project.state_created", "project.cycle_created", "project.module_created"} <= kinds


def test_html_forms_use_the_api_models_and_refuse_with_4xx(app, client, acme):
    login(client, acme.owner_email)
    too_long = client.post(f"/o/{acme.slug}/projects", data={"name": "x" * 201})
    assert too_long.status_code == 400
    assert 'id="f-name-error"' in too_long.get_data(as_text=True)
    assert client.get(acme.url("/projects"), headers=acme.headers).get_json() == []
    made = client.post(f"/o/{acme.slug}/projects", data={"name": "Web", "identifier": "WEB"})
    assert made.status_code == 302
    project_id = made.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    url = f"/o/{acme.slug}/projects/{project_id}/tasks"
    assert client.post(url, data={"title": " "}).status_code == 422
    assert (
        client.post(url, data={"title": "x" * 501}, headers={"HX-Request": "true"}).status_code
        == 422
    )
    assert client.post(url, data={"title": "Ship it"}).status_code == 302
    token = client.post(f"/o/{acme.slug}/tokens", data={"name": "t" * 101})
    assert token.status_code == 400 and 'id="new-token"' not in token.get_data(as_text=True)
    new_org = client.post("/orgs/new", data={"name": " "})
    assert new_org.status_code == 400 and "Give the organization a name." in new_org.get_data(
        as_text=True
    )


def test_deactivation_revokes_tokens_and_ends_sessions_when_no_org_is_left(app, client, acme):
    from workspace.auth.membership import deactivate_member
    from workspace.core.orgs import active_membership
    from workspace.extensions import db

    mia = add_person(app, acme.org_id, "mia@acme.test")
    login(client, mia.owner_email)
    with app.app_context():
        assert deactivate_member(
            active_membership(acme.org_id, mia.owner_id), actor_id=acme.owner_id
        )
        db.session.commit()
    assert client.get(mia.url(), headers=mia.headers).status_code == 401
    resp = client.get(f"/o/{acme.slug}/")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
    [event] = _events(client, acme, "member.deactivated")
    assert event["actor_id"] == str(acme.owner_id)
    with app.app_context():
        owner = active_membership(acme.org_id, acme.owner_id)
        assert deactivate_member(owner) is False
