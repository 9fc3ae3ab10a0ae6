"""A project's settings as JSON: states, cycles and modules changed after creation."""

from __future__ import annotations

from workspace.api.blueprints import api_blueprint

bp = api_blueprint("project_settings_api", __name__, "/api/v1/orgs/<uuid:org_id>")
