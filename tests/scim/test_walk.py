"""The SCIM PATCH's walk through our files (docs/architecture.md#walks-through-the-code)."""

from __future__ import annotations

from tests.scim.conftest import member_state
from tests.walks import walk


def test_a_scim_patch_that_deactivates_stays_within_its_walk(app, scim):
    user = scim.create("walked@example.test")
    scim.patch(f"/Users/{user['id']}", [{"op": "replace", "path": "displayName", "value": "W"}])
    with walk() as patched:
        resp = scim.patch(
            f"/Users/{user['id']}", [{"op": "replace", "path": "active", "value": False}]
        )
    assert resp.status_code == 200 and resp.get_json()["active"] is False
    assert member_state(app, scim.org.org_id, "walked@example.test") == (False, "member")
    assert "scim/users.py" in patched.files
    assert len(patched.files) <= 18, patched.report()
