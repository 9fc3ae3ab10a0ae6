"""send_mail's extra header fields (List-Unsubscribe for dashboard subscriptions):
they reach the real SMTP server, and a line break or a field the message sets itself
is refused before anything is sent."""

from __future__ import annotations

import email
import uuid
from email import policy

import pytest

from tests.delivery.conftest import configure
from workspace.delivery import mail
from workspace.errors import ServiceError


def test_extra_headers_reach_the_server(mail_app, smtp_servers):
    configure(mail_app, smtp_servers.plain, "none")
    to = f"h-{uuid.uuid4().hex[:8]}@example.test"
    with mail_app.app_context():
        mail.send_mail(
            to,
            "Weekly numbers",
            "text",
            headers={
                "List-Unsubscribe": "<https://ws.example/unsubscribe/" + "x" * 120 + ">",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
    (raw,) = smtp_servers.received.to(to)
    # Whole on one line, not RFC 2047 words that mail clients do not read as a URL.
    assert b"List-Unsubscribe: <https://ws.example/unsubscribe/" + b"x" * 120 + b">" in raw
    message = email.message_from_bytes(raw, policy=policy.default)
    assert message["List-Unsubscribe"] == "<https://ws.example/unsubscribe/" + "x" * 120 + ">"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Note": "one\r\nBcc: victim@example.test"},
        {"X-Bad\nName": "value"},
        {"Subject": "a second subject"},
        {"": "value"},
    ],
)
def test_a_bad_header_is_refused(app, headers):
    with app.app_context(), pytest.raises(ServiceError) as refused:
        mail.send_mail("someone@example.test", "Hello", "text", headers=headers)
    assert refused.value.status == 400
