"""The demo's session story (docs/security.md#sessions): the owner sets a session
policy, an admin signs a member out everywhere after a lost laptop, and the identity
provider ends a session through back-channel logout."""

from __future__ import annotations

from workspace.auth import session_policy
from workspace.core.events import record_event
from workspace.seed.demo import Demo


def sessions(demo: Demo) -> None:
    with demo.at(50, actor_id=demo.owner.id):
        session_policy.set_policy(demo.org, max_hours=72, idle_minutes=240, actor_id=demo.owner.id)
    member = demo.members["Sofia Alvarez"]
    with demo.at(12, actor_id=demo.owner.id):
        session_policy.sign_out_member(member, actor_id=demo.owner.id)
    with demo.at(8):
        # Written out: the seed has no provider to sign a logout token.
        record_event(
            demo.org.id,
            "auth.sso.backchannel_logout",
            subject="https://idp.example.test",
            sessions=1,
            via="sso",
        )
