"""Verified domains: normalization, the JSON API, DoH answer variants, conflicts
between orgs (including a real race on the partial unique index), the page."""

from __future__ import annotations

import threading

import pytest

from tests.conftest import add_person, login, make_org
from workspace.core.emails import normalize_domain
from workspace.errors import ServiceError

pytestmark = pytest.mark.usefixtures("doh")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("example.com", "example.com"),
        ("https://example.com", "example.com"),
        ("http://example.com/", "example.com"),
        ("https://Example.COM/", "example.com"),
        ("https://Qa-Test.Example.org/path?x=1#top", "qa-test.example.org"),
        ("alice@example.com", "example.com"),
        ("  Alice.Smith@Sub.Example.com ", "sub.example.com"),
        ("example.com.", "example.com"),
        ("bücher.de", "xn--bcher-kva.de"),
        ("BÜCHER.de", "xn--bcher-kva.de"),
        ("xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("acme.test", "acme.test"),
    ],
)
def test_normalization(raw, expected):
    assert normalize_domain(raw) == expected


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("", "Enter a domain"),
        ("exa mple.com", "spaces"),
        ("localhost", "at least one dot"),
        ("192.168.1.10", "IP address"),
        ("[::1]", "IP address"),
        ("example.com/path", "without a path"),
        ("example.com:8443", "port"),
        ("ftp://example.com", "bare domain"),
        (".".join(["a" * 60] * 5), "253"),
        ("-bad.example.com", "not a valid"),
        ("exa_mple.com", "not a valid"),
    ],
)
def test_normalization_refuses_garbage(raw, says):
    with pytest.raises(ServiceError) as info:
        normalize_domain(raw)
    assert says in info.value.message
    assert info.value.field == "domain"


def add(client, org, domain):
    return client.post(org.url("/domains"), json={"domain": domain}, headers=org.headers)


def verify(client, org, domain_id):
    return client.post(org.url(f"/domains/{domain_id}/verify"), headers=org.headers)


def test_add_shows_txt_record_and_lists(client, acme):
    resp = add(client, acme, "https://Acme.example/")
    assert resp.status_code == 201
    body = resp.get_json()
    assert body["domain"] == "acme.example"
    assert body["state"] == "pending"
    assert body["txt_record"] == {
        "name": "@",
        "value": f"service-verify={body['verification_token']}",
    }
    listed = client.get(acme.url("/domains"), headers=acme.headers).get_json()
    assert [d["id"] for d in listed] == [body["id"]]
    again = add(client, acme, "acme.example")
    assert again.status_code == 409


def test_garbage_is_422_with_field(client, acme):
    # Text the document takes, which the service refuses as no domain name.
    resp = add(client, acme, "not a domain")
    assert resp.status_code == 422
    assert resp.mimetype == "application/problem+json"
    assert resp.get_json()["errors"][0]["field"] == "domain"


@pytest.mark.parametrize("shape", ["plain", "quoted", "split", "cname", "among_others"])
def test_verify_reads_txt_variants(client, acme, doh, shape):
    body = add(client, acme, "acme.example").get_json()
    value = body["txt_record"]["value"]
    if shape == "plain":
        doh.txt("acme.example", value)
    elif shape == "quoted":
        doh.txt("acme.example", f'"{value}"')
    elif shape == "split":
        doh.txt("acme.example", f'"{value[:20]}" "{value[20:]}"')
    elif shape == "cname":
        doh.txt("acme.example", f'"{value}"', cname="verify.hosting.example")
    else:
        doh.txt("acme.example", '"v=spf1 -all"', '"google-site-verification=x"', f'"{value}"')
    resp = verify(client, acme, body["id"])
    assert resp.status_code == 200, resp.get_json()
    out = resp.get_json()
    assert out["state"] == "verified"
    assert out["verified_at"]
    assert doh.queries == [("acme.example", "TXT")]


@pytest.mark.parametrize(
    "answer",
    [
        {
            "Status": 0,
            "Answer": [
                {"name": "acme.example.", "type": 16, "data": '"service-verify=someone-else"'}
            ],
        },
        {"Status": 0},  # name exists, no TXT at all: Answer missing
        {"Status": 0, "Answer": [{"name": "acme.example.", "type": 5, "data": "x.example."}]},
        {"Status": 3},  # NXDOMAIN
    ],
)
def test_verify_without_record_stays_pending(client, acme, doh, answer):
    body = add(client, acme, "acme.example").get_json()
    doh.answers["acme.example"] = answer
    resp = verify(client, acme, body["id"])
    assert resp.status_code == 200
    out = resp.get_json()
    assert out["state"] == "pending"
    assert "not found yet" in out["message"]
    assert "DNS can take a while" in out["message"]
    assert body["txt_record"]["value"] in out["message"]
    assert ("NXDOMAIN" in out["message"]) == (answer["Status"] == 3)


def test_verify_only_reads_exact_name(client, acme, doh):
    body = add(client, acme, "acme.example").get_json()
    doh.txt("www.acme.example", body["txt_record"]["value"])
    doh.txt("example", body["txt_record"]["value"])
    assert verify(client, acme, body["id"]).get_json()["state"] == "pending"


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("servfail", "DNS status 2"),
        ("not_json", "not JSON"),
        ("slow", "did not answer within"),
    ],
)
def test_resolver_failures_are_clear_not_500(client, acme, doh, app, monkeypatch, kind, says):
    body = add(client, acme, "acme.example").get_json()
    if kind == "servfail":
        doh.answers["acme.example"] = {"Status": 2}
    elif kind == "not_json":
        doh.raw["acme.example"] = "<html>captive portal</html>"
    else:
        monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 0.3)
        doh.delay["acme.example"] = 1.5
    resp = verify(client, acme, body["id"])
    assert resp.status_code == 502
    assert says in resp.get_json()["detail"]
    listed = client.get(acme.url("/domains"), headers=acme.headers).get_json()
    assert listed[0]["state"] == "pending"


def test_conflicts_between_orgs_and_release(client, acme, globex, doh):
    mine = add(client, acme, "shared.example").get_json()
    theirs = add(client, globex, "shared.example").get_json()
    doh.txt("shared.example", mine["txt_record"]["value"], theirs["txt_record"]["value"])
    assert verify(client, globex, theirs["id"]).get_json()["state"] == "verified"
    # Re-checked at verify time ...
    resp = verify(client, acme, mine["id"])
    assert resp.status_code == 409
    assert "another organization" in resp.get_json()["detail"]
    # ... and refused at add.
    client.delete(acme.url(f"/domains/{mine['id']}"), headers=acme.headers)
    assert add(client, acme, "shared.example").status_code == 409
    # Removing the verified domain frees it.
    assert (
        client.delete(globex.url(f"/domains/{theirs['id']}"), headers=globex.headers).status_code
        == 204
    )
    again = add(client, acme, "shared.example").get_json()
    doh.txt("shared.example", again["txt_record"]["value"])
    assert verify(client, acme, again["id"]).get_json()["state"] == "verified"


def test_two_orgs_verifying_at_the_same_moment(app, client, doh):
    """Both pass the friendly pre-check while the resolver holds them; the partial
    unique index lets exactly one commit, the other gets 409."""
    orgs = [make_org(app, "Acme", "owner@acme.test"), make_org(app, "Globex", "o@globex.test")]
    rows = [add(client, org, "race.example").get_json() for org in orgs]
    doh.txt("race.example", *(r["txt_record"]["value"] for r in rows))
    doh.barrier = threading.Barrier(2)
    results: list[int] = []

    def run(org, row):
        results.append(
            app.test_client()
            .post(org.url(f"/domains/{row['id']}/verify"), headers=org.headers)
            .status_code
        )

    threads = [threading.Thread(target=run, args=pair) for pair in zip(orgs, rows, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) == [200, 409]
    states = [client.get(o.url("/domains"), headers=o.headers).get_json()[0]["state"] for o in orgs]
    assert sorted(states) == ["pending", "verified"]


def test_members_cannot_manage_domains(client, acme, app):
    member = add_person(app, acme.org_id, "mia@acme.test")
    resp = add(client, member, "acme.example")
    assert resp.status_code == 403
    assert client.get(acme.url("/domains"), headers=member.headers).status_code == 403
    login(client, member.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/domains").status_code == 403


def test_other_orgs_domain_is_404(client, acme, globex):
    row = add(client, acme, "acme.example").get_json()
    assert verify(client, globex, row["id"]).status_code == 404
    assert (
        client.delete(globex.url(f"/domains/{row['id']}"), headers=globex.headers).status_code
        == 404
    )


def test_events_record_domain_changes(client, acme, doh):
    row = add(client, acme, "acme.example").get_json()
    doh.txt("acme.example", row["txt_record"]["value"])
    verify(client, acme, row["id"])
    kinds = [e["kind"] for e in client.get(acme.url("/events"), headers=acme.headers).get_json()]
    assert "domain.added" in kinds
    assert "domain.verified" in kinds


def test_page_shows_record_copy_and_failed_verify_message(client, acme, doh):
    login(client, acme.owner_email)
    resp = client.post(f"/o/{acme.slug}/settings/domains", data={"domain": "alice@Acme.Example"})
    assert resp.status_code == 302
    page = client.get(f"/o/{acme.slug}/settings/domains").get_data(as_text=True)
    row = client.get(acme.url("/domains"), headers=acme.headers).get_json()[0]
    assert "acme.example" in page
    assert row["txt_record"]["value"] in page
    assert "<code>@</code>" in page
    assert 'data-copy="#txt-' in page
    assert "pending" in page
    partial = client.post(
        f"/o/{acme.slug}/settings/domains/{row['id']}/verify", headers={"HX-Request": "true"}
    )
    html = partial.get_data(as_text=True)
    assert partial.status_code == 200
    assert html.lstrip().startswith("<tr")
    assert "record was not found yet" in html and "DNS can take a while" in html
    doh.txt("acme.example", row["txt_record"]["value"])
    html = client.post(
        f"/o/{acme.slug}/settings/domains/{row['id']}/verify", headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    assert "verified" in html
    # Without JavaScript: the form posts and comes back with a flash.
    resp = client.post(f"/o/{acme.slug}/settings/domains/{row['id']}/remove")
    assert resp.status_code == 302
    assert "acme.example removed" in client.get(resp.location).get_data(as_text=True)


def test_page_add_garbage_says_why(client, acme):
    login(client, acme.owner_email)
    resp = client.post(f"/o/{acme.slug}/settings/domains", data={"domain": "10.0.0.1"})
    assert resp.status_code == 400
    assert "IP address is not a domain" in resp.get_data(as_text=True)
