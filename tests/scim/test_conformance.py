"""`scim2 test` (scim2-cli running scim2-tester) against the app on a real socket:
every check must be a SUCCESS, which is what the CLI's exit status says. It checks
Users and Groups (docs/scim.md#groups)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_org
from tests.scim.conftest import new_scim_token

SCIM2 = Path(sys.executable).with_name("scim2")


def test_scim2_tester_passes_every_check(live_server, monkeypatch):
    app = live_server.app
    # The tester invents a fresh random domain for every email it sends, which no org
    # can have verified; the protocol is what this test checks, so the domain trust
    # rule (tested in test_trust.py) is lifted for it alone, through the operator's
    # switch that .ci/scim-conformance uses too.
    monkeypatch.setitem(app.config, "SCIM_REQUIRE_VERIFIED_DOMAIN", False)
    org = make_org(app, "Conformance", "owner@conformance.test")
    token = new_scim_token(app, org.org_id)
    old_base = app.config["BASE_URL"]
    # meta.location must point at the server the tester talks to.
    app.config["BASE_URL"] = live_server.url
    try:
        result = subprocess.run(
            [str(SCIM2), "--url", f"{live_server.url}/scim/v2/orgs/{org.org_id}", "test"],
            env={**os.environ, "SCIM_CLI_HEADERS": f"Authorization: Bearer {token}"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        app.config["BASE_URL"] = old_base
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    lines = [line for line in output.splitlines() if line and not line.startswith(" ")]
    checks = [line for line in lines[1:]]
    assert len(checks) >= 40 and all(line.startswith("SUCCESS ") for line in checks), output
    # Group is advertised in /ResourceTypes, so the tester runs its whole resource
    # suite (create, query, list, search, replace, delete, PATCH add/remove/replace)
    # on /Groups too; each of those checks must have succeeded above.
    for detail in (
        "Successfully created Group object",
        "Successfully replaced Group object",
        "Successfully deleted Group object",
        "Successfully removed attribute 'members'",
    ):
        assert detail in output, output
    for name in (
        "object_creation",
        "object_deletion",
        "check_replace_attribute",
        "search_with_attributes",
        "random_url",
    ):
        assert any(name in line for line in checks), output
