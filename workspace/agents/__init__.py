"""Ask-a-chart on the org's own model, AI credits, and agents as members (issue 8).

``models`` settings and AI runs; ``client`` the OpenAI-compatible HTTP call;
``spec``/``offline``/``ask`` turning a sentence into a chart, ``ask_job`` the same ask
as a job whose model call runs on a worker; ``credits`` the monthly
pool; ``settings`` model settings; ``members`` agent members; ``tools`` the agent
tool registry; ``mcp`` the MCP server; ``api`` (JSON), ``tools_api`` (the agent tool
interface) and ``views`` (HTML) the thin blueprints.
"""

from flask import Flask

from workspace.agents import api, tools_api, views


def init_app(app: Flask) -> None:
    """Register the AI/agents API, the agent tool interface and the pages."""
    app.register_blueprint(api.bp)
    app.register_blueprint(tools_api.bp)
    app.register_blueprint(views.bp)
