"""Mail through real SMTP servers on loopback (tests/delivery/conftest.py): the test
mail reports the server's answer; a wrong password, a refused connection and a
server that never answers give a clear message, no 500 and never the password; with
no server set, mail goes to the outbox."""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from tests.delivery.conftest import PASSWORD, USER, configure
from tests.factories import login
from workspace.delivery import mail
from workspace.delivery.models import MailSettings, OutboxMail
from workspace.extensions import db
from workspace.security.crypto import unseal
from workspace.types import utcnow


def _test_mail(client, to: str):
    return client.post("/system/mail/test", data={"to": to})


@pytest.mark.parametrize(
    ("server", "security", "signed_in"),
    [("plain", "none", False), ("starttls", "starttls", True), ("tls", "tls", False)],
)
def test_the_test_mail_is_delivered_and_the_server_answer_shown(
    mail_app, client, operator, smtp_servers, server, security, signed_in
):
    credentials = {"username": USER, "password": PASSWORD} if signed_in else {}
    configure(mail_app, getattr(smtp_servers, server), security, **credentials)
    login(client, operator.owner_email)
    to = f"{server}-{uuid.uuid4().hex[:8]}@example.test"  # the servers outlive each test
    answer = _test_mail(client, to)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "Sent." in html and "250 Message accepted for delivery" in html
    assert PASSWORD not in html
    delivered = smtp_servers.received.to(to)
    assert len(delivered) == 1 and b"Subject: Workspace test mail" in delivered[0]
    with mail_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(OutboxMail)) == 0


def test_send_mail_sends_html_and_attachments(mail_app, smtp_servers):
    configure(mail_app, smtp_servers.plain, "none")
    with mail_app.app_context():
        sent = mail.send_mail(
            ["a@example.test", "b-html@example.test"],
            "Report",
            "Plain text",
            html="<p>HTML</p>",
            attachments=[("report.pdf", b"%PDF-1.7 fake", "application/pdf")],
        )
    assert sent.reply.startswith("250") and sent.outbox_id is None
    content = smtp_servers.received.to("b-html@example.test")[-1]
    assert b"text/html" in content and b'filename="report.pdf"' in content


def test_a_wrong_password_is_reported_without_the_password(
    mail_app, client, operator, smtp_servers, caplog
):
    wrong = "Not-The-Right-0ne"
    configure(mail_app, smtp_servers.starttls, "starttls", username=USER, password=wrong)
    login(client, operator.owner_email)
    with caplog.at_level(logging.DEBUG):
        answer = _test_mail(client, "someone@example.test")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "Not sent." in html and "refused the user name or password: 535" in html
    assert wrong not in html and wrong not in caplog.text
    assert not smtp_servers.received.to("someone@example.test")


def test_a_refused_connection_is_reported(mail_app, client, operator, smtp_servers):
    configure(mail_app, smtp_servers.refused, "none")
    login(client, operator.owner_email)
    html = _test_mail(client, "x@example.test").get_data(as_text=True)
    assert f"127.0.0.1:{smtp_servers.refused} refused the connection" in html


def test_a_server_that_never_answers_ends_at_the_deadline(
    mail_app, client, operator, smtp_servers, monkeypatch
):
    monkeypatch.setitem(mail_app.config, "OUTBOUND_DEADLINE", 1.0)
    configure(mail_app, smtp_servers.silent, "tls", username=USER, password=PASSWORD)
    login(client, operator.owner_email)
    answer = _test_mail(client, "x@example.test")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "did not finish within 1 s (the total deadline)" in html
    assert PASSWORD not in html


def test_starttls_on_a_server_without_it_is_reported(mail_app, smtp_servers):
    configure(mail_app, smtp_servers.plain, "starttls")
    with mail_app.app_context(), pytest.raises(mail.MailError, match="does not offer STARTTLS"):
        mail.send_mail("x@example.test", "Hi", "Hello")


def test_an_untrusted_certificate_is_refused(app, smtp_servers, monkeypatch):
    configure(app, smtp_servers.tls, "tls")  # SMTP_CA_FILE not set: the cert is unknown
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", 5.0)
    with app.app_context(), pytest.raises(mail.MailError, match="TLS handshake"):
        mail.send_mail("x@example.test", "Hi", "Hello")


def test_the_password_is_sealed_and_blank_keeps_it(mail_app, client, operator, smtp_servers):
    login(client, operator.owner_email)
    form = {"host": "127.0.0.1", "port": str(smtp_servers.starttls), "security": "starttls",
            "username": USER, "password": PASSWORD, "from_address": "ws@acme.test"}  # fmt: skip
    assert client.post("/system/mail", data=form).status_code == 303
    assert client.post("/system/mail", data={**form, "password": ""}).status_code == 303
    with mail_app.app_context():
        row = db.session.scalar(select(MailSettings))
        assert PASSWORD not in row.password_sealed
        assert unseal(row.password_sealed, row.id) == PASSWORD
    page = client.get("/system/mail").get_data(as_text=True)
    assert PASSWORD not in page and "A password is stored" in page
    assert "250 Message accepted" in _test_mail(client, "me@example.test").get_data(as_text=True)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("port", "0", "port"),
        ("port", "65536", "port"),
        ("port", "twenty-five", "port"),
        ("from_address", "not-an-address", "@"),
        ("from_address", "a@example.test, b@example.test", "one address"),
        ("host", "h" * 254, "host"),
        ("host", "smtp.example.com/evil", "host name"),
        ("username", "u" * 321, "username"),
        ("password", "p" * 501, "password"),
        ("security", "ssl3", "security"),
    ],
)
def test_bad_settings_are_a_400_beside_the_field(app, client, operator, field, value, message):
    login(client, operator.owner_email)
    form = {"host": "smtp.example.com", "port": "587", "security": "starttls",
            "from_address": "ws@acme.test", field: value}  # fmt: skip
    answer = client.post("/system/mail", data=form)
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    assert f'id="f-{field}-error"' in html
    assert message.lower() in html.lower()
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(MailSettings)) == 0


@pytest.mark.parametrize("to", ["nobody", "a@b.test, c@d.test", "x" * 400 + "@example.test"])
def test_a_bad_test_address_is_a_400(app, client, operator, to):
    login(client, operator.owner_email)
    answer = _test_mail(client, to)
    assert answer.status_code == 400
    assert 'id="t-to-error"' in answer.get_data(as_text=True)


def test_unconfigured_mail_goes_to_the_outbox(app, client, operator):
    with app.app_context():
        sent = mail.send_mail(
            "new@acme.test",
            "Sign in to Workspace",
            "Open https://ws.example/signin/abc to sign in.",
            html="<p>Open <a href='https://ws.example/signin/abc'>the link</a></p>",
            attachments=[("a.pdf", b"12345", "application/pdf")],
        )
        db.session.commit()
    assert sent.outbox_id is not None and "outbox" in sent.reply
    login(client, operator.owner_email)
    listing = client.get("/system/mail/outbox").get_data(as_text=True)
    assert "Sign in to Workspace" in listing and "new@acme.test" in listing
    one = client.get(f"/system/mail/outbox/{sent.outbox_id}").get_data(as_text=True)
    assert "https://ws.example/signin/abc" in one and "a.pdf (application/pdf, 5 bytes)" in one
    assert "&lt;p&gt;Open" in one  # the HTML part is shown as source, never rendered


def test_the_test_mail_without_settings_lands_in_the_outbox(app, client, operator):
    login(client, operator.owner_email)
    html = _test_mail(client, "me@acme.test").get_data(as_text=True)
    assert "Kept in the outbox" in html and "Read it in the outbox" in html
    with app.app_context():
        assert db.session.scalar(select(OutboxMail.subject)) == "Workspace test mail"


def test_the_outbox_keeps_bodies_capped_and_prunes_old_and_surplus(app, monkeypatch):
    monkeypatch.setattr(mail, "OUTBOX_KEEP", 3)
    with app.app_context():
        old = utcnow() - timedelta(days=31)
        db.session.add(
            OutboxMail(from_address="a@x.test", to="b@x.test", subject="old", text="", size=0,
                       created_at=old)
        )  # fmt: skip
        db.session.flush()
        for n in range(4):
            mail.send_mail("b@x.test", f"mail {n}", "x" * (mail.MAX_OUTBOX_BODY + 10))
            db.session.commit()
        rows = db.session.scalars(select(OutboxMail)).all()
        assert "old" not in {r.subject for r in rows}
        assert len(rows) <= 3 and "mail 3" in {r.subject for r in rows}
        assert all("10 more were cut" in r.text for r in rows)


def test_a_subject_with_a_line_break_is_refused(app):
    from workspace.errors import ServiceError

    with app.app_context(), pytest.raises(ServiceError):
        mail.send_mail("b@x.test", "Hi\r\nBcc: evil@x.test", "body")


def test_clearing_the_outbox_asks_first(app, client, operator):
    with app.app_context():
        mail.send_mail("b@x.test", "Hello", "body")
        db.session.commit()
    login(client, operator.owner_email)
    asked = client.post("/system/mail/outbox/clear")
    assert asked.status_code == 303 and asked.headers["Location"] == "/system/mail/outbox/clear"
    confirm = client.get("/system/mail/outbox/clear").get_data(as_text=True)
    assert "Delete all 1 mails" in confirm
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(OutboxMail)) == 1
    done = client.post("/system/mail/outbox/clear", data={"confirm": "true"})
    assert done.status_code == 303
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(OutboxMail)) == 0


def test_removing_the_settings_asks_first(app, client, operator):
    configure(app, 2525, "none")
    login(client, operator.owner_email)
    assert client.post("/system/mail/remove").headers["Location"] == "/system/mail/remove"
    assert "Forget the SMTP server" in client.get("/system/mail/remove").get_data(as_text=True)
    assert client.post("/system/mail/remove", data={"confirm": "true"}).status_code == 303
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(MailSettings)) == 0
