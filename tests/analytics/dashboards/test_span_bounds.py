"""A widget span that is no finite number is refused naming the field, never a 500
(docs/security.md#limits); ordinary unknown spans still fall back to 1."""

from __future__ import annotations

import pytest

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard

# Raw JSON bodies: Python's json module reads 1e400 as inf and accepts Infinity/NaN.
NON_FINITE = ["1e400", "-1e400", "Infinity", "-Infinity", "NaN"]
NON_FINITE_STRINGS = ['"1e400"', '"Infinity"', '"NaN"', '"-inf"', '"' + "9" * 5000 + '"']


def post_raw(client, world: World, path: str, body: str, method: str = "post"):
    return client.open(
        world.url(path),
        method=method.upper(),
        data=body,
        headers={**world.acme.headers, "Content-Type": "application/json"},
    )


@pytest.mark.parametrize("literal", NON_FINITE + NON_FINITE_STRINGS, ids=lambda v: v[:12])
def test_non_finite_span_is_a_422_naming_the_field(client, world: World, literal):
    dash = new_dashboard(client, world.acme)
    path = f"/dashboards/{dash['id']}/widgets"
    resp = post_raw(client, world, path, f'{{"span": {literal}}}')
    assert resp.status_code == 422, resp.get_data(as_text=True)
    problem = resp.get_json()
    assert problem["errors"][0]["field"] == "span"
    assert "span" in problem["detail"]
    # The same on edit.
    widget = add_widget(client, world.acme, dash["id"], span=2)
    edit = post_raw(client, world, f"{path}/{widget['id']}", f'{{"span": {literal}}}', "patch")
    assert edit.status_code == 422
    assert edit.get_json()["errors"][0]["field"] == "span"


@pytest.mark.parametrize("value", [10**400, -(10**40), 2**63, 1e300, "12345678901234567890"])
def test_huge_finite_spans_fall_back_like_any_unknown_span(client, world: World, value):
    dash = new_dashboard(client, world.acme)
    path = f"/dashboards/{dash['id']}/widgets"
    body = str(value) if isinstance(value, int | float) else f'"{value}"'
    resp = post_raw(client, world, path, f'{{"span": {body}}}')
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert resp.get_json()["span"] == 1
