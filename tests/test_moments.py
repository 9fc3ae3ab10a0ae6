"""One clock on every page (workspace/web.py's ``when``): a moment is written in the
zone of the org the page is about, the zone that decides its "today", as "29 Nov 2026,
23:05 JST"; a page about no org writes UTC."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from flask import render_template_string
from sqlalchemy import select

from tests.factories import login
from workspace.core.dates import moment
from workspace.core.models import Org
from workspace.extensions import db

TOKYO = ZoneInfo("Asia/Tokyo")  # no daylight saving: the label is always JST


def _signed_in_at(app, account_id) -> datetime:
    from workspace.auth.models import AuthSession as Session

    with app.app_context():
        return db.session.scalars(
            select(Session.created_at).where(Session.account_id == account_id)
        ).first()


def test_pages_of_an_org_write_its_zone(app, client, acme):
    with app.app_context():
        db.session.get(Org, acme.org_id).timezone = "Asia/Tokyo"
        db.session.commit()
    login(client, acme.owner_email)
    signed_in = _signed_in_at(app, acme.owner_id)
    local = signed_in.astimezone(TOKYO)
    shown = f"{local.day} {local:%b %Y}, {local:%H:%M} JST"
    for path in ("settings/members", "sessions", "settings/events"):
        html = client.get(f"/o/{acme.slug}/{path}").get_data(as_text=True)
        text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
        # The audit log writes the second too.
        assert shown in text or f"{local:%H:%M:%S} JST" in text, path
        assert not re.search(r"\d\d:\d\d(:\d\d)? UTC", text), path


def test_a_moment_outside_an_org_is_utc_and_zones_without_a_name_say_their_offset(app):
    at = datetime(2026, 3, 1, 23, 30, 5, tzinfo=UTC)
    with app.test_request_context():
        assert render_template_string("{{ at|when }}", at=at) == "1 Mar 2026, 23:30 UTC"
        assert render_template_string("{{ none|when('not yet') }}", none=None) == "not yet"
    assert moment(at, TOKYO) == "2 Mar 2026, 08:30 JST"  # the next day there
    assert moment(at, TOKYO, seconds=True, clock=True) == "08:30:05 JST"
    assert moment(at, TOKYO, date=True) == "2 Mar 2026"
    assert moment(at, TOKYO, weekday=True) == "Mon 2 Mar 2026, 08:30 JST"  # not %a's locale
    assert moment(at, ZoneInfo("America/Sao_Paulo")) == "1 Mar 2026, 20:30 UTC-03"


def test_an_invitation_says_its_expiry_in_the_inviting_orgs_zone(app, client, acme):
    """The invitee is signed in to no org yet; the link still expires at the moment the
    admin was shown, written the same way."""
    with app.app_context():
        db.session.get(Org, acme.org_id).timezone = "Asia/Tokyo"
        db.session.commit()
    made = client.post(acme.url("/invitations"), json={"email": "new@acme.test"},
                       headers=acme.headers)  # fmt: skip
    assert made.status_code == 201, made.get_json()
    page = app.test_client().get(urlsplit(made.get_json()["sign_in_url"]).path)
    text = " ".join(re.sub(r"<[^>]+>", " ", page.get_data(as_text=True)).split())
    assert re.search(r"until \d{1,2} \w{3} \d{4}, \d\d:\d\d JST", text), text[-600:]
