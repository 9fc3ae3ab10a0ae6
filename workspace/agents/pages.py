"""The AI pages: model settings with credits and recent runs, agents, and the Ask box.

Settings pages are for owners and admins; asking is for every member. Forms post to
these addresses and work without JavaScript; with HTMX the test button and the Ask
box swap in just their result.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from workspace.agents import ask, credits, members, settings, widgets
from workspace.agents.models import AiRun, settings_for
from workspace.analytics import charts
from workspace.analytics.scope import make_scope
from workspace.auth.guards import login_required, page_access
from workspace.core import projects
from workspace.core.models import Account
from workspace.errors import ServiceError
from workspace.extensions import db, htmx

bp = Blueprint("agents_pages", __name__)

RECENT_RUNS = 20


def _recent_runs(org_id: uuid.UUID) -> list[tuple[AiRun, str | None]]:
    rows = db.session.execute(
        select(AiRun, Account.name)
        .outerjoin(Account, Account.id == AiRun.account_id)
        .where(AiRun.org_id == org_id)
        .order_by(AiRun.created_at.desc(), AiRun.id)
        .limit(RECENT_RUNS)
    ).all()
    return [(run, name) for run, name in rows]


def _render_settings(access, form: dict[str, str], *, errors=None, result=None, status=200):
    return render_template(
        "agents/ai_settings.html",
        nav_active="settings",
        settings_active="agents_pages.ai_settings",
        row=settings_for(access.org.id),
        form=form,
        errors=errors or {},
        result=result,
        usage=credits.usage(access.org.id),
        seats=credits.billable_seats(access.org.id),
        runs=_recent_runs(access.org.id),
    ), status


@bp.route("/o/<org>/settings/ai", methods=["GET", "POST"], endpoint="ai_settings")
@login_required
def ai_settings(org: str):
    """Show the model settings, credits and recent runs; POST saves the settings."""
    access = page_access(org, "org.manage_settings")
    row = settings_for(access.org.id)
    if request.method == "GET":
        form = {"base_url": row.base_url if row else "", "model": row.model if row else ""}
        return _render_settings(access, form)
    form = {k: request.form.get(k, "")[:500] for k in ("base_url", "model")}
    try:
        settings.save_settings(
            access.org.id,
            base_url=form["base_url"],
            model=form["model"],
            # Never echoed back into the page.
            api_key=request.form.get("api_key", "")[:2000] or None,
            actor_id=access.account.id,
        )
        db.session.commit()
    except ServiceError as exc:
        db.session.rollback()
        return _render_settings(access, form, errors={exc.field or "form": exc.message}, status=400)
    flash("Model settings saved. Use Test to check them.", "success")
    return redirect(url_for("agents_pages.ai_settings", org=org))


@bp.post("/o/<org>/settings/ai/test", endpoint="ai_test")
@login_required
def ai_test(org: str):
    """One tiny call with the saved settings."""
    access = page_access(org, "org.manage_settings")
    result = settings.test_settings(access.org.id)
    if htmx:
        return render_template("agents/_test_result.html", result=result)
    row = settings_for(access.org.id)
    form = {"base_url": row.base_url if row else "", "model": row.model if row else ""}
    return _render_settings(access, form, result=result)


def _render_agents(access, *, form=None, errors=None, created=None, token=None, status=200):
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
@login_required
def agents(org: str):
    """List agents; POST creates one and shows its token once."""
    access = page_access(org, "org.manage_members")
    if request.method == "GET":
        return _render_agents(access)
    form = {
        "name": request.form.get("name", "")[:200],
        "description": request.form.get("description", "")[:500],
        "project_ids": request.form.getlist("project_ids"),
    }
    try:
        project_ids = [uuid.UUID(p) for p in form["project_ids"]]
    except ValueError:
        return _render_agents(
            access, form=form, errors={"project_ids": "Pick projects from the list."}, status=400
        )
    try:
        account, _member, raw = members.create_agent(
            access.org,
            name=form["name"],
            description=form["description"],
            project_ids=project_ids,
            actor_id=access.account.id,
        )
    except ServiceError as exc:
        db.session.rollback()
        return _render_agents(
            access, form=form, errors={exc.field or "form": exc.message}, status=400
        )
    # Rendered, not redirected: the token is shown on this response only.
    return _render_agents(access, created=account, token=raw)


@bp.post("/o/<org>/settings/agents/<uuid:agent_id>/remove", endpoint="remove_agent")
@login_required
def remove_agent(org: str, agent_id: uuid.UUID):
    """Remove the agent from the org and revoke its token; its work stays."""
    access = page_access(org, "org.manage_members")
    member = members.get_agent(access.org.id, agent_id)
    members.remove_agent(member, actor_id=access.account.id)
    db.session.commit()
    flash(f"{member.account.name} was removed and its token revoked.", "success")
    return redirect(url_for("agents_pages.agents", org=org))


# -- the Ask box ---------------------------------------------------------------------------


def _ask_context(access, text: str = "", project_id: str = "") -> dict[str, Any]:
    return {
        "ask_text": text,
        "ask_project_id": project_id,
        "ask_projects": projects.list_projects(access.org.id),
        "ask_max": ask.MAX_REQUEST,
    }


@bp.route("/o/<org>/analytics/ask", methods=["GET", "POST"], endpoint="ask")
@login_required
def ask_page(org: str):
    """Ask for a chart in plain words; HTMX gets just the answer."""
    access = page_access(org, "analytics.read")
    text = request.form.get("text", "")[:2000]
    project_ref = request.form.get("project_id", "")
    context = _ask_context(access, text, project_ref)
    context.update(nav_active="analytics", answer=None, ask_error=None)
    if request.method == "POST":
        try:
            project_id = uuid.UUID(project_ref) if project_ref else None
        except ValueError:
            project_id = None
        try:
            scope = make_scope(access.org, project_id)
            answer = ask.ask_chart(scope, access.account, text)
            db.session.commit()
            context.update(
                answer=answer,
                answer_project_id=project_id,
                figures={"ask": charts.to_json(charts.points_figure(answer["points"]))},
                dashboards=widgets.own_dashboards(access.org.id, access.account.id),
                can_save=widgets.available(),
                # Asked from a dashboard page: offer that dashboard first.
                selected_dashboard_id=request.form.get("dashboard_id", ""),
            )
        except ServiceError as exc:
            db.session.rollback()
            context["ask_error"] = exc.message
        if htmx:
            return render_template("agents/_ask_result.html", **context)
    return render_template("agents/ask.html", **context)


@bp.post("/o/<org>/analytics/ask/save", endpoint="save_widget")
@login_required
def save_widget(org: str):
    """Add the answer's chart to one of your dashboards."""
    access = page_access(org, "analytics.read")
    form = request.form
    try:
        dashboard_id = uuid.UUID(form.get("dashboard_id", ""))
    except ValueError:
        flash("Pick one of your dashboards to save the chart to.", "error")
        return redirect(url_for("agents_pages.ask", org=org))
    project_ref = form.get("project_id") or None
    try:
        widgets.save_as_widget(
            access.org,
            access.account.id,
            dashboard_id,
            title=form.get("title", "")[:200],
            metric=form.get("metric", ""),
            dimension=form.get("dimension", ""),
            kind=form.get("kind") or None,
            priority=form.get("priority") or None,
            project_id=uuid.UUID(project_ref) if project_ref else None,
        )
        db.session.commit()
    except (ServiceError, ValueError) as exc:
        db.session.rollback()
        flash(getattr(exc, "message", "That chart could not be saved."), "error")
        return redirect(url_for("agents_pages.ask", org=org))
    flash("Chart saved as a widget.", "success")
    return redirect(url_for("dashboards_pages.show", org=org, dashboard_id=dashboard_id))
