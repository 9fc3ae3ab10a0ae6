"""Sending mail (docs/delivery.md#mail): ``send_mail`` builds the message with the
standard library's ``email`` package and hands it to the instance's SMTP server with
``smtplib``, or, when no server is set (the ``make run`` default), writes it to the
outbox the instance's operators read on the System pages.

Every connection runs under one total deadline (``OUTBOUND_DEADLINE`` seconds, each
connect and read under ``OUTBOUND_TIMEOUT``), as every outbound call does: a server
that answers one byte at a time cannot hold the caller longer. A failure is a
``MailError`` whose message is safe to show an operator; it never holds the password.
The host is the operators' own choice (a relay on the local network is the usual
one), so it is not held to the outbound guard's public-address rule, which protects
against what org admins type.
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
import socket
import ssl
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from flask import current_app
from sqlalchemy import delete, select

from workspace.delivery import settings as mail_settings
from workspace.delivery.models import OutboxMail
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.outbound import Deadline
from workspace.types import utcnow

log = logging.getLogger(__name__)

#: A whole mail, attachments included, as it would go out.
MAX_MAIL_BYTES = 10 * 1024 * 1024
#: The outbox keeps each body up to this many characters (the rest is cut, and says so).
MAX_OUTBOX_BODY = 256 * 1024
#: The outbox keeps the newest this many mails, none older than OUTBOX_DAYS.
OUTBOX_KEEP = 500
OUTBOX_DAYS = 30
MAX_SUBJECT = 998
MAX_RECIPIENTS = 50
#: The From of outbox mail when no server (and so no from-address) is set.
OUTBOX_FROM = "workspace@localhost"

#: RFC 5322's hard line limit (998), not its 78 advice: a header with a word longer than
#: a line (a List-Unsubscribe URL) is otherwise folded into RFC 2047 encoded-words,
#: which mail clients do not read as a URL.
WIRE = policy.SMTP.clone(max_line_length=998)

Attachment = tuple[str, bytes, str]  # file name, content, MIME type ("application/pdf")


class MailError(Exception):
    """The server refused or could not be reached; the message says which, safely."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Sent:
    """Where a mail went: the server's answer to it, or the outbox row."""

    reply: str
    outbox_id: object | None = None


def send_mail(
    to: str | Sequence[str],
    subject: str,
    text: str,
    html: str | None = None,
    attachments: Iterable[Attachment] = (),
    headers: Mapping[str, str] | None = None,
) -> Sent:
    """Send one mail to ``to``, or write it to the outbox when no SMTP server is set.
    ``headers`` adds header fields (``List-Unsubscribe``); one the message sets itself,
    or a line break in a name or value, is refused. Bad input is a ``ServiceError``
    (400); a failed delivery a ``MailError``."""
    recipients = _recipients(to)
    if any(ch in subject for ch in "\r\n\0") or len(subject) > MAX_SUBJECT:
        raise ServiceError(
            f"A subject is one line of at most {MAX_SUBJECT} characters.", field="subject"
        )
    attachments = list(attachments)
    row = mail_settings.current()
    sender = row.from_address if row else OUTBOX_FROM
    message = _message(sender, recipients, subject, text, html, attachments)
    _add_headers(message, headers or {})
    raw = message.as_bytes(policy=WIRE)
    if len(raw) > MAX_MAIL_BYTES:
        raise ServiceError(f"A mail is at most {MAX_MAIL_BYTES // (1024 * 1024)} MiB.")
    if row is None:
        return _to_outbox(sender, recipients, subject, text, html, attachments, len(raw))
    return deliver(mail_settings.smtp(row), recipients, raw)


def _add_headers(message: EmailMessage, headers: Mapping[str, str]) -> None:
    for name, value in headers.items():
        # A CR or LF would start a header of the caller's choosing (injection).
        bad_name = not name or not name.isascii() or any(c in name for c in ": \t\r\n\0")
        if bad_name or name in message or any(c in value for c in "\r\n\0"):
            raise ServiceError(f"The header {name!r} cannot be added.", field="headers")
        message[name] = value


def _recipients(to: str | Sequence[str]) -> list[str]:
    given = [to] if isinstance(to, str) else list(to)
    if not given or len(given) > MAX_RECIPIENTS:
        raise ServiceError(f"Send to 1 to {MAX_RECIPIENTS} addresses.", field="to")
    return [mail_settings.check_address(address, "to") for address in given]


def _message(
    sender: str,
    recipients: list[str],
    subject: str,
    text: str,
    html: str | None,
    attachments: list[Attachment],
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    for name, content, mime in attachments:
        maintype, _, subtype = mime.partition("/")
        message.add_attachment(
            content, maintype=maintype, subtype=subtype or "octet-stream", filename=name
        )
    return message


# -- the outbox -----------------------------------------------------------------------


def _cut(body: str | None) -> str | None:
    if body is None or len(body) <= MAX_OUTBOX_BODY:
        return body
    over = len(body) - MAX_OUTBOX_BODY
    return (
        body[:MAX_OUTBOX_BODY]
        + f"\n\n[The outbox keeps {MAX_OUTBOX_BODY} characters; {over} more were cut.]"
    )


def _to_outbox(
    sender: str,
    recipients: list[str],
    subject: str,
    text: str,
    html: str | None,
    attachments: list[Attachment],
    size: int,
) -> Sent:
    row = OutboxMail(
        from_address=sender,
        to=", ".join(recipients),
        subject=subject,
        text=_cut(text) or "",
        html=_cut(html),
        attachments="\n".join(f"{n} ({m}, {len(c)} bytes)" for n, c, m in attachments) or None,
        size=size,
    )
    db.session.add(row)
    db.session.flush()
    prune_outbox()
    log.info("mail %r to %d recipient(s) kept in the outbox", subject[:80], len(recipients))
    return Sent("Kept in the outbox: no SMTP server is set.", outbox_id=row.id)


def prune_outbox() -> None:
    """Retention: nothing older than OUTBOX_DAYS, never more than OUTBOX_KEEP rows."""
    db.session.execute(
        delete(OutboxMail).where(OutboxMail.created_at < utcnow() - timedelta(days=OUTBOX_DAYS))
    )
    oldest_kept = db.session.scalar(
        select(OutboxMail.created_at)
        .order_by(OutboxMail.created_at.desc())
        .offset(OUTBOX_KEEP - 1)
        .limit(1)
    )
    if oldest_kept is not None:
        db.session.execute(delete(OutboxMail).where(OutboxMail.created_at < oldest_kept))
    db.session.flush()


# -- SMTP -----------------------------------------------------------------------------


class _Tracked(smtplib.SMTP):
    """An SMTP client whose socket the deadline can shut, from before the TLS
    handshake of SMTPS to the QUIT."""

    def __init__(self, deadline: Deadline, timeout: float, **kwargs) -> None:
        self._deadline = deadline
        super().__init__(timeout=timeout, **kwargs)

    def _get_socket(self, host, port, timeout):
        sock = socket.create_connection(
            (host, port), self._deadline.bound(timeout), self.source_address
        )
        self._deadline.track(sock)
        return sock


class _TrackedTLS(smtplib.SMTP_SSL, _Tracked):
    """SMTPS: ``SMTP_SSL`` wraps the socket ``_Tracked`` opened."""

    def __init__(self, deadline: Deadline, timeout: float, context: ssl.SSLContext) -> None:
        self._deadline = deadline
        smtplib.SMTP_SSL.__init__(self, timeout=timeout, context=context)


def tls_context() -> ssl.SSLContext:
    """Certificates are verified; ``SMTP_CA_FILE`` adds a private CA (or a test's)."""
    return ssl.create_default_context(cafile=current_app.config.get("SMTP_CA_FILE") or None)


def deliver(server: mail_settings.Smtp, recipients: list[str], raw: bytes) -> Sent:
    """One SMTP conversation under the total deadline; the server's answer to DATA."""
    timeout = float(current_app.config.get("OUTBOUND_TIMEOUT", 10))
    seconds = float(current_app.config.get("OUTBOUND_DEADLINE", 15))
    deadline = Deadline(seconds).start()
    where = f"{server.host}:{server.port}"
    try:
        if server.security == "tls":
            client: smtplib.SMTP = _TrackedTLS(deadline, timeout, tls_context())
        else:
            client = _Tracked(deadline, timeout)
        try:
            client._host = server.host  # what STARTTLS and SMTPS check the certificate for
            client.connect(server.host, server.port)
            client.ehlo()
            if server.security == "starttls":
                if not client.has_extn("starttls"):
                    raise MailError(f"{where} does not offer STARTTLS; choose TLS or none.")
                client.starttls(context=tls_context())
                client.ehlo()
            if server.username:
                client.login(server.username, server.password)
            reply = _transaction(client, server.from_address, recipients, raw)
            # The mail was accepted; a rude goodbye changes nothing.
            with contextlib.suppress(smtplib.SMTPException, OSError):
                client.quit()
        finally:
            client.close()
    except MailError as exc:
        log.warning("mail via %s failed: %s", where, exc.message)
        raise
    except Exception as exc:  # every way a conversation fails: a message, never a 500
        message = _explain(exc, where, deadline, seconds, server.password)
        log.warning("mail via %s failed: %s", where, message)
        raise MailError(message) from None
    finally:
        deadline.stop()
    log.info("mail to %d recipient(s) accepted by %s: %s", len(recipients), where, reply)
    return Sent(reply)


def _transaction(client: smtplib.SMTP, sender: str, recipients: list[str], raw: bytes) -> str:
    code, answer = client.mail(sender)
    if code != 250:
        raise smtplib.SMTPSenderRefused(code, answer, sender)
    for recipient in recipients:
        code, answer = client.rcpt(recipient)
        if code not in (250, 251):
            raise smtplib.SMTPRecipientsRefused({recipient: (code, answer)})
    code, answer = client.data(raw)
    return _reply(code, answer)


def _reply(code: int, answer: bytes | str) -> str:
    text = answer.decode(errors="replace") if isinstance(answer, bytes) else str(answer)
    return f"{code} {' '.join(text.split())}"


def _explain(
    exc: BaseException, where: str, deadline: Deadline, seconds: float, password: str
) -> str:
    if deadline.passed:
        message = f"{where} did not finish within {seconds:g} s (the total deadline)."
    elif isinstance(exc, smtplib.SMTPAuthenticationError):
        message = (
            f"{where} refused the user name or password: {_reply(exc.smtp_code, exc.smtp_error)}"
        )
    elif isinstance(exc, smtplib.SMTPRecipientsRefused):
        refused = ", ".join(f"{r} ({_reply(*a)})" for r, a in exc.recipients.items())
        message = f"{where} refused the recipient: {refused}"
    elif isinstance(exc, smtplib.SMTPSenderRefused):
        answer = _reply(exc.smtp_code, exc.smtp_error)
        message = f"{where} refused the from-address {exc.sender}: {answer}"
    elif isinstance(exc, smtplib.SMTPResponseException):
        message = f"{where} answered {_reply(exc.smtp_code, exc.smtp_error)}"
    elif isinstance(exc, smtplib.SMTPNotSupportedError):
        message = f"{where} does not support that: {exc}"
    elif isinstance(exc, ConnectionRefusedError):
        message = f"{where} refused the connection: is the host and port right?"
    elif isinstance(exc, TimeoutError | socket.timeout):
        message = f"{where} did not answer in time."
    elif isinstance(exc, ssl.SSLError):
        message = f"The TLS handshake with {where} failed: {exc.reason or exc}"
    elif isinstance(exc, socket.gaierror):
        message = f"The host of {where} could not be found."
    elif isinstance(exc, smtplib.SMTPServerDisconnected):
        message = f"{where} closed the connection: {exc}"
    else:
        message = f"Sending through {where} failed: {type(exc).__name__}: {exc}"
    if password:
        message = message.replace(password, "***")
    return message[:500]


@dataclass(frozen=True)
class TestResult:
    ok: bool
    message: str
    outbox_id: object | None = None


def send_test(to: str) -> TestResult:
    """The System page's test mail: the server's answer, or why it failed (a result,
    not an error, so the page shows it beside the button)."""
    try:
        sent = send_mail(
            to,
            "Workspace test mail",
            "This is a test mail from Workspace's System page. If you read it, mail works.",
        )
    except MailError as exc:
        return TestResult(False, exc.message)
    return TestResult(True, sent.reply, sent.outbox_id)
