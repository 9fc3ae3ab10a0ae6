"""Talking to the directory with ldap3: connect (TLS), bind, search.

Every failure becomes a :class:`DirectoryError` carrying one reason from
:data:`REASONS` and a message a directory admin can act on. Passwords are passed to
ldap3 and nowhere else: never logged, never part of a message.

Time: ``connect_timeout`` bounds connecting and ``read_timeout`` each read, and one
:class:`~workspace.security.outbound.Deadline` of ``deadline`` seconds covers the whole
life of a connection (StartTLS, bind, search, rebind), so a directory that answers a
byte at a time cannot hold a worker past it (docs/security.md#deadlines).
"""

from __future__ import annotations

import contextlib
import math
import re
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import ldap3
from ldap3.core import exceptions as ldap_exc
from ldap3.core.results import RESULT_CODES

from workspace.identity.ldap.account_states import SERVICE_ACCOUNT_STATES, ad_reason
from workspace.security.outbound import Deadline

#: RFC 4511 §4.1.9 result codes we tell apart.
_SUCCESS, _SIZE_LIMIT_EXCEEDED, _NO_SUCH_OBJECT, _INVALID_CREDENTIALS = 0, 4, 32, 49
#: RFC 2696's simple paged results control.
_PAGED_RESULTS = "1.2.840.113556.1.4.319"
#: strongerAuthRequired (AD with LDAP signing required, RFC 4513 §5.1.3) and
#: confidentialityRequired (OpenLDAP's ``olcSecurity``): the bind needs TLS first.
TLS_REQUIRED_CODES = {8: "strongerAuthRequired", 13: "confidentialityRequired"}

REASONS = {
    "unreachable": "The directory server could not be reached at {uri}: check the "
    "address and port, and that this service may connect to it.",
    "tls_name_mismatch": "The TLS connection to {uri} failed: certificate name does not "
    "match host {host}. Use the name the directory's certificate was issued for in the "
    "server address (usually the server's full DNS name, not its IP address).",
    "tls_untrusted": "The TLS connection to {uri} failed: certificate not trusted (add the "
    "CA). Paste the PEM certificate of the CA that signed the directory's certificate "
    "into the CA certificate field.",
    "tls_failed": "The TLS connection to {uri} failed: {detail}. Check that the port speaks "
    "TLS (ldaps:// is usually port 636) or that the server supports StartTLS.",
    "tls_timeout": "The directory server at {uri} accepted the connection but did not "
    "answer the TLS handshake within {seconds} seconds. Check that the server is up and "
    "not overloaded, and that no firewall or load balancer in between holds the "
    "connection without passing it on.",
    "tls_required": "The directory requires TLS before a password is sent (it answered "
    "{detail}): turn on StartTLS or use ldaps://. The bind DN and password were not "
    "checked.",
    "service_bind_failed": "The directory refused the service account ({detail}): "
    "check the bind DN and bind password.",
    "service_account_state": "The directory refused the service account: {detail}. Ask "
    "the directory admin to fix that account; the bind DN and password are right.",
    "search_base_missing": "The search base {base} does not exist in the directory.",
    "filter_invalid": "{detail}",
    "search_failed": "The directory refused the search: {detail}.",
}


class DirectoryError(Exception):
    """``reason`` is a machine word for audit rows; ``message`` is for the admin."""

    def __init__(self, reason: str, **details: str) -> None:
        self.reason = reason
        self.message = REASONS[reason].format(**{"detail": "", **details})
        super().__init__(self.message)


@dataclass(frozen=True)
class BindResult:
    """A bind's answer: ``code`` is the RFC 4511 result code, ``diagnostic`` the
    server's diagnosticMessage (AD puts ``data 533`` and the like in it)."""

    ok: bool
    code: int | None = None
    diagnostic: str = ""

    @property
    def needs_tls(self) -> bool:
        return self.code in TLS_REQUIRED_CODES


def _bind_result(conn: ldap3.Connection, ok: bool) -> BindResult:
    result: dict[str, Any] = conn.result or {}
    code = result.get("result")
    return BindResult(ok, code if isinstance(code, int) else None, str(result.get("message") or ""))


@dataclass(frozen=True)
class DirectorySettings:
    """Everything needed to reach one directory; plain values, no database row."""

    server_uri: str
    bind_dn: str
    bind_password: str
    search_base: str
    search_filter: str
    email_attribute: str = "mail"
    given_name_attribute: str = "givenName"
    family_name_attribute: str = "sn"
    use_tls: bool = True
    ca_cert: str | None = None
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    #: Seconds for everything done on one connection, from connecting to closing.
    deadline: float = 15.0

    def __repr__(self) -> str:  # dataclass repr would show the password
        return f"DirectorySettings({self.server_uri!r}, bind_dn={self.bind_dn!r})"


@dataclass(frozen=True)
class Entry:
    dn: str
    attributes: dict[str, list[str]]

    def first(self, name: str) -> str | None:
        for key, values in self.attributes.items():
            if key.lower() == name.lower():
                values = values if isinstance(values, list) else [values]
                for value in values:
                    text = value.decode() if isinstance(value, bytes) else str(value)
                    if text.strip():
                        return text.strip()
        return None


def _server(settings: DirectorySettings, deadline: Deadline) -> ldap3.Server:
    parts = urlsplit(settings.server_uri)
    secure = parts.scheme == "ldaps"
    tls = None
    if secure or settings.use_tls:
        tls = ldap3.Tls(
            validate=ssl.CERT_REQUIRED,
            version=ssl.PROTOCOL_TLS_CLIENT,
            ca_certs_data=settings.ca_cert or None,
            sni=parts.hostname,
        )
    return ldap3.Server(
        parts.hostname,
        port=parts.port or (636 if secure else 389),
        use_ssl=secure,
        tls=tls,
        get_info=ldap3.NONE,
        connect_timeout=deadline.bound(settings.connect_timeout),
    )


_SSL_REASON = re.compile(r"\[SSL: ([A-Z0-9_]+)\]")
#: Said by ldap3 around a TLS handshake that failed (ldaps:// or StartTLS).
_TLS_MARKERS = ("ssl wrapping error", "wrap socket error", "[ssl", "certificate")


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and, when ldap3 tried several addresses of one host name, each
    address's own failure (``LDAPSocketOpenError('unable to open socket', history)``)."""
    args = getattr(exc, "args", ())
    if len(args) > 1 and isinstance(args[1], list):
        # The summary's text repeats every cause; read the causes one by one.
        return [item[0] for item in args[1] if isinstance(item, tuple) and item]
    return [exc]


def _classify(
    exc: BaseException, settings: DirectorySettings, conn: ldap3.Connection | None = None
) -> DirectoryError:
    """Name the real cause. ldap3 wraps TLS failures in socket or StartTLS errors and
    its hostname check puts the whole certificate into the text, so the text is read
    here and never passed on."""
    uri, host = settings.server_uri, urlsplit(settings.server_uri).hostname or ""
    tls_errors = (
        ssl.SSLError,
        ldap_exc.LDAPStartTLSError,
        ldap_exc.LDAPSSLConfigurationError,
        ldap_exc.LDAPCertificateError,
    )
    for cause in _causes(exc):
        text = str(cause).lower()
        if isinstance(cause, ldap_exc.LDAPCertificateError) or any(
            marker in text
            for marker in ("doesn't match any name", "hostname mismatch", "ip address mismatch")
        ):
            return DirectoryError("tls_name_mismatch", uri=uri, host=host)
        if "certificate verify failed" in text:
            if "expired" in text:
                return DirectoryError(
                    "tls_failed", uri=uri, detail="the server's certificate has expired"
                )
            if "not yet valid" in text:
                return DirectoryError(
                    "tls_failed", uri=uri, detail="the server's certificate is not valid yet"
                )
            return DirectoryError("tls_untrusted", uri=uri)
        if isinstance(cause, tls_errors) or any(marker in text for marker in _TLS_MARKERS):
            if isinstance(cause, TimeoutError) or "timed out" in text:
                # A silent peer, not a port without TLS: that one answers or hangs up.
                # ldap3 bounds the handshake with the connection's receive timeout.
                waited = getattr(conn, "receive_timeout", None) or settings.read_timeout
                return DirectoryError("tls_timeout", uri=uri, seconds=f"{waited:g}")
            if any(word in text for word in ("eof", "wrong version", "record layer", "length")):
                detail = "the server did not speak TLS on this port"
            else:
                code = _SSL_REASON.search(str(cause))
                detail = "the TLS handshake failed" + (f" ({code.group(1)})" if code else "")
            return DirectoryError("tls_failed", uri=uri, detail=detail)
    return DirectoryError("unreachable", uri=uri)


def connect(
    settings: DirectorySettings, user: str, password: str
) -> tuple[ldap3.Connection, BindResult]:
    """An open (and, when configured, TLS-protected) connection with a simple bind
    attempted as ``user``. Returns (connection, bind result). Unreachable servers and TLS
    failures raise :class:`DirectoryError`. The connection's time budget starts here
    and ends at :func:`close`."""
    deadline = Deadline(settings.deadline).start()
    try:
        conn = ldap3.Connection(
            _server(settings, deadline),
            user=user,
            password=password,
            authentication=ldap3.SIMPLE,
            raise_exceptions=False,
            read_only=True,
            auto_referrals=False,
            # ldap3 wants whole seconds here.
            receive_timeout=max(1, math.ceil(deadline.bound(settings.read_timeout))),
        )
    except BaseException:
        deadline.stop()
        raise
    conn.workspace_deadline = deadline  # type: ignore[attr-defined]
    try:
        conn.open()
        if conn.socket is not None:
            deadline.track(conn.socket)
        # RFC 4513 §3: StartTLS before any credentials cross the wire.
        if settings.use_tls and not conn.server.ssl and not conn.start_tls():
            raise DirectoryError(
                "tls_failed", uri=settings.server_uri, detail="the server refused StartTLS"
            )
        bound = _bind_result(conn, bool(conn.bind()))
        _check_deadline(conn, settings)
    except DirectoryError:
        close(conn)
        raise
    except (ldap_exc.LDAPException, OSError) as exc:
        close(conn)
        raise _classify(exc, settings, conn) from None
    return conn, bound


def service_connection(settings: DirectorySettings) -> ldap3.Connection:
    """Step 1 of the LDAP login rules (docs/ldap.md#sign-in-steps): bind as the service account."""
    if not settings.bind_password:
        # An empty password would be an anonymous bind, which AD lets succeed.
        raise DirectoryError(
            "service_bind_failed", detail="no usable bind password is stored; enter it again"
        )
    conn, bound = connect(settings, settings.bind_dn, settings.bind_password)
    if not bound.ok:
        close(conn)
        raise _service_refusal(bound)
    return conn


@contextlib.contextmanager
def as_service(settings: DirectorySettings) -> Iterator[ldap3.Connection]:
    """A connection bound as the service account, closed however the block ends."""
    conn = service_connection(settings)
    try:
        yield conn
    finally:
        close(conn)


def _service_refusal(bound: BindResult) -> DirectoryError:
    if bound.needs_tls:
        return DirectoryError("tls_required", detail=TLS_REQUIRED_CODES[bound.code or 0])
    state = ad_reason(bound.diagnostic)
    if state in SERVICE_ACCOUNT_STATES:
        return DirectoryError("service_account_state", detail=SERVICE_ACCOUNT_STATES[state])
    if bound.code == _INVALID_CREDENTIALS:
        return DirectoryError("service_bind_failed", detail="invalid credentials")
    return DirectoryError("service_bind_failed", detail=_describe(bound.code))


def _describe(code: int | None) -> str:
    if code is None:
        return "no answer"
    return RESULT_CODES.get(code, f"result code {code}")


def search(
    conn: ldap3.Connection,
    settings: DirectorySettings,
    search_filter: str,
    attributes: list[str],
    size_limit: int,
    *,
    paged: bool = False,
) -> list[Entry]:
    """Entries under the search base (subtree) matching the filter, at most
    ``size_limit`` even from a server that ignores the limit it was sent (Samba
    has answered 54 entries to a limit of 5); referrals are ignored. ``paged``: every
    entry, ``size_limit`` per page (RFC 2696), and a server that stops at its own
    size limit fails the search rather than answer part of the list."""
    entries: list[Entry] = []
    cookie: bytes | None = None
    while True:
        try:
            conn.search(
                settings.search_base,
                search_filter,
                search_scope=ldap3.SUBTREE,
                attributes=attributes,
                size_limit=0 if paged else size_limit,
                time_limit=max(1, int(settings.read_timeout)),
                **({"paged_size": size_limit, "paged_cookie": cookie} if paged else {}),
            )
        except ldap_exc.LDAPInvalidFilterError as exc:
            raise DirectoryError(
                "filter_invalid", detail=f"The search filter is invalid: {exc}."
            ) from None
        except (ldap_exc.LDAPException, OSError) as exc:
            raise _classify(exc, settings, conn) from None
        _check_deadline(conn, settings)
        code = conn.result.get("result")
        if code == _NO_SUCH_OBJECT:
            raise DirectoryError("search_base_missing", base=settings.search_base)
        if code not in ((_SUCCESS,) if paged else (_SUCCESS, _SIZE_LIMIT_EXCEEDED)):
            raise DirectoryError("search_failed", detail=_describe(code))
        entries += [
            Entry(item["dn"], dict(item.get("attributes") or {}))
            for item in conn.response or []
            if item.get("type") == "searchResEntry"
        ]
        control = (conn.result.get("controls") or {}).get(_PAGED_RESULTS) or {}
        cookie = (control.get("value") or {}).get("cookie")
        if not paged or not cookie:
            break
    return entries[:size_limit] if size_limit > 0 and not paged else entries


def rebind(
    conn: ldap3.Connection, settings: DirectorySettings, dn: str, password: str
) -> BindResult:
    """Step 3 (docs/ldap.md): bind as the found entry; ``ok`` when the password is
    right, else the directory's result code and diagnostic (AD's ``data 52e``...)."""
    try:
        ok = bool(conn.rebind(user=dn, password=password))
    except ldap_exc.LDAPBindError:
        ok = False
    except (ldap_exc.LDAPException, OSError) as exc:
        raise _classify(exc, settings, conn) from None
    # A refusal after the budget ran out says nothing about the password.
    _check_deadline(conn, settings)
    return _bind_result(conn, ok)


def _check_deadline(conn: ldap3.Connection, settings: DirectorySettings) -> None:
    """Whatever ldap3 made of a connection the deadline shut, it is "unreachable"."""
    deadline: Deadline | None = getattr(conn, "workspace_deadline", None)
    if deadline is not None and deadline.expired:
        raise DirectoryError("unreachable", uri=settings.server_uri)


def close(conn: ldap3.Connection) -> None:
    """Unbind, ignoring a connection that is already gone; ends its time budget."""
    deadline: Deadline | None = getattr(conn, "workspace_deadline", None)
    if deadline is not None and not deadline.passed:
        with contextlib.suppress(ldap_exc.LDAPException, OSError):
            conn.unbind()
    else:
        # Out of time: no polite unbind (it would wait on the peer again), just close.
        with contextlib.suppress(ldap_exc.LDAPException, OSError, AttributeError):
            conn.strategy.close()
    if deadline is not None:
        deadline.stop()
