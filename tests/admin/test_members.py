"""Settings > Members and PATCH /members/<id>: listing (search, pages, how people
joined, last sign-in), role changes, deactivation and reactivation, the rules around
owners, SCIM and agents, and the permission table."""

from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import select

from tests.factories import (
    add_person,
    assert_problem,
    bearer,
    create_agent,
    create_project,
    login,
    member_id,
)
from workspace.extensions import db

LAST_OWNER = "last active owner"


def _member_id(app, org_id, email) -> uuid.UUID:
    return member_id(app, org_id, email)


def _member(app, member_id):
    from workspace.core.models import OrgMember

    with app.app_context():
        m = db.session.get(OrgMember, member_id)
        return {"role": m.role, "active": m.active}


def _events(app, org_id, kind):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(
            select(Event)
            .where(Event.org_id == org_id, Event.kind == kind)
            .order_by(Event.created_at)
        )
        return [(e.actor_id, e.subject, dict(e.data or {})) for e in rows]


def _scim_manage(app, org_id, member_id, email):
    from workspace.scim.models import ScimIdentity

    with app.app_context():
        db.session.add(
            ScimIdentity(
                org_id=org_id,
                member_id=member_id,
                user_name=email,
                user_name_key=email,
                attributes={},
                email_keys="",
            )
        )
        db.session.commit()


def _patch(client, org, member_id, body, headers=None):
    return client.patch(org.url(f"/members/{member_id}"), json=body, headers=headers or org.headers)


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in html else ""
    return re.findall(r"<tr id=\"member-.*?</tr>", body, re.S)


# -- listing ---------------------------------------------------------------------------


def test_list_shows_how_people_joined_last_sign_in_and_status(app, client, acme):
    add_person(app, acme.org_id, "ann@acme.test")
    add_person(app, acme.org_id, "bob@acme.test", "admin")
    create_agent(client, acme, "Triage Bot")
    login(client, "ann@acme.test")  # Ann signs in once; Bob never does
    client.post("/signout")
    login(client, acme.owner_email)
    resp = client.get(f"/o/{acme.slug}/settings/members")
    assert resp.status_code == 200
    rows = {re.search(r"[\w.]+@[\w.]+", r).group(0): r for r in _rows(resp.get_data(as_text=True))}
    assert "Added directly" in rows["ann@acme.test"]
    assert re.search(
        r"\d{1,2} \w{3} \d{4},</span> <span class=\"nowrap\">\d\d:\d\d UTC", rows["ann@acme.test"]
    )
    assert "never" in rows["bob@acme.test"]
    assert ">admin<" in rows["bob@acme.test"] or 'value="admin" selected' in rows["bob@acme.test"]
    bot = next(r for e, r in rows.items() if "Triage Bot" in r)
    assert "badge-agent" in bot and "Created as an agent" in bot and "Manage in Agents" in bot
    assert "Deactivate" not in bot
    owner = rows[acme.owner_email]
    assert ">you<" in owner and "Deactivate" not in owner  # nobody deactivates themselves


def test_search_by_name_or_email_and_pages_of_fifty(app, client, acme):
    from workspace.core.accounts import add_member, ensure_account
    from workspace.core.models import Org

    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        for i in range(60):
            add_member(org, ensure_account(f"p{i:02d}@acme.test", f"Person {i:02d}"))
        add_member(org, ensure_account("zed@other.test", "Zed 100%_Special"))
        db.session.commit()
    login(client, acme.owner_email)
    first = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    assert len(_rows(first)) == 50
    assert 'rel="next"' in first
    second = client.get(f"/o/{acme.slug}/settings/members?page=2").get_data(as_text=True)
    assert len(_rows(second)) == 12  # 60 + Zed + the owner
    assert 'rel="next"' not in second and 'rel="prev"' in second

    found = client.get(f"/o/{acme.slug}/settings/members?q=PERSON 0").get_data(as_text=True)
    assert len(_rows(found)) == 10
    by_email = client.get(f"/o/{acme.slug}/settings/members?q=other.test").get_data(as_text=True)
    assert len(_rows(by_email)) == 1 and "zed@other.test" in by_email
    # % and _ are plain characters, not wildcards.
    assert (
        len(_rows(client.get(f"/o/{acme.slug}/settings/members?q=0%_").get_data(as_text=True))) == 1
    )
    # The search stays in the paging links.
    many = client.get(f"/o/{acme.slug}/settings/members?q=person").get_data(as_text=True)
    assert "page=2&amp;q=person" in many
    none = client.get(f"/o/{acme.slug}/settings/members?q=nobody-here").get_data(as_text=True)
    assert "No one matches" in none


def test_listing_is_one_query(app, acme):
    from sqlalchemy import event

    from workspace.admin.members import list_page
    from workspace.admin.schemas import MemberListQuery
    from workspace.core.accounts import add_member, ensure_account
    from workspace.core.models import Org

    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        for i in range(5):
            add_member(org, ensure_account(f"q{i}@acme.test"))
        db.session.commit()
        db.session.expunge_all()
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            listing, has_next = list_page(acme.org_id, MemberListQuery())
            names = [(r.member.account.email, r.last_sign_in, r.scim_managed) for r in listing]
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
    assert len(names) == 6 and not has_next
    assert len(statements) == 1


def test_bad_query_values_fall_back_to_the_first_page(client, acme):
    login(client, acme.owner_email)
    resp = client.get(f"/o/{acme.slug}/settings/members?page=abc&q=" + "x" * 300)
    assert resp.status_code == 200


# -- role changes ----------------------------------------------------------------------


def test_owner_changes_roles_and_the_event_names_actor_and_roles(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    resp = _patch(client, acme, mid, {"role": "admin"})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["role"] == "admin"
    assert _events(app, acme.org_id, "member.role_changed") == [
        (
            acme.owner_id,
            "ann@acme.test",
            {"member_id": str(mid), "old_role": "member", "new_role": "admin"},
        )
    ]
    # The same role again changes nothing and records nothing.
    assert _patch(client, acme, mid, {"role": "admin"}).status_code == 200
    assert len(_events(app, acme.org_id, "member.role_changed")) == 1


def test_last_owner_cannot_be_demoted_and_the_page_says_why(app, client, acme):
    mid = _member_id(app, acme.org_id, acme.owner_email)
    resp = _patch(client, acme, mid, {"role": "admin"})
    assert_problem(resp, 409, "role")
    assert LAST_OWNER in resp.get_json()["detail"]
    assert "Make another member an owner first" in resp.get_json()["detail"]
    login(client, acme.owner_email)
    page = client.post(f"/o/{acme.slug}/settings/members/{mid}/role", data={"role": "member"})
    assert page.status_code == 409
    html = page.get_data(as_text=True)
    assert LAST_OWNER in html and "Make another member an owner first" in html
    assert _member(app, mid)["role"] == "owner"
    assert _events(app, acme.org_id, "member.role_changed") == []


def test_with_two_owners_one_may_step_down_but_not_the_last(app, client, acme):
    second = add_person(app, acme.org_id, "co@acme.test", "owner")
    mine = _member_id(app, acme.org_id, acme.owner_email)
    theirs = _member_id(app, acme.org_id, second.owner_email)
    assert _patch(client, acme, mine, {"role": "member"}, second.headers).status_code == 200
    assert_problem(_patch(client, acme, theirs, {"role": "admin"}, second.headers), 409, "role")


def test_admin_manages_members_and_admins_but_never_owners(app, client, acme):
    admin = add_person(app, acme.org_id, "adm@acme.test", "admin")
    ann = add_person(app, acme.org_id, "ann@acme.test")
    owner_mid = _member_id(app, acme.org_id, acme.owner_email)
    ann_mid = _member_id(app, acme.org_id, ann.owner_email)
    assert _patch(client, acme, ann_mid, {"role": "admin"}, admin.headers).status_code == 200
    assert _patch(client, acme, ann_mid, {"role": "member"}, admin.headers).status_code == 200
    resp = _patch(client, acme, ann_mid, {"role": "owner"}, admin.headers)
    assert_problem(resp, 403, "role")
    assert "Only an owner" in resp.get_json()["detail"]
    assert_problem(_patch(client, acme, owner_mid, {"role": "member"}, admin.headers), 403, "role")
    resp = _patch(client, acme, owner_mid, {"active": False}, admin.headers)
    assert_problem(resp, 403, "active")
    assert _member(app, owner_mid) == {"role": "owner", "active": True}
    # The page offers no owner option to an admin and no control on the owner's row.
    login(client, admin.owner_email)
    html = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    assert "Make owner" not in html and 'name="role" value="owner"' not in html
    assert "Only an owner can change an owner" in html


def test_a_demoted_admin_loses_admin_pages_at_once(app, client, acme):
    admin = add_person(app, acme.org_id, "adm@acme.test", "admin")
    login(client, admin.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/members").status_code == 200
    mid = _member_id(app, acme.org_id, admin.owner_email)
    assert _patch(client, acme, mid, {"role": "member"}).status_code == 200
    assert client.get(f"/o/{acme.slug}/settings/members").status_code == 403
    assert client.get(f"/o/{acme.slug}/").status_code == 200  # still signed in, still a member


def test_agent_role_can_change_but_never_to_owner(app, client, acme):
    mid = create_agent(client, acme, "Bot")["member_id"]
    assert_problem(_patch(client, acme, mid, {"role": "owner"}), 422, "role")
    assert _patch(client, acme, mid, {"role": "admin"}).status_code == 200
    resp = _patch(client, acme, mid, {"active": False})
    assert_problem(resp, 409, "active")
    assert "Settings > Agents" in resp.get_json()["detail"]


# -- deactivation ----------------------------------------------------------------------


def test_deactivate_revokes_tokens_and_reactivate_brings_back_a_member(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test", "admin")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    assert client.get(acme.url(""), headers=ann.headers).status_code == 200
    resp = _patch(client, acme, mid, {"active": False})
    assert resp.status_code == 200 and resp.get_json()["active"] is False
    assert client.get(acme.url(""), headers=ann.headers).status_code == 401
    ((actor, subject, data),) = _events(app, acme.org_id, "member.deactivated")
    assert (actor, subject, data["member_id"]) == (acme.owner_id, "ann@acme.test", str(mid))

    resp = _patch(client, acme, mid, {"active": True})
    assert resp.status_code == 200
    # The role they had comes back with them (an admin may give the admin role).
    assert resp.get_json()["active"] is True and resp.get_json()["role"] == "admin"
    added = _events(app, acme.org_id, "member.added")
    assert added[-1][0] == acme.owner_id and added[-1][1] == "ann@acme.test"
    # The revoked token stays revoked.
    assert client.get(acme.url(""), headers=ann.headers).status_code == 401


def test_deactivation_ends_sessions_when_no_org_is_left(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    other = app.test_client()
    login(other, ann.owner_email)
    assert other.get(f"/o/{acme.slug}/").status_code == 200
    login(client, acme.owner_email)
    mid = _member_id(app, acme.org_id, ann.owner_email)
    resp = client.post(f"/o/{acme.slug}/settings/members/{mid}/deactivate")
    assert resp.status_code == 302
    follow = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "is deactivated" in follow
    gone = other.get(f"/o/{acme.slug}/")
    assert gone.status_code == 302 and "/signin" in gone.headers["Location"]


def test_nobody_deactivates_themselves(app, client, acme):
    second = add_person(app, acme.org_id, "co@acme.test", "owner")
    mid = _member_id(app, acme.org_id, second.owner_email)
    resp = _patch(client, acme, mid, {"active": False}, second.headers)
    assert_problem(resp, 409, "active")
    assert "You cannot deactivate yourself" in resp.get_json()["detail"]
    login(client, second.owner_email)
    page = client.post(f"/o/{acme.slug}/settings/members/{mid}/deactivate")
    assert page.status_code == 409
    assert "You cannot deactivate yourself" in page.get_data(as_text=True)


def test_the_last_owner_cannot_be_deactivated_by_another_admin_path(app, client, acme):
    from workspace.admin import members
    from workspace.core.models import Account, Org, OrgMember
    from workspace.errors import ConflictError
    from workspace.security.permissions import Access

    co = add_person(app, acme.org_id, "co@acme.test", "owner")
    mine = _member_id(app, acme.org_id, acme.owner_email)
    assert _patch(client, acme, mine, {"active": False}, co.headers).status_code == 200
    # Now co is the last owner; nobody else may deactivate them: the service says why.
    with app.app_context():
        theirs = db.session.get(OrgMember, _member_id(app, acme.org_id, co.owner_email))
        fake_actor = OrgMember(org_id=acme.org_id, account_id=uuid.uuid4(), role="owner")
        access = Access(
            account=Account(id=uuid.uuid4(), email="x@y.z", name="x", kind="person"),
            org=db.session.get(Org, acme.org_id),
            member=fake_actor,
        )
        with pytest.raises(ConflictError, match=LAST_OWNER):
            members.set_active(access, theirs.id, False)
        db.session.rollback()


def test_scim_managed_members_keep_their_state_but_not_their_role(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    _scim_manage(app, acme.org_id, mid, ann.owner_email)
    resp = _patch(client, acme, mid, {"active": False})
    assert_problem(resp, 409, "active")
    assert "managed by your identity provider" in resp.get_json()["detail"]
    assert _member(app, mid)["active"] is True
    assert _patch(client, acme, mid, {"role": "admin"}).status_code == 200
    login(client, acme.owner_email)
    html = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    row = next(r for r in _rows(html) if "ann@acme.test" in r)
    assert "Managed by your identity provider" in row and "Deactivate" not in row
    page = client.post(f"/o/{acme.slug}/settings/members/{mid}/deactivate")
    assert page.status_code == 409
    assert "managed by your identity provider" in page.get_data(as_text=True)


def test_the_page_deactivates_and_reactivates(app, client, acme):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    login(client, acme.owner_email)
    html = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    assert re.search(r'data-confirm="Deactivate Ann\?', html)
    assert client.post(f"/o/{acme.slug}/settings/members/{mid}/deactivate").status_code == 302
    assert _member(app, mid)["active"] is False
    html = client.get(f"/o/{acme.slug}/settings/members").get_data(as_text=True)
    row = next(r for r in _rows(html) if "ann@acme.test" in r)
    assert "deactivated" in row and "Reactivate" in row
    resp = client.post(f"/o/{acme.slug}/settings/members/{mid}/reactivate", data={"q": "ann"})
    assert resp.status_code == 302 and "q=ann" in resp.headers["Location"]
    assert _member(app, mid)["active"] is True


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, field",
    [
        ({"role": "emperor"}, "role"),
        ({"role": None}, "role"),
        ({"active": "no"}, "active"),
        ({"active": 0}, "active"),
        ({"nickname": "x"}, "nickname"),
    ],
)
def test_patch_refuses_bad_input_by_field(app, client, acme, body, field):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    assert_problem(_patch(client, acme, mid, body), 400, field)


def test_patch_malformed_json_unknown_and_foreign_ids(app, client, acme, globex):
    ann = add_person(app, acme.org_id, "ann@acme.test")
    mid = _member_id(app, acme.org_id, ann.owner_email)
    resp = client.patch(
        acme.url(f"/members/{mid}"),
        data="{not json",
        headers={**acme.headers, "Content-Type": "application/json"},
    )
    assert_problem(resp, 400)
    assert_problem(_patch(client, acme, uuid.uuid4(), {"role": "admin"}), 404)
    foreign = _member_id(app, globex.org_id, globex.owner_email)
    assert_problem(_patch(client, acme, foreign, {"role": "member"}), 404)
    assert (
        client.patch(acme.url("/members/not-a-uuid"), json={}, headers=acme.headers).status_code
        == 404
    )
    login(client, acme.owner_email)
    assert (
        client.post(
            f"/o/{acme.slug}/settings/members/{foreign}/role", data={"role": "member"}
        ).status_code
        == 404
    )
    page = client.post(f"/o/{acme.slug}/settings/members/{mid}/role", data={"role": "emperor"})
    assert page.status_code == 400
    assert _member(app, foreign)["role"] == "owner"


# -- the permission table --------------------------------------------------------------


@pytest.fixture
def roles(app, client, acme):
    """Who asks: a project viewer, a commenter, a plain member, an org admin, an org
    owner and an agent (org role member, project member)."""
    project = create_project(client, acme)
    people = {
        "viewer": add_person(app, acme.org_id, "viewer@acme.test"),
        "commenter": add_person(app, acme.org_id, "commenter@acme.test"),
        "member": add_person(app, acme.org_id, "member@acme.test"),
        "admin": add_person(app, acme.org_id, "admin@acme.test", "admin"),
        "owner": acme,
    }
    for role in ("viewer", "commenter", "member"):
        resp = client.post(
            acme.url(f"/projects/{project['id']}/members"),
            json={"account_id": str(people[role].owner_id), "role": role},
            headers=acme.headers,
        )
        assert resp.status_code in (200, 201), resp.get_json()
    agent = create_agent(client, acme, "Bot", project_ids=[project["id"]])
    target = add_person(app, acme.org_id, "target@acme.test")
    return people, agent, _member_id(app, acme.org_id, target.owner_email)


MANAGE = "Only an org owner or admin can manage members."
STATUS = {"viewer": 403, "commenter": 403, "member": 403, "admin": 200, "owner": 200}


@pytest.mark.parametrize("role", list(STATUS))
def test_permission_table_json(client, acme, roles, role):
    people, _, target = roles
    who = people[role]
    resp = _patch(client, acme, target, {"role": "admin"}, who.headers)
    assert resp.status_code == STATUS[role], resp.get_json()
    if STATUS[role] == 403:
        assert resp.get_json()["detail"] == MANAGE
    invite = client.post(
        acme.url("/invitations"), json={"email": f"new-{role}@acme.test"}, headers=who.headers
    )
    assert invite.status_code == (201 if STATUS[role] == 200 else 403), invite.get_json()


@pytest.mark.parametrize("role", list(STATUS))
def test_permission_table_pages(client, acme, roles, role):
    people, _, target = roles
    login(client, people[role].owner_email)
    resp = client.get(f"/o/{acme.slug}/settings/members")
    assert resp.status_code == STATUS[role]
    if STATUS[role] == 403:
        assert MANAGE in resp.get_data(as_text=True)
    change = client.post(f"/o/{acme.slug}/settings/members/{target}/role", data={"role": "admin"})
    assert change.status_code == (302 if STATUS[role] == 200 else 403)


def test_permission_table_agent(app, client, acme, roles):
    from workspace.security.permissions import AGENT_REFUSED

    _, agent, target = roles
    token = bearer(agent["token"])
    resp = _patch(client, acme, target, {"role": "admin"}, token)
    assert resp.status_code == 403 and resp.get_json()["detail"] == AGENT_REFUSED
    inv = client.post(acme.url("/invitations"), json={"email": "x@acme.test"}, headers=token)
    assert inv.status_code == 403
    # A bearer token never opens the HTML pages: they take a browser session only.
    page = client.get(f"/o/{acme.slug}/settings/members", headers=token)
    assert page.status_code == 302 and "/signin" in page.headers["Location"]
    # An agent an owner made an org admin may manage members (docs/security.md#agents).
    assert _patch(client, acme, agent["member_id"], {"role": "admin"}).status_code == 200
    assert _patch(client, acme, target, {"role": "admin"}, token).status_code == 200


def test_other_orgs_and_strangers(client, acme, globex):
    resp = client.patch(
        acme.url(f"/members/{uuid.uuid4()}"), json={"role": "admin"}, headers=globex.headers
    )
    assert resp.status_code == 404
    login(client, globex.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/members").status_code == 404


def test_two_owners_demoting_each_other_at_once_leave_one_owner(app, acme):
    """The org row is locked before the owners are counted: of two concurrent
    demotions of the only two owners, one passes and the other is refused."""
    import threading

    co = add_person(app, acme.org_id, "co@acme.test", "owner")
    mine = _member_id(app, acme.org_id, acme.owner_email)
    theirs = _member_id(app, acme.org_id, co.owner_email)
    barrier = threading.Barrier(2)
    results = []

    def demote(headers, target):
        c = app.test_client()
        barrier.wait()
        results.append(_patch(c, acme, target, {"role": "member"}, headers).status_code)

    threads = [
        threading.Thread(target=demote, args=(acme.headers, theirs)),
        threading.Thread(target=demote, args=(co.headers, mine)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) in ([200, 403], [200, 409])  # the loser is no owner any more, or last
    roles = sorted([_member(app, mine)["role"], _member(app, theirs)["role"]])
    assert roles == ["member", "owner"]


def _waits_for(app, hold, ask, release):
    """``ask()`` (a request) from another thread while this transaction runs ``hold()``
    and keeps what it locked; ``release()`` ends the transaction. Whether the request
    was still waiting a second later, and its answers."""
    import threading

    answers = []
    with app.app_context():
        hold()
        worker = threading.Thread(target=lambda: answers.append(ask()))
        worker.start()
        worker.join(1.0)
        waited = worker.is_alive()
        release()
    worker.join(10)
    return waited, answers


def test_a_role_change_waits_for_whoever_holds_the_org_lock(app, acme):
    """The race above in slow motion, so it cannot pass by luck: while another
    transaction holds the org's lock, a demotion waits for it (on SQLite, for its write
    lock) instead of counting owners that may be on their way out."""
    from workspace.core.accounts import _lock_org

    co = add_person(app, acme.org_id, "co@acme.test", "owner")
    theirs = _member_id(app, acme.org_id, co.owner_email)
    waited, answers = _waits_for(
        app,
        lambda: _lock_org(acme.org_id),
        lambda: _patch(app.test_client(), acme, theirs, {"role": "member"}),
        db.session.rollback,
    )
    results = [r.status_code for r in answers]
    assert waited, "the demotion did not wait for the org's lock"
    assert results == [200]
    assert _member(app, theirs)["role"] == "member"


def test_a_hand_back_racing_a_promotion_to_owner_never_writes_the_owner(app, acme):
    """An owner's role is never group sync's. The hand-back reads the role again under
    the person's lock: while another transaction makes them owner and holds that lock,
    the hand-back waits, then refuses (409) instead of writing them down to member."""
    from workspace.core.models import OrgMember
    from workspace.identity.groupsync.org_role import lock_person

    mia = add_person(app, acme.org_id, "mia@acme.test", "admin")
    theirs = _member_id(app, acme.org_id, mia.owner_email)

    def promote():
        lock_person(acme.org_id, mia.owner_id)
        db.session.get(OrgMember, theirs).role = "owner"

    waited, answers = _waits_for(
        app,
        promote,
        lambda: _patch(app.test_client(), acme, theirs, {"role_from_groups": True}),
        db.session.commit,
    )
    results = [(r.status_code, r.get_json().get("detail", "")) for r in answers]
    assert waited, "the hand-back did not wait for the person's lock"
    assert results and results[0][0] == 409, results
    assert "never sets an owner's role" in results[0][1]
    assert _member(app, theirs)["role"] == "owner"
