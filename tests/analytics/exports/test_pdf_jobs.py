"""A dashboard's PDF as a job (docs/jobs.md#pdf-export): 202 and a Location to follow,
progress while a worker renders, the file for its asker alone, the asker's access read
again when the job runs, the in-flight bounds at the start, and the page's way in
without JavaScript."""

from __future__ import annotations

import time
import uuid

from sqlalchemy import select

from tests.analytics.dashboards.conftest import World, add_widget, new_dashboard
from tests.factories import login
from tests.jobs.conftest import wait_for
from workspace.auth.membership import deactivate_member
from workspace.core.models import OrgMember
from workspace.extensions import db
from workspace.jobs.models import JobFile
from workspace.jobs.worker import Worker


def _dashboard(client, world: World, widgets: int = 2, name: str = "Board review"):
    dash = new_dashboard(client, world.acme, name=name)
    for n in range(widgets):
        add_widget(client, world.acme, dash["id"], title=f"W{n}", chart_type="bar")
    return dash["id"]


def _start(client, world: World, dashboard_id, who=None):
    who = who or world.acme
    return client.post(world.url(f"/dashboards/{dashboard_id}/exports"), headers=who.headers)


def _follow(client, location: str, headers, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(location, headers=headers).get_json()
        if job["state"] in ("done", "dead") or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_a_pdf_job_is_followed_to_its_file(client, world: World, embedded_worker):
    dashboard_id = _dashboard(client, world, widgets=3)
    started = _start(client, world, dashboard_id)
    assert started.status_code == 202, started.get_data(as_text=True)
    location = started.headers["Location"]
    assert location.endswith(f"/jobs/{started.get_json()['id']}")
    assert started.get_json()["state"] == "queued" and started.get_json()["file_url"] is None
    job = _follow(client, location, world.acme.headers)
    assert job["state"] == "done", job
    assert job["progress"] == {"done": 3, "total": 3, "text": "Laying out the pages"}
    assert job["attempts"] == 1 and job["error"] is None
    pdf = client.get(job["file_url"], headers=world.acme.headers)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    assert 'filename="board-review.pdf"' in pdf.headers["Content-Disposition"]


def test_a_job_is_its_askers_alone(client, world: World, embedded_worker):
    started = _start(client, world, _dashboard(client, world, widgets=1))
    job = _follow(client, started.headers["Location"], world.acme.headers)
    for stranger in (world.member, world.globex):
        for url in (started.headers["Location"], job["file_url"]):
            assert client.get(url, headers=stranger.headers).status_code == 404
    # Another org's URL with this job's id: 404 too.
    other = started.headers["Location"].replace(str(world.acme.org_id), str(world.globex.org_id))
    assert client.get(other, headers=world.globex.headers).status_code == 404


def test_a_member_removed_before_the_job_runs_gets_nothing(app, client, world: World):
    # No worker yet: the job waits while the member is deactivated.
    publish = client.post(
        world.url(f"/dashboards/{_dashboard(client, world, widgets=1)}/publish"),
        headers=world.acme.headers,
    )
    dashboard_id = publish.get_json()["id"]
    started = _start(client, world, dashboard_id, who=world.member)
    assert started.status_code == 202
    with app.app_context():
        member = db.session.scalar(
            select(OrgMember).where(OrgMember.account_id == world.member.owner_id)
        )
        deactivate_member(member, actor_id=world.acme.owner_id)
        db.session.commit()
    worker = Worker(app, threads=1, scheduler=False)
    worker.start()
    try:
        job = wait_for(app, uuid.UUID(started.get_json()["id"]))
    finally:
        worker.stop()
    assert job.state == "dead" and job.attempts == 1
    assert job.result["error"]["status"] == 404
    with app.app_context():
        assert db.session.get(JobFile, job.id) is None


def test_one_export_per_member_waits_at_a_time(client, world: World):
    dashboard_id = _dashboard(client, world, widgets=1)
    client.post(world.url(f"/dashboards/{dashboard_id}/publish"), headers=world.acme.headers)
    assert _start(client, world, dashboard_id).status_code == 202  # queued: no worker
    again = _start(client, world, dashboard_id)
    assert again.status_code == 429 and again.headers["Retry-After"] == "5"
    assert again.get_json()["detail"].startswith("You already have a PDF export under way")
    # Another member has a place of their own.
    assert _start(client, world, dashboard_id, who=world.member).status_code == 202
    third = _start(client, world, dashboard_id, who=world.globex)
    assert third.status_code == 404  # another org never sees this dashboard


def test_a_broken_view_filter_is_refused_before_any_job(client, world: World):
    dashboard_id = _dashboard(client, world, widgets=1)
    resp = client.post(
        world.url(f"/dashboards/{dashboard_id}/exports"),
        query_string={"filter": "priority = "},
        headers=world.acme.headers,
    )
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert "filter" in resp.get_data(as_text=True)


def test_without_javascript_the_button_leads_to_the_jobs_page(client, world: World):
    dashboard_id = _dashboard(client, world, widgets=1)
    login(client, world.acme.owner_email)
    resp = client.post(f"/o/{world.acme.slug}/dashboards/{dashboard_id}/exports", data={})
    assert resp.status_code == 303
    page = client.get(resp.headers["Location"])
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Waiting for a worker" in html
    assert '<meta http-equiv="refresh" content="2">' in html  # inside <noscript>
    partial = client.get(resp.headers["Location"], headers={"HX-Request": "true"})
    text = partial.get_data(as_text=True)
    assert 'hx-trigger="every 1s"' in text and "<html" not in text
