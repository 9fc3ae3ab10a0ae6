"""The inbox (docs/inbox.md): who is told of what, through the JSON API as people and
agents use it; subscriptions; @mentions and who they cannot reach; unread counts,
mark read and mark all read."""

from __future__ import annotations

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    login,
    make_org,
    member_id,
    new_task,
    setup_project,
    state_in,
)


def _team(client, acme):
    """A project where Mia and Bob are members; the owner is org owner."""
    project, states = setup_project(client, acme)
    people = {}
    for email in ("mia@acme.test", "bob@acme.test"):
        person = add_person(client.application, acme.org_id, email)
        resp = client.post(
            acme.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(person.owner_id), "role": "member"},
            headers=acme.headers,
        )
        assert resp.status_code == 201, resp.get_json()
        people[email.split("@")[0]] = person
    return project, states, people["mia"], people["bob"]


def _inbox(client, who, **params):
    resp = client.get(who.url("/inbox"), query_string=params, headers=who.headers)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _kinds(client, who):
    return [(n["kind"], n["task_key"]) for n in _inbox(client, who)["items"]]


def test_each_cause_tells_the_right_people_and_never_the_actor(client, acme):
    project, states, mia, bob = _team(client, acme)
    task = new_task(
        client, acme, project, assignee_id=str(mia.owner_id), description="cc @bob, please."
    )
    key = f"WEB-{task['sequence']}"
    assert _kinds(client, mia) == [("assigned", key)]
    assert _kinds(client, bob) == [("mention", key)]
    assert _kinds(client, acme) == []  # the creator did it

    # Mia comments: the creator and Bob (subscribed by the mention) are told; Mia is not.
    resp = client.post(
        acme.url(f"/tasks/{task['id']}/comments"), json={"body": "On it"}, headers=mia.headers
    )
    assert resp.status_code == 201
    assert _kinds(client, acme) == [("comment", key)]
    assert _kinds(client, bob) == [("comment", key), ("mention", key)]
    assert _kinds(client, mia) == [("assigned", key)]

    # Bob moves it: everyone subscribed but Bob hears of the new state, by name.
    started = state_in(states, "started")
    resp = client.patch(
        acme.url(f"/tasks/{task['id']}"), json={"state_id": started}, headers=bob.headers
    )
    assert resp.status_code == 200
    newest = _inbox(client, acme)["items"][0]
    assert newest["kind"] == "state"
    assert newest["summary"] == f"Bob moved {key} to {states_name(states, started)}"
    assert newest["actor_name"] == "Bob" and newest["read"] is False
    assert _kinds(client, mia)[0] == ("state", key)
    assert _kinds(client, bob)[0] == ("comment", key)  # nothing new for the actor


def states_name(states, state_id):
    return next(name for name, s in states.items() if s["id"] == state_id)


def test_a_comment_that_mentions_you_is_one_mention_and_edits_tell_only_the_new(client, acme):
    project, _, mia, bob = _team(client, acme)
    task = new_task(client, acme, project)
    url = acme.url(f"/tasks/{task['id']}/comments")
    client.put(
        acme.url(f"/tasks/{task['id']}/subscription"),
        json={"subscribed": True},
        headers=mia.headers,
    )
    comment = client.post(url, json={"body": "@mia look"}, headers=acme.headers).get_json()
    assert [n["kind"] for n in _inbox(client, mia)["items"]] == ["mention"]
    assert _inbox(client, mia)["items"][0]["url"].endswith(f"#comment-{comment['id']}")
    # Editing in a second mention tells only the newly mentioned person.
    client.patch(
        f"{url}/{comment['id']}", json={"body": "@mia look, @bob too"}, headers=acme.headers
    )
    assert len(_inbox(client, mia)["items"]) == 1
    assert [n["kind"] for n in _inbox(client, bob)["items"]] == ["mention"]


def test_a_mention_never_reaches_anyone_who_cannot_read_the_task(client, acme, app):
    project, _, mia, _ = _team(client, acme)
    globex = make_org(app, "Globex", "spy@globex.test")
    gone = add_person(app, acme.org_id, "gone@acme.test")
    resp = client.patch(
        acme.url(f"/members/{member_id(app, acme.org_id, gone.owner_email)}"),
        json={"active": False},
        headers=acme.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    new_task(
        client,
        acme,
        project,
        description="ping @spy, @spy@globex.test, @gone and @gone@acme.test",
    )
    assert _inbox(client, globex)["total"] == 0
    assert _inbox(client, mia)["total"] == 0
    # An ambiguous handle names nobody; the whole address still works.
    add_person(app, acme.org_id, "mia@elsewhere.test")
    new_task(client, acme, project, title="Two Mias", description="@mia then @mia@acme.test")
    assert [n["task_key"] for n in _inbox(client, mia)["items"]] == ["WEB-2"]

    # The picker offers each with the handle that names them.
    people = client.get(
        acme.url("/mentions/people"), query_string={"q": "mi"}, headers=acme.headers
    ).get_json()
    assert sorted(p["handle"] for p in people) == ["mia@acme.test", "mia@elsewhere.test"]
    bob = client.get(
        acme.url("/mentions/people"), query_string={"q": "bob"}, headers=acme.headers
    ).get_json()
    assert [(p["name"], p["handle"], p["is_agent"]) for p in bob] == [("Bob", "bob", False)]


def test_unsubscribing_stops_comments_and_state_changes(client, acme):
    project, states, mia, _ = _team(client, acme)
    task = new_task(client, acme, project, assignee_id=str(mia.owner_id))
    sub_url = acme.url(f"/tasks/{task['id']}/subscription")
    assert client.get(sub_url, headers=mia.headers).get_json()["subscribed"] is True
    resp = client.put(sub_url, json={"subscribed": False}, headers=mia.headers)
    assert resp.get_json() == {"task_id": task["id"], "subscribed": False}
    client.post(acme.url(f"/tasks/{task['id']}/comments"), json={"body": "x"}, headers=acme.headers)
    client.patch(
        acme.url(f"/tasks/{task['id']}"),
        json={"state_id": state_in(states, "started")},
        headers=acme.headers,
    )
    assert [n["kind"] for n in _inbox(client, mia)["items"]] == ["assigned"]
    # Being assigned again is told, but does not subscribe her behind her back.
    client.patch(acme.url(f"/tasks/{task['id']}"), json={"assignee_id": None}, headers=acme.headers)
    client.patch(
        acme.url(f"/tasks/{task['id']}"),
        json={"assignee_id": str(mia.owner_id)},
        headers=acme.headers,
    )
    assert [n["kind"] for n in _inbox(client, mia)["items"]] == ["assigned", "assigned"]
    assert client.get(sub_url, headers=mia.headers).get_json()["subscribed"] is False


def test_unread_count_mark_read_and_mark_all_read(client, acme):
    project, _, mia, bob = _team(client, acme)
    # A refused write tells nobody: the notification rolls back with it.
    resp = client.post(
        acme.url(f"/projects/{project['id']}/tasks"),
        json={"title": "", "assignee_id": str(mia.owner_id), "description": "@mia"},
        headers=acme.headers,
    )
    assert resp.status_code == 400
    assert _inbox(client, mia)["total"] == 0
    for title in ("One", "Two", "Three"):
        new_task(client, acme, project, title=title, assignee_id=str(mia.owner_id))
    inbox = _inbox(client, mia)
    assert (inbox["unread"], inbox["total"]) == (3, 3)
    assert [n["task_title"] for n in inbox["items"]] == ["Three", "Two", "One"]  # newest first
    first = inbox["items"][0]["id"]

    resp = client.post(mia.url(f"/inbox/{first}/read"), headers=mia.headers)
    assert resp.status_code == 200 and resp.get_json()["read"] is True
    assert _inbox(client, mia)["unread"] == 2
    assert [n["id"] for n in _inbox(client, mia, unread="true")["items"]] != [first]
    resp = client.post(mia.url(f"/inbox/{first}/read"), json={"read": False}, headers=mia.headers)
    assert resp.get_json()["read"] is False
    assert _inbox(client, mia)["unread"] == 3

    # Someone else's notification, an unknown id, a bad id, a bad body.
    assert_problem(client.post(bob.url(f"/inbox/{first}/read"), headers=bob.headers), 404)
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_problem(client.post(mia.url(f"/inbox/{unknown}/read"), headers=mia.headers), 404)
    assert client.post(mia.url("/inbox/not-an-id/read"), headers=mia.headers).status_code == 404
    bad = client.post(mia.url(f"/inbox/{first}/read"), json={"read": "yes"}, headers=mia.headers)
    assert_problem(bad, 400, "read")
    assert_problem(client.get(mia.url("/inbox?limit=0"), headers=mia.headers), 400, "limit")

    resp = client.post(mia.url("/inbox/read-all"), headers=mia.headers)
    assert resp.get_json() == {"marked": 3, "unread": 0}
    assert _inbox(client, mia)["unread"] == 0


def test_opening_the_task_marks_its_notifications_read(app, client, acme):
    """The inbox link leads to the task; once it is open, what the notifications said
    is seen: theirs about that task are read, others stay unread, nobody else's move."""
    project, _, mia, bob = _team(client, acme)
    one = new_task(client, acme, project, title="One", assignee_id=str(mia.owner_id))
    new_task(client, acme, project, title="Two", assignee_id=str(mia.owner_id))
    client.patch(acme.url(f"/tasks/{one['id']}"), json={"assignee_id": str(bob.owner_id)},
                 headers=acme.headers)  # fmt: skip
    assert _inbox(client, mia)["unread"] == 2 and _inbox(client, bob)["unread"] == 1
    browser = app.test_client()
    login(browser, mia.owner_email)
    assert browser.get(f"/o/{acme.slug}/tasks/{one['key']}").status_code == 200
    inbox = _inbox(client, mia)
    assert inbox["unread"] == 1
    assert [n["task_title"] for n in inbox["items"] if not n["read"]] == ["Two"]
    assert _inbox(client, bob)["unread"] == 1  # Bob has not opened it


def test_an_agents_activity_notifies_people_the_same_way(client, acme):
    project, _, mia, _ = _team(client, acme)
    task = new_task(client, acme, project, assignee_id=str(mia.owner_id))
    agent = create_agent(client, acme, project_ids=[project["id"]])
    resp = client.post(
        acme.url(f"/tasks/{task['id']}/comments"),
        json={"body": "Triaged, @mia"},
        headers=bearer(agent["token"]),
    )
    assert resp.status_code == 201, resp.get_json()
    told = _inbox(client, mia)["items"][0]
    assert (told["kind"], told["actor_name"]) == ("mention", "Triage Bot")
    assert _inbox(client, acme)["items"][0]["kind"] == "comment"  # the creator follows it
