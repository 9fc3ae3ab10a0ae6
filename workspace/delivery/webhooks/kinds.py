"""The event kinds an endpoint can subscribe to (docs/delivery.md#webhooks).

Audit events keep the kind ``record_event`` gave them; task changes come from the
task history as ``task.created``, ``task.updated``, ``task.deleted`` and
``task.restored``. A subscription names an exact kind, a group (``member.*``) or ``*``
for everything (the audit stream)."""

from __future__ import annotations

from workspace.errors import ServiceError

#: Exact kinds offered on the form, by group, with what they mean.
KINDS: dict[str, str] = {
    "scim.user.provisioned": "The identity provider created a member (SCIM)",
    "scim.user.deactivated": "The identity provider deactivated a member (SCIM)",
    "scim.user.reactivated": "The identity provider reactivated a member (SCIM)",
    "member.added": "A member joined the org",
    "member.role_changed": "A member's role changed",
    "member.deactivated": "A member was deactivated",
    "member.invited": "Someone was invited",
    "groupsync.mapping.added": "A group-to-role mapping was added",
    "groupsync.mapping.removed": "A group-to-role mapping was removed",
    "groupsync.org_role_revoked": "Group sync took an org role back",
    "groupsync.org_role_handed_back": "An org role was handed back to group sync",
    "auth.login": "Someone signed in",
    "task.created": "A task was created",
    "task.updated": "A task was changed",
    "task.deleted": "A task was deleted",
    "task.restored": "A deleted task was restored",
}
#: Groups: every kind starting with the prefix. ``ldap.*`` and ``sso.*`` carry the
#: directory syncs (``ldap.sync.added`` ...); ``auth.*`` every sign-in event.
GROUPS: dict[str, str] = {
    "scim.*": "Every SCIM event (users, groups, tokens)",
    "member.*": "Every member event",
    "groupsync.*": "Every group-sync mapping event",
    "ldap.*": "Every LDAP event, its directory syncs included",
    "sso.*": "Every single sign-on event, its group syncs included",
    "auth.*": "Every sign-in event",
    "task.*": "Every task event",
    "*": "Everything: the whole audit log and task events (the audit stream)",
}
#: What the "send test event" sends; no subscription needed.
PING = "webhook.test"
MAX_KINDS = 50


def check_kinds(kinds: list[str]) -> list[str]:
    """The kinds, de-duplicated in order; an unknown one is a 400 that names it."""
    if not kinds:
        raise ServiceError("Choose at least one event to send.", field="kinds")
    if len(kinds) > MAX_KINDS:
        raise ServiceError(f"At most {MAX_KINDS} event kinds.", field="kinds")
    unknown = [k for k in kinds if k not in KINDS and k not in GROUPS]
    if unknown:
        raise ServiceError(
            f"Unknown event kind: {', '.join(repr(k[:64]) for k in unknown[:5])}. "
            "Use one of the kinds listed in docs/delivery.md#webhooks, a group such as "
            "'member.*', or '*' for everything.",
            field="kinds",
        )
    return list(dict.fromkeys(kinds))


def matches(subscribed: list[str], kind: str) -> bool:
    for sub in subscribed:
        if sub == "*" or sub == kind or (sub.endswith(".*") and kind.startswith(sub[:-1])):
            return True
    return False
