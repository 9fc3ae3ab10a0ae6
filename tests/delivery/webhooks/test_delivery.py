"""Webhooks end to end against a real receiver on loopback that verifies every request
with the reference library (docs/delivery.md#webhooks): events reach it signed, failures
are retried and then delivered, an endpoint failing for long is disabled and its admins
told, rotation signs with both secrets during the overlap only, redeliver, the log."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timedelta

from sqlalchemy import func, select

from tests.delivery.webhooks.conftest import run_deliveries
from tests.factories import add_person, assert_problem, member_id, new_task, setup_project
from workspace.core.events import record_event
from workspace.delivery.models import OutboxMail
from workspace.delivery.webhooks.models import WebhookEndpoint
from workspace.extensions import db
from workspace.types import utcnow


def register(client, org, receiver, path, kinds=("*",), status=201):
    resp = client.post(org.url("/webhooks"), headers=org.headers,
                       json={"url": receiver.url(path), "kinds": list(kinds),
                             "description": "SIEM"})  # fmt: skip
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    receiver.secrets[path] = [body["secret"]]
    return body


def event(app, org, kind="scim.user.provisioned"):
    with app.app_context():
        record_event(org.org_id, kind, subject="someone@acme.test")
        db.session.commit()


def log(client, org, endpoint_id):
    resp = client.get(org.url(f"/webhooks/{endpoint_id}/deliveries"), headers=org.headers)
    assert resp.status_code == 200
    return resp.get_json()


def test_a_task_event_reaches_the_receiver_signed(app, client, acme, receiver, embedded_worker):
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path, kinds=["task.*"])
    assert endpoint["secret"].startswith("whsec_")
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, title="Ship webhooks")
    deadline = utcnow() + timedelta(seconds=20)
    while not receiver.requests(path) and utcnow() < deadline:
        time.sleep(0.05)
    got = receiver.requests(path)
    assert len(got) == 1
    assert got[0].verified_by == [0]  # Webhook(secret).verify accepted it
    payload = json.loads(got[0].body)
    assert payload["type"] == "task.created"
    assert payload["data"]["task_id"] == task["id"]
    assert payload["data"]["title"] == "Ship webhooks"
    assert got[0].headers["webhook-id"].startswith("msg_")
    # The secret is never shown again.
    again = client.get(acme.url(f"/webhooks/{endpoint['id']}"), headers=acme.headers)
    assert "secret" not in again.get_json()
    assert endpoint["secret"] not in again.get_data(as_text=True)


def test_a_restored_task_is_its_own_event(app, client, acme, receiver):
    """A receiver mirroring tasks learns that a deleted task came back (the delete's
    Undo), not a second task.deleted."""
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path, kinds=["task.deleted", "task.restored"])
    project, _ = setup_project(client, acme)
    task = new_task(client, acme, project, title="Back again")
    assert client.delete(acme.url(f"/tasks/{task['id']}"), headers=acme.headers).status_code == 204
    restore = acme.url(f"/projects/{project['id']}/deleted-tasks/{task['id']}/restore")
    assert client.post(restore, headers=acme.headers).status_code == 200
    run_deliveries(app)
    payloads = [json.loads(g.body) for g in receiver.requests(path)]
    assert sorted(p["type"] for p in payloads) == ["task.deleted", "task.restored"]
    assert {p["data"]["task_id"] for p in payloads} == {task["id"]}
    assert {r["kind"] for r in log(client, acme, endpoint["id"])} == {
        "task.deleted",
        "task.restored",
    }


def test_scim_and_member_events_reach_a_subscriber_and_others_do_not(app, client, acme,
                                                                     receiver):  # fmt: skip
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path,
                        kinds=["scim.user.provisioned", "member.*"])  # fmt: skip
    person = add_person(app, acme.org_id, "pat@acme.test")
    with app.app_context():
        record_event(acme.org_id, "scim.user.provisioned", subject="pat@acme.test", via="scim")
        record_event(acme.org_id, "domain.added", subject="acme.test")  # not subscribed
        db.session.commit()
    member = member_id(app, acme.org_id, person.owner_email)
    resp = client.patch(acme.url(f"/members/{member}"), headers=acme.headers,
                        json={"role": "admin"})  # fmt: skip
    assert resp.status_code == 200, resp.get_json()
    run_deliveries(app)
    kinds = [json.loads(g.body)["type"] for g in receiver.requests(path)]
    assert "scim.user.provisioned" in kinds and "member.role_changed" in kinds
    assert "domain.added" not in kinds
    assert all(g.verified_by == [0] for g in receiver.requests(path))
    rows = log(client, acme, endpoint["id"])
    assert {r["status"] for r in rows} == {"delivered"}
    assert all(r["response_status"] == 200 and r["response_ms"] is not None for r in rows)


def test_a_failing_receiver_is_retried_then_delivered(app, client, acme, receiver):
    path = receiver.path("ok")
    receiver.failures_left[path] = 2
    endpoint = register(client, acme, receiver, path)
    with app.app_context():
        record_event(acme.org_id, "scim.user.deactivated", subject="gone@acme.test")
        db.session.commit()
    run_deliveries(app, rounds=4)
    got = receiver.requests(path)
    # Answered 500 twice, then 200 (the endpoint's own creation event is not sent to it).
    assert len(got) == 3
    assert all(g.verified_by == [0] for g in got)
    assert len({g.headers["webhook-id"] for g in got}) == 1  # one id for every attempt
    rows = log(client, acme, endpoint["id"])
    assert {r["status"] for r in rows} == {"delivered"}
    assert [r["attempts"] for r in rows] == [3]


def test_the_retry_plan_waits_longer_each_time(app, client, acme, receiver, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOKS_RETRY_DELAYS", [30, 120, 600])
    path = receiver.path("fail")
    endpoint = register(client, acme, receiver, path, kinds=["scim.*"])
    with app.app_context():
        record_event(acme.org_id, "scim.user.provisioned", subject="x@acme.test")
        db.session.commit()
    before = utcnow()
    run_deliveries(app)
    [row] = log(client, acme, endpoint["id"])
    assert row["status"] == "pending" and row["attempts"] == 1
    assert row["error"] == "The endpoint answered HTTP 500."
    assert row["response_body"] == "receiver is down"
    waits = datetime.fromisoformat(row["next_attempt_at"]) - before
    assert timedelta(seconds=25) < waits < timedelta(seconds=60)


def test_an_endpoint_failing_for_long_is_disabled_and_admins_told(app, client, acme, receiver,
                                                                   monkeypatch):  # fmt: skip
    monkeypatch.setitem(app.config, "WEBHOOKS_DISABLE_AFTER_FAILURES", 3)
    monkeypatch.setitem(app.config, "WEBHOOKS_DISABLE_AFTER_HOURS", 0)
    add_person(app, acme.org_id, "admin@acme.test", role="admin")
    path = receiver.path("fail")
    endpoint = register(client, acme, receiver, path)
    event(app, acme)
    run_deliveries(app, rounds=5)
    assert len(receiver.requests(path)) == 3  # then it stopped trying
    one = client.get(acme.url(f"/webhooks/{endpoint['id']}"), headers=acme.headers).get_json()
    assert one["active"] is False
    assert "Disabled automatically: 3 attempts in a row failed" in one["disabled_reason"]
    with app.app_context():
        mails = db.session.scalars(select(OutboxMail)).all()
        notice = [m for m in mails if m.subject == "A webhook endpoint was disabled"]
        assert len(notice) == 1
        told = {a.strip() for a in notice[0].to.split(",")}
        assert told >= {"owner@acme.test", "admin@acme.test"}
        assert receiver.url(path) in notice[0].text
    # Enabling it again clears the count and lets deliveries through.
    resp = client.patch(acme.url(f"/webhooks/{endpoint['id']}"), headers=acme.headers,
                        json={"active": True})  # fmt: skip
    assert resp.get_json()["active"] is True and resp.get_json()["consecutive_failures"] == 0


def test_rotation_signs_with_both_secrets_during_the_overlap_only(app, client, acme, receiver):
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path, kinds=["scim.*"])
    old = endpoint["secret"]
    resp = client.post(acme.url(f"/webhooks/{endpoint['id']}/rotate"), headers=acme.headers)
    assert resp.status_code == 200
    new = resp.get_json()["secret"]
    assert new != old and new.startswith("whsec_")
    receiver.secrets[path] = [old, new]
    with app.app_context():
        record_event(acme.org_id, "scim.user.provisioned", subject="a@acme.test")
        db.session.commit()
    run_deliveries(app)
    [during] = receiver.requests(path)
    assert during.verified_by == [0, 1]
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    with app.app_context():  # the overlap ends
        row = db.session.get(WebhookEndpoint, uuid.UUID(endpoint["id"]))
        row.previous_until = utcnow() - timedelta(seconds=1)
        record_event(acme.org_id, "scim.user.provisioned", subject="b@acme.test")
        db.session.commit()
    run_deliveries(app)
    after = receiver.requests(path)[1]
    assert after.verified_by == [1]  # only the new secret
    assert len(after.headers["webhook-signature"].split(" ")) == 1


def test_redeliver_and_ping(app, client, acme, receiver):
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path, kinds=["task.*"])
    resp = client.post(acme.url(f"/webhooks/{endpoint['id']}/test"), headers=acme.headers)
    assert resp.status_code == 202 and resp.get_json()["kind"] == "webhook.test"
    run_deliveries(app)
    [ping] = receiver.requests(path)
    assert json.loads(ping.body)["type"] == "webhook.test" and ping.verified_by == [0]
    delivery = resp.get_json()["id"]
    again = client.post(acme.url(f"/webhooks/{endpoint['id']}/deliveries/{delivery}/redeliver"),
                        headers=acme.headers)  # fmt: skip
    assert again.status_code == 202
    run_deliveries(app)
    got = receiver.requests(path)
    assert len(got) == 2 and got[1].headers["webhook-id"] == ping.headers["webhook-id"]
    assert got[1].body == ping.body


def test_the_log_keeps_2_kib_of_the_answer_and_never_the_secret(app, client, acme, receiver):
    path = receiver.path("big")
    endpoint = register(client, acme, receiver, path)
    client.post(acme.url(f"/webhooks/{endpoint['id']}/test"), headers=acme.headers)
    run_deliveries(app)
    rows = log(client, acme, endpoint["id"])
    assert rows and all(len(r["response_body"]) == 2048 for r in rows)
    detail = client.get(acme.url(f"/webhooks/{endpoint['id']}/deliveries/{rows[0]['id']}"),
                        headers=acme.headers)  # fmt: skip
    text = detail.get_data(as_text=True)
    secret_b64 = endpoint["secret"].removeprefix("whsec_")
    assert secret_b64 not in text and "webhook-signature" not in text


def test_a_redirect_is_a_failure_not_followed(app, client, acme, receiver):
    path = receiver.path("redirect")
    endpoint = register(client, acme, receiver, path)
    event(app, acme)
    run_deliveries(app)
    [row] = log(client, acme, endpoint["id"])
    assert row["response_status"] == 302 and row["status"] == "pending"
    assert "Redirects are not followed" in row["error"]
    assert not receiver.requests("/ok/elsewhere")


def test_refusals(app, client, acme, receiver, monkeypatch):
    url = acme.url("/webhooks")
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", [])
    for private in ("https://127.0.0.1/hook", "https://10.1.2.3/x", "https://[::1]/x",
                    "https://169.254.169.254/latest"):  # fmt: skip
        resp = client.post(url, headers=acme.headers, json={"url": private, "kinds": ["*"]})
        assert_problem(resp, 422, "url")
        assert "private" in resp.get_json()["detail"]
    resp = client.post(url, headers=acme.headers, json={"url": "http://example.com/x",
                                                        "kinds": ["*"]})  # fmt: skip
    assert_problem(resp, 422, "url")
    # No kind and a wrong URL: both in one problem.
    resp = client.post(url, headers=acme.headers, json={"url": "http://example.com/x", "kinds": []})
    assert resp.status_code == 422
    assert {e["field"]: e["message"] for e in resp.get_json()["errors"]}["kinds"] == (
        "Choose at least one event to send."
    )
    assert sorted(e["field"] for e in resp.get_json()["errors"]) == ["kinds", "url"]
    resp = client.post(
        url, headers=acme.headers, json={"url": "https://example.com/" + "a" * 3000, "kinds": ["*"]}
    )
    assert resp.status_code in (400, 422)
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    resp = client.post(
        url,
        headers=acme.headers,
        json={"url": receiver.url("/ok/x"), "kinds": ["task.created", "tsk.*"]},
    )
    assert_problem(resp, 422, "kinds")
    assert "'tsk.*'" in resp.get_json()["detail"]
    monkeypatch.setitem(app.config, "WEBHOOKS_MAX_PER_ORG", 1)
    register(client, acme, receiver, receiver.path("ok"))
    resp = client.post(
        url, headers=acme.headers, json={"url": receiver.url("/ok/y"), "kinds": ["*"]}
    )
    assert_problem(resp, 409)
    assert client.get(url, headers=acme.headers).status_code == 200


def test_a_slow_receiver_is_cut_at_the_deadline(app, client, acme, receiver, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOKS_DEADLINE", 1)
    path = receiver.path("slow")
    endpoint = register(client, acme, receiver, path)
    event(app, acme)
    run_deliveries(app)
    [row] = log(client, acme, endpoint["id"])
    assert row["status"] == "pending" and row["attempts"] == 1
    assert "did not answer within 1" in row["error"]
    assert row["response_status"] is None and row["response_ms"] < 2500


def test_private_addresses_are_refused_at_delivery_too(app, client, acme, receiver, monkeypatch):
    """Registered while loopback was allowed; once it is not, the guard refuses the
    connection at delivery (as it would a name that now resolves to a private address)."""
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path)
    event(app, acme)
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", [])
    run_deliveries(app)
    assert receiver.requests(path) == []
    [row] = log(client, acme, endpoint["id"])
    assert "private" in row["error"] and row["status"] == "pending"


def test_a_large_payload_keeps_its_ids_only(app, client, acme, receiver, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOKS_MAX_PAYLOAD", 400)
    path = receiver.path("ok")
    register(client, acme, receiver, path, kinds=["scim.*"])
    with app.app_context():
        record_event(acme.org_id, "scim.user.provisioned", subject="big@acme.test", blob="x" * 5000)
        db.session.commit()
    run_deliveries(app)
    [got] = receiver.requests(path)
    data = json.loads(got.body)["data"]
    assert data["truncated"] is True and "details" not in data
    assert data["subject"] == "big@acme.test" and got.verified_by == [0]


def test_the_log_forgets_finished_deliveries_after_its_days(app, client, acme, receiver):
    from workspace.delivery.webhooks import sending
    from workspace.delivery.webhooks.models import WebhookDelivery

    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path)
    event(app, acme)
    event(app, acme)
    run_deliveries(app)
    first, second = log(client, acme, endpoint["id"])
    with app.app_context():
        old = db.session.get(WebhookDelivery, uuid.UUID(first["id"]))
        old.created_at = utcnow() - timedelta(days=31)
        db.session.commit()
        assert sending.purge(utcnow()) == 1
        db.session.commit()
    assert [r["id"] for r in log(client, acme, endpoint["id"])] == [second["id"]]


def test_an_orgs_rate_is_bounded_and_the_rest_waits(app, client, acme, receiver, monkeypatch):
    """Past WEBHOOKS_MAX_PER_ORG_PER_MINUTE attempts, a delivery is not tried (no
    request, no failure counted) and waits a minute for webhooks.due."""
    from workspace.delivery.webhooks.models import WebhookDelivery

    monkeypatch.setitem(app.config, "WEBHOOKS_MAX_PER_ORG_PER_MINUTE", 2)
    path = receiver.path("ok")
    endpoint = register(client, acme, receiver, path, kinds=["task.*"])
    for _ in range(3):
        resp = client.post(acme.url(f"/webhooks/{endpoint['id']}/test"), headers=acme.headers)
        assert resp.status_code == 202
    run_deliveries(app)
    assert len(receiver.requests(path)) == 2
    with app.app_context():
        rows = list(db.session.scalars(select(WebhookDelivery)))
        waiting = [r for r in rows if r.status == "pending"]
        assert len(waiting) == 1 and waiting[0].attempts == 0
        assert waiting[0].next_attempt_at > utcnow() + timedelta(seconds=50)
        endpoint_row = db.session.get(WebhookEndpoint, uuid.UUID(endpoint["id"]))
        assert endpoint_row.consecutive_failures == 0


def test_a_hanging_endpoint_holds_one_try_and_other_orgs_go_on(app, client, acme, globex,
                                                                receiver, embedded_worker,
                                                                monkeypatch):  # fmt: skip
    """Globex's receiver hangs past the deadline with 12 deliveries queued; the worker
    has 2 threads. Once its first attempts failed, the endpoint backs off as a whole:
    its other deliveries wait without a request, and Acme's event goes out at once
    instead of after 12 deadlines shared by 2 threads (6 s)."""
    from workspace.delivery.webhooks.models import WebhookDelivery
    from workspace.jobs.models import Job, JobState

    monkeypatch.setitem(app.config, "WEBHOOKS_DEADLINE", 1)
    monkeypatch.setitem(app.config, "WEBHOOKS_RETRY_DELAYS", [60, 120, 600])
    hanging, fine = receiver.path("slow"), receiver.path("ok")
    register(client, globex, receiver, hanging, kinds=["scim.*"])
    register(client, acme, receiver, fine, kinds=["scim.*"])
    with app.app_context():
        for n in range(12):
            record_event(globex.org_id, "scim.user.provisioned", subject=f"p{n}@globex.test")
        db.session.commit()
    started = time.monotonic()
    event(app, acme)
    while not receiver.requests(fine) and time.monotonic() - started < 10:
        time.sleep(0.05)
    took = time.monotonic() - started
    assert receiver.requests(fine), "Acme's delivery never came"
    assert took < 4, f"Acme waited {took:.1f} s behind Globex's hanging receiver"

    def busy() -> int:
        with app.app_context():
            try:
                return db.session.scalar(
                    select(func.count())
                    .select_from(Job)
                    .where(
                        Job.kind == "webhooks.deliver",
                        Job.state.in_((JobState.QUEUED, JobState.RUNNING)),
                    )
                )
            finally:
                db.session.remove()

    while busy() and time.monotonic() - started < 20:
        time.sleep(0.1)
    assert len(receiver.requests(hanging)) <= 2  # the attempts already under way, no more
    with app.app_context():
        rows = db.session.scalars(
            select(WebhookDelivery).where(WebhookDelivery.org_id == globex.org_id)
        ).all()
        waiting = [r for r in rows if r.status == "pending" and r.attempts == 0]
        assert len(waiting) >= 10
        assert min(r.next_attempt_at for r in waiting) > utcnow() + timedelta(seconds=40)
        endpoint = db.session.scalar(
            select(WebhookEndpoint).where(WebhookEndpoint.org_id == globex.org_id)
        )
        assert endpoint.consecutive_failures >= 1 and endpoint.active
