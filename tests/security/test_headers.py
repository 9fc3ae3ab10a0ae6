"""Every HTML answer carries a Content-Security-Policy that loads nothing from another
origin, plus nosniff and frame protection; the pages still work under it in a real
browser, with no policy violation in the console (docs/security.md#rendering-isolation)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.analytics.dashboards.conftest import seed_tasks
from tests.conftest import OrgFixture, login, make_org
from tests.factories import add_widget, browser_sign_in, new_dashboard

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

#: The only sources a directive may name: this origin, nothing, inline data, a nonce,
#: and inline styles (Plotly injects a <style>; a few templates use style=).
ALLOWED = {
    "default-src": {"'self'"},
    "script-src": {"'self'", "'nonce-*'"},
    "style-src": {"'self'", "'unsafe-inline'"},
    "img-src": {"'self'", "data:"},
    "font-src": {"'self'"},
    "connect-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'none'"},
    "frame-ancestors": {"'none'"},
}


@pytest.fixture
def acme(app) -> OrgFixture:
    """Acme with tasks, so charts have something to draw."""
    org = make_org(app, "Acme", "owner@acme.test")
    with app.app_context():
        seed_tasks(org)
    return org


def policy(resp) -> dict[str, list[str]]:
    header = resp.headers.get("Content-Security-Policy")
    assert header, f"{resp.request.path} has no Content-Security-Policy"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def assert_protected(resp) -> dict[str, list[str]]:
    path = resp.request.path
    assert resp.mimetype == "text/html", path
    assert resp.headers.get("X-Content-Type-Options") == "nosniff", path
    assert resp.headers.get("X-Frame-Options") == "DENY", path
    directives = policy(resp)
    assert directives["default-src"] == ["'self'"], path
    assert directives["frame-ancestors"] == ["'none'"], path
    for name, sources in directives.items():
        assert name in ALLOWED, (path, name)
        for source in sources:
            shape = "'nonce-*'" if source.startswith("'nonce-") else source
            assert shape in ALLOWED[name], (path, name, source)
    return directives


def test_every_html_page_forbids_other_origins(client, acme: OrgFixture):
    dash = new_dashboard(client, acme, name="Heads")
    add_widget(client, acme, dash["id"], title="Bars", chart_type="bar")
    assert_protected(client.get("/signin"))
    login(client, acme.owner_email)
    slug = acme.slug
    for path in (
        f"/o/{slug}/",
        f"/o/{slug}/projects",
        f"/o/{slug}/analytics",
        f"/o/{slug}/dashboards",
        f"/o/{slug}/dashboards/{dash['id']}",
        f"/o/{slug}/settings/sso",
        f"/o/{slug}/no-such-page",
    ):
        resp = client.get(path)
        expected = 404 if path.endswith("/no-such-page") else 200
        assert resp.status_code == expected, (path, resp.status_code)
        directives = assert_protected(resp)
        # No page but the export runs an inline script: no nonce to steal.
        assert directives["script-src"] == ["'self'"], path
    # An HTMX fragment is HTML too.
    assert_protected(
        client.get(f"/o/{slug}/dashboards/{dash['id']}/bodies", headers={"HX-Request": "true"})
    )


def test_the_export_runs_only_its_own_nonced_scripts(client, acme: OrgFixture):
    dash = new_dashboard(client, acme)
    add_widget(client, acme, dash["id"], title="Bars", chart_type="bar")
    url = acme.url(f"/dashboards/{dash['id']}/export.html")
    first = client.get(url, headers=acme.headers)
    second = client.get(url, headers=acme.headers)
    nonces = []
    for resp in (first, second):
        assert resp.status_code == 200
        sources = assert_protected(resp)["script-src"]
        (nonce,) = [s[len("'nonce-") : -1] for s in sources if s.startswith("'nonce-")]
        html = resp.get_data(as_text=True)
        scripts = re.findall(r"<script\b([^>]*)>", html)
        executable = [a for a in scripts if 'type="application/json"' not in a]
        assert len(executable) == 2  # Plotly and the chart drawer, inlined
        assert all(f'nonce="{nonce}"' in a for a in executable)
        nonces.append(nonce)
    assert nonces[0] != nonces[1] and len(nonces[0]) >= 22  # fresh per response


def test_no_template_has_an_inline_event_handler():
    """The policy runs no handler attribute (onsubmit=, hx-on:*); app.js does that."""
    offenders = []
    for template in TEMPLATES.rglob("*.html"):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\son[a-z]+\s*=|\shx-on[:-]", line):
                offenders.append(f"{template.relative_to(TEMPLATES)}:{number}")
    assert offenders == []


def test_pages_work_under_the_policy_with_no_violation(live_server, acme: OrgFixture, client, page):
    dash = new_dashboard(client, acme, name="Policy")
    add_widget(client, acme, dash["id"], title="Bars", chart_type="bar")
    add_widget(client, acme, dash["id"], title="Ring", chart_type="donut")
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.add_init_script("window.print = function () { window.__printed = true; };")
    base = live_server.url
    browser_sign_in(page, base, acme.owner_email)
    page.goto(f"{base}/o/{acme.slug}/dashboards/{dash['id']}")
    page.wait_for_selector("#widget-grid .main-svg", timeout=20000)
    page.goto(f"{base}/o/{acme.slug}/analytics")
    page.wait_for_load_state("networkidle")
    page.goto(base + acme.url(f"/dashboards/{dash['id']}/export.html"))
    page.wait_for_function("window.__printed === true", timeout=20000)
    assert page.locator("section.widget .main-svg").count() >= 2
    violations = [m for m in messages if "Content Security Policy" in m or "pageerror" in m]
    assert violations == []
    # A Content-Security-Policy does block here: an injected inline script does not run.
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__ran = true'; document.body.appendChild(s); }"
    )
    assert page.evaluate("window.__ran === undefined")


def test_a_confirming_form_asks_before_it_submits(live_server, page):
    """What onsubmit="return confirm(...)" did, app.js does for form[data-confirm]."""
    page.goto(f"{live_server.url}/signin")
    page.evaluate(
        """() => document.body.insertAdjacentHTML('beforeend',
        '<form id="f" action="/healthz" data-confirm="Really?"><button>Go</button></form>')"""
    )
    asked: list[str] = []

    def dismiss(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.click("#f button")
    assert asked == ["Really?"]
    assert page.url.endswith("/signin")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.click("#f button")
    assert page.url.split("?")[0].endswith("/healthz")
