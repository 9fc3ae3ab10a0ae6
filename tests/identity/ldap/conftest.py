"""One real OpenLDAP ``slapd`` per test session, on free loopback ports.

The tree holds OpenLDAP-style people (inetOrgPerson: uid, mail) and Active
Directory-style people (objectClass user: sAMAccountName, userPrincipalName, mail,
and the account-state integers; the attributes come from ``ad_lite_schema.ldif``), a
service account, and the awkward cases: two entries sharing a uid, an entry with no
email, one on another domain, AD accounts that are disabled, locked, expired or must
change their password.

TLS: a CA and a server certificate made at session start, naming ``localhost`` only,
so ``ldap[s]://localhost`` verifies and ``ldap[s]://127.0.0.1`` is a name mismatch.
slapd answers StartTLS on its ldap:// port and TLS from the first byte on an ldaps://
port, and refuses simple binds without TLS (strongerAuthRequired-style).
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import slapd
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from flask import Flask
from sqlalchemy import select

from tests.factories import verify_domains
from workspace.extensions import db

HERE = Path(__file__).resolve().parent
SUFFIX = "dc=acme,dc=test"
SERVICE_DN = f"cn=svc-workspace,{SUFFIX}"
SERVICE_PASSWORD = "svc-Sekret-4711-do-not-leak"
PASSWORDS = {
    "ada": "ada-Pa55word",
    "alan": "alan-Pa55word",
    "twin": "twin-Pa55word",
    "noemail": "noemail-Pa55word",
    "outsider": "outsider-Pa55word",
    "dee": "dee-Pa55word",
    "max": "max-Pa55word",
    "lou": "lou-Pa55word",
    "pat": "pat-Pa55word",
    "eve": "eve-Pa55word",
}
#: AD's FILETIME (100 ns since 1601-01-01): 2024-01-19, 2012-12-14, and "never".
RECENT_FILETIME = 133500000000000000
PAST_FILETIME = 130000000000000000
NEVER = 9223372036854775807
#: userAccountControl: NORMAL_ACCOUNT 0x200, ACCOUNTDISABLE 0x2, PASSWORD_EXPIRED 0x800000.
NORMAL, DISABLED, PASSWORD_EXPIRED = 0x200, 0x200 | 0x2, 0x200 | 0x800000


def _ad_user(cn: str, sam: str, *, uac: int = NORMAL, **state: int) -> str:
    """An AD-style entry; ``state`` overrides pwdLastSet, lockoutTime, accountExpires."""
    given, family = cn.split()
    values = {"pwdLastSet": RECENT_FILETIME, "lockoutTime": 0, "accountExpires": NEVER, **state}
    lines = "".join(f"{name}: {value}\n" for name, value in values.items())
    return (
        f"dn: cn={cn},ou=ad,{SUFFIX}\nobjectClass: user\ncn: {cn}\n"
        f"sAMAccountName: {sam}\nuserPrincipalName: {sam}@acme.test\n"
        f"mail: {sam}@acme.test\ngivenName: {given}\nsn: {family}\n"
        f"userAccountControl: {uac}\n{lines}userPassword: {PASSWORDS[sam]}\n"
    )


TREE = f"""dn: ou=people,{SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=contractors,{SUFFIX}
objectClass: organizationalUnit
ou: contractors

dn: ou=ad,{SUFFIX}
objectClass: organizationalUnit
ou: ad

dn: {SERVICE_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: svc-workspace
userPassword: {SERVICE_PASSWORD}

dn: uid=ada,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: ada
cn: Ada Lovelace
givenName: Ada
sn: Lovelace
mail: Ada.Lovelace@acme.test
userPassword: {PASSWORDS["ada"]}

dn: uid=admin,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: admin
cn: Directory Admin
sn: Admin
mail: dir-admin@acme.test
userPassword: admin-Pa55word

dn: uid=twin,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: twin
cn: Twin One
sn: One
mail: twin1@acme.test
userPassword: {PASSWORDS["twin"]}

dn: uid=twin,ou=contractors,{SUFFIX}
objectClass: inetOrgPerson
uid: twin
cn: Twin Two
sn: Two
mail: twin2@acme.test
userPassword: {PASSWORDS["twin"]}

dn: uid=noemail,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: noemail
cn: No Email
sn: Email
userPassword: {PASSWORDS["noemail"]}

dn: uid=outsider,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: outsider
cn: Out Sider
givenName: Out
sn: Sider
mail: outsider@elsewhere.test
userPassword: {PASSWORDS["outsider"]}

dn: cn=Alan Turing,ou=ad,{SUFFIX}
objectClass: user
cn: Alan Turing
sAMAccountName: alan
userPrincipalName: alan@acme.test
mail: alan.turing@acme.test
givenName: Alan
sn: Turing
userAccountControl: {NORMAL}
pwdLastSet: {RECENT_FILETIME}
lockoutTime: 0
accountExpires: {NEVER}
userPassword: {PASSWORDS["alan"]}
"""
#: Active Directory people whose account state refuses them (docs/ldap.md#account-states).
AD_STATES = "\n".join(
    [
        _ad_user("Dee Disabled", "dee", uac=DISABLED),
        _ad_user("Max Mustchange", "max", pwdLastSet=0),
        _ad_user("Lou Locked", "lou", lockoutTime=RECENT_FILETIME),
        _ad_user("Pat Pwdexpired", "pat", uac=PASSWORD_EXPIRED),
        _ad_user("Eve Expired", "eve", accountExpires=PAST_FILETIME),
    ]
)

OPENLDAP_FILTER = "(&(objectClass=inetOrgPerson)(uid={username}))"
AD_FILTER = "(&(objectClass=user)(sAMAccountName={username}))"


@dataclass(frozen=True)
class Directory:
    """The session's slapd. ``uri`` (StartTLS) and ``ldaps_uri`` name ``localhost``,
    which the certificate names; ``*_ip`` variants reach the same listener by
    127.0.0.1, which it does not. ``admin_dn``/``admin_password`` and ``server``
    (``server.ldapadd(ldif)``) let other test modules add entries."""

    uri: str
    port: int
    ca_pem: str
    ldaps_uri: str
    ldaps_port: int
    admin_dn: str
    admin_password: str
    server: Any = field(repr=False, compare=False)

    @property
    def uri_by_ip(self) -> str:
        return f"ldap://127.0.0.1:{self.port}"

    @property
    def ldaps_uri_by_ip(self) -> str:
        return f"ldaps://127.0.0.1:{self.ldaps_port}"


def _certificates(workdir: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate signed by it, naming DNS:localhost only (no IP
    address, so connecting by 127.0.0.1 cannot verify). EC keys: fast to make."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Workspace test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = workdir / "ca.pem", workdir / "server.pem", workdir / "server.key"
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(cert.public_bytes(pem))
    paths[2].write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


class _TlsSlapd(slapd.Slapd):
    """slapd.Slapd with our certificates and an extra ldaps:// listener."""

    def __init__(self, certs: tuple[Path, Path, Path], ldaps_port: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cafile, self.servercert, self.serverkey = (str(path) for path in certs)
        self.ldaps_port = ldaps_port

    def _start_slapd(self) -> None:
        # The base class passes ldap_uri and ldapi_uri to ``slapd -h``; the ldaps
        # listener rides along on the second (the CLI tools keep using ldapi).
        ldapi = self.ldapi_uri
        self.ldapi_uri = f"{ldapi} ldaps://127.0.0.1:{self.ldaps_port}/"
        try:
            super()._start_slapd()
        finally:
            self.ldapi_uri = ldapi


@pytest.fixture(scope="session")
def directory(tmp_path_factory) -> Iterator[Directory]:
    """The session's slapd; fails loudly when slapd cannot start."""
    workdir = tmp_path_factory.mktemp("slapd")
    slapd.Slapd.TMPDIR = str(workdir)
    certs = _certificates(workdir)
    server = _TlsSlapd(
        certs,
        free_port(),
        schemas=(
            "core.ldif",
            "cosine.ldif",
            "inetorgperson.ldif",
            str(HERE / "ad_lite_schema.ldif"),
        ),
        suffix=SUFFIX,
        host="127.0.0.1",
    )
    server.start()
    try:
        server.init_tree()
        server.ldapadd(TREE + "\n" + AD_STATES)
        # Refuse simple binds without TLS, so a test passing over ldap:// proves
        # StartTLS ran, and a bind without TLS meets the "requires TLS" refusal.
        server.ldapmodify(
            "dn: olcDatabase={1}mdb,cn=config\nchangetype: modify\n"
            "add: olcSecurity\nolcSecurity: simple_bind=128\n"
        )
        yield Directory(
            uri=f"ldap://localhost:{server.port}",
            port=server.port,
            ca_pem=certs[0].read_text(),
            ldaps_uri=f"ldaps://localhost:{server.ldaps_port}",
            ldaps_port=server.ldaps_port,
            admin_dn=server.root_dn,
            admin_password=server.root_pw,
            server=server,
        )
    finally:
        server.stop()


def settings(directory: Directory, **overrides):
    """Connection input for the test directory: OpenLDAP people over StartTLS."""
    from workspace.identity.ldap.service import ConnectionInput

    values = dict(
        server_uri=directory.uri,
        bind_dn=SERVICE_DN,
        bind_password=SERVICE_PASSWORD,
        search_base=SUFFIX,
        search_filter=OPENLDAP_FILTER,
        use_tls=True,
        ca_cert=directory.ca_pem,
    )
    values.update(overrides)
    return ConnectionInput(**values)


def configure(app: Flask, org_id: uuid.UUID, directory: Directory, **overrides) -> None:
    """Save the org's LDAP connection straight through the service."""
    from workspace.extensions import db
    from workspace.identity.ldap.service import save_connection

    with app.app_context():
        save_connection(org_id, settings(directory, **overrides), actor_id=None)
        db.session.commit()


def verify_domain(app: Flask, org_id: uuid.UUID, domain: str) -> None:
    verify_domains(app, org_id, domain)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def ldap_acme(app, acme, directory):
    """Acme with acme.test verified and LDAP pointing at the test directory."""
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory)
    return acme


# -- helpers the LDAP test modules share ------------------------------------------


def body(directory, **overrides):
    values = {
        "server_uri": directory.uri,
        "bind_dn": SERVICE_DN,
        "bind_password": SERVICE_PASSWORD,
        "search_base": SUFFIX,
        "search_filter": OPENLDAP_FILTER,
        "ca_cert": directory.ca_pem,
    }
    values.update(overrides)
    return values


def put(client, org, payload):
    return client.put(org.url("/ldap"), json=payload, headers=org.headers)


def run_test(client, org, payload=None):
    if payload is None:
        resp = client.post(org.url("/ldap/test"), headers=org.headers)
    else:
        resp = client.post(org.url("/ldap/test"), json=payload, headers=org.headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    result = resp.get_json()
    assert set(result) == {"ok", "message", "sample_count"}
    return result


def post_json(client, org, username, password, **extra):
    return client.post(
        "/auth/ldap/login", json={"org": org, "username": username, "password": password, **extra}
    )


def failures(app, org_id) -> list[dict]:
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == "ldap.login_failed")
        ).all()
        return [{"subject": e.subject, **e.data} for e in rows]


def account_and_memberships(app, email):
    from workspace.core.models import Account, OrgMember

    with app.app_context():
        account = db.session.scalar(select(Account).where(Account.email == email))
        if account is None:
            return None, []
        members = db.session.scalars(
            select(OrgMember).where(OrgMember.account_id == account.id)
        ).all()
        return (
            {"id": account.id, "name": account.name, "verified": account.email_verified},
            [(m.org_id, m.role, m.active) for m in members],
        )
