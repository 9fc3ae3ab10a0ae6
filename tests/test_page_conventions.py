"""The page pipeline's conventions (docs/architecture.md#one-page-pipeline), checked on
the source: a page view declares its action and form in ``@page``, gets what the gate
loaded, and leaves refusals to its ``invalid`` answer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from workspace import ROOT

ROUTE_MODULES = {"views.py", "api.py", "signin_views.py", "routing.py", "tools_api.py"}


def _route_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "workspace").rglob("*.py") if p.name in ROUTE_MODULES)


def _page_views() -> list[tuple[str, ast.FunctionDef, ast.Call]]:
    """Every function decorated with ``@page(...)``, with that decorator call."""
    found = []
    for path in _route_modules():
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "page":
                    found.append((rel, node, deco))
    return found


def _calls(function: ast.FunctionDef) -> set[str]:
    return {
        getattr(call.func, "id", None) or getattr(call.func, "attr", "")
        for call in ast.walk(function)
        if isinstance(call, ast.Call)
    }


def test_page_views_leave_parsing_to_the_gate():
    """The form model is declared in ``@page(form=...)``: the gate parses it, so the
    next page cannot parse half its input by hand."""
    parsing = [
        f"{rel}:{view.name}"
        for rel, view, _ in _page_views()
        if _calls(view) & {"parse_form", "parse_query"}
    ]
    assert parsing == []


def test_page_views_leave_refusals_to_their_invalid_answer():
    """No view catches a ServiceError to render its form again: ``invalid`` does."""
    catching = []
    for rel, view, _ in _page_views():
        for handler in ast.walk(view):
            if isinstance(handler, ast.ExceptHandler) and "Error" in ast.unparse(
                handler.type or ast.Constant(None)
            ):
                catching.append(f"{rel}:{view.name}:{handler.lineno}")
    assert catching == []


def test_every_org_page_declares_its_action():
    """Deny by default: an ``/o/<org>/`` page without an action fails at its first
    request, and this finds it before then."""
    missing = []
    for rel, view, deco in _page_views():
        routes = [
            d
            for d in view.decorator_list
            if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
        ]
        paths = [
            ast.literal_eval(r.args[0])
            for r in routes
            if r.args and isinstance(r.args[0], ast.Constant)
        ]
        declared = any(k.arg == "action" for k in deco.keywords) or bool(deco.args)
        if any("<org>" in p for p in paths) and not declared:
            missing.append(f"{rel}:{view.name}")
    assert missing == []


#: Where reading a raw request value is the point, and why.
RAW_READS: dict[str, str] = {}


def test_no_view_reads_request_values_by_hand():
    """Input goes through an input model; ``request.form.get`` skips its checks."""
    regex = re.compile(r"request\.(form|args|values)\.get\(")
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for path in _route_modules()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if regex.search(line) and path.relative_to(ROOT).as_posix() not in RAW_READS
    ]
    assert found == []


def test_no_view_loads_again_what_the_gate_loaded():
    """The gate loads the project and task a URL names (``access.project``,
    ``access.task``); a view names ``project`` or ``task`` to get them."""
    regex = re.compile(r"get_(project|task|task_by_key)\(access\.org\.id, (project|task)_(id|key)")
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}"
        for path in _route_modules()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if regex.search(line)
    ]
    assert found == []
