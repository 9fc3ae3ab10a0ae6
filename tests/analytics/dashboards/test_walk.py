"""The dashboard page load's walk (docs/architecture.md#walks-through-the-code)."""

from __future__ import annotations

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.conftest import login
from tests.walks import walk


def test_a_dashboard_page_and_its_bodies_stay_within_their_walks(client, world: World):
    dash = new_dashboard(client, world.acme, name="Walked")
    for kind in ("bar", "line", "number"):
        add_widget(client, world.acme, dash["id"], title=kind, chart_type=kind)
    login(client, world.acme.owner_email)
    page = f"/o/{world.acme.slug}/dashboards/{dash['id']}"
    client.get(page)  # the first request of a process imports and warms more than a page needs
    with walk() as shown:
        assert client.get(page).status_code == 200
    with walk() as bodies:
        resp = client.get(f"{page}/bodies")
    assert resp.status_code == 200 and resp.get_data(as_text=True).count("data-plotly") == 2
    assert "analytics/dashboards/views.py" in shown.files
    assert "analytics/dashboards/compute.py" in bodies.files
    assert len(shown.files) <= 16, shown.report()
    assert len(bodies.files) <= 22, bodies.report()
