"""Settings > Audit log: actors, readable subjects, filters, paging and the CSV export."""

from __future__ import annotations

import csv
import io
import re
import uuid
from datetime import UTC, datetime, timedelta

from tests.factories import add_person, create_project, login, make_org
from workspace.extensions import db

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _event(app, org_id, kind, *, at=None, actor_id=None, subject=None, **data):
    from workspace.core.events import record_event

    with app.app_context():
        event = record_event(org_id, kind, actor_id=actor_id, subject=subject, **data)
        if at is not None:
            event.created_at = at
        db.session.commit()
        return event.id


def _agent(app, org_id, name="Helper Bot"):
    from workspace.core.accounts import add_member, ensure_account
    from workspace.core.models import AccountKind, Org

    with app.app_context():
        account = ensure_account(f"{name.lower().replace(' ', '-')}@agents.test", name)
        account.kind = AccountKind.AGENT
        add_member(db.session.get(Org, org_id), account, "member")
        db.session.commit()
        return account.id


def _page(client, acme, **params):
    resp = client.get(f"/o/{acme.slug}/settings/events", query_string=params)
    return resp, resp.get_data(as_text=True)


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in html else ""
    return re.findall(r"<tr>(.*?)</tr>", body, re.S)


def _csv(client, acme, **params):
    resp = client.get(f"/o/{acme.slug}/settings/events.csv", query_string=params)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(resp.get_data(as_text=True))))


def test_actor_labels_person_agent_and_sources(app, client, acme):
    bot = _agent(app, acme.org_id)
    _event(app, acme.org_id, "dashboard.updated", actor_id=bot, at=T0, subject="x")
    _event(app, acme.org_id, "scim.user.provisioned", subject="new@acme.test", at=T0)
    _event(app, acme.org_id, "sso.sync.added", subject="sync@acme.test", at=T0)
    _event(app, acme.org_id, "ldap.login_failed", subject="who", at=T0)
    _event(app, acme.org_id, "member.added", subject="m@acme.test", via="scim", at=T0)
    _event(app, acme.org_id, "auth.sso.rejected", reason="nope", at=T0)
    _event(app, acme.org_id, "custom.thing", subject="tick", at=T0)
    login(client, acme.owner_email)
    resp, html = _page(client, acme)
    assert resp.status_code == 200
    labels = {
        re.search(r'class="mono">([^<]+)<', r).group(1): re.search(
            r'class="actor actor-(\w+)">([^<]+)', r
        ).groups()
        for r in _rows(html)
    }
    assert labels["dashboard.updated"] == ("agent", "Helper Bot ")
    assert labels["scim.user.provisioned"] == ("scim", "Identity provider (SCIM)")
    assert labels["member.added"] == ("scim", "Identity provider (SCIM)")
    assert labels["sso.sync.added"] == ("sso", "Identity provider")
    assert labels["auth.sso.rejected"] == ("sso", "Identity provider")
    assert labels["ldap.login_failed"] == ("ldap", "Directory")
    assert labels["custom.thing"] == ("system", "System")
    # the owner's own sign-in and token creation: a person, by name
    assert labels["api_token.created"] == ("person", "Acme Owner")
    assert ">agent</span>" in html


def test_project_event_shows_the_name_linked_never_the_id(app, client, acme):
    project = create_project(client, acme, "Web App", "WEB")
    pid = project["id"]
    _event(
        app,
        acme.org_id,
        "sso.mapping.added",
        subject="eng",
        project_id=pid,
        mapping_id=str(uuid.uuid4()),
    )
    _event(app, acme.org_id, "project.deleted", subject="Old Thing", project_id=str(uuid.uuid4()))
    login(client, acme.owner_email)
    _, html = _page(client, acme, kind="project.")
    rows = _rows(html)
    created = next(r for r in rows if "project.created" in r)
    subject = created.split('class="subject">', 1)[1]
    assert f'href="/o/{acme.slug}/projects/{pid}">Web App</a>' in subject
    for r in rows:
        shown = re.sub(r'href="[^"]*"', "", r)  # the link target may carry the id
        assert not UUID_RE.search(shown), r
    assert "Old Thing (deleted)" in html
    _, html = _page(client, acme, kind="sso.")
    (mapping,) = _rows(html)
    assert "eng" in mapping and ">Web App</a>" in mapping
    assert not UUID_RE.search(re.sub(r'href="[^"]*"', "", mapping))


def test_webhook_and_alert_events_name_their_endpoint_or_alert(app, client, acme):
    """Their subject is an id: the log said "(an id)" where the URL says what it was."""
    endpoint = str(uuid.uuid4())
    _event(app, acme.org_id, "webhook.endpoint.created", subject=endpoint,
           url="https://siem.example.com/in", kinds=["*"])  # fmt: skip
    _event(app, acme.org_id, "webhook.secret.rotated", subject=endpoint, overlap_hours=24)
    _event(app, acme.org_id, "webhook.endpoint.deleted", subject=endpoint,
           url="https://siem.example.com/in")  # fmt: skip
    login(client, acme.owner_email)
    _, html = _page(client, acme, kind="webhook.")
    rows = _rows(html)
    assert len(rows) == 3 and not any("(an id)" in r for r in rows)
    assert sum("https://siem.example.com/in (removed)" in r for r in rows) == 3
    assert not any(UUID_RE.search(re.sub(r'href="[^"]*"', "", r)) for r in rows)


def test_filters_each_narrow(app, client, acme):
    bob = add_person(app, acme.org_id, "bob@acme.test")
    _event(app, acme.org_id, "project.created", actor_id=bob.owner_id, subject="B1", at=T0)
    _event(app, acme.org_id, "scim.user.provisioned", subject="s1", at=T0 + timedelta(days=2))
    _event(
        app,
        acme.org_id,
        "project.updated",
        subject="A1",
        actor_id=acme.owner_id,
        at=T0 + timedelta(days=5),
    )
    login(client, acme.owner_email)

    def subjects(**params):
        resp, html = _page(client, acme, **params)
        assert resp.status_code == 200, html
        return {
            re.sub(r"<[^>]+>", "", r.split('class="subject">')[1].split("</td>")[0]).strip()
            for r in _rows(html)
        }

    everything = subjects()
    assert {"B1", "s1", "A1"} <= everything
    assert subjects(kind="scim.") == {"s1"}
    assert subjects(actor=str(bob.owner_id)) == {"B1", "tests"}  # and Bob's own token
    assert subjects(actor=str(bob.owner_id), kind="project.") == {"B1"}
    assert subjects(date_from="2026-03-02", date_to="2026-03-04") == {"s1"}
    assert subjects(date_to="2026-03-01") == {"B1"}
    assert subjects(kind="project.", date_from="2026-03-02") == {"A1"}
    # the filter selects offer what is there
    _, html = _page(client, acme)
    assert '<option value="scim.">SCIM</option>' in html
    assert f'<option value="{bob.owner_id}">Bob</option>' in html
    assert "whole days in UTC" in html


def test_dates_are_days_in_the_org_time_zone(app, client, acme):
    from workspace.core.models import Org

    with app.app_context():
        db.session.get(Org, acme.org_id).timezone = "Pacific/Auckland"  # UTC+13 in March
        db.session.commit()
    _event(
        app, acme.org_id, "custom.late", subject="late", at=datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    )
    login(client, acme.owner_email)
    _, html = _page(client, acme, date_from="2026-03-02", date_to="2026-03-02")
    assert "late" in html and "whole days in Pacific/Auckland" in html
    assert "2 Mar 2026, 01:30:00 NZDT" in html
    _, html = _page(client, acme, date_to="2026-03-01")
    assert "custom.late" not in html


def test_bad_dates_are_a_message_on_the_field(client, acme):
    login(client, acme.owner_email)
    resp, html = _page(client, acme, date_from="2026-13-45")
    assert resp.status_code == 400
    assert 'id="f-date_from-error"' in html
    resp, html = _page(client, acme, date_from="2026-03-05", date_to="2026-03-01")
    assert resp.status_code == 400
    assert "The end date is before the start date." in html
    resp = client.get(f"/o/{acme.slug}/settings/events.csv?date_to=nope")
    assert resp.status_code == 400


def test_a_page_position_it_cannot_read_says_so_and_shows_the_newest(client, acme):
    """A hand-edited ``offset`` has no box on the page to show its error by: the page
    says what was wrong above the newest events instead of silently showing them."""
    login(client, acme.owner_email)
    for bad, says in (("-5", "offset: Enter 0 or more."), ("abc", "offset: Enter a whole number.")):
        resp, html = _page(client, acme, offset=bad)
        assert resp.status_code == 400
        assert says in html
        assert "Showing the newest events." in html


def test_blank_filter_boxes_count_as_no_filter(client, acme):
    """A browser sends every box of the filter form, the blank ones too: they filter
    nothing, in the page and in its CSV link (the reason the view parses the query
    itself, where a blank counts as absent)."""
    login(client, acme.owner_email)
    blank = {"kind": "", "actor": "", "date_from": "", "date_to": ""}
    resp, html = _page(client, acme, **blank)
    assert resp.status_code == 200 and "field-error" not in html
    csv_resp = client.get(f"/o/{acme.slug}/settings/events.csv", query_string=blank)
    assert csv_resp.status_code == 200


def test_paging_reaches_row_250_of_260(app, client, acme):
    from workspace.core.events import record_event
    from workspace.core.models import Event

    with app.app_context():
        db.session.query(Event).delete()
        for i in range(260):
            event = record_event(acme.org_id, "custom.tick", subject=f"row {i:03d}")
            event.created_at = T0 + timedelta(minutes=260 - i)  # row 000 is the newest
        db.session.commit()
    login(client, acme.owner_email)
    seen: list[str] = []
    url = f"/o/{acme.slug}/settings/events?kind=custom."
    while url:
        resp = client.get(url)
        html = resp.get_data(as_text=True)
        seen += re.findall(r"row \d{3}", html)
        older = re.search(r'<a href="([^"]+)" rel="next">Older</a>', html)
        url = older.group(1).replace("&amp;", "&") if older else None
        if url:
            assert "kind=custom." in url  # filters stay in the URL
    assert len(seen) == 260 and len(set(seen)) == 260
    assert seen[249] == "row 249"


def test_csv_has_header_filtered_rows_and_escapes_formulas(app, client, acme):
    _event(app, acme.org_id, "custom.evil", subject="=cmd|' /C calc'!A0", at=T0)
    _event(app, acme.org_id, "custom.evil", subject="@SUM(1)", at=T0)
    _event(app, acme.org_id, "scim.user.provisioned", subject="s@acme.test", at=T0)
    project = create_project(client, acme, "Web App", "WEB")
    login(client, acme.owner_email)
    rows = _csv(client, acme, kind="custom.")
    assert rows[0] == ["time_utc", "event", "actor", "subject", "details"]
    assert {r[3] for r in rows[1:]} == {"'=cmd|' /C calc'!A0", "'@SUM(1)"}
    assert rows[1][0].startswith("2026-03-01T12:00:00") and rows[1][2] == "System"
    rows = _csv(client, acme, kind="project.")
    assert rows[1][1] == "project.created" and rows[1][2] == "Acme Owner"
    assert rows[1][3] == "Web App" and project["id"] in rows[1][4]  # details keep the ids
    assert len(_csv(client, acme)) > 4


def test_api_filters_by_actor_and_time(app, client, acme):
    _event(app, acme.org_id, "custom.a", actor_id=acme.owner_id, at=T0)
    _event(app, acme.org_id, "custom.b", at=T0 + timedelta(days=1))
    url = acme.url("/events")
    got = client.get(
        url, query_string={"kind": "custom.", "actor_id": str(acme.owner_id)}, headers=acme.headers
    ).get_json()
    assert [e["kind"] for e in got] == ["custom.a"]
    got = client.get(
        url, query_string={"kind": "custom.", "since": "2026-03-02T00:00:00Z"}, headers=acme.headers
    ).get_json()
    assert [e["kind"] for e in got] == ["custom.b"]
    got = client.get(
        url,
        query_string={"kind": "custom.", "until": "2026-03-02T01:00:00+01:00"},
        headers=acme.headers,
    ).get_json()
    assert [e["kind"] for e in got] == ["custom.a"]
    empty = {"since": "2026-03-02T00:00:00Z", "until": "2026-03-01T00:00:00Z"}
    assert client.get(url, query_string=empty, headers=acme.headers).get_json() == []
    for bad in ("0.5", "2026-03-01", "2026-03-01T00:00:00"):  # a number, a day, no offset
        resp = client.get(url, query_string={"until": bad}, headers=acme.headers)
        assert resp.status_code == 400, bad


def test_member_gets_403_and_another_org_404(app, client, acme):
    member = add_person(app, acme.org_id, "mia@acme.test")
    login(client, member.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/events").status_code == 403
    assert client.get(f"/o/{acme.slug}/settings/events.csv").status_code == 403
    other = make_org(app, "Globex", "owner@globex.test")
    client.post("/signout")
    login(client, other.owner_email)
    assert client.get(f"/o/{acme.slug}/settings/events").status_code == 404
    assert client.get(f"/o/{acme.slug}/settings/events.csv").status_code == 404


def test_dashboard_events_show_the_dashboard_name(app, client, acme):
    board = client.post(acme.url("/dashboards"), json={"name": "Board"}, headers=acme.headers)
    assert board.status_code == 201, board.get_json()
    board_id = board.get_json()["id"]
    login(client, acme.owner_email)
    _, html = _page(client, acme, kind="dashboard.")
    (row,) = _rows(html)
    assert f'href="/o/{acme.slug}/dashboards/{board_id}">Board</a>' in row
    assert board_id not in re.sub(r'href="[^"]*"', "", row)
    assert (
        client.delete(acme.url(f"/dashboards/{board_id}"), headers=acme.headers).status_code == 204
    )
    _, html = _page(client, acme, kind="dashboard.")
    assert html.count("Board (deleted)") == 2 and board_id not in html


def test_renamed_kinds_stay_readable_under_their_new_name(app, client, acme):
    """Mapping events are ``groupsync.mapping.*`` now (group sync owns them); rows
    recorded as ``sso.mapping.*`` before the rename show up under both filters."""
    project = create_project(client, acme, "Web App", "WEB")
    _event(app, acme.org_id, "sso.mapping.added", subject="old-eng", project_id=project["id"])
    resp = client.post(
        acme.url("/sso/group-mappings"),
        json={"idp_group": "new-eng", "project_id": project["id"], "role": "member"},
        headers=acme.headers,
    )
    assert resp.status_code == 201
    login(client, acme.owner_email)
    for kind in ("groupsync.", "groupsync.mapping.added", "groupsync.mapping."):
        _, html = _page(client, acme, kind=kind)
        assert "old-eng" in html and "new-eng" in html, kind
    _, html = _page(client, acme, kind="sso.")
    assert "old-eng" in html and "new-eng" not in html
    _, html = _page(client, acme, kind="groupsync.mapping.removed")
    assert "old-eng" not in html


def test_events_read_as_names_with_their_details_in_place(app, client, acme):
    """One mapping names the kinds people meet; an unknown kind reads as its words;
    the details open in place (a <details>) with their keys in words, never clipped."""
    from workspace.admin.audit import EVENT_NAMES, event_name

    _event(app, acme.org_id, "dashboard.widgets_reordered", subject="x", old_role="member")
    _event(app, acme.org_id, "custom.sso_thing_done", subject="y")
    login(client, acme.owner_email)
    _, html = _page(client, acme)
    rows = _rows(html)
    reordered = next(r for r in rows if "dashboard.widgets_reordered" in r)
    assert '<td class="audit-event" data-label="Event">Widgets reordered</td>' in reordered
    assert "<details>" in reordered and "<dt>Old role</dt><dd>member</dd>" in reordered
    unknown = next(r for r in rows if "custom.sso_thing_done" in r)
    assert ">Custom SSO thing done</td>" in unknown
    # The mapping holds names in words, never a kind.
    assert event_name("member.invite_revoked") == "Invitation revoked"
    assert all(name and name[0].isupper() and "_" not in name for name in EVENT_NAMES.values())
    # The CSV keeps the kind itself, for scripts.
    assert any(r[1] == "dashboard.widgets_reordered" for r in _csv(client, acme))
