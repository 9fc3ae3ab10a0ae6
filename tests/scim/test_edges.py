"""Edges found by probing: inputs that pass validation one attribute at a time but
not together, absurd paging, PATCHes that must not reactivate, lax booleans, and
two owners removed at once."""

from __future__ import annotations

import json
import threading

import pytest
import requests

from tests.conftest import make_org
from tests.scim.conftest import (
    SCIM_JSON,
    USER,
    assert_scim_error,
    member_state,
    new_scim_token,
)


def test_long_name_parts_join_into_a_name_that_fits(app, scim):
    user = scim.create("long@example.test", name={"givenName": "G" * 200, "familyName": "F" * 200})
    assert user["name"]["givenName"] == "G" * 200  # the SCIM document keeps every part
    from workspace.core.accounts import find_account

    with app.app_context():
        assert find_account("long@example.test").name == "G" * 200


def test_emails_are_bounded_so_their_filter_keys_fit(app, scim):
    many = [{"value": f"{'x' * 300}{i}@example.test", "type": "work"} for i in range(11)]
    body = {"schemas": [USER], "userName": "many@example.test", "emails": many}
    assert "At most 10" in assert_scim_error(scim.post("/Users", body), 400)["detail"]
    odd_type = [{"value": "a@example.test", "type": "t" * 40}]
    body = {"schemas": [USER], "userName": "type@example.test", "emails": odd_type}
    assert "emails.type" in assert_scim_error(scim.post("/Users", body), 400)["detail"]
    ten = many[:10]
    created = scim.create("ten@example.test", emails=ten)
    found = scim.get(
        "/Users", query_string={"filter": f'emails[type eq "work"].value eq "{ten[9]["value"]}"'}
    ).get_json()
    assert [r["id"] for r in found["Resources"]] == [created["id"]]
    assert member_state(app, scim.org.org_id, "ten@example.test") == (True, "member")


@pytest.mark.parametrize(
    "body",
    [
        '{"schemas": ["' + USER + '"], "userName": "nul\\u0000@example.test"}',
        '{"schemas": ["'
        + USER
        + '"], "userName": "a@example.test", "x": '
        + "[" * 5000
        + "]" * 5000
        + "}",
    ],
    ids=["nul", "deep"],
)
def test_nul_and_runaway_nesting_are_scim_400s(app, scim, body):
    resp = scim.client.post(
        f"{scim.base}/Users", data=body, headers={**scim.headers(), "Content-Type": SCIM_JSON}
    )
    assert_scim_error(resp, 400, "invalidSyntax")
    assert scim.get("/Users").get_json()["totalResults"] == 1  # the owner only


def test_start_index_beyond_the_end_is_an_empty_page(scim):
    for start in ("5", "99999999999999999999"):
        page = scim.get("/Users", query_string={"startIndex": start}).get_json()
        assert page["totalResults"] == 1 and page.get("Resources", []) == []


def test_patch_without_an_active_value_does_not_reactivate(app, scim):
    user = scim.create("gone@example.test")
    scim.patch(f"/Users/{user['id']}", [{"op": "replace", "path": "active", "value": False}])
    assert member_state(app, scim.org.org_id, "gone@example.test") == (False, "member")
    for op in (
        {"op": "remove", "path": "active"},
        {"op": "replace", "path": "active", "value": None},
        {"op": "replace", "path": "displayName", "value": "Still gone"},
    ):
        resp = scim.patch(f"/Users/{user['id']}", [op])
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert resp.get_json()["active"] is False, op
        assert member_state(app, scim.org.org_id, "gone@example.test") == (False, "member")
    back = scim.patch(
        f"/Users/{user['id']}", [{"op": "Replace", "path": "active", "value": "True"}]
    )
    assert back.get_json()["active"] is True


@pytest.mark.parametrize("value", ["yes", 0, 1, "off", []])
def test_active_must_be_a_boolean(app, scim, value):
    body = {"schemas": [USER], "userName": "lax@example.test", "active": value}
    resp = scim.post("/Users", body)
    assert "active" in assert_scim_error(resp, 400, "invalidValue")["detail"]
    assert member_state(app, scim.org.org_id, "lax@example.test") is None


def test_patch_type_errors_read_like_other_validation_errors(scim):
    user = scim.create("pat@example.test")
    resp = scim.patch(f"/Users/{user['id']}", [{"op": "replace", "path": "name", "value": "Pat"}])
    detail = assert_scim_error(resp, 400, "invalidValue")["detail"]
    assert "name" in detail and "pydantic" not in detail and "validation error for" not in detail


def test_conflict_on_the_email_says_so(scim):
    scim.create("taken@example.test")
    body = {"schemas": [USER], "userName": "plain", "emails": [{"value": "taken@example.test"}]}
    detail = assert_scim_error(scim.post("/Users", body), 409, "uniqueness")["detail"]
    assert "taken@example.test" in detail and "'plain'" not in detail


def test_two_owners_removed_at_once_leave_one(live_server):
    """Each DELETE alone is allowed; together they would leave no owner."""
    app = live_server.app
    org = make_org(app, "Owners", "first@owners.test")
    token = new_scim_token(app, org.org_id)
    from tests.conftest import add_person

    add_person(app, org.org_id, "second@owners.test", role="owner")
    base = f"{live_server.url}/scim/v2/orgs/{org.org_id}"
    auth = {"Authorization": f"Bearer {token}"}
    ids = {
        r["userName"]: r["id"]
        for r in requests.get(f"{base}/Users", headers=auth, timeout=30).json()["Resources"]
    }
    assert len(ids) == 2
    start = threading.Barrier(2)
    statuses: list[int] = []

    def remove(user_id: str) -> None:
        start.wait()
        statuses.append(
            requests.delete(f"{base}/Users/{user_id}", headers=auth, timeout=60).status_code
        )

    threads = [threading.Thread(target=remove, args=(i,)) for i in ids.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [204, 400], statuses
    active = [member_state(app, org.org_id, e) for e in ("first@owners.test", "second@owners.test")]
    assert sorted(a for a, _ in active) == [False, True]


def test_token_answers_are_never_cached(client, acme):
    resp = client.post(acme.url("/scim-token"), headers=acme.headers)
    assert resp.status_code in (200, 201) and json.loads(resp.data)["token"].startswith("scim_")
    assert resp.headers["Cache-Control"] == "no-store"


def test_nul_in_a_filter_is_a_scim_400(scim):
    resp = scim.get("/Users", query_string={"filter": 'userName eq "a\x00@example.test"'})
    assert "NUL" in assert_scim_error(resp, 400)["detail"]
