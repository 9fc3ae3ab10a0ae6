"""The org admin's JSON API: members' roles, deactivation and invitations."""

from __future__ import annotations

from workspace.api.blueprints import api_blueprint

bp = api_blueprint("admin_api", __name__, "/api/v1/orgs/<uuid:org_id>")
