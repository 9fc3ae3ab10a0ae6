"""Deprovisioning sticks (docs/security.md#deprovisioning-sticks): a deactivated
membership comes back only through whoever may reactivate it, never as a side effect
of the person signing in through the org's IdP while the IdP still knows them."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories import member_id
from tests.scim.conftest import Scim, member_state, new_scim_token
from workspace.core.models import Event
from workspace.extensions import db


def _rejections(app, org_id) -> list[str]:
    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == "auth.sso.rejected")
        )
        return [e.data.get("reason") for e in rows]


def test_a_member_an_admin_deactivated_is_refused_at_the_next_sso_sign_in(app, client, sso):
    first = app.test_client()
    assert (
        sso.sign_in(first, "dee-sub", email="dee@acme.test", email_verified=True).status_code == 302
    )
    mid = str(member_id(app, sso.org.org_id, "dee@acme.test"))
    resp = client.patch(
        sso.org.url(f"/members/{mid}"), json={"active": False}, headers=sso.org.headers
    )
    assert resp.status_code == 200 and resp.get_json()["active"] is False

    # Still enabled at the IdP: the sign-in is refused, and says why.
    again = app.test_client()
    resp = sso.sign_in(again, "dee-sub")
    assert resp.status_code == 403
    assert "Your access to Acme was removed by its administrators" in resp.get_data(as_text=True)
    assert again.get(f"/o/{sso.org.slug}/").status_code == 302
    assert member_state(app, sso.org.org_id, "dee@acme.test") == (False, "member")
    assert _rejections(app, sso.org.org_id) == ["deactivated"]
    with app.app_context():
        added = db.session.scalars(
            select(Event).where(Event.org_id == sso.org.org_id, Event.kind == "member.added")
        ).all()
        assert [e.subject for e in added].count("dee@acme.test") == 1  # the JIT join only

    # The admin brings them back; then the IdP signs them in again.
    resp = client.patch(
        sso.org.url(f"/members/{mid}"), json={"active": True}, headers=sso.org.headers
    )
    assert resp.status_code == 200
    assert sso.sign_in(app.test_client(), "dee-sub").status_code == 302


def test_a_user_scim_deactivated_stays_inactive_for_scim_after_an_sso_sign_in(app, client, sso):
    scim = Scim(client, sso.org, new_scim_token(app, sso.org.org_id, ()))
    user = scim.create("sam@acme.test", emails=[{"value": "sam@acme.test", "primary": True}])
    resp = scim.patch(f"/Users/{user['id']}", [{"op": "replace", "value": {"active": False}}])
    assert resp.status_code == 200 and resp.get_json()["active"] is False

    resp = sso.sign_in(app.test_client(), "sam-sub", email="sam@acme.test", email_verified=True)
    assert resp.status_code == 403
    # The IdP's view does not drift: SCIM still says inactive.
    assert scim.get(f"/Users/{user['id']}").get_json()["active"] is False
    assert member_state(app, sso.org.org_id, "sam@acme.test")[0] is False
    # SCIM, which manages the member, may bring them back.
    resp = scim.patch(f"/Users/{user['id']}", [{"op": "replace", "path": "active", "value": True}])
    assert resp.status_code == 200 and resp.get_json()["active"] is True
    assert sso.sign_in(app.test_client(), "sam-sub").status_code == 302
