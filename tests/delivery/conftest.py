"""Real SMTP servers on loopback for the mail tests (aiosmtpd), started once per test
session: plain, STARTTLS with sign-in required, TLS from the first byte, and a
listener that never answers. The TLS certificate is self-signed here, made with
``cryptography``, and trusted through ``SMTP_CA_FILE``."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from workspace.delivery import settings as mail_settings
from workspace.delivery.schemas import MailSettingsIn
from workspace.extensions import db

USER = "mailer"
PASSWORD = "s3cret-Pa55-word"


@dataclass
class Received:
    messages: list[tuple[str, list[str], bytes]] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[bytes]:
        return [content for _, rcpts, content in self.messages if address in rcpts]


def _authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        USER.encode(),
        PASSWORD.encode(),
    )
    return AuthResult(success=ok, handled=False)


@dataclass
class SmtpServers:
    received: Received
    plain: int
    starttls: int
    tls: int
    silent: int
    refused: int
    ca_file: str


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _self_signed(directory: Path) -> tuple[str, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "smtp-cert.pem", directory / "smtp-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


@pytest.fixture(scope="session")
def smtp_servers(tmp_path_factory) -> Iterator[SmtpServers]:
    cert, key = _self_signed(tmp_path_factory.mktemp("smtp"))
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    received = Received()
    plain = Controller(received, hostname="127.0.0.1", port=_free_port())
    starttls = Controller(
        received,
        hostname="127.0.0.1",
        port=_free_port(),
        tls_context=server_tls,
        require_starttls=True,
        authenticator=_authenticate,
        auth_required=True,
        auth_require_tls=True,
    )
    tls = Controller(received, hostname="127.0.0.1", port=_free_port(), ssl_context=server_tls)
    # A listener that accepts (the kernel completes the handshake) and never speaks.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    controllers = (plain, starttls, tls)
    for controller in controllers:
        controller.start()
    try:
        yield SmtpServers(
            received,
            plain.port,
            starttls.port,
            tls.port,
            silent.getsockname()[1],
            _free_port(),  # nothing listens there
            cert,
        )
    finally:
        for controller in controllers:
            controller.stop()
        silent.close()


def configure(app, port: int, security: str, username=None, password=None, **more) -> uuid.UUID:
    """Save the instance's mail settings as an operator would, committed."""
    with app.app_context():
        row = mail_settings.save(
            MailSettingsIn(
                host="127.0.0.1",
                port=port,
                security=security,
                username=username,
                password=password,
                from_address="workspace@acme.test",
                **more,
            )
        )
        db.session.commit()
        return row.id


@pytest.fixture
def mail_app(app, smtp_servers, monkeypatch):
    """The app trusting the test servers' certificate, with short deadlines."""
    monkeypatch.setitem(app.config, "SMTP_CA_FILE", smtp_servers.ca_file)
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT", 5.0)
    monkeypatch.setitem(app.config, "OUTBOUND_DEADLINE", 5.0)
    return app


@pytest.fixture
def operator(app, acme, monkeypatch):
    """Acme's owner is the instance's operator."""
    monkeypatch.setitem(app.config, "SYSTEM_OPERATORS", (acme.owner_email,))
    return acme
