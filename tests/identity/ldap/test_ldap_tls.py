"""TLS failures named as such, for ldaps:// and StartTLS alike (docs/ldap.md#tls).

The session slapd's certificate names ``localhost`` only: reaching the same listener
as 127.0.0.1 is a name mismatch, and leaving out the CA is "not trusted".
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.identity.ldap.conftest import (
    PASSWORDS,
    body,
    configure,
    failures,
    post_json,
    run_test,
    verify_domain,
)

MISMATCH = "certificate name does not match host 127.0.0.1"
UNTRUSTED = "certificate not trusted (add the CA)"


def assert_no_certificate_dump(message: str) -> None:
    # ldap3's own text for a mismatch holds the whole certificate as a dict.
    for leak in ("subjectAltName", "serialNumber", "{'subject'", "doesn't match any name"):
        assert leak not in message


@pytest.mark.parametrize("which", ["ldaps_uri", "uri"], ids=["ldaps", "starttls"])
def test_the_name_the_certificate_gives_connects(client, acme, directory, which):
    result = run_test(client, acme, body(directory, server_uri=getattr(directory, which)))
    assert result["ok"] is True, result["message"]
    assert result["sample_count"] == 5


@pytest.mark.parametrize("which", ["ldaps_uri_by_ip", "uri_by_ip"], ids=["ldaps", "starttls"])
def test_an_address_the_certificate_does_not_name_is_a_name_mismatch(
    client, acme, directory, which
):
    uri = getattr(directory, which)
    result = run_test(client, acme, body(directory, server_uri=uri))
    assert result["ok"] is False
    assert result["message"].startswith(f"The TLS connection to {uri} failed: {MISMATCH}.")
    assert "could not be reached" not in result["message"]
    assert_no_certificate_dump(result["message"])


@pytest.mark.parametrize("which", ["ldaps_uri", "uri"], ids=["ldaps", "starttls"])
def test_a_certificate_from_a_ca_not_given_is_not_trusted(client, acme, directory, which):
    uri = getattr(directory, which)
    result = run_test(client, acme, body(directory, server_uri=uri, ca_cert=None))
    assert result["ok"] is False
    assert result["message"].startswith(f"The TLS connection to {uri} failed: {UNTRUSTED}.")
    assert "CA certificate field" in result["message"]
    assert_no_certificate_dump(result["message"])


def test_ldaps_to_a_port_without_tls_says_so(client, acme, directory):
    uri = f"ldaps://localhost:{directory.port}"
    result = run_test(client, acme, body(directory, server_uri=uri))
    assert result["ok"] is False
    assert "did not speak TLS on this port" in result["message"]


def test_a_directory_that_demands_tls_says_so_without_blaming_the_password(client, acme, directory):
    # slapd here refuses simple binds without TLS (confidentialityRequired, as AD's
    # LDAP signing policy answers strongerAuthRequired).
    result = run_test(client, acme, body(directory, use_tls=False, ca_cert=None))
    assert result["ok"] is False
    message = result["message"]
    assert "requires TLS" in message and "turn on StartTLS or use ldaps://" in message
    assert "confidentialityRequired" in message
    assert "check the bind DN" not in message


def test_stronger_auth_required_is_tls_required():
    """AD's answer to a simple bind without TLS under "LDAP server signing
    requirements": result code 8 with its own diagnostic."""
    from workspace.identity.ldap.directory import BindResult, _service_refusal

    refusal = _service_refusal(
        BindResult(
            False,
            8,
            "00002028: LdapErr: DSID-0C090257, comment: The server requires binds to turn "
            "on integrity checking if SSL\\TLS are not already active on the connection, "
            "data 0, v4563",
        )
    )
    assert refusal.reason == "tls_required"
    assert "strongerAuthRequired" in refusal.message and "bind DN and password" in refusal.message


def test_a_mismatch_on_one_of_several_addresses_is_still_a_mismatch():
    """A name with several addresses: ldap3 raises 'unable to open socket' with each
    address's own failure; the TLS one is the cause to report."""
    from ldap3.core.exceptions import LDAPCertificateError, LDAPSocketOpenError

    from workspace.identity.ldap.directory import DirectorySettings, _classify

    history = [
        (ConnectionRefusedError("refused"), ("::1", 636)),
        (
            LDAPCertificateError(
                "certificate {'subject': ...} doesn't match any name in ['dc1.corp.test'] "
            ),
            ("10.0.0.5", 636),
        ),
    ]
    settings = DirectorySettings(
        "ldaps://dc1.corp.test", "cn=svc", "pw", "dc=corp", "(uid={username})"
    )
    error = _classify(LDAPSocketOpenError("unable to open socket", history), settings)
    assert error.reason == "tls_name_mismatch"
    assert "host dc1.corp.test" in error.message and "{'subject'" not in error.message


def test_sign_in_over_ldaps(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, server_uri=directory.ldaps_uri)
    assert post_json(client, "acme", "ada", PASSWORDS["ada"]).status_code == 200


@pytest.mark.parametrize(
    ("which", "ca", "reason"),
    [
        ("ldaps_uri_by_ip", True, "tls_name_mismatch"),
        ("uri_by_ip", True, "tls_name_mismatch"),
        ("ldaps_uri", False, "tls_untrusted"),
        ("uri", False, "tls_untrusted"),
    ],
)
def test_sign_in_records_the_tls_cause_for_admins(client, app, acme, directory, which, ca, reason):
    verify_domain(app, acme.org_id, "acme.test")
    configure(
        app,
        acme.org_id,
        directory,
        server_uri=getattr(directory, which),
        ca_cert=directory.ca_pem if ca else None,
    )
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    # The person cannot fix TLS: they are sent to the admin, who sees the cause.
    assert resp.status_code == 502
    assert "run the connection test" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, acme.org_id)] == [reason]


# -- a directory that takes the connection and then says nothing ---------------------------


def _start_tls_ok(request: bytes) -> bytes:
    """The LDAP answer to a StartTLS request: extendedResp, success, with the request's
    messageID (ldap3 numbers messages process-wide, so it may take several bytes)."""
    # The request is short: 30 <len> 02 <n> <n bytes of id> ...
    message_id = request[2 : 4 + request[3]]
    inner = message_id + bytes([0x78, 0x07, 0x0A, 1, 0, 4, 0, 4, 0])
    return bytes([0x30, len(inner)]) + inner


@pytest.fixture(params=["ldaps", "starttls"])
def silent_directory(request, app, monkeypatch) -> Iterator[str]:
    """A real listener on loopback that accepts and never speaks TLS (a hung server,
    or a firewall holding the connection): over ldaps:// it sends nothing at all;
    for StartTLS it says yes to the StartTLS request and then nothing."""
    monkeypatch.setitem(app.config, "LDAP_READ_TIMEOUT", 1)
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # the fixture closed the listener
            held.append(conn)
            if request.param == "starttls":
                conn.sendall(_start_tls_ok(conn.recv(4096)))

    threading.Thread(target=serve, daemon=True).start()
    scheme = "ldaps" if request.param == "ldaps" else "ldap"
    yield f"{scheme}://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for conn in held:
        conn.close()


def test_a_tls_handshake_that_times_out_says_so(client, acme, directory, silent_directory):
    """The cause is a timeout, not a port without TLS: the message says how long it
    waited and does not send the admin to check the port."""
    started = time.monotonic()
    result = run_test(client, acme, body(directory, server_uri=silent_directory))
    assert time.monotonic() - started < 5
    assert result["ok"] is False
    assert result["message"].startswith(
        f"The directory server at {silent_directory} accepted the connection but did not "
        "answer the TLS handshake within 1 seconds."
    )
    assert "speaks TLS" not in result["message"] and "handshake failed" not in result["message"]


def test_sign_in_against_a_silent_directory_is_unavailable_for_now(
    client, app, acme, directory, silent_directory
):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, server_uri=silent_directory)
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 503 and "cannot be reached right now" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["tls_timeout"]
