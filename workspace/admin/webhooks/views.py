"""Webhooks on the org's settings pages (docs/delivery.md#webhooks): the endpoints and
a form to add one; each endpoint's page to change it, disable or enable it, send a
test event, rotate its secret or remove it (both after a confirmation page), and its
delivery log with redeliver. Owners and admins only (``webhook.manage``). A secret is
shown on the page that answers its creation or rotation, never again."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from flask import Blueprint, Response, flash, redirect, stream_with_context, url_for

from workspace.admin.webhooks import jsonl
from workspace.admin.webhooks.schemas import ConfirmForm, EndpointEdit, EndpointIn, EndpointPatch
from workspace.auth.guards import form_again, page, render
from workspace.core import events
from workspace.delivery.webhooks import service
from workspace.delivery.webhooks.kinds import GROUPS, KINDS
from workspace.errors import ServiceError
from workspace.security import shown_once
from workspace.security.permissions import Access

bp = Blueprint("webhooks_pages", __name__)

ACTION = "webhook.manage"
PATH = "/o/<org>/settings/webhooks"
ONE = PATH + "/<uuid:endpoint_id>"


def _choices() -> list[tuple[str, str]]:
    return list(GROUPS.items()) + list(KINDS.items())


def _to_endpoint(org: str, endpoint_id: uuid.UUID, anchor: str | None = None):
    return redirect(
        url_for("webhooks_pages.show", org=org, endpoint_id=endpoint_id, _anchor=anchor), 303
    )


def _show_secret(org: str, endpoint_id: uuid.UUID, secret: str):
    """To the endpoint's page, which shows the secret at its box: a reload there
    neither makes another endpoint nor rotates again."""
    shown_once.keep("webhook_secret", secret, about=endpoint_id)
    return _to_endpoint(org, endpoint_id, "new-secret")


def _list_page(org: str, access: Access, *, errors=None, values=None, status: int = 200):
    return render(
        "settings/webhooks.html",
        status=status,
        nav_active="settings",
        settings_active="webhooks_pages.index",
        endpoints=service.list_endpoints(access.org.id),
        choices=_choices(),
        errors=(errors or {}).get("create", {}),
        values=(values or {}).get("create") or {},
    )


def _endpoint_page(org: str, endpoint_id: uuid.UUID, access: Access, *, errors=None,
                   values=None, status: int = 200, secret: str | None = None):  # fmt: skip
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    return render(
        "settings/webhook.html",
        status=status,
        nav_active="settings",
        settings_active="webhooks_pages.index",
        e=endpoint,
        deliveries=service.deliveries(endpoint),
        choices=_choices(),
        errors=(errors or {}).get("edit", {}),
        values=(values or {}).get("edit") or {},
        secret=secret,
    )


@bp.get(PATH)
@page(action=ACTION)
def index(org: str, access: Access):
    """The org's endpoints and the form to add one."""
    return _list_page(org, access)


@bp.post(PATH)
@page(action=ACTION, form=EndpointIn, invalid=form_again(_list_page, "create"))
def create(org: str, form: EndpointIn, access: Access):
    """Register the endpoint and show its secret, this once."""
    created = service.create(access.org.id, access.account.id, url=form.url, kinds=form.kinds,
                             description=form.description)  # fmt: skip
    return _show_secret(org, created.endpoint.id, created.secret)


@bp.get(ONE)
@page(action=ACTION)
def show(org: str, endpoint_id: uuid.UUID, access: Access):
    """The endpoint, its settings form and its delivery log; a new secret, once."""
    shown = shown_once.take("webhook_secret", about=endpoint_id)
    return _endpoint_page(org, endpoint_id, access, secret=shown and shown.value)


@bp.post(ONE)
@page(action=ACTION, form=EndpointEdit,
      invalid=form_again(_endpoint_page, "edit", url_ids=True))  # fmt: skip
def edit(org: str, endpoint_id: uuid.UUID, form: EndpointEdit, access: Access):
    """Save the URL, description and kinds."""
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    service.update(endpoint, access.account.id, form.model_dump())
    flash("Webhook endpoint saved.", "success")
    return _to_endpoint(org, endpoint_id)


@bp.post(ONE + "/active")
@page(action=ACTION, form=EndpointPatch, checkboxes=("active",))
def set_active(org: str, endpoint_id: uuid.UUID, form: EndpointPatch, access: Access):
    """Disable or enable (enabling clears the failure count)."""
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    service.update(endpoint, access.account.id, {"active": bool(form.active)})
    flash("Endpoint enabled." if form.active else "Endpoint disabled.", "success")
    return _to_endpoint(org, endpoint_id)


@bp.post(ONE + "/test")
@page(action=ACTION)
def send_test(org: str, endpoint_id: uuid.UUID, access: Access):
    """Queue a webhook.test event for this endpoint."""
    service.ping(service.get_endpoint(access.org.id, endpoint_id), access.account.id)
    flash("Test event queued: it appears in the log below once sent.", "success")
    return _to_endpoint(org, endpoint_id)


@bp.post(ONE + "/deliveries/<uuid:delivery_id>/redeliver")
@page(action=ACTION)
def redeliver(org: str, endpoint_id: uuid.UUID, delivery_id: uuid.UUID, access: Access):
    """Send one delivery again."""
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    service.redeliver(service.get_delivery(endpoint, delivery_id), access.account.id)
    flash("Delivery queued again.", "success")
    return _to_endpoint(org, endpoint_id)


def _confirm_page(access: Access, endpoint_id: uuid.UUID, what: str):
    """The page that asks before ``what`` (rotate, delete) changes anything."""
    e = service.get_endpoint(access.org.id, endpoint_id)
    return render("settings/webhook_confirm.html", e=e, what=what, nav_active="settings",
                  settings_active="webhooks_pages.index")  # fmt: skip


def _ask_again(org: str, endpoint_id: uuid.UUID, what: str):
    """A POST without the confirmation box ticked goes back to the question."""
    return redirect(url_for(f"webhooks_pages.confirm_{what}", org=org, endpoint_id=endpoint_id),
                    code=303)  # fmt: skip


@bp.get(ONE + "/rotate")
@page(action=ACTION)
def confirm_rotate(org: str, endpoint_id: uuid.UUID, access: Access):
    """What rotating changes, before anything does."""
    return _confirm_page(access, endpoint_id, "rotate")


@bp.post(ONE + "/rotate")
@page(action=ACTION, form=ConfirmForm, checkboxes=("confirm",))
def rotate(org: str, endpoint_id: uuid.UUID, form: ConfirmForm, access: Access):
    """A new secret, shown this once; the old one signs beside it for the overlap."""
    if not form.confirm:
        return _ask_again(org, endpoint_id, "rotate")
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    created = service.rotate(endpoint, access.account.id)
    return _show_secret(org, endpoint_id, created.secret)


@bp.get(ONE + "/delete")
@page(action=ACTION)
def confirm_delete(org: str, endpoint_id: uuid.UUID, access: Access):
    """What removing the endpoint loses, before anything does."""
    return _confirm_page(access, endpoint_id, "delete")


@bp.post(ONE + "/delete")
@page(action=ACTION, form=ConfirmForm, checkboxes=("confirm",))
def delete(org: str, endpoint_id: uuid.UUID, form: ConfirmForm, access: Access):
    """Remove the endpoint and its log once confirmed."""
    if not form.confirm:
        return _ask_again(org, endpoint_id, "delete")
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    url = endpoint.url
    service.remove(endpoint, access.account.id)
    flash(f"Webhook endpoint {url} removed.", "success")
    return redirect(url_for("webhooks_pages.index", org=org), code=303)


# -- the audit log as JSON lines (docs/delivery.md#audit-stream-to-a-siem) ----------


@bp.get("/o/<org>/settings/events.jsonl")
@page(action="org.manage_settings", form=jsonl.AuditRange, invalid=jsonl.refused)
def events_jsonl(form: jsonl.AuditRange, access: Access):
    """The org's events in the range, newest first, one JSON object a line, at most
    ``EXPORT_CAP``; past it the last line is ``{"truncated": true, ...}``."""
    if form.since and form.until and form.until <= form.since:
        return jsonl.refused(ServiceError("until must be after since.", field="until"))
    org_id = access.org.id
    filters = {"kind_prefix": form.kind, "actor_id": form.actor, "since": form.since,
               "until": form.until}  # fmt: skip

    def generate() -> Iterator[str]:
        count = 0
        for event in events.iter_events(org_id, cap=events.EXPORT_CAP, **filters):
            count += 1
            yield jsonl.line(event) + "\n"
        if count >= events.EXPORT_CAP:
            note = f"Export stopped at {events.EXPORT_CAP} events; narrow the range."
            yield json.dumps({"truncated": True, "message": note}) + "\n"

    name = f"audit-log-{access.org.slug}.jsonl"
    return Response(
        stream_with_context(generate()),
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
