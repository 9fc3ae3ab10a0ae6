"""The demo's projects and the work in them: three teams, the Web team's workflow,
bulk tasks with their history, agents and people discussing a few dozen of them, and
project roles that change afterwards."""

from __future__ import annotations

from sqlalchemy import select

from workspace.core.comments import add_comment
from workspace.core.models import (
    Cycle,
    MembershipSource,
    Module,
    Project,
    ProjectMember,
    ProjectRole,
    State,
    StateCategory,
    Task,
)
from workspace.core.planning import (
    create_cycle,
    create_module,
    delete_plan,
    update_cycle,
    update_module,
)
from workspace.core.projects import (
    create_project,
    delete_project,
    list_project_members,
    remove_project_member,
    set_project_member,
    update_project,
)
from workspace.core.tasks import update_task
from workspace.core.workflow import create_state, delete_state, update_state
from workspace.extensions import db
from workspace.seed.bulk import ProjectShape, generate_tasks, project_shape, write_rows
from workspace.seed.demo import Demo
from workspace.seed.people import LEAVER, PEOPLE

PROJECTS = [("Web App", "WEB"), ("Mobile", "MOB"), ("Platform", "PLAT")]
COMMENTS = [
    "I can reproduce this on staging; attaching the steps to the description.",
    "Picked this up. First pass should be ready for review tomorrow.",
    "Does this need a migration, or is it code only?",
    "Code only. The schema already has the column.",
    "Moved the due date: we are waiting on the design review.",
    "Reviewed: looks good, one naming nit left inline.",
    "Customer reported this again today; bumping priority.",
    "Shipped behind the feature flag, rolling out to 10% first.",
    "Blocked on the API change in the Platform project.",
    "Added tests for the empty state and the error path.",
    "Could we split this? The export part is independent.",
    "Done on my side; QA can take it from here.",
]
AGENT_COMMENTS = {
    "Triage Bot": "Triaged: looks like {kind}, priority {priority}. Routed to the backlog.",
    "Release Agent": "Included in the next release notes; moving this along.",
    "Docs Agent": "Drafted the documentation change for this; moving it to the next state.",
}
_NEXT = {
    StateCategory.TRIAGE: StateCategory.BACKLOG,
    StateCategory.BACKLOG: StateCategory.UNSTARTED,
    StateCategory.UNSTARTED: StateCategory.STARTED,
    StateCategory.STARTED: StateCategory.COMPLETED,
}


def projects_and_teams(demo: Demo) -> dict[str, ProjectShape]:
    rng, owner_id = demo.rng, demo.owner.id
    shapes = {}
    staff = [name for name, _, via in PEOPLE if via in ("manual", "password", "scim", "ldap")]
    for offset, (name, identifier) in enumerate(PROJECTS):
        with demo.at(115 - offset):
            project = create_project(
                demo.org.id, owner_id, name, identifier, f"The {name} team's work."
            )
        if identifier == "WEB":
            web_workflow(demo, project)
        with demo.at(115 - offset, -1):
            shapes[identifier] = project_shape(
                project, rng, cycles=6, modules=4, today=demo.now.date(), actor_id=owner_id
            )
        demo.projects[identifier] = project
        team = rng.sample([n for n in staff if n in demo.people], 14)
        roles = [ProjectRole.ADMIN, ProjectRole.VIEWER, ProjectRole.COMMENTER] + [
            ProjectRole.MEMBER
        ] * 11
        for i, (person, role) in enumerate(zip(team, roles, strict=True)):
            with demo.at(114 - offset, i * 0.2):
                set_project_member(project, demo.people[person].id, role, actor_id=owner_id)
    web = demo.projects["WEB"]
    with demo.at(90):
        cycle = db.session.scalar(
            select(Cycle).where(Cycle.project_id == web.id).order_by(Cycle.start_date.desc())
        )
        update_cycle(web, cycle, owner_id, {"name": f"{cycle.name}: launch"})
    with demo.at(85):
        module = db.session.scalar(
            select(Module).where(Module.project_id == web.id).order_by(Module.name)
        )
        update_module(web, module, owner_id, {"description": f"Everything {module.name}."})
    with demo.at(65):
        update_project(
            web, owner_id, description="Customer-facing web app: sign-up, billing, search."
        )
    with demo.at(50):
        sandbox = create_project(demo.org.id, owner_id, "Sandbox", "SBX", "Try things here.")
    with demo.at(48):
        delete_project(sandbox, owner_id)
    return shapes


def web_workflow(demo: Demo, web: Project) -> None:
    """The Web team shapes its board: a QA column (added, renamed, moved next to
    review) and an Icebox they tried and dropped (recategorized, then deleted)."""
    owner_id = demo.owner.id
    with demo.at(114, -2):
        qa = create_state(web, "QA", StateCategory.STARTED, actor_id=owner_id)
    with demo.at(114, -3):
        update_state(web, qa, owner_id, name="Ready for QA")
    review = db.session.scalar(
        select(State).where(State.project_id == web.id, State.name == "In Review")
    )
    with demo.at(114, -4):
        update_state(web, qa, owner_id, position=review.position + 1)
    with demo.at(113):
        icebox = create_state(web, "Icebox", StateCategory.BACKLOG, actor_id=owner_id)
    with demo.at(112):
        update_state(web, icebox, owner_id, category=StateCategory.CANCELLED)
    with demo.at(111):
        delete_state(web, icebox, owner_id)
    # A spike planned and dropped before any task joined it, and a module the same.
    with demo.at(110):
        spike = create_cycle(web, "Spike week", None, None, actor_id=owner_id)
        legacy = create_module(web, "Legacy import", actor_id=owner_id)
    with demo.at(109):
        delete_plan(web, spike, owner_id)
        delete_plan(web, legacy, owner_id)


def late_people(demo: Demo) -> None:
    """Project roles that change and people who leave a project, after the fact."""
    owner_id = demo.owner.id
    for project in demo.projects.values():
        members = [
            m
            for m in list_project_members(project.id)
            if m.source == MembershipSource.MANUAL
            and m.role == ProjectRole.MEMBER
            and not m.account.is_agent
        ]
        with demo.at(35):
            set_project_member(project, members[0].account_id, ProjectRole.ADMIN, actor_id=owner_id)
        with demo.at(25):
            remove_project_member(members[1], owner_id)


def tasks(demo: Demo, shapes: dict[str, ProjectShape], task_count: int) -> None:
    per_project = [task_count // len(PROJECTS)] * len(PROJECTS)
    per_project[0] += task_count - sum(per_project)
    for (_, identifier), count in zip(PROJECTS, per_project, strict=True):
        project, shape = demo.projects[identifier], shapes[identifier]
        workers = list(
            db.session.scalars(
                select(ProjectMember.account_id).where(
                    ProjectMember.project_id == project.id,
                    ProjectMember.role.in_([ProjectRole.MEMBER, ProjectRole.ADMIN]),
                )
            )
        )
        task_rows, activity_rows = generate_tasks(demo.rng, shape, count, workers, demo.now)
        write_rows(task_rows, activity_rows)
        project.next_sequence = shape.next_sequence
    db.session.flush()


def discussion(demo: Demo) -> None:
    """Agents move and comment on their tasks; people comment on a few dozen."""
    rng = demo.rng
    for agent in demo.agents:
        tasks = db.session.scalars(
            select(Task)
            .where(
                Task.org_id == demo.org.id,
                Task.assignee_id == agent.id,
                Task.state_category.in_(
                    [
                        StateCategory.TRIAGE,
                        StateCategory.BACKLOG,
                        StateCategory.UNSTARTED,
                        StateCategory.STARTED,
                    ]
                ),
            )
            .order_by(Task.project_id, Task.sequence)
            .limit(4)
        ).all()
        for task in tasks:
            nxt = _NEXT[task.state_category]
            state = db.session.scalar(
                select(State.id)
                .where(State.project_id == task.project_id, State.category == nxt)
                .order_by(State.position)
            )
            when = demo.after(task.updated_at)
            with demo.stamp.at(when):
                text = AGENT_COMMENTS[agent.name].format(kind=task.kind, priority=task.priority)
                add_comment(task, agent.id, text)
                update_task(task, agent.id, {"state_id": state}, at=when)
    authors = [a for n, a in demo.people.items() if n != LEAVER and demo.members[n].active]
    tasks = db.session.scalars(
        select(Task).where(Task.org_id == demo.org.id).order_by(Task.project_id, Task.sequence)
    ).all()
    for task in rng.sample(tasks, min(24, len(tasks))):
        when = demo.after(task.created_at)
        for body in rng.sample(COMMENTS, rng.randint(1, 3)):
            when = demo.after(when)
            with demo.stamp.at(when):
                add_comment(task, rng.choice(authors).id, body)
