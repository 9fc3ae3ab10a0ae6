"""The project settings' own inputs (docs/projects.md#states)."""

from __future__ import annotations

import uuid

from workspace.inputs import QueryModel


class StateDelete(QueryModel):
    """Deleting a state that holds tasks: the state of the project they move to first
    (each move in its task's history); absent, a state with tasks is refused."""

    move_to: uuid.UUID | None = None
