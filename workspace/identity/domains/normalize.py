"""Turning what an admin types into one canonical domain name (docs/domains.md).

The function lives in :mod:`workspace.core.emails`, so account emails (core) and the
identity sources compare domains the same way; it is re-exported here for identity.
"""

from __future__ import annotations

from workspace.core.emails import email_domain, normalize_domain

__all__ = ["email_domain", "normalize_domain"]
