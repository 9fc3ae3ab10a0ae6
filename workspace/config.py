"""Configuration from the environment (README.md#production).

Secrets that are absent on first run are generated into the instance folder so a
fresh checkout runs with no setup; production sets them explicitly.
"""

from __future__ import annotations

import base64
import os
import secrets
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import limits


def _instance_secret(instance_path: Path, name: str, make) -> str:
    path = instance_path / name
    if path.exists():
        return path.read_text().strip()
    instance_path.mkdir(parents=True, exist_ok=True)
    value = make()
    path.write_text(value)
    path.chmod(0o600)
    return value


def _normalize_db_url(url: str) -> str:
    # psycopg 3 is the driver we ship; accept the common postgres:// spellings.
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Rate(str):
    """A rate as the limiter reads it: ``60 per minute``."""


#: The limits, periods and timeouts the docs name, by how each is written in the
#: environment: a whole number, a number, a rate ("60 per minute"), or numbers
#: separated by commas. Only a setting set there goes into the config; the code that reads one
#: keeps its default, so a default is written once.
TUNABLES: dict[str, type] = {
    "ROLLUP_FOLD_SECONDS": float,
    "ALERTS_CHECK_SECONDS": int,
    "ALERTS_MAX_PER_MEMBER": int,
    "SUBSCRIPTIONS_MAX_PER_DASHBOARD": int,
    "SUBSCRIPTIONS_MAX_PER_MEMBER": int,
    "ASK_RATE_PER_MEMBER": Rate,
    "ASK_RATE_PER_ORG": Rate,
    "ASK_MAX_IN_FLIGHT_PER_ORG": int,
    "ASK_RESERVATION_TTL": float,
    "MCP_MAX_BATCH": int,
    "MCP_MAX_RESPONSE_BYTES": int,
    "LDAP_CONNECT_TIMEOUT": float,
    "LDAP_READ_TIMEOUT": float,
    "READYZ_DEADLINE": float,
    "READYZ_BROKER_TIMEOUT": float,
    "READYZ_STATEMENT_TIMEOUT_MS": int,
    "WEBHOOKS_DEADLINE": float,
    "WEBHOOKS_RETRY_DELAYS": tuple,
    "WEBHOOKS_MAX_PER_ORG": int,
    "WEBHOOKS_MAX_PER_ORG_PER_MINUTE": int,
    "WEBHOOKS_MAX_PAYLOAD": int,
    "WEBHOOKS_DISABLE_AFTER_FAILURES": int,
    "WEBHOOKS_DISABLE_AFTER_HOURS": float,
    "WEBHOOKS_LOG_DAYS": float,
    "WEBHOOKS_ROTATION_HOURS": float,
}


def _tunable(name: str, raw: str, kind: type, *, above_zero: bool = True) -> Any:
    """``raw`` read as ``kind``; a value that is not one, or with ``above_zero`` a
    number not above zero (a limit, a period or a timeout), stops the start with what
    to fix."""
    if kind is str:
        return raw.strip()
    if kind is Rate:
        try:
            limits.parse(raw)
        except ValueError:
            raise ValueError(
                f"{name}={raw!r} in the environment: it must be a rate such as '60 per minute'."
            ) from None
        return raw.strip()
    parts = raw.split(",") if kind is tuple else [raw]
    try:
        numbers = [(int if kind is int else float)(part.strip()) for part in parts]
    except ValueError:
        wanted = {int: "a whole number", float: "a number"}.get(kind, "numbers separated by commas")
        raise ValueError(f"{name}={raw!r} in the environment: it must be {wanted}.") from None
    if above_zero and any(n <= 0 for n in numbers):
        raise ValueError(f"{name}={raw!r} in the environment: it must be above zero.")
    return tuple(numbers) if kind is tuple else numbers[0]


def tunables_from_environment() -> dict[str, Any]:
    """The :data:`TUNABLES` the environment sets, read."""
    return {
        name: _tunable(name, os.environ[name], kind)
        for name, kind in TUNABLES.items()
        if os.environ.get(name, "").strip()
    }


def settings_from_environment(
    config: MutableMapping[str, Any], defaults: Mapping[str, str | int | float]
) -> None:
    """A package's own settings into ``config`` (jobs, replica): each from the
    environment, read as its default's type, else its default."""
    for name, default in defaults.items():
        raw = os.environ.get(name, "").strip()
        value = _tunable(name, raw, type(default), above_zero=False) if raw else default
        config.setdefault(name, value)


def load_config(instance_path: str) -> dict:
    inst = Path(instance_path)
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:5000").rstrip("/")
    database_url = os.environ.get("DATABASE_URL") or f"sqlite:///{inst / 'workspace.db'}"
    secret_key = os.environ.get("SECRET_KEY") or _instance_secret(
        inst, "secret_key", lambda: secrets.token_urlsafe(48)
    )
    encryption_key = os.environ.get("ENCRYPTION_KEY") or _instance_secret(
        inst, "encryption_key", lambda: base64.b64encode(os.urandom(32)).decode()
    )
    allow_private = os.environ.get("OUTBOUND_ALLOW_PRIVATE", "")
    outbound_timeout = float(os.environ.get("OUTBOUND_TIMEOUT", "10"))
    return {
        **tunables_from_environment(),
        "SECRET_KEY": secret_key,
        "ENCRYPTION_KEY": encryption_key,
        "SQLALCHEMY_DATABASE_URI": _normalize_db_url(database_url),
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        "BASE_URL": base_url,
        "API_URL": os.environ.get("API_URL", base_url).rstrip("/"),
        "DOH_URL": os.environ.get("DOH_URL", "https://dns.google").rstrip("/"),
        "OUTBOUND_ALLOW_PRIVATE": [h.strip() for h in allow_private.split(",") if h.strip()],
        # A PEM bundle trusted for the SMTP server's certificate besides the system's
        # (a private CA; docs/delivery.md#the-smtp-settings).
        "SMTP_CA_FILE": os.environ.get("SMTP_CA_FILE") or None,
        # Per connect and per read; a peer that keeps sending a byte at a time resets it.
        "OUTBOUND_TIMEOUT": outbound_timeout,
        # The whole of one outbound exchange (HTTP request with its redirects, or one
        # LDAP sign-in / connection test) ends within this many seconds, however the
        # peer behaves (docs/security.md#deadlines). Default: 15, or OUTBOUND_TIMEOUT
        # when that is larger.
        "OUTBOUND_DEADLINE": float(
            os.environ.get("OUTBOUND_DEADLINE") or max(15.0, outbound_timeout)
        ),
        # An org's SCIM token provisions only emails on domains that org verified. Only
        # the operator (never an org admin) may lift it: a single-tenant deployment, or
        # a conformance harness whose tester invents a random domain per user.
        "SCIM_REQUIRE_VERIFIED_DOMAIN": os.environ.get("SCIM_REQUIRE_VERIFIED_DOMAIN", "true")
        .strip()
        .lower()
        not in ("0", "false", "no", "off"),
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        "RATELIMIT_HEADERS_ENABLED": True,
        # Redis down: each process counts in its own memory until Redis answers again
        # (limits still hold, per process), rather than failing every limited route;
        # a black-holed Redis costs a request one second, not a hang
        # (docs/security.md#rate-limits-when-their-storage-is-down).
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        "RATELIMIT_STORAGE_OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        # How many proxies in front of the app set X-Forwarded-For/-Proto (the TLS
        # proxy of README's Production section: 1). 0 trusts no such header, so a
        # client cannot pick the address its sign-in limits are counted against.
        "TRUSTED_PROXIES": int(os.environ.get("TRUSTED_PROXIES", "0") or 0),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": base_url.startswith("https://"),
        "SESSION_COOKIE_NAME": "ws_session",
        # Bodies above 1 MiB are refused before any view parses them.
        "MAX_CONTENT_LENGTH": 1024 * 1024,
        "WTF_CSRF_TIME_LIMIT": None,
        "WTF_CSRF_HEADERS": ["X-CSRFToken", "X-CSRF-Token"],
        "PERMANENT_SESSION_LIFETIME": 60 * 60 * 24 * 14,
        # How long an invitation's one-time sign-in link works (docs/admin.md).
        "INVITE_LINK_HOURS": float(os.environ.get("INVITE_LINK_HOURS", "72")),
        # Dashboards (docs/security.md#limits): widgets on one dashboard, and PDF exports
        # under way at once per org and per member (past them: 429 with Retry-After).
        "DASHBOARD_MAX_WIDGETS": int(os.environ.get("DASHBOARD_MAX_WIDGETS", "30")),
        "EXPORT_MAX_IN_FLIGHT_PER_ORG": int(os.environ.get("EXPORT_MAX_IN_FLIGHT_PER_ORG", "2")),
        "EXPORT_MAX_IN_FLIGHT_PER_MEMBER": int(
            os.environ.get("EXPORT_MAX_IN_FLIGHT_PER_MEMBER", "1")
        ),
        # Who runs this instance (docs/jobs.md#health-and-the-system-page): the emails,
        # comma-separated, of the accounts that see the System page. Orgs are tenants;
        # the job queue is the instance's, so no org role grants it. Empty: nobody.
        "SYSTEM_OPERATORS": tuple(
            email.strip().lower()
            for email in os.environ.get("SYSTEM_OPERATORS", "").split(",")
            if email.strip()
        ),
    }
