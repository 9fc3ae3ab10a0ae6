"""The AI and agents JSON API (docs/api.md): model settings, ask-a-chart, credits,
agents. Settings (``org.manage_settings``) and agents (``org.manage_members``) are
owner/admin only; asking (``ai.ask``) and credits (``analytics.read``) are for any
member (an agent included: its asks are recorded as its own). The request commits."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Response, json, url_for

from workspace.agents import ask_job, credits, endpoints, members, settings
from workspace.agents.models import settings_for
from workspace.agents.quirks import Quirks
from workspace.agents.schemas import (
    AgentCreate,
    AgentCreated,
    AgentOut,
    AiSettingsIn,
    AiSettingsOut,
    AiTestIn,
    AiTestOut,
    AskIn,
    AskOut,
    CreditsOut,
)
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.jobs.schemas import JobOut
from workspace.security.permissions import Access
from workspace.security.tokens import display_prefix

bp = api_blueprint("agents_api", __name__, "/api/v1/orgs/<uuid:org_id>")


def settings_out(org_id: uuid.UUID) -> AiSettingsOut:
    row = settings_for(org_id)
    if row is None:
        return AiSettingsOut(configured=False)
    return AiSettingsOut(
        configured=True,
        base_url=row.base_url,
        model=row.model,
        has_api_key=row.has_api_key,
        api_version=row.api_version,
        azure=endpoints.is_azure(row.base_url),
        learnt=Quirks.load(row.quirks, row.model).describe(),
        updated_at=row.updated_at,
    )


@bp.get("/ai-settings")
@operation(
    "Read the org's model settings", tag="ai", response=AiSettingsOut, action="org.manage_settings"
)
def read_settings(org_id: uuid.UUID, access: Access):
    """``has_api_key`` instead of the key, which is never returned."""
    return settings_out(access.org.id)


@bp.put("/ai-settings")
@operation(
    "Save the org's model settings",
    tag="ai",
    body=AiSettingsIn,
    response=AiSettingsOut,
    action="org.manage_settings",
)
def save_settings(org_id: uuid.UUID, access: Access, body: AiSettingsIn):
    """An OpenAI-compatible endpoint, or an Azure OpenAI deployment (``api_version``
    required there). Omit ``api_key`` (or send it blank) to keep the stored one; the
    first save needs it. A new model or base URL forgets what was learnt about the old
    one."""
    settings.save_settings(
        access.org.id,
        base_url=body.base_url,
        model=body.model,
        api_key=body.api_key,
        api_version=body.api_version,
        actor_id=access.account.id,
    )
    return settings_out(access.org.id)


@bp.delete("/ai-settings")
@operation("Remove the org's model", tag="ai", status=204, action="org.manage_settings")
def remove_settings(org_id: uuid.UUID, access: Access):
    """Forget the model and its key: asks go back to the built-in interpreter. The AI
    runs stay. Removing when none is configured is not an error."""
    settings.remove_settings(access.org.id, actor_id=access.account.id)


@bp.post("/ai-settings/test")
@operation(
    "Test model settings, saved or not",
    tag="ai",
    body=AiTestIn,
    body_optional=True,
    response=AiTestOut,
    action="org.manage_settings",
)
def test_settings(org_id: uuid.UUID, access: Access, body: AiTestIn):
    """One tiny call in the shape an ask sends; ``ok: false`` carries the provider's
    error. Without a body it tests the saved settings. A JSON body with any of
    ``base_url``, ``model``, ``api_key``, ``api_version`` tests those values without
    saving them (what it leaves out comes from the saved settings; the stored key only
    goes to the same host). Costs no credits."""
    result = settings.test_settings(access.org.id, **body.model_dump())
    return AiTestOut(ok=result.ok, message=result.message)


#: An ask is refused with 429 past a rate or the org's asks in flight; a waiting caller
#: gets 503 when no worker answered in time.
ASK_ERRORS = (400, 401, 403, 404, 429)


@bp.post("/analytics/ask")
@operation(
    "Ask for a chart in plain words",
    tag="analytics",
    body=AskIn,
    response=AskOut,
    action="ai.ask",
    errors=(*ASK_ERRORS, 503),
)
def ask_chart(org_id: uuid.UUID, access: Access, body: AskIn):
    """Never an error for an unusable model answer. When the model fails (``outcome``
    provider_error, timeout, invalid_answer, credits_exhausted, key_unreadable), the
    built-in interpreter charts the same words (``offline: true``) and ``model_note``
    says why; when it does not understand them either, the default chart (count by
    status, "Work items by status") comes back with ``fallback: true``. With a model
    configured this is the job of ``POST …/analytics/ask/jobs``, waited for."""
    result: dict[str, Any] = ask_job.ask_now(access, body.text, body.project_id)
    return AskOut.model_validate(result)


@bp.post("/analytics/ask/jobs")
@operation(
    "Start an ask as a job: 202 with the job, whose Location to follow",
    tag="analytics",
    body=AskIn,
    response=JobOut,
    status=202,
    action="ai.ask",
    errors=ASK_ERRORS,
)
def start_ask(org_id: uuid.UUID, access: Access, body: AskIn):
    """The model is asked on a worker; ``GET`` the Location until ``state`` is ``done``,
    then its ``result`` is the chart, as ``POST …/analytics/ask`` answers it (``dead``:
    ``error`` says why). Refused like that ask: 429 past a rate, or while the org has
    ``ASK_MAX_IN_FLIGHT_PER_ORG`` asks queued or running."""
    job = ask_job.start(access, body.text, body.project_id)
    location = url_for("job_status_api.read_job", org_id=org_id, job_id=job.id)
    body_out = JobOut.of(job).model_dump(mode="json")
    return Response(json.dumps(body_out), status=202, mimetype="application/json",
                    headers={"Location": location})  # fmt: skip


@bp.get("/analytics/credits")
@operation(
    "AI credit usage this calendar month (UTC)",
    tag="analytics",
    response=CreditsOut,
    action="analytics.read",
)
def read_credits(org_id: uuid.UUID, access: Access):
    return CreditsOut.model_validate(credits.usage(access.org.id))


def agent_out(row: members.AgentRow) -> dict[str, Any]:
    return {
        "id": row.account.id,
        "member_id": row.member.id,
        "name": row.account.name,
        "description": row.account.description,
        "kind": row.account.kind,
        "token_prefix": row.token_prefix,
        "token_last_used_at": row.last_used_at,
        "created_at": row.member.created_at,
    }


@bp.get("/agents")
@operation(
    "List the org's agents", tag="agents", response=list[AgentOut], action="org.manage_members"
)
def list_agents(org_id: uuid.UUID, access: Access):
    return [AgentOut.model_validate(agent_out(r)) for r in members.list_agents(access.org.id)]


@bp.post("/agents")
@operation(
    "Create an agent member and its token",
    tag="agents",
    body=AgentCreate,
    response=AgentCreated,
    status=201,
    # 409: an active agent of that name is already in the org.
    errors=(400, 401, 403, 404, 409),
    action="org.manage_members",
)
def create_agent(org_id: uuid.UUID, access: Access, body: AgentCreate):
    """The response holds the agent's token; it is never shown again."""
    account, member, raw = members.create_agent(
        access.org,
        name=body.name,
        description=body.description,
        project_ids=body.project_ids,
        actor_id=access.account.id,
    )
    row = members.AgentRow(member, account, display_prefix(raw), None)
    return AgentCreated.model_validate({**agent_out(row), "token": raw})


@bp.post("/agents/<uuid:agent_id>/token")
@operation(
    "Replace an agent's token: the old one stops working at once",
    tag="agents",
    response=AgentCreated,
    status=201,
    action="org.manage_members",
)
def rotate_agent_token(org_id: uuid.UUID, agent_id: uuid.UUID, access: Access):
    """The response holds the agent's new token; it is never shown again."""
    member = members.get_agent(access.org.id, agent_id)
    raw = members.rotate_agent_token(access.org, member, actor_id=access.account.id)
    row = members.AgentRow(member, member.account, display_prefix(raw), None)
    return AgentCreated.model_validate({**agent_out(row), "token": raw})
