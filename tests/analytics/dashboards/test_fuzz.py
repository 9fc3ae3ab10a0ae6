"""Schemathesis on the dashboard operations, pointed at a real dashboard and widget:
whatever it sends (widget settings of any JSON type, any PQL), never a 5xx, and the
answers match the OpenAPI document (every default check; the whole document's contract
is tests/api/test_openapi_contract.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.api.contract import call_and_validate, load_schema


def test_dashboard_api_never_fails_on_generated_input(app, client, world: World):
    dash = new_dashboard(client, world.acme, pql_filter="kind != epic")
    widget = add_widget(client, world.acme, dash["id"], chart_type="pie", filter="priority = high")
    ids = {"org_id": str(world.acme.org_id), "dashboard_id": dash["id"], "widget_id": widget["id"]}
    schema = load_schema(app, world.acme.headers, ids)
    operations = [
        op
        for op in (result.ok() for result in schema.get_all_operations())
        if "/dashboards" in op.path
        and not op.path.endswith("export.pdf")
        # Deleting the dashboard would turn every later case into a plain 404.
        and not (op.method.upper() == "DELETE" and op.path.endswith("{dashboard_id}"))
    ]
    assert len(operations) >= 12

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def fuzz(case):
            for name, value in ids.items():
                if name in (case.path_parameters or {}):
                    case.path_parameters[name] = value
            # Every default check, as tests/api/test_openapi_contract.py runs them.
            call_and_validate(case, world.acme.headers)

        fuzz()
