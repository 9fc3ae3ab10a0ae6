"""An invitation's result, carried from the invite's (or resend's) POST to the members
page it redirects to, which shows the one-time link once (docs/security.md#shown-once):
a reload of the POST's own answer invited again, and a resend's reload made the link
just copied stop working."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from workspace.auth.invites import Invitation
from workspace.security import shown_once

_KIND = "invitation"


@dataclass(frozen=True)
class InviteResult:
    """What the members page says of the invitation just made or resent."""

    email: str
    #: The raw one-time token; None when the person signs in as they already do.
    token: str | None
    expires_at: datetime | None
    #: A join link: the account's holder joins by opening it signed in.
    joins_on_proof: bool
    resent: bool


def keep(invitation: Invitation, *, resent: bool = False) -> None:
    about = {
        "email": invitation.email,
        "expires_at": invitation.expires_at.isoformat() if invitation.expires_at else None,
        "joins_on_proof": invitation.joins_on_proof,
        "resent": resent,
    }
    shown_once.keep(_KIND, invitation.token or "", about=json.dumps(about))


def take() -> InviteResult | None:
    """The result kept by :func:`keep`, once."""
    shown = shown_once.take(_KIND)
    if shown is None:
        return None
    about = json.loads(shown.about)
    expires = about["expires_at"]
    return InviteResult(
        email=about["email"],
        token=shown.value or None,
        expires_at=datetime.fromisoformat(expires) if expires else None,
        joins_on_proof=bool(about["joins_on_proof"]),
        resent=bool(about["resent"]),
    )
