"""The conventions of docs/architecture.md, checked on the source so that the next
feature cannot quietly start a second way of doing the same thing."""

from __future__ import annotations

import re
from pathlib import Path

from workspace import ROOT

PACKAGE = ROOT / "workspace"


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _offenders(pattern: str, allowed: set[str]) -> list[str]:
    regex = re.compile(pattern)
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel in allowed:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if regex.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_only_the_transaction_module_commits():
    """Services flush; a request (its wrapper) or work outside one (``unit_of_work``:
    a job's attempt, a worker's heartbeat, a schedule's claim, a command) commits."""
    assert _offenders(r"\.commit\(\)", {"workspace/transaction.py"}) == []


def test_only_the_transaction_module_rolls_back():
    """A refusal drops pending writes through transaction.discard_pending(why)."""
    allowed = {"workspace/transaction.py", "workspace/error_handlers.py"}
    assert _offenders(r"\.rollback\(\)", allowed) == []


def test_views_raise_service_errors_not_werkzeug_ones():
    """One kind of failure: ServiceError subclasses, mapped to responses in one place."""
    allowed = {
        "workspace/error_handlers.py",
        "workspace/api/problems.py",  # maps werkzeug's own 404/405/413 to problem+json
        "workspace/scim/errors.py",  # maps them to SCIM's error schema
        "workspace/security/request_guard.py",  # runs before any view, on raw input
    }
    assert _offenders(r"\babort\(|werkzeug\.exceptions", allowed) == []


def test_route_modules_never_touch_the_session():
    """Views are thin: they load through services, which own every query and write."""
    routes = {"views.py", "api.py", "signin_views.py", "routing.py", "tools_api.py"}
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}"
        for path in _sources()
        if path.name in routes
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "db.session" in line
    ]
    assert found == []


def test_html_routes_live_in_views_and_json_routes_in_api():
    named = {"views.py", "api.py", "signin_views.py"}
    # SCIM's protocol endpoints and the agents' tool API keep protocol-shaped names.
    exceptions = {"workspace/scim/routing.py", "workspace/agents/tools_api.py", "workspace/web.py"}
    misplaced = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        defines_routes = re.search(r"\b(api_blueprint|Blueprint)\(\"", text)
        if defines_routes and path.name not in named and rel not in exceptions:
            misplaced.append(rel)
    assert misplaced == []


#: The longest a module in workspace/ may be: past it, split by aggregate or area
#: (docs/architecture.md), so a newcomer can open any file and read it whole.
MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines():
    too_long = {
        path.relative_to(ROOT).as_posix(): lines
        for path in _sources()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert too_long == {}


def test_no_test_module_imports_another():
    """Shared test code lives in tests/factories.py (or a conftest), never in a test
    module another one reaches into."""
    regex = re.compile(r"^\s*from tests\.(?:[a-z_]+\.)*test_[a-z_]+ import", re.M)
    offenders = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if regex.search(path.read_text())
    ]
    assert offenders == []


def _package_imports() -> dict[str, set[str]]:
    """Which subpackage of workspace/ imports which: a package stands for its
    ``__init__`` and its own modules (not its subpackages'). The root is left out: the
    app factory imports every capability and every package the base modules, in the
    order the layers contract (.importlinter) states."""
    import grimp

    graph = grimp.build_graph("workspace", cache_dir=None)
    packages = {m for m in graph.modules if graph.find_children(m)}

    def owner(module: str) -> str:
        return module if module in packages else module.rpartition(".")[0]

    edges: dict[str, set[str]] = {p: set() for p in packages - {"workspace"}}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            source, target = owner(module), owner(imported)
            if source != target and "workspace" not in (source, target):
                edges[source].add(target)
    return edges


def test_no_import_cycle_between_subpackages():
    """Packages import each other one way only, subpackages included: a package and its
    subpackage may not both import the other (analytics and analytics.pql once did,
    through the scope below and the service above)."""
    edges = _package_imports()
    reach: dict[str, set[str]] = {}
    for start in edges:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        reach[start] = seen
    cycles = {
        tuple(sorted({a, *(b for b in reach[a] if a in reach[b])})) for a in edges if a in reach[a]
    }
    assert sorted(cycles) == []


_TEMPLATE_NAME = re.compile(r"(?:add_)?app_template_(?:global|filter)\((?:[\w.]+, )?\"(\w+)\"\)")
_RENDERED = re.compile(r"render_template\(\s*\"([^\"]+)\"")
_PULLED_IN = re.compile(r"{%-?\s*(?:include|import|from)\s+\"([^\"]+)\"")


def test_no_template_global_reaches_into_another_package():
    """A template global or filter a package's views register is used only by the
    templates that package renders (and the partials they include or import), never by
    another package's page (the dashboards' widget body once called a drill-down
    global of the analytics page's views). What every page may use is web.py's."""
    templates = ROOT / "templates"
    offenders = []
    for path in _sources():
        names = _TEMPLATE_NAME.findall(path.read_text())
        if not names:
            continue
        package = path.parent
        own = {
            name
            for module in package.glob("*.py")
            for name in _RENDERED.findall(module.read_text())
        }
        todo = list(own)
        while todo:
            source = templates / todo.pop()
            for pulled in _PULLED_IN.findall(source.read_text()) if source.exists() else ():
                if pulled not in own:
                    own.add(pulled)
                    todo.append(pulled)
        for name in names:
            for template in sorted(templates.rglob("*.html")):
                rel = template.relative_to(templates).as_posix()
                if re.search(rf"\b{name}\b", template.read_text()) and rel not in own:
                    offenders.append(f"{rel} uses {name} of {path.relative_to(ROOT)}")
    assert offenders == []
