"""The AI pages: model settings with credits and recent runs, agents, and the Ask box.

Settings pages are for owners and admins (``org.manage_settings``,
``org.manage_members``); asking is for every member (``ai.ask``). Forms go through
the JSON API's input models, post to these addresses and work without JavaScript;
with HTMX the test button and the Ask box swap in just their result. A refused form
is re-rendered with a 400 and the message by its field.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from pydantic import Field
from werkzeug.datastructures import MultiDict

from workspace.agents import ask, ask_job, credits, endpoints, members, reading, settings, widgets
from workspace.agents.models import settings_for
from workspace.agents.quirks import Quirks
from workspace.agents.schemas import AgentCreate, AiSettingsIn, AiTestIn, AskForm, SaveAnswerIn
from workspace.analytics import charts, dimensions, palette, time_charts
from workspace.analytics.schemas import CustomQuery
from workspace.analytics.scope import make_scope
from workspace.analytics.vocabulary import TIME_DIMENSIONS
from workspace.auth.guards import page, render
from workspace.core import projects
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, first_error
from workspace.jobs.models import JobState
from workspace.security import shown_once
from workspace.security.permissions import Access, can

bp = Blueprint("agents_pages", __name__)

AI = "/o/<org>/settings/ai"
AGENTS = "/o/<org>/settings/agents"
ASK = "/o/<org>/analytics/ask"
_SETTINGS = "org.manage_settings"
_MEMBERS = "org.manage_members"
#: The settings the form shows: the key never is.
_FIELDS = ("base_url", "model", "api_version")


def _settings_page(access: Access, *, errors=None, result=None, status=200):
    """The model settings, credits and recent runs; for HTMX the test's result box.
    The form shows the saved values, or after a POST what was typed (never the key)."""
    row = settings_for(access.org.id)
    saved = {name: (getattr(row, name) or "") if row else "" for name in _FIELDS}
    return render(
        "agents/ai_settings.html",
        status=status,
        nav_active="settings",
        settings_active="agents_pages.ai_settings",
        row=row,
        learnt=Quirks.load(row.quirks, row.model).describe() if row else [],
        azure_version=endpoints.AZURE_DEFAULT_API_VERSION,
        form=request.form if request.method == "POST" else saved,
        errors=errors or {},
        result=result,
        usage=credits.usage(access.org.id),
        seats=credits.billable_seats(access.org.id),
        runs=credits.recent_runs(access.org.id),
    )


def _settings_refused(access: Access, error: ServiceError):
    return _settings_page(access, errors=field_errors(error), status=400)


@bp.get(AI, endpoint="ai_settings")
@page(action=_SETTINGS)
def ai_settings(access: Access):
    """The model settings, credits and recent runs."""
    return _settings_page(access)


@bp.post(AI, endpoint="save_ai_settings")
@page(action=_SETTINGS, form=AiSettingsIn, invalid=_settings_refused)
def save_ai_settings(org: str, access: Access, form: AiSettingsIn):
    settings.save_settings(access.org.id, **form.model_dump(), actor_id=access.account.id)
    flash("Model settings saved. Use Test to check them.", "success")
    return redirect(url_for("agents_pages.ai_settings", org=org))


def _test_refused(access: Access, error: ServiceError):
    if htmx:  # the result box says why (a 200, which HTMX swaps in)
        return _settings_page(access, result=settings.TestResult(False, first_error(error)))
    return _settings_refused(access, error)


@bp.post(AI + "/test", endpoint="ai_test")
@page(action=_SETTINGS, form=AiTestIn, invalid=_test_refused, block="test_result")
def ai_test(access: Access, form: AiTestIn):
    """One tiny call with the values in the form (blank ones from the saved settings),
    saving nothing."""
    result = settings.test_settings(access.org.id, **form.model_dump())
    return _settings_page(access, result=result)


@bp.post(AI + "/remove", endpoint="ai_remove")
@page(action=_SETTINGS)
def ai_remove(org: str, access: Access):
    """Forget the model and its key; asks go back to the built-in interpreter."""
    if settings.remove_settings(access.org.id, actor_id=access.account.id):
        flash("The model was removed. Asks use the built-in interpreter.", "success")
    return redirect(url_for("agents_pages.ai_settings", org=org))


def _agents_page(
    access: Access, *, typed=None, errors=None, created=None, token=None, rotated=False, status=200
):
    """The agents and the new-agent form (``typed``: what was typed, after a refusal)."""
    return render(
        "agents/agents.html",
        status=status,
        nav_active="settings",
        settings_active="agents_pages.agents",
        agents=members.list_agents(access.org.id),
        project_list=projects.list_projects(access.org.id),
        form=typed or MultiDict(),
        errors=errors or {},
        created=created,
        token=token,
        rotated=rotated,
        tools_url=url_for("agent_tools_api.list_tools", _external=True),
        mcp_url=url_for("agent_tools_api.mcp_endpoint", _external=True),
    )


def _agent_refused(access: Access, error: ServiceError):
    return _agents_page(access, typed=request.form, errors=field_errors(error), status=400)


@bp.get(AGENTS, endpoint="agents")
@page(action=_MEMBERS)
def agents(access: Access):
    """The org's agents and the form that makes one; a new one's token, once."""
    rotated = False
    shown = shown_once.take("agent_token")
    if shown is None:
        shown = shown_once.take("agent_token_rotated")
        rotated = shown is not None
    # None when removed since, by someone else: its token went with it.
    agent = shown and members.find_agent(access.org.id, uuid.UUID(shown.about))
    return _agents_page(
        access, created=agent and agent.account, token=agent and shown.value, rotated=rotated
    )


@bp.post(AGENTS, endpoint="create_agent")
@page(action=_MEMBERS, form=AgentCreate, invalid=_agent_refused)
def create_agent(access: Access, form: AgentCreate):
    """A new agent; its token is shown once."""
    account, _member, raw = members.create_agent(
        access.org, **form.model_dump(), actor_id=access.account.id
    )
    # Shown by the page this redirects to, so a reload there makes no second agent.
    shown_once.keep("agent_token", raw, about=account.id)
    return redirect(
        url_for("agents_pages.agents", org=access.org.slug, _anchor="new-agent-token"), 303
    )


def _agent_gone(access: Access, error: ServiceError):
    """An agent removed since the page was opened (another tab, another admin): back to
    the list, which no longer shows it, with the reason; not a bare 404 page."""
    if error.status != 404:
        raise error
    flash("That agent was removed meanwhile, and its token with it.", "error")
    return redirect(url_for("agents_pages.agents", org=access.org.slug), 303)


@bp.post(AGENTS + "/<uuid:agent_id>/token", endpoint="rotate_agent_token")
@page(action=_MEMBERS, invalid=_agent_gone)
def rotate_agent_token(agent_id: uuid.UUID, access: Access):
    """A new token for the agent, shown once; the old one stops working at once."""
    member = members.get_agent(access.org.id, agent_id)
    raw = members.rotate_agent_token(access.org, member, actor_id=access.account.id)
    shown_once.keep("agent_token_rotated", raw, about=agent_id)
    return redirect(
        url_for("agents_pages.agents", org=access.org.slug, _anchor="new-agent-token"), 303
    )


@bp.post(AGENTS + "/<uuid:agent_id>/remove", endpoint="remove_agent")
@page(action=_MEMBERS)
def remove_agent(org: str, agent_id: uuid.UUID, access: Access):
    """Remove the agent from the org and revoke its token; its work stays."""
    member = members.get_agent(access.org.id, agent_id)
    members.remove_agent(member, actor_id=access.account.id)
    flash(f"{member.account.name} was removed and its token revoked.", "success")
    return redirect(url_for("agents_pages.agents", org=org))


# -- the Ask box ---------------------------------------------------------------------------


def _ask_page(access: Access, status: int = 200, *, partial: bool = False, **answer: Any):
    """The Ask page with the box showing what was typed; for HTMX (an ask, the poll of
    an ask's job, a corrected reading: ``partial``) only the answer."""
    context = {
        "typed": request.form,
        "ask_projects": projects.list_projects(access.org.id),
        "ask_max": ask.MAX_REQUEST,
        "nav_active": "analytics",
        "answer": None,
        "ask_error": None,
        # The reading's controls: what was typed when refused, and why, by field.
        "control_values": None,
        "control_errors": {},
        # A failed model's note links admins to the settings that can fix it.
        "can_manage_ai": can(access, "org.manage_settings"),
        **answer,
    }
    if htmx and (partial or request.method == "POST"):
        return render_template("agents/_ask_result.html", **context), status
    return render("agents/ask.html", status=status, **context)


def _ask_refused(access: Access, error: ServiceError):
    """A 400, or a 429 when asking too often: the message in the answer's place."""
    return _ask_page(access, error.status, ask_error=first_error(error))


@bp.get(ASK, endpoint="ask")
@page(action="ai.ask")
def ask_page(access: Access):
    """Ask for a chart in plain words."""
    return _ask_page(access)


@bp.post(ASK, endpoint="ask_chart")
@page(action="ai.ask", form=AskForm, invalid=_ask_refused)
def ask_chart(org: str, access: Access, form: AskForm):
    """With a model configured, the ask is a job (the model is called on a worker): HTMX
    gets its pending state, which polls until the chart replaces it; without JavaScript,
    the job's page. With none, the built-in interpreter answers here at once."""
    if ask.model_for(access.org.id) is not None:
        job = ask_job.start(access, form.text, form.project_id, form.dashboard_id)
        if htmx:
            return render_template("agents/_ask_pending.html", job=job), 202
        return redirect(url_for("job_status_pages.job", org=org, job_id=job.id), 303)
    answer = ask.ask_chart(make_scope(access.org, form.project_id), access.account, form.text)
    return _answered(access, answer, form.project_id, form.dashboard_id)


def _answered(
    access: Access,
    answer: dict[str, Any],
    answer_project_id: uuid.UUID | None,
    selected_dashboard_id: uuid.UUID | None,
    partial: bool = False,
):
    """The answer in the Ask box: the chart, its table, the reading's controls, and
    saving it as a widget."""
    dimension = answer.get("dimension")
    if dimension in TIME_DIMENSIONS:
        # On a date axis, as the Custom tab draws a series (not a bar per bucket).
        understood = answer.get("understood") or {}
        series = answer.get("series")
        if series:  # coloured as every chart colours those values
            drawn = dimensions.drawable(access.org.id, series, understood.get("split"))
            series = [{**line, **d} for line, d in zip(series, drawn, strict=True)]
        figure = time_charts.time_figure(
            {
                "points": answer["points"],
                "interval": understood.get("interval", "week"),
                "split": understood.get("split"),
                "series": series,
            }
        )
        rows = [{**p, "label": p["key"]} for p in answer["points"]]  # buckets in order
    else:
        drawn = dimensions.drawable(access.org.id, answer["points"], dimension)
        figure = charts.points_figure(drawn, dimension=dimension)
        rows = palette.table_rows(dimension, drawn)
    return _ask_page(
        access,
        partial=partial,
        answer=answer,
        answer_project_id=answer_project_id,
        figures={"ask": charts.to_json(figure)},
        rows=rows,
        dashboards=(listed := widgets.own_dashboards(access)),
        full_dashboards=widgets.full_dashboards(listed),
        # Asked from a dashboard page: offer that dashboard first.
        selected_dashboard_id=selected_dashboard_id,
    )


@bp.get(ASK + "/jobs/<uuid:job_id>", endpoint="ask_job")
@page(action="ai.ask")
def ask_job_state(org: str, job_id: uuid.UUID, access: Access):
    """The Ask box's poll: the pending state while the job runs, then the chart in its
    place (or why there is none). Without HTMX, the job's own page says the same."""
    job = ask_job.load(access, job_id)
    if not htmx:
        return redirect(url_for("job_status_pages.job", org=org, job_id=job.id))
    if not job.job_state.finished:
        return render_template("agents/_ask_pending.html", job=job)
    if job.job_state is JobState.DEAD:
        return _ask_page(access, partial=True, ask_error=ask_job.failure(job).message)
    context = ask_job.page_context(job)
    return _answered(access, job.result["answer"], **context, partial=True)


class RedrawQuery(CustomQuery):
    """The answer's reading controls: the custom chart's own query (the same checks
    as /analytics/custom), with the request's words not used, shown again, and the
    dashboard the ask came from (offered first for saving)."""

    unused: list[Annotated[str, Field(max_length=ask.MAX_REQUEST)]] = Field(
        default_factory=list, max_length=ask.MAX_REQUEST
    )
    dashboard_id: uuid.UUID | None = None


def _redraw_refused(access: Access, error: ServiceError):
    """A value the chart refuses: the controls again as typed, the message by its
    field (a 400), and no chart until it is fixed."""
    typed = request.args
    answer = {"title": "The chart could not be redrawn", "refused": True, "points": []}
    answer["unused"] = [w for w in typed.getlist("unused") if w.strip()][: ask.MAX_REQUEST]
    return _ask_page(
        access,
        error.status,
        partial=True,
        answer=answer,
        answer_project_id=typed.get("project_id") or None,
        control_values=typed,
        control_errors=field_errors(error),
    )


@bp.get(ASK + "/chart", endpoint="redraw")
@page(action="ai.ask", form=RedrawQuery, invalid=_redraw_refused)
def redraw(access: Access, form: RedrawQuery):
    """The answer's chart again for the reading as the member corrected it in its
    controls: the custom chart for those values, with no model call and no credit
    (docs/ai.md#correcting-the-reading)."""
    scope = make_scope(access.org, form.project_id)
    answer = reading.redraw(scope, access.account.id, form, form.unused)
    return _answered(access, answer, form.project_id, form.dashboard_id, partial=True)


def _save_refused(access: Access, error: ServiceError):
    return _ask_page(access, 400, ask_error=f"That chart could not be saved: {first_error(error)}")


@bp.post(ASK + "/save", endpoint="save_widget")
@page(action="ai.ask", form=SaveAnswerIn, invalid=_save_refused)
def save_widget(org: str, access: Access, form: SaveAnswerIn):
    """Add the answer's chart to one of your dashboards (``dashboard.edit`` on it)."""
    saved = form.model_dump()
    # The form says range and filter, as the custom chart's query does.
    saved["preset"], saved["pql"] = saved.pop("range"), saved.pop("filter")
    widgets.save_as_widget(access, **saved)
    flash("Chart saved as a widget.", "success")
    return redirect(url_for("dashboards_pages.show", org=org, dashboard_id=form.dashboard_id))
