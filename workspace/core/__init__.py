"""The workspace domain: orgs, members, projects, workflow, tasks and activity.
Models and services only; the tracker and the other capabilities serve them."""

from flask import Flask


def init_app(app: Flask) -> None:
    """Nothing to register: core has no routes. Kept so the capability list stays
    uniform."""
