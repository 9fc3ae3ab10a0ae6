"""The agent tool interface (docs/agents.md): what an agent can do, each with a JSON schema.

One registry serves both transports - the plain JSON routes under ``/api/v1/agent/``
and the MCP server - so a tool is declared once: a name, a description, a pydantic
input model (its JSON schema is what ``tools/list`` shows) and a handler. Handlers
act through the core services with the agent's account as the actor, so every change
lands in the activity history under the agent's name, and through the permission
layer exactly as a person with the same roles would.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from workspace.analytics import rollups
from workspace.analytics.reports import service as analytics
from workspace.analytics.scope import make_scope
from workspace.analytics.vocabulary import Dimension, Metric
from workspace.core import comments, projects, task_lists, tasks, workflow
from workspace.core.models import Priority, Project, State, Task, TaskKind
from workspace.core.models.projects import COUNTED_CATEGORIES
from workspace.core.schemas import ActivityOut, CommentOut, TaskOut
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.inputs import validation_errors
from workspace.security.permissions import Access, require

Category = Literal[tuple(c.value for c in COUNTED_CATEGORIES)]  # type: ignore[valid-type]
PriorityName = Literal[tuple(p.value for p in Priority)]  # type: ignore[valid-type]
KindName = Literal[tuple(k.value for k in TaskKind)]  # type: ignore[valid-type]


class ToolError(Exception):
    """A tool call that could not be done; ``status`` follows HTTP (400, 403, 404)."""

    def __init__(self, status: int, message: str, errors: list[dict[str, str]] | None = None):
        super().__init__(message)
        self.status, self.message, self.errors = status, message, errors


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class NoArgs(Args):
    pass


#: A project by its identifier (``WEB``, as ``list_projects`` shows) or its id.
ProjectRef = Field(
    None,
    min_length=1,
    max_length=36,
    description=("Only this project's tasks: its identifier, e.g. WEB, or its id."),
)
#: A task by its key (``WEB-12``, as people write it in comments) or its id.
TaskRef = Field(min_length=1, max_length=36, description="The task's key, e.g. WEB-12, or its id.")


class ScopeArgs(Args):
    project_id: str | None = ProjectRef


class ListTasksArgs(Args):
    project_id: str | None = ProjectRef
    state_category: Category | None = None
    assigned_to_me: bool = Field(False, description="Only tasks assigned to this agent.")
    open_only: bool = Field(False, description="Leave out completed and cancelled tasks.")
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0, le=task_lists.MAX_OFFSET)


class TaskArgs(Args):
    task_id: str = TaskRef


class CreateTaskArgs(Args):
    project_id: str = Field(
        min_length=1, max_length=36, description="The project's identifier, e.g. WEB, or its id."
    )
    title: str = Field(min_length=1, max_length=500)
    description: str = Field("", max_length=20000)
    priority: PriorityName = "none"
    kind: KindName = "task"
    state: str | None = Field(
        None, max_length=100, description="A state name or id; the project's default if absent."
    )
    assign_to_me: bool = False


class SetStateArgs(Args):
    task_id: str = TaskRef
    state: str = Field(min_length=1, max_length=100, description="A state name or id.")


class CommentArgs(Args):
    task_id: str = TaskRef
    body: str = Field(min_length=1, max_length=20000)


class CustomChartArgs(ScopeArgs):
    metric: Metric = "count"
    dimension: Dimension = "status"
    status: str | None = Field(None, max_length=100, description="Only tasks in this state.")
    priority: PriorityName | None = Field(None, description="Only tasks of this priority.")
    filter: str | None = Field(
        None, max_length=2000, description="A PQL filter, e.g. kind = bug AND dueDate < -7d."
    )


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[Args]
    handler: Callable[[Access, Any], Any]
    read_only: bool = True
    #: A write that only adds (a task, a comment): MCP clients may skip the
    #: confirmation they ask before a write that changes or removes something.
    additive: bool = False

    def input_schema(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        schema.setdefault("properties", {})
        return schema

    def describe(self) -> dict[str, Any]:
        annotations: dict[str, Any] = {"readOnlyHint": self.read_only, "openWorldHint": False}
        if not self.read_only:
            annotations["destructiveHint"] = not self.additive
        return {
            "name": self.name,
            # What a client shows a person (MCP ``title``); ``name`` is for the model.
            "title": self.name.replace("_", " ").capitalize(),
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": annotations,
        }


def _task_json(task) -> dict[str, Any]:
    return TaskOut.model_validate(task).model_dump(mode="json")


def _state_ref(project_id: uuid.UUID, ref: str) -> State:
    states = workflow.list_states(project_id)
    for state in states:
        if str(state.id) == ref or state.name.lower() == ref.strip().lower():
            return state
    names = ", ".join(s.name for s in states)
    raise ServiceError(f"No state '{ref}' in this project; its states are: {names}.", field="state")


def _id(ref: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(ref)
    except ValueError:
        return None


def _task(access: Access, ref: str) -> Task:
    """The task ``ref`` names, by id or by key; another org's is a 404 either way."""
    task_id = _id(ref)
    if task_id is None:
        return tasks.get_task_by_key(access.org.id, ref)
    return tasks.get_task(access.org.id, task_id)


def _project(access: Access, ref: str) -> Project:
    project_id = _id(ref)
    if project_id is None:
        return projects.get_project_by_identifier(access.org.id, ref)
    return projects.get_project(access.org.id, project_id)


# -- handlers ---------------------------------------------------------------------------


def list_projects(access: Access, _args: NoArgs) -> list[dict[str, Any]]:
    return [
        {
            "id": str(p.id),
            "name": p.name,
            "identifier": p.identifier,
            "states": [
                {"id": str(s.id), "name": s.name, "category": s.category}
                for s in workflow.list_states(p.id)
            ],
        }
        for p in projects.list_projects(access.org.id)
    ]


def list_tasks(access: Access, args: ListTasksArgs) -> dict[str, Any]:
    # Another org's project is a 404, as in every other lookup, not an empty list.
    project = _project(access, args.project_id) if args.project_id else None
    flt = task_lists.TaskFilter(
        project_id=project.id if project else None,
        state_category=args.state_category,
        assignee_id=access.account.id if args.assigned_to_me else None,
        open_only=args.open_only,
    )
    rows, total = task_lists.list_tasks(access.org.id, flt, limit=args.limit, offset=args.offset)
    return {"total": total, "tasks": [_task_json(t) for t in rows]}


def get_task(access: Access, args: TaskArgs) -> dict[str, Any]:
    task = _task(access, args.task_id)
    return {
        "task": _task_json(task),
        "comments": [
            CommentOut.model_validate(c).model_dump(mode="json")
            for c in comments.list_comments(task)
        ],
        "activity": [
            ActivityOut.model_validate(a).model_dump(mode="json") for a in tasks.task_activity(task)
        ],
    }


def create_task(access: Access, args: CreateTaskArgs) -> dict[str, Any]:
    project = _project(access, args.project_id)
    require(access, "task.write", project.id)
    state = _state_ref(project.id, args.state) if args.state else None
    task = tasks.create_task(
        project,
        access.account.id,
        title=args.title,
        description=args.description,
        priority=args.priority,
        kind=args.kind,
        state_id=state.id if state else None,
        assignee_id=access.account.id if args.assign_to_me else None,
    )
    return _task_json(task)


def set_task_state(access: Access, args: SetStateArgs) -> dict[str, Any]:
    task = _task(access, args.task_id)
    require(access, "task.write", task.project_id)
    state = _state_ref(task.project_id, args.state)
    tasks.update_task(task, access.account.id, {"state_id": state.id})
    return _task_json(task)


def assign_task_to_me(access: Access, args: TaskArgs) -> dict[str, Any]:
    task = _task(access, args.task_id)
    require(access, "task.write", task.project_id)
    tasks.update_task(task, access.account.id, {"assignee_id": access.account.id})
    return _task_json(task)


def comment_on_task(access: Access, args: CommentArgs) -> dict[str, Any]:
    task = _task(access, args.task_id)
    require(access, "task.comment", task.project_id)
    comment = comments.add_comment(task, access.account.id, args.body)
    return CommentOut.model_validate(comment).model_dump(mode="json")


def _scope(access: Access, project_ref: str | None):
    require(access, "analytics.read")
    return make_scope(access.org, _project(access, project_ref).id if project_ref else None)


def analytics_overview(access: Access, args: ScopeArgs) -> dict[str, Any]:
    return rollups.overview(_scope(access, args.project_id))


def analytics_workload(access: Access, args: ScopeArgs) -> list[dict[str, Any]]:
    rows = rollups.workload(_scope(access, args.project_id))
    return [{**r, "assignee_id": str(r["assignee_id"])} for r in rows]


def analytics_custom_chart(access: Access, args: CustomChartArgs) -> dict[str, Any]:
    scope = _scope(access, args.project_id)
    return analytics.custom_chart(
        scope,
        access.account.id,
        metric=args.metric,
        dimension=args.dimension,
        status=args.status,
        priority=args.priority,
        pql=args.filter,
    )


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "list_projects",
            "List the organization's projects with their workflow states.",
            NoArgs,
            list_projects,
        ),
        Tool(
            "list_tasks",
            "List live tasks, newest first, optionally by project, category or assigned to you.",
            ListTasksArgs,
            list_tasks,
        ),
        Tool(
            "get_task",
            "Read one task, by key (WEB-12) or id, with its comments and history.",
            TaskArgs,
            get_task,
        ),
        Tool(
            "create_task",
            "Create a task in a project (you need the member role there).",
            CreateTaskArgs,
            create_task,
            read_only=False,
            additive=True,
        ),
        Tool(
            "set_task_state",
            "Move a task to another state of its project, by state name or id.",
            SetStateArgs,
            set_task_state,
            read_only=False,
        ),
        Tool(
            "assign_task_to_me",
            "Assign a task to yourself (this agent).",
            TaskArgs,
            assign_task_to_me,
            read_only=False,
        ),
        Tool(
            "comment_on_task",
            "Add a comment to a task.",
            CommentArgs,
            comment_on_task,
            read_only=False,
            additive=True,
        ),
        Tool(
            "analytics_overview",
            "Totals, completion rate, overdue and breakdowns by category, priority and kind.",
            ScopeArgs,
            analytics_overview,
        ),
        Tool(
            "analytics_workload",
            "Open, in-progress and recently completed work per assignee, people and agents.",
            ScopeArgs,
            analytics_workload,
        ),
        Tool(
            "analytics_custom_chart",
            "A metric (count, done, open) grouped by a dimension, largest first.",
            CustomChartArgs,
            analytics_custom_chart,
        ),
    )
}


def run_tool(access: Access, name: str, arguments: Any) -> Any:
    """Validate the arguments and run the tool. Raises :class:`ToolError`."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolError(404, f"No tool named '{name}'. List the tools to see their names.")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(400, "Tool arguments must be a JSON object.")
    try:
        args = tool.args.model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(
            400, "Some arguments are missing or invalid.", validation_errors(exc)
        ) from exc
    try:
        # A savepoint per call: a refused call undoes only its own changes, never
        # those of an earlier call in the same MCP batch. The request commits.
        with db.session.begin_nested():
            return tool.handler(access, args)
    except ServiceError as exc:
        errors = [{"field": exc.field, "message": exc.message}] if exc.field else None
        raise ToolError(exc.status, exc.message, errors) from exc
