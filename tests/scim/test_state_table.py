"""The SCIM user states of docs/scim.md, row by row (plus the token lifecycle)."""

from __future__ import annotations

from sqlalchemy import select

from tests.conftest import add_person
from tests.scim.conftest import USER, assert_scim_error, event_kinds, member_state


def test_post_provisions_an_active_member_with_a_verified_account(app, scim):
    """(no membership) --POST /Users--> active member, role Member; account created
    email-verified; scim.user.provisioned recorded with who, when and the SCIM id."""
    user = scim.create("Ada@Example.test", name={"givenName": "Ada", "familyName": "Lovelace"})
    assert user["active"] is True and user["userName"] == "Ada@Example.test"
    assert member_state(app, scim.org.org_id, "ada@example.test") == (True, "member")
    from workspace.core.accounts import find_account
    from workspace.core.events import list_events

    with app.app_context():
        account = find_account("ada@example.test")
        assert account.email_verified and account.name == "Ada Lovelace"
        [event] = list_events(scim.org.org_id, kind_prefix="scim.user.provisioned")
        assert event.subject == "ada@example.test" and event.data["scim_id"] == user["id"]
        assert event.created_at is not None and event.data["by"].startswith("SCIM token scim_")


def test_email_comes_from_first_emails_entry_when_username_is_not_one(app, scim):
    scim.create(
        "ada.lovelace",
        emails=[
            {"value": "ada@corp.test", "type": "work"},
            {"value": "ada@home.test", "type": "home"},
        ],
    )
    assert member_state(app, scim.org.org_id, "ada@corp.test") == (True, "member")
    assert member_state(app, scim.org.org_id, "ada@home.test") is None


def test_existing_account_is_reused_and_not_marked_verified(app, scim, globex):
    from workspace.core.accounts import ensure_account, find_account
    from workspace.extensions import db

    with app.app_context():
        ensure_account("known@example.test", "Known Person")
        db.session.commit()
    scim.create("known@example.test", displayName="Someone Else")
    with app.app_context():
        account = find_account("known@example.test")
        # Reused as is: one org's IdP does not vouch for, or rename, a shared account.
        assert account.name == "Known Person" and not account.email_verified


def _deactivation_rows(scim, how: str, user_id: str):
    if how == "put":
        return scim.put(
            f"/Users/{user_id}",
            {"schemas": [USER], "userName": "bob@example.test", "active": False},
        )
    if how == "patch":
        return scim.patch(
            f"/Users/{user_id}", [{"op": "replace", "path": "active", "value": False}]
        )
    return scim.delete(f"/Users/{user_id}")


def test_put_patch_delete_deactivate_keeping_account_and_work(app, scim):
    """active --PUT active false / PATCH replace active false / DELETE--> inactive:
    membership removed, account and authored content kept, scim.user.deactivated."""
    user = scim.create("bob@example.test")
    for how in ("put", "patch", "delete"):
        if how != "put":
            resp = scim.patch(
                f"/Users/{user['id']}", [{"op": "replace", "path": "active", "value": True}]
            )
            assert resp.status_code == 200 and resp.get_json()["active"] is True
        _write_something(app, scim.org.org_id, "bob@example.test")
        resp = _deactivation_rows(scim, how, user["id"])
        assert resp.status_code == (204 if how == "delete" else 200), resp.get_data(as_text=True)
        if how != "delete":
            assert resp.get_json()["active"] is False
        assert member_state(app, scim.org.org_id, "bob@example.test") == (False, "member")
        assert _task_count(app, scim.org.org_id) >= 1
    assert event_kinds(app, scim.org.org_id).count("scim.user.deactivated") == 3
    # DELETE also ends the SCIM resource (RFC 7644 §3.6)...
    assert_scim_error(scim.get(f"/Users/{user['id']}"), 404)
    # ...and provisioning the user again brings back the same membership.
    again = scim.create("bob@example.test")
    assert again["id"] == user["id"] and again["active"] is True


def test_last_owner_is_never_deactivated(app, scim):
    """active --any deactivation, last owner--> active; membership left in place."""
    [owner] = scim.get('/Users?filter=userName eq "owner@acme.test"').get_json()["Resources"]
    for resp in (
        scim.put(
            f"/Users/{owner['id']}",
            {"schemas": [USER], "userName": "owner@acme.test", "active": False},
        ),
        scim.patch(f"/Users/{owner['id']}", [{"op": "replace", "value": {"active": False}}]),
        scim.delete(f"/Users/{owner['id']}"),
    ):
        body = assert_scim_error(resp, 400, "mutability")
        assert "last owner" in body["detail"]
        assert member_state(app, scim.org.org_id, "owner@acme.test") == (True, "owner")
    assert scim.get(f"/Users/{owner['id']}").get_json()["active"] is True
    assert "scim.user.deactivated" not in event_kinds(app, scim.org.org_id)


def test_one_of_two_owners_can_be_deactivated(app, scim):
    add_person(app, scim.org.org_id, "second@acme.test", role="owner")
    [owner] = scim.get('/Users?filter=userName eq "owner@acme.test"').get_json()["Resources"]
    assert scim.delete(f"/Users/{owner['id']}").status_code == 204
    assert member_state(app, scim.org.org_id, "owner@acme.test") == (False, "owner")


def test_reactivation_restores_the_role(app, scim):
    """inactive --PUT or PATCH active true--> active, with the role they had."""
    admin = add_person(app, scim.org.org_id, "carol@acme.test", role="admin")
    [carol] = scim.get('/Users?filter=userName eq "carol@acme.test"').get_json()["Resources"]
    assert (
        scim.patch(
            f"/Users/{carol['id']}", [{"op": "replace", "path": "active", "value": False}]
        ).status_code
        == 200
    )
    resp = scim.put(
        f"/Users/{carol['id']}", {"schemas": [USER], "userName": "carol@acme.test", "active": True}
    )
    assert resp.status_code == 200 and resp.get_json()["active"] is True
    assert member_state(app, scim.org.org_id, admin.owner_email) == (True, "admin")
    assert (
        scim.patch(
            f"/Users/{carol['id']}", [{"op": "replace", "path": "active", "value": False}]
        ).status_code
        == 200
    )
    resp = scim.patch(f"/Users/{carol['id']}", [{"op": "replace", "path": "active", "value": True}])
    assert resp.get_json()["active"] is True
    assert member_state(app, scim.org.org_id, "carol@acme.test") == (True, "admin")
    assert event_kinds(app, scim.org.org_id).count("scim.user.reactivated") == 2


def test_put_without_active_means_active(app, scim):
    user = scim.create("dan@example.test", active=False)
    assert user["active"] is False
    assert member_state(app, scim.org.org_id, "dan@example.test") == (False, "member")
    resp = scim.put(f"/Users/{user['id']}", {"schemas": [USER], "userName": "dan@example.test"})
    assert resp.status_code == 200 and resp.get_json()["active"] is True
    assert member_state(app, scim.org.org_id, "dan@example.test") == (True, "member")


def test_token_states(app, client, acme, scim):
    """Token: none -> configured (shown once) -> new token revokes old -> revoked."""
    first = scim.token
    assert scim.get("/Users").status_code == 200
    resp = client.post(acme.url("/scim-token"), headers=acme.headers)
    second = resp.get_json()["token"]
    assert_scim_error(scim.get("/Users", headers=scim.headers(first)), 401)
    assert scim.get("/Users", headers=scim.headers(second)).status_code == 200
    assert client.delete(acme.url("/scim-token"), headers=acme.headers).status_code == 204
    assert_scim_error(scim.get("/Users", headers=scim.headers(second)), 401)


def _write_something(app, org_id, email):
    from workspace.core import projects, tasks
    from workspace.core.accounts import find_account
    from workspace.extensions import db

    with app.app_context():
        account = find_account(email)
        project = projects.create_project(
            org_id, account.id, f"P {_task_count(app, org_id)}", None, ""
        )
        tasks.create_task(project, account.id, title="Written before deactivation")
        db.session.commit()


def _task_count(app, org_id):
    from sqlalchemy import func

    from workspace.core.models import Task
    from workspace.extensions import db

    with app.app_context():
        return db.session.scalar(
            select(func.count()).select_from(Task).where(Task.org_id == org_id)
        )
