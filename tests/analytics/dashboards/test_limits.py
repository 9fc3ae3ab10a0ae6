"""Dashboard limits (docs/security.md#limits): at most DASHBOARD_MAX_WIDGETS widgets on
a dashboard (409 past it), and at most EXPORT_MAX_IN_FLIGHT_PER_MEMBER /
EXPORT_MAX_IN_FLIGHT_PER_ORG PDF exports under way at once (429 with Retry-After).

The export tests send real concurrent requests to the live server. A render is held
deterministically (``export.render_pdf`` waits for the test to let it go), so no check
depends on how fast a PDF is drawn; the cross-process test holds the slots from
another process and then kills it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from playwright.sync_api import expect
from sqlalchemy import text
from sqlalchemy.engine import make_url

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import add_person, assert_problem, browser_sign_in, login, make_org
from workspace.analytics.dashboards import export, limits
from workspace.extensions import db

FAKE_PDF = b"%PDF-1.7 held by the test"
MEMBER_BUSY = "You already have a PDF export under way"
ORG_BUSY = "This organization already has 2 PDF exports under way"


class HeldRenders:
    """``export.render_pdf`` replaced: each call reports that it started, then waits
    until the test releases every render."""

    def __init__(self) -> None:
        self.started = threading.Semaphore(0)
        self.released = threading.Event()

    def render(self, dashboard, views, view_filter, progress=None) -> bytes:
        self.started.release()
        assert self.released.wait(60), "the test never released the render"
        return FAKE_PDF

    def wait_started(self, count: int = 1) -> None:
        for _ in range(count):
            assert self.started.acquire(timeout=30), "no export reached the render"


@pytest.fixture
def held(monkeypatch):
    renders = HeldRenders()
    monkeypatch.setattr(export, "render_pdf", renders.render)
    yield renders
    renders.released.set()  # never leave a server thread waiting


def _shared_dashboard(client, world: World) -> str:
    dash = new_dashboard(client, world.acme, name="Team")
    add_widget(client, world.acme, dash["id"], title="By status")
    resp = client.post(world.url(f"/dashboards/{dash['id']}/publish"), headers=world.acme.headers)
    assert resp.status_code == 200
    return dash["id"]


def _pdf_url(live_server, world: World, dashboard_id: str) -> str:
    return live_server.url + world.url(f"/dashboards/{dashboard_id}/export.pdf")


def _get(url: str, who) -> requests.Response:
    return requests.get(url, headers=who.headers, timeout=60)


def _assert_busy(resp, message: str) -> None:
    assert resp.status_code == 429, resp.text[:300]
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    assert resp.headers["Retry-After"] == str(limits.RETRY_AFTER)
    assert resp.json()["detail"].startswith(message)


# -- exports in flight ------------------------------------------------------------------


def test_one_pdf_export_per_member_at_once(live_server, client, world: World, held):
    dashboard_id = _shared_dashboard(client, world)
    url = _pdf_url(live_server, world, dashboard_id)
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(_get, url, world.acme)
        held.wait_started()
        # The same member again, with the token: refused at once, nothing rendered.
        _assert_busy(_get(url, world.acme), MEMBER_BUSY)
        # ... and from the dashboard page's Download PDF link (the browser session).
        login(client, world.acme.owner_email)
        page_link = client.get(world.url(f"/dashboards/{dashboard_id}/export.pdf"))
        assert page_link.status_code == 429
        assert page_link.headers["Retry-After"] == str(limits.RETRY_AFTER)
        assert page_link.get_json()["detail"].startswith(MEMBER_BUSY)
        # Another member has a slot of their own.
        other = pool.submit(_get, url, world.member)
        held.wait_started()
        held.released.set()
        assert first.result().status_code == 200 and first.result().content == FAKE_PDF
        assert other.result().status_code == 200
    # The slot is free again once the export is done.
    assert _get(url, world.acme).status_code == 200


def test_two_pdf_exports_per_org_at_once(live_server, app, client, world: World, held):
    ann = add_person(app, world.acme.org_id, "ann@acme.test")
    url = _pdf_url(live_server, world, _shared_dashboard(client, world))
    globex_dash = new_dashboard(client, world.globex, name="Theirs")
    globex_url = live_server.url + world.globex.url(f"/dashboards/{globex_dash['id']}/export.pdf")
    with ThreadPoolExecutor(max_workers=3) as pool:
        running = [pool.submit(_get, url, world.acme), pool.submit(_get, url, world.member)]
        held.wait_started(2)
        _assert_busy(_get(url, ann), ORG_BUSY)
        # Another org's exports are not counted against this one.
        running.append(pool.submit(_get, globex_url, world.globex))
        held.wait_started()
        held.released.set()
        assert [r.result().status_code for r in running] == [200, 200, 200]
    assert _get(url, ann).status_code == 200


def test_the_caps_are_settings(live_server, app, client, world: World, held, monkeypatch):
    monkeypatch.setitem(app.config, "EXPORT_MAX_IN_FLIGHT_PER_MEMBER", 2)
    monkeypatch.setitem(app.config, "EXPORT_MAX_IN_FLIGHT_PER_ORG", 3)
    url = _pdf_url(live_server, world, _shared_dashboard(client, world))
    with ThreadPoolExecutor(max_workers=3) as pool:
        running = [pool.submit(_get, url, world.acme) for _ in range(2)]
        held.wait_started(2)
        _assert_busy(_get(url, world.acme), "You already have 2 PDF exports under way")
        running.append(pool.submit(_get, url, world.member))
        held.wait_started()
        _assert_busy(_get(url, world.member), "This organization already has 3 PDF exports")
        held.released.set()
        assert [r.result().status_code for r in running] == [200] * 3


def test_a_failed_render_frees_its_slots(client, world: World, monkeypatch):
    def fail(*args):
        raise export.PdfUnavailable("PDF export failed on this server: test.")

    monkeypatch.setattr(export, "render_pdf", fail)
    dash = new_dashboard(client, world.acme)
    url = world.url(f"/dashboards/{dash['id']}/export.pdf")
    for _ in range(3):  # never 429: each failure gave its slots back
        resp = client.get(url, headers=world.acme.headers)
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "1"


HOLDER = r"""
import fcntl, os, sys, time
mode, target, *names = sys.argv[1:]
if mode == "file":
    fds = [os.open(path, os.O_RDWR | os.O_CREAT, 0o600) for path in names]
    for fd in fds:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("held", 0, flush=True)
else:
    import psycopg
    conn = psycopg.connect(target, autocommit=True)
    for key in names:
        conn.execute("SELECT pg_advisory_lock(%s)", (int(key),))
    print("held", conn.execute("SELECT pg_backend_pid()").fetchone()[0], flush=True)
time.sleep(300)
"""


def _hold_elsewhere(app, names: list[str]) -> tuple[subprocess.Popen, int]:
    """Another process (another worker, another app node) holding these slots; returns
    it and, on PostgreSQL, its database backend's pid."""
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            url = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).set(drivername="postgresql")
            args = ["pg", url.render_as_string(hide_password=False)]
            args += [str(limits.advisory_key(n)) for n in names]
        else:
            folder = limits.lock_folder()
            folder.mkdir(parents=True, exist_ok=True)
            args = ["file", "-", *(str(limits.lock_path(folder, n)) for n in names)]
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *args], stdout=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline().split()
    assert line[:1] == ["held"], line
    return proc, int(line[1])


def _gone(app, backend_pid: int) -> bool:
    if not backend_pid:
        return True
    with app.app_context():
        count = db.session.scalar(
            text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": backend_pid}
        )
        db.session.remove()
    return count == 0


def test_slots_held_by_another_process_count_and_a_killed_one_frees_them(
    live_server, app, client, world: World, monkeypatch
):
    monkeypatch.setattr(export, "render_pdf", lambda *args: FAKE_PDF)
    url = _pdf_url(live_server, world, _shared_dashboard(client, world))
    member = limits.member_scope(world.acme.org_id, world.acme.owner_id)
    org = limits.org_scope(world.acme.org_id)
    names = [limits.slot_name(member, 0), limits.slot_name(org, 0), limits.slot_name(org, 1)]
    proc, backend_pid = _hold_elsewhere(app, names)
    try:
        _assert_busy(_get(url, world.acme), MEMBER_BUSY)
        _assert_busy(_get(url, world.member), ORG_BUSY)
    finally:
        proc.kill()  # a worker killed mid-export: no finally, no cleanup of its own
        proc.wait(30)
    deadline = time.monotonic() + 30
    while not _gone(app, backend_pid):  # PostgreSQL ends the dead client's session
        assert time.monotonic() < deadline, "the killed holder's session never ended"
        time.sleep(0.05)
    assert _get(url, world.acme).status_code == 200
    assert _get(url, world.member).status_code == 200


@pytest.mark.browser
def test_the_download_link_shows_why_it_was_refused(live_server, client, world: World, held, page):
    dashboard_id = _shared_dashboard(client, world)
    url = _pdf_url(live_server, world, dashboard_id)
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(_get, url, world.acme)  # e.g. from another tab
        held.wait_started()
        browser_sign_in(page, live_server.url, world.acme.owner_email)
        page.goto(f"{live_server.url}/o/{world.acme.slug}/dashboards/{dashboard_id}")
        page.get_by_role("button", name="Download PDF").click()
        expect(page.locator("main")).to_contain_text(MEMBER_BUSY, timeout=20_000)
        held.released.set()
        assert first.result().status_code == 200


# -- widgets per dashboard --------------------------------------------------------------


def test_a_dashboard_holds_at_most_30_widgets(client, world: World):
    dash = new_dashboard(client, world.acme)
    widgets = [add_widget(client, world.acme, dash["id"], title=f"W{i}") for i in range(30)]
    base = world.url(f"/dashboards/{dash['id']}/widgets")
    refused = client.post(base, json={"title": "One more"}, headers=world.acme.headers)
    assert_problem(refused, 409)
    assert "at most 30 widgets" in refused.get_json()["detail"]
    copy = client.post(f"{base}/{widgets[0]['id']}/duplicate", headers=world.acme.headers)
    assert_problem(copy, 409)
    read = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    assert len(read.get_json()["widgets"]) == 30


def test_over_the_cap_no_copy_and_no_pdf(app, client, world: World, monkeypatch):
    """A dashboard already over the cap (made before it, or the cap was lowered) keeps
    its widgets and still prints, but is neither copied nor made a PDF."""
    dash = new_dashboard(client, world.acme, name="Big")
    for i in range(3):
        add_widget(client, world.acme, dash["id"], title=f"W{i}")
    monkeypatch.setitem(app.config, "DASHBOARD_MAX_WIDGETS", 2)
    path = world.url(f"/dashboards/{dash['id']}")
    pdf = client.get(f"{path}/export.pdf", headers=world.acme.headers)
    assert_problem(pdf, 409)
    assert "has 3 widgets; a PDF is made of at most 2. Remove 1" in pdf.get_json()["detail"]
    assert client.get(f"{path}/export.html", headers=world.acme.headers).status_code == 200
    copy = client.post(f"{path}/duplicate", headers=world.acme.headers)
    assert_problem(copy, 409)
    assert "remove 1 before duplicating" in copy.get_json()["detail"]
    assert len(client.get(path, headers=world.acme.headers).get_json()["widgets"]) == 3


def test_the_widget_form_says_the_dashboard_is_full(app, client, world: World, monkeypatch):
    monkeypatch.setitem(app.config, "DASHBOARD_MAX_WIDGETS", 1)
    dash = new_dashboard(client, world.acme)
    add_widget(client, world.acme, dash["id"], title="Only")
    login(client, world.acme.owner_email)
    resp = client.post(
        f"/o/{world.acme.slug}/dashboards/{dash['id']}/widgets/new", data={"title": "Second"}
    )
    assert resp.status_code == 400
    assert "A dashboard holds at most 1 widgets" in resp.get_data(as_text=True)
    # The dashboard says it is full where Add widget was; a card's Duplicate at the
    # cap comes back to that card with the reason, not to an error page.
    page = client.get(f"/o/{world.acme.slug}/dashboards/{dash['id']}").get_data(as_text=True)
    assert (
        "the most a dashboard holds" in page
        and 'class="btn btn-sm btn-primary add-widget"' not in page
    )
    only = client.get(world.url(f"/dashboards/{dash['id']}"), headers=world.acme.headers)
    widget = only.get_json()["widgets"][0]["id"]
    copy = client.post(f"/o/{world.acme.slug}/dashboards/{dash['id']}/widgets/{widget}/duplicate")
    assert copy.status_code == 303 and copy.location.endswith(f"#widget-{widget}")
    back = client.get(copy.location).get_data(as_text=True)
    assert "A dashboard holds at most 1 widgets" in back and "flash-error" in back


def test_concurrent_adds_stop_at_the_cap(live_server, app, monkeypatch):
    monkeypatch.setitem(app.config, "DASHBOARD_MAX_WIDGETS", 5)
    org = make_org(app, "Acme", "owner@acme.test")
    base = live_server.url + org.url("/dashboards")
    dash = requests.post(base, json={"name": "Team"}, headers=org.headers, timeout=30).json()
    widgets = f"{base}/{dash['id']}/widgets"
    for i in range(3):
        requests.post(widgets, json={"title": f"W{i}"}, headers=org.headers, timeout=30)

    def add(i: int) -> int:
        with requests.Session() as session:
            resp = session.post(widgets, json={"title": f"N{i}"}, headers=org.headers, timeout=60)
            return resp.status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = sorted(pool.map(add, range(10)))
    assert codes == [201] * 2 + [409] * 8
    read = requests.get(f"{base}/{dash['id']}", headers=org.headers, timeout=30).json()
    assert sorted(w["position"] for w in read["widgets"]) == list(range(5))


def test_the_openapi_document_declares_the_refusals(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    path = "/api/v1/orgs/{org_id}/dashboards/{dashboard_id}"
    pdf = doc["paths"][f"{path}/export.pdf"]["get"]["responses"]
    assert {"409", "429", "503"} <= set(pdf)
    assert "409" in doc["paths"][f"{path}/widgets"]["post"]["responses"]
    assert "409" in doc["paths"][f"{path}/widgets/{{widget_id}}/duplicate"]["post"]["responses"]
    assert "409" in doc["paths"][f"{path}/duplicate"]["post"]["responses"]
