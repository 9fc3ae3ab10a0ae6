"""Entra and Okta send membership PATCHes for one group in parallel: each adds its own
member, and none is lost (the group's row is locked while a PATCH applies)."""

from __future__ import annotations

import threading

import requests

from tests.conftest import make_org
from tests.scim.conftest import GROUP, PATCH_OP, SCIM_JSON, USER, new_scim_token


def test_parallel_member_adds_keep_every_member(live_server):
    app = live_server.app
    org = make_org(app, "Parallel", "owner@parallel.test")
    token = new_scim_token(app, org.org_id, ("parallel.test",))
    base = f"{live_server.url}/scim/v2/orgs/{org.org_id}"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": SCIM_JSON}

    def post(path, body):
        resp = requests.post(base + path, json=body, headers=headers, timeout=60)
        assert resp.status_code == 201, resp.text
        return resp.json()["id"]

    people = [
        post("/Users", {"schemas": [USER], "userName": f"p{i}@parallel.test"}) for i in range(8)
    ]
    group = post("/Groups", {"schemas": [GROUP], "displayName": "Parallel"})
    start = threading.Barrier(len(people))
    statuses: list[int] = []
    lock = threading.Lock()

    def add(member_id: str) -> None:
        start.wait()
        resp = requests.patch(
            f"{base}/Groups/{group}",
            json={
                "schemas": [PATCH_OP],
                "Operations": [{"op": "Add", "path": "members", "value": [{"value": member_id}]}],
            },
            headers=headers,
            timeout=60,
        )
        with lock:
            statuses.append(resp.status_code)

    threads = [threading.Thread(target=add, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert statuses == [200] * len(people)
    members = requests.get(f"{base}/Groups/{group}", headers=headers, timeout=60).json()["members"]
    assert sorted(m["value"] for m in members) == sorted(people)
