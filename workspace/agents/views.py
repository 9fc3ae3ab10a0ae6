"""The AI pages: model settings with credits and recent runs, agents, and the Ask box.

Settings pages are for owners and admins (``org.manage_settings``,
``org.manage_members``); asking is for every member (``ai.ask``). Forms go through
the JSON API's input models, post to these addresses and work without JavaScript;
with HTMX the test button and the Ask box swap in just their result. A refused form
is re-rendered with a 400 and the message by its field.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.agents import ask, credits, endpoints, members, settings, widgets
from workspace.agents.models import settings_for
from workspace.agents.quirks import Quirks
from workspace.agents.schemas import AgentCreate, AiSettingsIn, AiTestIn, AskIn, SaveAnswerIn
from workspace.analytics import charts, dimensions
from workspace.analytics.scope import make_scope
from workspace.auth.guards import page
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, first_error, parse_form
from workspace.security.permissions import Access, can

bp = Blueprint("agents_pages", __name__)


_FIELDS = ("base_url", "model", "api_version")


def _saved_form(access: Access) -> dict[str, str]:
    row = settings_for(access.org.id)
    return {name: (getattr(row, name) or "") if row else "" for name in _FIELDS}


def _typed_form() -> dict[str, str]:
    # What was typed is shown again (on a refusal, or after a test); the key never is.
    return {name: request.form.get(name, "") for name in _FIELDS}


def _render_settings(access: Access, form, *, errors=None, result=None, status=200):
    row = settings_for(access.org.id)
    return render_template(
        "agents/ai_settings.html",
        nav_active="settings",
        settings_active="agents_pages.ai_settings",
        row=row,
        learnt=Quirks.load(row.quirks, row.model).describe() if row else [],
        azure_version=endpoints.AZURE_DEFAULT_API_VERSION,
        form=form,
        errors=errors or {},
        result=result,
        usage=credits.usage(access.org.id),
        seats=credits.billable_seats(access.org.id),
        runs=credits.recent_runs(access.org.id),
    ), status


@bp.route("/o/<org>/settings/ai", methods=["GET", "POST"], endpoint="ai_settings")
@page(action="org.manage_settings")
def ai_settings(org: str, access: Access):
    """Show the model settings, credits and recent runs; POST saves the settings."""
    if request.method == "GET":
        return _render_settings(access, _saved_form(access))
    try:
        form = parse_form(AiSettingsIn)
        settings.save_settings(
            access.org.id,
            base_url=form.base_url,
            model=form.model,
            api_key=form.api_key,
            api_version=form.api_version,
            actor_id=access.account.id,
        )
    except ServiceError as exc:
        return _render_settings(access, _typed_form(), errors=field_errors(exc), status=400)
    flash("Model settings saved. Use Test to check them.", "success")
    return redirect(url_for("agents_pages.ai_settings", org=org))


@bp.post("/o/<org>/settings/ai/test", endpoint="ai_test")
@page(action="org.manage_settings")
def ai_test(org: str, access: Access):
    """One tiny call with the values in the form (blank ones from the saved settings),
    saving nothing."""
    try:
        form = parse_form(AiTestIn)
        result = settings.test_settings(access.org.id, **form.model_dump())
    except ServiceError as exc:
        if htmx:  # the result box shows why; the fields keep what was typed
            failed = settings.TestResult(False, first_error(exc))
            return render_template("agents/_test_result.html", result=failed)
        return _render_settings(access, _typed_form(), errors=field_errors(exc), status=400)
    if htmx:
        return render_template("agents/_test_result.html", result=result)
    return _render_settings(access, _typed_form(), result=result)


@bp.post("/o/<org>/settings/ai/remove", endpoint="ai_remove")
@page(action="org.manage_settings")
def ai_remove(org: str, access: Access):
    """Forget the model and its key; asks go back to the built-in interpreter."""
    if settings.remove_settings(access.org.id, actor_id=access.account.id):
        flash("The model was removed. Asks use the built-in interpreter.", "success")
    return redirect(url_for("agents_pages.ai_settings", org=org))


def _render_agents(access: Access, *, form=None, errors=None, created=None, token=None, status=200):
    return render_template(
        "agents/agents.html",
        nav_active="settings",
        settings_active="agents_pages.agents",
        agents=members.list_agents(access.org.id),
        project_list=projects.list_projects(access.org.id),
        form=form or {"name": "", "description": "", "project_ids": []},
        errors=errors or {},
        created=created,
        token=token,
        tools_url=url_for("agent_tools_api.list_tools", _external=True),
        mcp_url=url_for("agent_tools_api.mcp_endpoint", _external=True),
    ), status


@bp.route("/o/<org>/settings/agents", methods=["GET", "POST"], endpoint="agents")
@page(action="org.manage_members")
def agents(org: str, access: Access):
    """List agents; POST creates one and shows its token once."""
    if request.method == "GET":
        return _render_agents(access)
    typed = {
        "name": request.form.get("name", ""),
        "description": request.form.get("description", ""),
        "project_ids": request.form.getlist("project_ids"),
    }
    try:
        form = parse_form(AgentCreate)
        account, _member, raw = members.create_agent(
            access.org,
            name=form.name,
            description=form.description,
            project_ids=form.project_ids,
            actor_id=access.account.id,
        )
    except ServiceError as exc:
        return _render_agents(access, form=typed, errors=field_errors(exc), status=400)
    # Rendered, not redirected: the token is shown on this response only.
    return _render_agents(access, created=account, token=raw)


@bp.post("/o/<org>/settings/agents/<uuid:agent_id>/remove", endpoint="remove_agent")
@page(action="org.manage_members")
def remove_agent(org: str, agent_id: uuid.UUID, access: Access):
    """Remove the agent from the org and revoke its token; its work stays."""
    member = members.get_agent(access.org.id, agent_id)
    members.remove_agent(member, actor_id=access.account.id)
    flash(f"{member.account.name} was removed and its token revoked.", "success")
    return redirect(url_for("agents_pages.agents", org=org))


# -- the Ask box ---------------------------------------------------------------------------


def _ask_context(access: Access) -> dict[str, Any]:
    return {
        "ask_text": request.form.get("text", ""),
        "ask_project_id": request.form.get("project_id", ""),
        "ask_projects": projects.list_projects(access.org.id),
        "ask_max": ask.MAX_REQUEST,
        "nav_active": "analytics",
        "answer": None,
        "ask_error": None,
        # A failed model's note links admins to the settings that can fix it.
        "can_manage_ai": can(access, "org.manage_settings"),
    }


@bp.route("/o/<org>/analytics/ask", methods=["GET", "POST"], endpoint="ask")
@page(action="ai.ask")
def ask_page(org: str, access: Access):
    """Ask for a chart in plain words; HTMX gets just the answer."""
    context = _ask_context(access)
    if request.method == "GET":
        return render_template("agents/ask.html", **context)
    status = 200
    try:
        form = parse_form(AskIn)
        answer = ask.ask_chart(make_scope(access.org, form.project_id), access.account, form.text)
        context.update(
            answer=answer,
            answer_project_id=form.project_id,
            figures={
                "ask": charts.to_json(
                    charts.points_figure(
                        dimensions.drawable(
                            access.org.id, answer["points"], answer.get("dimension")
                        ),
                        dimension=answer.get("dimension"),
                    )
                )
            },
            dashboards=widgets.own_dashboards(access),
            # Asked from a dashboard page: offer that dashboard first.
            selected_dashboard_id=request.form.get("dashboard_id", ""),
        )
    except ServiceError as exc:  # a 400, or a 429 when asking too often
        context["ask_error"] = first_error(exc)
        status = exc.status
    if htmx:
        return render_template("agents/_ask_result.html", **context), status
    return render_template("agents/ask.html", **context), status


@bp.post("/o/<org>/analytics/ask/save", endpoint="save_widget")
@page(action="ai.ask")
def save_widget(org: str, access: Access):
    """Add the answer's chart to one of your dashboards (``dashboard.edit`` on it)."""
    try:
        form = parse_form(SaveAnswerIn)
        widgets.save_as_widget(
            access,
            form.dashboard_id,
            title=form.title,
            metric=form.metric,
            dimension=form.dimension,
            kind=form.kind,
            priority=form.priority,
            project_id=form.project_id,
        )
    except ServiceError as exc:
        context = _ask_context(access)
        context["ask_error"] = f"That chart could not be saved: {first_error(exc)}"
        return render_template("agents/ask.html", **context), 400
    flash("Chart saved as a widget.", "success")
    return redirect(url_for("dashboards_pages.show", org=org, dashboard_id=form.dashboard_id))
