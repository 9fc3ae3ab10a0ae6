"""One real OpenLDAP ``slapd`` per test session, on a free loopback port.

The tree holds OpenLDAP-style people (inetOrgPerson: uid, mail) and Active
Directory-style people (objectClass user: sAMAccountName, userPrincipalName, mail;
the attributes come from ``ad_lite_schema.ldif``), a service account, and the awkward
cases: two entries sharing a uid, an entry with no email, one on another domain.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import slapd
from flask import Flask

from tests.factories import verify_domains

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
}

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
userPassword: {PASSWORDS["alan"]}
"""

OPENLDAP_FILTER = "(&(objectClass=inetOrgPerson)(uid={username}))"
AD_FILTER = "(&(objectClass=user)(sAMAccountName={username}))"


@dataclass(frozen=True)
class Directory:
    uri: str
    port: int
    ca_pem: str


@pytest.fixture(scope="session")
def directory(tmp_path_factory) -> Iterator[Directory]:
    """The session's slapd; fails loudly when slapd cannot start."""
    slapd.Slapd.TMPDIR = str(tmp_path_factory.mktemp("slapd"))
    server = slapd.Slapd(
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
        server.ldapadd(TREE)
        # Refuse binds without TLS, so a test passing over ldap:// proves StartTLS ran.
        server.ldapmodify(
            "dn: olcDatabase={1}mdb,cn=config\nchangetype: modify\n"
            "add: olcSecurity\nolcSecurity: simple_bind=128\n"
        )
        yield Directory(
            uri=server.ldap_uri.rstrip("/"),
            port=server.port,
            ca_pem=Path(server.cafile).read_text(),
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
