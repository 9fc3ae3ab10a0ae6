"""The widget page's form and its live preview (docs/dashboards.md#widgets): reading
what the form sent through the JSON API's model, and showing the settings as they
would be saved, or why not. The routes are :mod:`views`'s."""

from __future__ import annotations

from typing import Any

from flask import render_template, request
from werkzeug.datastructures import MultiDict

from workspace.analytics.dashboards import ranges, service, widgets
from workspace.analytics.dashboards.compute import WidgetSpec
from workspace.analytics.dashboards.models import Dashboard, Widget
from workspace.analytics.dashboards.query import DashboardQuery
from workspace.analytics.dashboards.ranges import RANGE_NAMES
from workspace.analytics.dashboards.schemas import WidgetForm
from workspace.core import projects
from workspace.errors import InputError, ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access

#: The settings a refused time setting takes back so the preview can still be drawn.
_TIME_FIELDS = {"interval", "split", *RANGE_NAMES.values()}
_NAME_OF = {alias: name for name, alias in RANGE_NAMES.items()}


def widget_input() -> tuple[WidgetForm, dict[str, Any], dict[str, str]]:
    """The widget form (or the preview's query string) through the JSON API's model:
    the form, the settings it names, and the refused ones by field (read again without
    them, so the form still shows the others).

    A field the form sends blank is cleared (a blank title takes the default, a blank
    filter means none), so only fields the form does not send keep their saved value.
    """
    sent, refused = request.values, {}
    try:
        form = parse_form(WidgetForm, sent)
    except InputError as exc:
        refused = field_errors(exc)
        kept = [(k, v) for k, v in sent.items(multi=True) if k not in refused]
        form = parse_form(WidgetForm, MultiDict(kept))
    named = [k for k in service.WIDGET_FIELDS if RANGE_NAMES.get(k, k) in sent]
    settings = {k: getattr(form, k) for k in named if RANGE_NAMES.get(k, k) not in refused}
    if "range" in sent and form.range_preset != "custom":
        # From/To count only with "Custom days": days left there while a preset or
        # the dashboard's range is chosen are not a second range.
        settings.update(range_from=None, range_to=None)
    return form, settings, refused


def _values(access: Access, sent: dict[str, Any], current: dict[str, Any], errors: dict) -> dict:
    """The settings as they would be saved; a refused one (named in ``errors``) is put
    back to its default so the rest still show (a time setting takes the whole range
    and split with it)."""
    try:
        return widgets.widget_values(access.org, access.account.id, sent, current)
    except ServiceError as exc:  # a span that is not finite (checked first), the filter, a range
        found = field_errors(exc)
        errors.update(found)
        cleared = {"filter", *found}
        if cleared & _TIME_FIELDS:
            cleared |= _TIME_FIELDS
        refused = {_NAME_OF.get(k, k): None for k in cleared if k != "form"}
        return widgets.widget_values(access.org, access.account.id, {**sent, **refused}, current)


def render_form(
    access: Access,
    dashboard: Dashboard,
    widget: Widget | None,
    sent: dict[str, Any],
    errors: dict[str, str] | None = None,
    status: int = 200,
):
    """The form with its preview: settings as they would be saved, or what is wrong."""
    errors = dict(errors or {})
    current = service.widget_settings(widget) if widget else {}
    values = _values(access, sent, current, errors)
    preview = None
    if not errors:
        spec = WidgetSpec(key="preview", **values)
        (preview,) = DashboardQuery.of(access, dashboard, None).views([spec])
    # The form shows what was typed, refused or not ("kind = = bug" stays beside its
    # error, test_pages.py); a blank title keeps its placeholder.
    typed = request.values
    title = typed.get("title", current.get("title", ""))
    if current and title == service.default_title(
        current["metric"], current["dimension"], current["interval"]
    ):
        title = ""  # the default: a blank box whose placeholder follows the settings
    shown = {**values, "title": title}
    shown["filter"] = typed.get("filter", current.get("filter")) or ""
    saved_top_n = current.get("top_n")
    shown["top_n"] = typed.get("top_n", "" if saved_top_n is None else str(saved_top_n))
    for name, alias in RANGE_NAMES.items():
        saved = current.get(name)
        shown[name] = typed.get(alias, "" if saved is None else str(saved))
    if not shown["range_preset"] and (shown["range_from"] or shown["range_to"]):
        shown["range_preset"] = "custom"
    context = {
        "dashboard": dashboard,
        "widget": widget,
        "values": shown,
        "default_title": service.default_title(
            values["metric"], values["dimension"], values["interval"]
        ),
        "errors": errors,
        "error": next(iter(errors.values()), None),
        "preview": preview,
        "project_options": [(str(p.id), p.name) for p in projects.list_projects(access.org.id)],
        "range_options": [("", "The dashboard's"), *ranges.PRESET_WORDS.items()],
        "nav_active": "dashboards",
    }
    if htmx and request.method == "GET":
        # The live preview: HTMX swaps only a 2xx answer, and a GET writes nothing.
        return render_template("dashboards/_preview.html", **context)
    return render_template("dashboards/widget_form.html", **context), status
