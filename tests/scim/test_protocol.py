"""RFC 7644 protocol behaviour beyond the state table: discovery, filters, paging,
uniqueness, org scoping and every error in the SCIM error schema."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import add_person
from tests.scim.conftest import LIST, SCIM_JSON, USER, assert_scim_error, new_scim_token


def _names(resp) -> list[str]:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == SCIM_JSON
    return [r["userName"] for r in resp.get_json().get("Resources", [])]


def test_discovery_endpoints(scim):
    spc = scim.get("/ServiceProviderConfig")
    assert spc.mimetype == SCIM_JSON
    body = spc.get_json()
    assert body["patch"]["supported"] is True and body["bulk"]["supported"] is False
    assert body["authenticationSchemes"][0]["type"] == "oauthbearertoken"
    types = scim.get("/ResourceTypes").get_json()
    assert types["schemas"] == [LIST] and types["totalResults"] == 2
    assert [t["endpoint"] for t in types["Resources"]] == ["/Users", "/Groups"]
    assert scim.get("/ResourceTypes/User").get_json()["schema"] == USER
    schemas = scim.get("/Schemas").get_json()
    assert {s["id"] for s in schemas["Resources"]} >= {USER}
    user_schema = scim.get(f"/Schemas/{USER}").get_json()
    by_name = {a["name"]: a for a in user_schema["attributes"]}
    assert by_name["userName"]["mutability"] == "readWrite"  # renames: docs/scim.md#renames
    assert by_name["userName"]["uniqueness"] == "server"
    assert_scim_error(scim.get("/Schemas/urn:nope"), 404)
    assert_scim_error(scim.get("/ResourceTypes/Device"), 404)


def test_groups_starts_as_an_empty_list(scim):
    body = scim.get("/Groups").get_json()
    assert body == {
        "schemas": [LIST],
        "totalResults": 0,
        "startIndex": 1,
        "itemsPerPage": 0,
        "Resources": [],
    }
    assert_scim_error(scim.get(f"/Groups/{uuid.uuid4()}"), 404)


def test_filters(scim):
    scim.create(
        "alice@example.test",
        externalId="okta-1",
        emails=[
            {"value": "alice@example.test", "type": "work", "primary": True},
            {"value": "alice@home.test", "type": "home"},
        ],
    )
    scim.create("bob@example.test", externalId="okta-2")
    q = "/Users?filter="
    assert _names(scim.get(q + 'userName eq "ALICE@example.test"')) == ["alice@example.test"]
    assert _names(scim.get(q + 'externalId eq "okta-2"')) == ["bob@example.test"]
    assert _names(scim.get(q + 'externalId eq "OKTA-2"')) == []  # externalId is caseExact
    assert _names(scim.get(q + 'emails[type eq "work"].value eq "alice@example.test"')) == [
        "alice@example.test"
    ]
    assert _names(scim.get(q + 'emails[type eq "work"].value eq "alice@home.test"')) == []
    assert _names(scim.get(q + 'emails.value eq "alice@home.test"')) == ["alice@example.test"]
    # Members SCIM never wrote have their account email as their work email.
    assert _names(scim.get(q + 'emails[type eq "work"].value eq "owner@acme.test"')) == [
        "owner@acme.test"
    ]
    assert _names(scim.get(q + 'userName eq "alice@example.test" or externalId eq "okta-2"')) == [
        "alice@example.test",
        "bob@example.test",
    ]
    assert _names(scim.get(q + 'userName eq "alice@example.test" and externalId eq "okta-2"')) == []
    assert _names(scim.get(q + 'userName eq "nobody@example.test"')) == []
    for bad in (
        'userName co "ali"',
        'title eq "x"',
        'nickName eq "x"',
        "userName eq",
        'name.givenName eq "x"',
        'not (userName eq "x")',
    ):
        assert_scim_error(scim.get(q + bad), 400, "invalidFilter")


def test_paging_is_one_based_and_stable(app, scim):
    for i in range(5):
        scim.create(f"user{i}@example.test")
    everyone = _names(scim.get("/Users"))
    assert everyone[0] == "owner@acme.test" and len(everyone) == 6
    page = scim.get("/Users?startIndex=2&count=2").get_json()
    assert page["totalResults"] == 6 and page["startIndex"] == 2 and page["itemsPerPage"] == 2
    assert [r["userName"] for r in page["Resources"]] == everyone[1:3]
    assert _names(scim.get("/Users?startIndex=6&count=5")) == everyone[5:]
    assert _names(scim.get("/Users?startIndex=0&count=1")) == everyone[:1]  # <1 means 1
    totals = scim.get("/Users?count=0").get_json()
    assert totals["totalResults"] == 6 and totals["itemsPerPage"] == 0
    assert totals["Resources"] == []
    assert _names(scim.get("/Users?startIndex=50")) == []
    assert_scim_error(scim.get("/Users?count=many"), 400)


def test_search_endpoint(scim):
    scim.create("alice@example.test")
    resp = scim.post(
        "/Users/.search",
        {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
            "filter": 'userName eq "alice@example.test"',
            "attributes": ["userName"],
        },
    )
    [found] = resp.get_json()["Resources"]
    assert set(found) == {"schemas", "id", "userName", "active"}


def test_username_uniqueness_is_case_insensitive(app, scim):
    scim.create("Taken@Example.test")
    body = assert_scim_error(
        scim.post("/Users", {"schemas": [USER], "userName": "taken@example.TEST"}),
        409,
        "uniqueness",
    )
    assert "already taken" in body["detail"]
    # A member who joined another way holds their email as userName too.
    assert_scim_error(
        scim.post("/Users", {"schemas": [USER], "userName": "OWNER@acme.test"}), 409, "uniqueness"
    )


@pytest.mark.parametrize(
    "user_id",
    [
        "nope",
        "12345",
        "3f0c5a52-8d0e-4c1e-9b7a-2a6f4c1d9e11",
        "' or 1=1 --",
        "00000000-0000-0000-0000-000000000000",
    ],
)
def test_unknown_ids_of_any_shape_are_404(scim, user_id):
    for method in ("GET", "PUT", "PATCH", "DELETE"):
        body = {"schemas": [USER], "userName": "x@example.test"} if method == "PUT" else None
        if method == "PATCH":
            body = {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{"op": "replace", "path": "active", "value": False}],
            }
        assert_scim_error(scim.request(method, f"/Users/{user_id}", body), 404)


def test_agents_and_other_orgs_are_invisible(app, client, scim, globex):
    from workspace.core.accounts import add_member
    from workspace.core.models import Account, AccountKind, Org
    from workspace.extensions import db

    with app.app_context():
        agent = Account(email="bot@agents.test", name="Bot", kind=AccountKind.AGENT)
        db.session.add(agent)
        db.session.flush()
        add_member(db.session.get(Org, scim.org.org_id), agent)
        db.session.commit()
    assert _names(scim.get("/Users")) == ["owner@acme.test"]
    other = add_person(app, globex.org_id, "g@globex.test")
    [g] = (
        scim.__class__(client, globex, new_scim_token(app, globex.org_id))
        .get('/Users?filter=userName eq "g@globex.test"')
        .get_json()["Resources"]
    )
    assert other.owner_email == g["userName"]
    assert_scim_error(scim.get(f"/Users/{g['id']}"), 404)
    assert_scim_error(scim.delete(f"/Users/{g['id']}"), 404)


def test_authentication(app, client, scim, globex):
    globex_token = new_scim_token(app, globex.org_id)
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic abc"},
        {"Authorization": f"Bearer {scim.token}x"},
        {"Authorization": f"Bearer {globex_token}"},  # another org's token
        {"Authorization": f"Bearer {scim.org.token}"},
    ):  # a ws_ API token
        resp = client.get(f"{scim.base}/Users", headers=headers)
        assert_scim_error(resp, 401)
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    resp = client.get(f"/scim/v2/orgs/{uuid.uuid4()}/Users", headers=scim.headers())
    assert_scim_error(resp, 401)


def test_routing_errors_use_the_scim_schema(scim, client):
    assert_scim_error(scim.get(f"/{uuid.uuid4()}"), 404)
    assert_scim_error(scim.get("/Users/a/b"), 404)
    assert_scim_error(client.get("/scim/v2/orgs/not-a-uuid/Users"), 404)
    assert_scim_error(client.get("/scim/nothing-here"), 404)
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        resp = scim.request(method, "/ServiceProviderConfig")
        assert_scim_error(resp, 405)
        assert "GET" in resp.headers["Allow"]
    assert_scim_error(scim.request("PUT", "/Users"), 405)


def _count_users(app) -> int:
    from sqlalchemy import func, select

    from workspace.core.models import Account
    from workspace.extensions import db
    from workspace.scim.models import ScimIdentity

    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Account)) + db.session.scalar(
            select(func.count()).select_from(ScimIdentity)
        )


@pytest.mark.parametrize(
    "body,scim_type",
    [
        (
            b'{"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": ',
            "invalidSyntax",
        ),
        (b"[1, 2]", "invalidSyntax"),
        (b'"just a string"', "invalidSyntax"),
        (json.dumps({"schemas": [USER], "userName": 42}).encode(), "invalidValue"),
        (
            json.dumps(
                {"schemas": [USER], "userName": "a@example.test", "active": [True]}
            ).encode(),
            "invalidValue",
        ),
        (
            json.dumps({"schemas": [USER], "userName": "a@example.test", "name": "Ada"}).encode(),
            "invalidValue",
        ),
        (
            json.dumps(
                {"schemas": [USER], "userName": "a@example.test", "emails": "a@x.test"}
            ).encode(),
            "invalidValue",
        ),
        (
            json.dumps({"schemas": [USER], "userName": "a@example.test", "shoeSize": 44}).encode(),
            None,
        ),
        (
            json.dumps(
                {
                    "schemas": [USER],
                    "userName": "a@example.test",
                    "emails": [{"value": "not an email"}],
                }
            ).encode(),
            "invalidValue",
        ),
        (
            json.dumps({"schemas": [USER], "userName": "x" * 400 + "@example.test"}).encode(),
            "invalidValue",
        ),
        (json.dumps({"schemas": [USER], "displayName": "No userName"}).encode(), None),
        (json.dumps({"schemas": [USER], "userName": "plainname"}).encode(), "invalidValue"),
        (
            json.dumps(
                {"schemas": [USER], "userName": "a@example.test", "displayName": "x" * 1_000_000}
            ).encode(),
            "invalidValue",
        ),
        (b"x" * (2 * 1024 * 1024), "invalidValue"),
    ],
)
def test_bad_bodies_are_scim_400_and_write_nothing(app, scim, body, scim_type):
    before = _count_users(app)
    resp = scim.client.post(
        f"{scim.base}/Users", data=body, headers={**scim.headers(), "Content-Type": SCIM_JSON}
    )
    detail = assert_scim_error(resp, 400, scim_type)["detail"]
    assert "Traceback" not in detail
    assert _count_users(app) == before


def test_one_megabyte_body_says_why(scim):
    body = json.dumps(
        {"schemas": [USER], "userName": "a@example.test", "displayName": "x" * 1_000_000}
    )
    assert len(body) > 1_000_000
    resp = scim.client.post(
        f"{scim.base}/Users",
        data=body,
        headers={**scim.headers(), "Content-Type": "application/json"},
    )
    assert "larger than" in assert_scim_error(resp, 400, "invalidValue")["detail"]


def test_bad_patches_change_nothing(app, scim):
    user = scim.create("pat@example.test", displayName="Pat")
    for ops, scim_type in (
        ([{"op": "move", "path": "active", "value": False}], "invalidValue"),
        ([{"op": "replace", "path": "shoeSize", "value": 44}], "invalidPath"),
        ([{"op": "replace", "path": "active", "value": "perhaps"}], "invalidValue"),
        (
            [
                {"op": "replace", "path": "displayName", "value": "Changed"},
                # A rename to a domain the org has not verified (docs/scim.md#renames).
                {"op": "replace", "path": "userName", "value": "other@unverified.test"},
            ],
            "invalidValue",
        ),
        ([], "invalidValue"),
    ):
        assert_scim_error(scim.patch(f"/Users/{user['id']}", ops), 400, scim_type)
    again = scim.get(f"/Users/{user['id']}").get_json()
    assert again["displayName"] == "Pat" and again["active"] is True
    assert_scim_error(scim.request("PATCH", f"/Users/{user['id']}", [1]), 400, "invalidSyntax")


def test_content_types(scim):
    resp = scim.client.post(
        f"{scim.base}/Users",
        data=json.dumps({"schemas": [USER], "userName": "ct@example.test"}),
        headers={**scim.headers(), "Content-Type": "application/json"},
    )
    assert resp.status_code == 201 and resp.mimetype == SCIM_JSON
    assert resp.headers["Location"].endswith(f"/Users/{resp.get_json()['id']}")
    resp = scim.client.post(
        f"{scim.base}/Users",
        data="userName=x",
        headers={**scim.headers(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_scim_error(resp, 415)


def test_resource_shape(app, scim):
    user = scim.create(
        "shape@example.test", externalId="ext-9", name={"givenName": "Sha", "familyName": "Pe"}
    )
    assert user["schemas"] == [USER]
    assert user["meta"]["resourceType"] == "User"
    assert user["meta"]["location"] == (
        f"http://localhost/scim/v2/orgs/{scim.org.org_id}/Users/{user['id']}"
    )
    assert user["emails"] == [{"value": "shape@example.test", "type": "work", "primary": True}]
    assert user["externalId"] == "ext-9" and user["name"]["givenName"] == "Sha"
    assert "password" not in user
    got = scim.get(f"/Users/{user['id']}?excludedAttributes=name,emails").get_json()
    assert "name" not in got and "emails" not in got and got["userName"] == "shape@example.test"
