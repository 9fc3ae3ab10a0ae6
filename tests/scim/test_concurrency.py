"""20 IdP requests creating the same user at once: the database's unique
constraints decide, so exactly one account and one membership appear and the
other 19 requests get 409 uniqueness."""

from __future__ import annotations

import threading

import requests
from sqlalchemy import func, select

from tests.conftest import make_org
from tests.scim.conftest import SCIM_JSON, USER, new_scim_token


def test_twenty_concurrent_creations_make_one_member(live_server):
    app = live_server.app
    org = make_org(app, "Race", "owner@race.test")
    token = new_scim_token(app, org.org_id, ("race.test", "example.test"))
    url = f"{live_server.url}/scim/v2/orgs/{org.org_id}/Users"
    start = threading.Barrier(20)
    results: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def create(i: int) -> None:
        start.wait()
        resp = requests.post(
            url,
            timeout=60,
            json={
                "schemas": [USER],
                "userName": "Racer@Example.test" if i % 2 else "racer@example.test",
                "externalId": f"idp-{i}",
            },
            headers={"Authorization": f"Bearer {token}", "Content-Type": SCIM_JSON},
        )
        with lock:
            results.append((resp.status_code, resp.json()))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * 19, results
    assert all(body.get("scimType") == "uniqueness" for status, body in results if status == 409)

    from workspace.core.models import Account, OrgMember
    from workspace.extensions import db
    from workspace.scim.models import ScimIdentity

    with app.app_context():
        assert (
            db.session.scalar(
                select(func.count())
                .select_from(Account)
                .where(Account.email == "racer@example.test")
            )
            == 1
        )
        assert (
            db.session.scalar(
                select(func.count())
                .select_from(OrgMember)
                .join(Account)
                .where(OrgMember.org_id == org.org_id, Account.email == "racer@example.test")
            )
            == 1
        )
        assert (
            db.session.scalar(
                select(func.count())
                .select_from(ScimIdentity)
                .where(ScimIdentity.org_id == org.org_id)
            )
            == 1
        )


def test_a_patch_that_loses_a_deadlock_runs_again_with_its_body(monkeypatch, scim):
    """A SCIM write that loses a race is run again whole (transaction.transactional);
    the second run reads the same body. It read the request stream, which the first run
    had emptied, and answered 400 "not valid JSON" (two group PATCHes adding one person
    at once met it)."""
    from tests.factories import lose_a_deadlock
    from workspace.scim import users

    user = scim.create("dana@acme.test", active=True)
    calls = []
    original = users.patch_user

    def patch_user(*args, **kwargs):
        calls.append(1)
        written = original(*args, **kwargs)
        if len(calls) == 1:
            lose_a_deadlock()
        return written

    monkeypatch.setattr(users, "patch_user", patch_user)
    resp = scim.patch(
        f"/Users/{user['id']}", [{"op": "replace", "path": "displayName", "value": "Dana R"}]
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["displayName"] == "Dana R"
    assert len(calls) == 2
