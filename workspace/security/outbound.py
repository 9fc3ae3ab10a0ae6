"""The one guard every outbound HTTP request goes through (docs/security.md#outbound-requests).

OIDC discovery, JWKS, token and userinfo calls and DNS-over-HTTPS lookups all take
URLs an org admin typed in. Without a guard, "issuer URL" becomes a way to make the
server read its own loopback or cloud metadata endpoints (server-side request
forgery). So: http(s) only; every address a host resolves to must be public unless
the host is listed in ``OUTBOUND_ALLOW_PRIVATE``; redirects are followed by hand and
each hop is checked again, and one that leaves the origin (scheme, host and port)
loses the request's credentials (the model API key, cookies); connect and each read
time out after ``OUTBOUND_TIMEOUT`` seconds, and the whole exchange (every hop,
headers and body) ends after ``OUTBOUND_DEADLINE`` seconds however slowly the peer
sends; bodies are capped.

The name is checked before the request and the address actually connected to is
checked again on the open socket, so a resolver that answers one way for the check
and another for the connection (DNS rebinding) is still refused. An egress proxy on
a private address must therefore be listed in ``OUTBOUND_ALLOW_PRIVATE`` too.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from types import TracebackType
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from flask import current_app
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError as Urllib3Error

#: Largest body read from any peer; discovery documents and key sets are a few KiB.
MAX_BODY_BYTES = 1024 * 1024
MAX_REDIRECTS = 3
_REDIRECT_CODES = {301, 302, 303, 307, 308}
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: Request headers that carry a credential (the model API key travels in the first two).
_CREDENTIAL_HEADERS = frozenset(
    {"authorization", "api-key", "x-api-key", "proxy-authorization", "cookie"}
)


class OutboundError(Exception):
    """The request was refused by the guard or failed on the way; the message is
    safe to show to an admin (it never holds secrets)."""


class OutboundTimeout(OutboundError):
    """The peer did not answer in time: connect or read timeout, or the total deadline."""


class Deadline:
    """A total time budget for the sockets of one exchange.

    A socket timeout bounds each read, so a peer that sends one byte just before every
    timeout holds the caller forever. When the budget runs out, every socket handed to
    :meth:`track` is shut down, which wakes a read blocked on it at once (headers, body,
    TLS handshake alike); :attr:`expired` then tells the caller why it failed. Use as a
    context manager: leaving it stops the watch.

    The watch shuts down its own duplicate of each descriptor, closed only after the
    watch has stopped, so it can never hit a descriptor number the process has reused.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._watched: list[socket.socket] = []
        self._done = False
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True

    def start(self) -> Deadline:
        self._timer.start()
        return self

    def __enter__(self) -> Deadline:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def remaining(self) -> float:
        return max(0.0, self._ends - time.monotonic())

    def bound(self, seconds: float) -> float:
        """``seconds`` cut to what is left of the budget (never 0, which would make a
        socket non-blocking)."""
        return max(0.01, min(seconds, self.remaining()))

    @property
    def passed(self) -> bool:
        return self.expired or time.monotonic() >= self._ends

    def track(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the budget runs out (at once if it already has)."""
        try:
            dup = socket.fromfd(sock.fileno(), sock.family, sock.type)
        except OSError:
            return  # already closed: nothing left to wake
        with self._lock:
            if self._done:
                dup.close()
                return
            self._watched.append(dup)
            if self.expired:
                _shut(dup)

    def stop(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._done = True
            watched, self._watched = self._watched, []
        for dup in watched:
            dup.close()

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            for dup in self._watched:
                _shut(dup)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _allowed_private_hosts() -> set[str]:
    return {h.lower() for h in current_app.config.get("OUTBOUND_ALLOW_PRIVATE", [])}


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # is_global is False for private, loopback, link-local, shared (100.64/10),
    # reserved, unspecified and documentation ranges.
    return ip.is_global and not ip.is_multicast


# The resolver the pre-check uses; a seam so tests can answer differently from the
# resolver the connection uses (a DNS rebinding attack).
_resolve = socket.getaddrinfo


def _refuse_private(host: str) -> OutboundError:
    return OutboundError(
        f"The host {host} points to a private, loopback or link-local address; "
        "the service does not connect there."
    )


class _PeerCheckedConnection:
    """Checks the peer address of every new socket before anything is sent on it."""

    allowed_private: frozenset[str] = frozenset()
    deadline: Deadline | None = None

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()  # type: ignore[misc]
        host = (self.host or "").lower()  # type: ignore[attr-defined]
        if host not in self.allowed_private and not _is_public(str(sock.getpeername()[0])):
            sock.close()
            raise _refuse_private(host)
        if self.deadline is not None:
            self.deadline.track(sock)
        return sock


class _HTTPConnection(_PeerCheckedConnection, HTTPConnection):
    pass


class _HTTPSConnection(_PeerCheckedConnection, HTTPSConnection):
    pass


class _GuardedAdapter(HTTPAdapter):
    def __init__(self, allowed_private: set[str], deadline: Deadline | None) -> None:
        allowed = frozenset(allowed_private)
        self._pools = {
            "http": type(
                "Pool",
                (HTTPConnectionPool,),
                {"ConnectionCls": _connection(_HTTPConnection, allowed, deadline)},
            ),
            "https": type(
                "Pool",
                (HTTPSConnectionPool,),
                {"ConnectionCls": _connection(_HTTPSConnection, allowed, deadline)},
            ),
        }
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = self._pools


def _connection(base: type, allowed: frozenset[str], deadline: Deadline | None) -> type:
    return type(base.__name__, (base,), {"allowed_private": allowed, "deadline": deadline})


def _guarded_session(deadline: Deadline | None = None) -> requests.Session:
    session = requests.Session()
    adapter = _GuardedAdapter(_allowed_private_hosts(), deadline)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def check_url(url: str) -> None:
    """Refuse a URL the server must not fetch; returns quietly when it may."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise OutboundError(f"Only http and https URLs can be fetched, not {url!r}.")
    host = (parts.hostname or "").lower()
    if not host:
        raise OutboundError(f"The URL {url!r} has no host name.")
    if host in _allowed_private_hosts():
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise OutboundError(f"The URL {url!r} has an invalid port.") from exc
    try:
        infos = _resolve(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise OutboundError(f"The host {host} could not be resolved.") from exc
    for info in infos:
        if not _is_public(str(info[4][0])):
            raise _refuse_private(host)


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default one when the URL names none)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None  # check_url refuses it at the next hop
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def _without_credentials(kwargs: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in kwargs.items() if k not in ("auth", "cookies")}
    kept["headers"] = {
        k: v
        for k, v in (kwargs.get("headers") or {}).items()
        if k.lower() not in _CREDENTIAL_HEADERS
    }
    return kept


def fetch(
    method: str,
    url: str,
    *,
    deadline: float | None = None,
    follow_redirects: bool = True,
    **kwargs: Any,
) -> requests.Response:
    """Send one request through the guard and return the response with its body
    read (at most :data:`MAX_BODY_BYTES`). Raises :class:`OutboundError` when the
    guard refuses, the peer is unreachable or sends too much, and
    :class:`OutboundTimeout` when it does not answer in time: ``OUTBOUND_TIMEOUT`` for
    connecting and for each read, ``OUTBOUND_DEADLINE`` for the whole exchange, or the
    caller's ``deadline`` when that is shorter (retries sharing one budget). With
    ``follow_redirects=False`` a redirect is returned as it came (webhooks: a POST
    must not turn into a GET elsewhere)."""
    timeout = float(current_app.config.get("OUTBOUND_TIMEOUT", 10))
    total = float(current_app.config.get("OUTBOUND_DEADLINE", 15))
    if deadline is not None:
        total = min(total, deadline)
    with Deadline(total) as deadline, _guarded_session(deadline) as session:
        return _fetch(session, method, url, timeout, deadline, follow_redirects, **kwargs)


def _fetch(
    session: requests.Session,
    method: str,
    url: str,
    timeout: float,
    deadline: Deadline,
    follow_redirects: bool = True,
    **kwargs: Any,
) -> requests.Response:
    for _hop in range(MAX_REDIRECTS + 1):
        check_url(url)
        host = urlsplit(url).hostname
        late = OutboundTimeout(f"{host} did not answer within {deadline.seconds:g} seconds.")
        if deadline.passed:
            raise late
        response = None
        try:
            # Each hop gets what is left of the budget, for connecting and for each read.
            step = deadline.bound(timeout)
            response = session.request(
                method, url, timeout=(step, step), allow_redirects=False, stream=True, **kwargs
            )
            body = response.raw.read(MAX_BODY_BYTES + 1, decode_content=True)
        except OutboundError:
            raise
        except (requests.RequestException, Urllib3Error, OSError) as exc:
            # Once the deadline has shut the socket, whatever broke is its doing.
            if deadline.passed:
                raise late from exc
            if isinstance(exc, requests.Timeout) or "timed out" in str(exc):
                raise OutboundTimeout(f"{host} did not answer within {timeout:g} seconds.") from exc
            raise OutboundError(f"Could not connect to {host}.") from exc
        finally:
            if response is not None:
                response.close()
        if deadline.expired:
            # A body without a length ends at the shut socket: it is cut, not complete.
            raise late
        if len(body) > MAX_BODY_BYTES:
            raise OutboundError(f"{host} sent more than 1 MiB.")
        response._content = body  # requests then serves .text and .json() from it
        if (
            follow_redirects
            and response.status_code in _REDIRECT_CODES
            and response.headers.get("Location")
        ):
            target = urljoin(url, response.headers["Location"])
            if _origin(target) != _origin(url):
                # Credentials were meant for the first origin only: another port of the
                # same host is another server (RFC 6454), and so is http after https.
                kwargs = _without_credentials(kwargs)
                session.cookies.clear()
            url = target
            if response.status_code == 303 or (
                response.status_code in (301, 302) and method.upper() == "POST"
            ):
                method = "GET"
                kwargs = {k: v for k, v in kwargs.items() if k not in ("data", "json")}
            continue
        return response
    raise OutboundError(f"Too many redirects (more than {MAX_REDIRECTS}).")
