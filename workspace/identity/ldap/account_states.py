"""Active Directory account states: why a directory refuses a person whose password
may well be right (docs/ldap.md#account-states).

Two sources, as real AD gives both: the ``data NNN`` code in AD's invalidCredentials
diagnostic (``80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error,
data 533, v4563``), and the state attributes on the entry, which the service account
reads before the password is checked. Directories without these attributes (plain
OpenLDAP) simply have no state.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

#: AD's sub-codes (hex, as AD writes them) and the audit reason each becomes.
AD_DATA_REASONS = {
    "525": "unknown_user",
    "52e": "invalid_credentials",
    "530": "logon_hours",
    "531": "workstation_not_permitted",
    "532": "password_expired",
    "533": "account_disabled",
    "701": "account_expired",
    "773": "password_must_change",
    "775": "account_locked",
}
_AD_DATA = re.compile(r"\bdata ([0-9a-f]{1,8})\b", re.IGNORECASE)

#: What the person is told (the audit row gets the reason word).
MESSAGES = {
    "account_disabled": "Your directory account is disabled. Ask your IT administrator to "
    "enable it.",
    "account_expired": "Your directory account has expired. Ask your IT administrator to "
    "extend it.",
    "account_locked": "Your directory account is locked after too many failed sign-ins. "
    "Wait until it unlocks, or ask your IT administrator to unlock it.",
    "password_expired": "Your directory password has expired. Change it (for example when "
    "signing in to Windows, or on your company's password page), then sign in again.",
    "password_must_change": "Your directory password must be changed before you can use it. "
    "Change it (for example when signing in to Windows, or on your company's password "
    "page), then sign in again.",
    "logon_hours": "Your directory account may not sign in at this time of day. Ask your "
    "IT administrator about your logon hours.",
    "workstation_not_permitted": "Your directory account may only sign in from certain "
    "computers, and this service is not one of them. Ask your IT administrator.",
}

#: The service account's own state, as the admin's connection test shows it.
SERVICE_ACCOUNT_STATES = {
    "account_disabled": "the account is disabled",
    "account_expired": "the account has expired",
    "account_locked": "the account is locked out",
    "password_expired": "its password has expired",
    "password_must_change": "its password must be changed before it can be used",
    "logon_hours": "it may not sign in at this time of day",
    "workstation_not_permitted": "it may not sign in from this service's computer",
}

#: Attributes read with the entry. msDS-User-Account-Control-Computed is constructed by
#: AD and says whether a lockout or password expiry is in force *now*.
STATE_ATTRIBUTES = [
    "userAccountControl",
    "msDS-User-Account-Control-Computed",
    "pwdLastSet",
    "lockoutTime",
    "accountExpires",
]

_ACCOUNTDISABLE, _LOCKOUT, _PASSWORD_EXPIRED = 0x2, 0x10, 0x800000
#: accountExpires values meaning "never" (0 and the largest 64-bit integer).
_NEVER = {0, 0x7FFFFFFFFFFFFFFF}
#: Seconds from 1601-01-01 (FILETIME's epoch) to 1970-01-01.
_FILETIME_EPOCH_OFFSET = 11644473600


def ad_reason(diagnostic: str) -> str | None:
    """The reason behind AD's ``data NNN`` in a bind diagnostic; None without one."""
    match = _AD_DATA.search(diagnostic or "")
    return AD_DATA_REASONS.get(match.group(1).lower()) if match else None


def filetime_now(clock: Callable[[], float] = time.time) -> int:
    return int((clock() + _FILETIME_EPOCH_OFFSET) * 10_000_000)


def entry_state(first: Callable[[str], str | None], now: int | None = None) -> str | None:
    """The state that refuses this entry, read from its attributes (``first`` returns
    one attribute's value); None when nothing refuses it. ``now`` is a FILETIME.

    The most lasting state wins: disabled, then expired, locked, password expired,
    must change."""
    now = filetime_now() if now is None else now
    uac = _integer(first("userAccountControl"))
    computed = _integer(first("msDS-User-Account-Control-Computed"))
    flags = (uac or 0) | (computed or 0)
    if flags & _ACCOUNTDISABLE:
        return "account_disabled"
    expires = _integer(first("accountExpires"))
    if expires is not None and expires not in _NEVER and expires <= now:
        return "account_expired"
    # lockoutTime stays set after AD's lockout window has passed, until the next
    # good sign-in; the computed flag is AD's answer for "now", so it wins when present.
    locked_since = _integer(first("lockoutTime"))
    if flags & _LOCKOUT or (computed is None and locked_since):
        return "account_locked"
    if flags & _PASSWORD_EXPIRED:
        return "password_expired"
    if _integer(first("pwdLastSet")) == 0:
        return "password_must_change"
    return None


def _integer(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
