"""The demo's agents (three at work, one retired), the owner's API tokens, and the
org's AI settings (a trial provider, removed, then the one in use)."""

from __future__ import annotations

from workspace.agents.members import create_agent, get_agent, remove_agent
from workspace.agents.settings import remove_settings as remove_ai_settings
from workspace.agents.settings import save_settings
from workspace.auth.api_tokens import create_token, revoke_token
from workspace.seed.demo import Demo

AGENTS = [
    ("Triage Bot", "Sorts incoming work and files bugs."),
    ("Release Agent", "Prepares release notes and closes shipped tasks."),
    ("Docs Agent", "Keeps documentation tasks moving."),
]
#: The agent that an admin retires: its membership and token end, its work stays.
RETIRED_AGENT = ("Legacy Importer", "Imported the old tracker's tickets; retired.")


def agents_and_tokens(demo: Demo) -> None:
    admin = demo.people["Priya Raman"].id
    project_ids = [p.id for p in demo.projects.values()]
    for i, (name, description) in enumerate(AGENTS):
        with demo.at(80 - i, actor_id=admin):
            account, _, _ = create_agent(
                demo.org,
                name=name,
                description=description,
                project_ids=project_ids,
                actor_id=admin,
            )
        demo.agents.append(account)
    with demo.at(85, actor_id=admin):
        retired, _, _ = create_agent(
            demo.org,
            name=RETIRED_AGENT[0],
            description=RETIRED_AGENT[1],
            project_ids=[demo.projects["WEB"].id],
            actor_id=admin,
        )
    with demo.at(30):
        remove_agent(get_agent(demo.org.id, retired.id), actor_id=admin)
    owner = demo.owner
    with demo.at(75):
        create_token(owner, demo.org, "Laptop CLI")
    with demo.at(60):
        old, _ = create_token(owner, demo.org, "Old CI pipeline")
    with demo.at(10):
        revoke_token(owner.id, demo.org.id, old.id)
    with demo.at(19):
        save_settings(
            demo.org.id,
            base_url="https://trial-llm.demo.invalid/v1",
            model="trial-model",
            api_key="demo-placeholder-not-a-key",
            actor_id=demo.owner.id,
        )
    with demo.at(18, 1):
        remove_ai_settings(demo.org.id, actor_id=demo.owner.id)
    with demo.at(18):
        save_settings(
            demo.org.id,
            base_url="https://llm.demo.invalid/v1",
            model="demo-model",
            api_key="demo-placeholder-not-a-key",
            actor_id=demo.owner.id,
        )
