"""The Webhooks settings pages (docs/delivery.md#webhooks), signed in as the owner:
add an endpoint (the secret shown once), a refused URL beside its field, change the
kinds, disable and enable, a test event in the log and redeliver, rotation and
removal only after their confirmation pages; a member gets a 403."""

from __future__ import annotations

import re

from tests.delivery.webhooks.conftest import run_deliveries
from tests.factories import add_person, login


def test_the_pages_from_adding_to_removing(app, client, acme, receiver):
    login(client, acme.owner_email)
    base = f"/o/{acme.slug}/settings/webhooks"
    page = client.get(base)
    assert page.status_code == 200 and b"No webhook endpoints yet" in page.data
    bad = client.post(base, data={"url": "http://example.com/x", "kinds": ["*"]})
    assert bad.status_code == 400 and b"https://" in bad.data
    unknown = client.post(base, data={"url": receiver.url("/ok/p"), "kinds": ["nope.*"]})
    assert unknown.status_code == 400 and b"nope.*" in unknown.data
    none = client.post(base, data={"url": receiver.url("/ok/p")})  # no box ticked
    assert none.status_code == 400 and b"Choose at least one event to send." in none.data
    # Both mistakes of one submit are named at once, beside their fields.
    both = client.post(base, data={"url": "http://example.com/x", "description": "SIEM"})
    assert both.status_code == 400 and b'value="SIEM"' in both.data
    for said in (b"Choose at least one event to send.", b"must start with https://"):
        assert said in both.data, said
    # A URL the parser cannot read is refused beside the field, not a 500.
    broken = client.post(base, data={"url": "https://[::1/x", "kinds": ["*"]})
    assert broken.status_code == 400 and b"Enter a URL such as" in broken.data
    path = receiver.path("ok")
    made = client.post(base, data={"url": receiver.url(path), "description": "SIEM",
                                   "kinds": ["scim.*", "task.*"]})  # fmt: skip
    # To the endpoint's page, which shows the secret: a reload there makes no other.
    assert made.status_code == 303
    endpoint = re.search(rf"{base}/([0-9a-f-]{{36}})#new-secret$", made.location).group(1)
    one = f"{base}/{endpoint}"
    first = client.get(one)
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-store"
    secret = re.search(rb"whsec_[A-Za-z0-9+/=]+", first.data).group().decode()
    receiver.secrets[path] = [secret]
    shown = client.get(one)
    assert shown.status_code == 200 and secret.encode() not in shown.data
    assert b"scim.*" in client.get(base).data
    saved = client.post(one, data={"url": receiver.url(path), "description": "SIEM 2",
                                   "kinds": ["task.*"]})  # fmt: skip
    assert saved.status_code == 303, re.findall(rb"form-error[^<]*<[^<]*", saved.data)
    assert saved.location.endswith(one)  # the page, not the box of a secret it does not show
    assert b"SIEM 2" in client.get(one).data
    assert client.post(one + "/test").status_code == 303
    run_deliveries(app)
    [got] = receiver.requests(path)
    assert got.verified_by == [0]
    log = client.get(one).data
    assert b"webhook.test" in log and b"delivered" in log and b"Redeliver" in log
    delivery = re.search(rb"/deliveries/([0-9a-f-]{36})/redeliver", log).group(1).decode()
    assert client.post(f"{one}/deliveries/{delivery}/redeliver").status_code == 303
    assert client.post(one + "/active", data={}).status_code == 303
    assert b"Disabled." in client.get(one).data
    assert client.post(one + "/active", data={"active": "true"}).status_code == 303
    assert b"Active." in client.get(one).data
    # Rotation and removal: a confirmation page first; a POST without confirm asks.
    assert b"Rotate the secret" in client.get(one + "/rotate").data
    assert client.post(one + "/rotate").status_code == 303
    rotated = client.post(one + "/rotate", data={"confirm": "true"})
    assert rotated.status_code == 303 and rotated.location.endswith(f"{one}#new-secret")
    rotated = client.get(one)
    new = re.search(rb"whsec_[A-Za-z0-9+/=]+", rotated.data).group().decode()
    assert new != secret and b"previous secret still signs" in rotated.data
    assert b"Remove the endpoint" in client.get(one + "/delete").data
    assert client.post(one + "/delete").status_code == 303
    assert client.get(one).status_code == 200
    assert client.post(one + "/delete", data={"confirm": "true"}).status_code == 303
    assert client.get(one).status_code == 404


def test_a_member_gets_403_on_the_pages(app, client, acme):
    member = add_person(app, acme.org_id, "m@acme.test")
    login(client, member.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/webhooks").status_code == 403


PAGES = [
    ("get", ""),
    ("post", ""),
    ("get", "/{e}"),
    ("post", "/{e}"),
    ("post", "/{e}/active"),
    ("post", "/{e}/test"),
    ("post", "/{e}/deliveries/{d}/redeliver"),
    ("get", "/{e}/rotate"),
    ("post", "/{e}/rotate"),
    ("get", "/{e}/delete"),
    ("post", "/{e}/delete"),
]


def test_page_permission_table(app, client, acme, globex, receiver):
    """Every page route: the anonymous go to sign in, a member gets a 403, another org's
    owner a 404; nothing changes and no secret shows. (The owner: the test above.)"""
    from sqlalchemy import func, select

    from workspace.delivery.webhooks import service
    from workspace.delivery.webhooks.models import WebhookEndpoint
    from workspace.extensions import db

    with app.app_context():
        created = service.create(acme.org_id, acme.owner_id, url=receiver.url("/ok/pp"),
                                 kinds=["*"])  # fmt: skip
        delivery = service.ping(created.endpoint, acme.owner_id)
        e, d = created.endpoint.id, delivery.id
        db.session.commit()
    member = add_person(app, acme.org_id, "m@acme.test")
    form = {"url": "https://example.com/x", "kinds": ["*"], "confirm": "true", "active": "true"}
    for who, expected in (("anonymous", 302), ("member", 403), ("other_org", 404)):
        fresh = app.test_client()
        if who == "member":
            login(fresh, member.owner_email)
        elif who == "other_org":
            login(fresh, globex.owner_email)
        for method, path in PAGES:
            url = f"/o/{acme.slug}/settings/webhooks" + path.format(e=e, d=d)
            resp = getattr(fresh, method)(url, data=form if method == "post" else None)
            assert resp.status_code == expected, (who, method, url, resp.status_code)
            if who == "anonymous":
                assert resp.headers["Location"].startswith("/signin")
            assert b"whsec_" not in resp.data
    with app.app_context():
        row = db.session.get(WebhookEndpoint, e)
        assert row.active and row.description == "" and row.previous_until is None
        assert db.session.scalar(select(func.count()).select_from(WebhookEndpoint)) == 1
