"""The workspace domain: organizations, accounts, projects, tasks and their history."""

from workspace.core.models.accounts import Account, AccountKind
from workspace.core.models.domains import DomainState, VerifiedDomain
from workspace.core.models.enforced_sso import BreakGlassOwner, SsoEnforcement
from workspace.core.models.events import Event
from workspace.core.models.inbox import (
    Notification,
    NotificationKind,
    SubscriptionReason,
    TaskSubscription,
)
from workspace.core.models.orgs import Org, OrgMember, OrgRole, zone_named
from workspace.core.models.projects import (
    Cycle,
    MembershipSource,
    Module,
    Project,
    ProjectMember,
    ProjectRole,
    State,
    StateCategory,
)
from workspace.core.models.tasks import Comment, Priority, Task, TaskActivity, TaskKind

__all__ = [
    "Account",
    "AccountKind",
    "BreakGlassOwner",
    "Comment",
    "Cycle",
    "DomainState",
    "Event",
    "MembershipSource",
    "Module",
    "Notification",
    "NotificationKind",
    "Org",
    "OrgMember",
    "OrgRole",
    "Priority",
    "Project",
    "ProjectMember",
    "ProjectRole",
    "SsoEnforcement",
    "State",
    "StateCategory",
    "SubscriptionReason",
    "Task",
    "TaskActivity",
    "TaskKind",
    "TaskSubscription",
    "VerifiedDomain",
    "zone_named",
]
