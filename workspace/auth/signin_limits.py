"""Sign-in limits shared by every credential check (docs/security.md#sign-in-limits).

Only failures count, so a person who types the right password is never slowed down,
and no limit is keyed by a name alone, so a stranger who fails on purpose cannot
lock somebody out from elsewhere:

- failures per (name, client address): tight, against guessing one person's password;
- failures per client address: looser, against guessing across many names;
- wrong bearer tokens (API, SCIM) per client address. Only a token that was looked
  up and not found meets that limit: a valid token is never refused, or a whole NAT
  address's people would be locked out by one guesser among them. The limit keeps a
  guesser's requests from costing more than one lookup each (no audit row, no log
  line); guessing a 256-bit token is hopeless anyway.

The client address is ``request.remote_addr``; behind a TLS proxy it is correct only
when ``TRUSTED_PROXIES`` says how many proxies set X-Forwarded-For (README,
Production). Names are compared after NFKC and case folding, so a full-width
spelling of ``owner`` and ``Owner`` share ``owner``'s budget.
"""

from __future__ import annotations

import logging
import unicodedata

from flask import Response, request
from limits import parse_many

from workspace.extensions import limiter

log = logging.getLogger(__name__)

#: Failed sign-ins for one name from one address.
FAILED_PER_NAME_AND_ADDRESS = "10 per minute; 50 per hour"
#: Failed sign-ins from one address, whatever the names.
FAILED_PER_ADDRESS = "30 per minute; 300 per hour"
#: Requests with a wrong bearer token from one address, per kind of token.
BEARER_FAILURES_PER_ADDRESS = "20 per minute; 200 per hour"
_BEARER_LIMITS = parse_many(BEARER_FAILURES_PER_ADDRESS)


def canonical_name(raw: str | None) -> str:
    """A username or email as the limits count it: NFKC, trimmed, case-folded."""
    return unicodedata.normalize("NFKC", raw or "").strip().casefold()


def client_address() -> str:
    return request.remote_addr or "unknown"


def name_and_address_key(scope: str, name: str | None) -> str:
    """The key of the per-(name, address) limit; ``scope`` keeps sign-in methods (and
    an org's directory) apart."""
    return f"{scope}:{canonical_name(name)}@{client_address()}"


def failed(response: Response) -> bool:
    """``deduct_when`` for the sign-in limits: a refused attempt counts, a success
    (a redirect or 200) does not."""
    return response.status_code >= 400


# -- wrong bearer tokens ------------------------------------------------------------------


def _strategy():
    if not limiter.enabled:
        return None
    try:
        return limiter.limiter
    except AssertionError:  # the extension was set up disabled in this process
        return None


def bearer_blocked(kind: str) -> bool:
    """This address sent too many wrong ``kind`` tokens lately. Ask only once the
    token was looked up and not found: answer 429 then, with nothing counted,
    recorded or logged."""
    strategy = _strategy()
    if strategy is None:
        return False
    address = client_address()
    return not all(strategy.test(item, "bearer-failures", kind, address) for item in _BEARER_LIMITS)


def count_bearer_failure(kind: str, detail: str = "") -> None:
    """Count a wrong ``kind`` token against the caller's address and log it; the
    caller records an audit event when it knows the org."""
    suffix = f" ({detail})" if detail else ""
    log.warning("refused %s bearer token from %s%s", kind, client_address(), suffix)
    strategy = _strategy()
    if strategy is None:
        return
    address = client_address()
    for item in _BEARER_LIMITS:
        strategy.hit(item, "bearer-failures", kind, address)
