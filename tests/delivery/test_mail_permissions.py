"""Who reaches the Mail pages: the instance's operators (SYSTEM_OPERATORS) only. The
outbox holds sign-in and invitation links, so no org role (owner, admin, member), no
other org's member and no agent reads it or changes the settings: the anonymous go
to sign in, anyone signed in who is not an operator gets a 404, and nothing changes."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select

from tests.factories import add_person, bearer, create_agent, login
from workspace.core.models import Account
from workspace.delivery import mail
from workspace.delivery.models import MailSettings, OutboxMail
from workspace.extensions import db

ROUTES = [
    ("get", "/system/mail"),
    ("post", "/system/mail"),
    ("post", "/system/mail/test"),
    ("get", "/system/mail/remove"),
    ("post", "/system/mail/remove"),
    ("get", "/system/mail/outbox"),
    ("get", "/system/mail/outbox/{mail}"),
    ("get", "/system/mail/outbox/clear"),
    ("post", "/system/mail/outbox/clear"),
]
FORM = {"host": "smtp.example.com", "port": "587", "security": "none", "confirm": "true",
        "from_address": "ws@acme.test", "to": "me@acme.test"}  # fmt: skip


def _outbox_mail(app) -> str:
    with app.app_context():
        sent = mail.send_mail("new@acme.test", "Your sign-in link", "https://ws/signin/xyz")
        db.session.commit()
        return str(sent.outbox_id)


def _unchanged(app) -> None:
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(OutboxMail)) == 1
        assert db.session.scalar(select(func.count()).select_from(MailSettings)) == 0


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_the_anonymous_are_sent_to_sign_in(app, client, acme, method, path):
    url = path.format(mail=_outbox_mail(app))
    answer = getattr(client, method)(url, data=FORM)
    assert answer.status_code == 302
    assert answer.headers["Location"].startswith("/signin?next=/system/mail")
    _unchanged(app)


@pytest.mark.parametrize("who", ["owner", "admin", "member", "other_org"])
@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_no_org_role_reaches_them(app, client, acme, globex, method, path, who):
    app.config["SYSTEM_OPERATORS"] = ("owner@globex.test",) if who != "other_org" else ()
    try:
        url = path.format(mail=_outbox_mail(app))
        if who == "owner":
            email = acme.owner_email
        elif who == "other_org":
            email = globex.owner_email
        else:
            email = add_person(app, acme.org_id, f"{who}@acme.test", role=who).owner_email
        login(client, email)
        answer = getattr(client, method)(url, data=FORM)
        assert answer.status_code == 404
        assert b"sign-in" not in answer.data and b"signin/xyz" not in answer.data
        _unchanged(app)
    finally:
        app.config["SYSTEM_OPERATORS"] = ()


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_an_agent_named_as_operator_gets_nothing(app, client, acme, method, path):
    agent = create_agent(client, acme)
    with app.app_context():
        email = db.session.get(Account, uuid.UUID(agent["id"])).email
    app.config["SYSTEM_OPERATORS"] = (email,)  # an agent is never an operator anyway
    try:
        url = path.format(mail=_outbox_mail(app))
        answer = getattr(client, method)(url, data=FORM, headers=bearer(agent["token"]))
        # A bearer token opens no page: the agent is anonymous to /system.
        assert answer.status_code == 302
        assert answer.headers["Location"].startswith("/signin")
        _unchanged(app)
    finally:
        app.config["SYSTEM_OPERATORS"] = ()


def test_an_operator_reaches_every_page(app, client, operator):
    url = _outbox_mail(app)
    login(client, operator.owner_email)
    for path in ("/system/mail", "/system/mail/outbox", f"/system/mail/outbox/{url}",
                 "/system/mail/outbox/clear", "/system/mail/remove"):  # fmt: skip
        assert client.get(path).status_code == 200, path
    assert client.get("/system/mail/outbox/00000000-0000-0000-0000-000000000000").status_code == 404
