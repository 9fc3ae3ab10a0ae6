"""What a chart request resolves to, and the one default it falls back to."""

from __future__ import annotations

from dataclasses import dataclass

from workspace.analytics.vocabulary import DIMENSIONS, METRICS
from workspace.core.models import Priority, TaskKind

KINDS = tuple(k.value for k in TaskKind)
PRIORITIES = tuple(p.value for p in Priority)
DEFAULT_TITLE = "Work items by status"
MAX_TITLE = 120

_METRIC_WORDS = {"count": "Work items", "done": "Completed work items", "open": "Open work items"}
_KIND_PLURAL = {"task": "tasks", "bug": "bugs", "feature": "features", "epic": "epics"}


@dataclass(frozen=True)
class ChartSpec:
    """A metric grouped by a dimension, optionally narrowed to one kind or priority."""

    metric: str
    dimension: str
    title: str
    kind: str | None = None
    priority: str | None = None

    def __post_init__(self) -> None:
        if self.metric not in METRICS or self.dimension not in DIMENSIONS:
            raise ValueError("metric or dimension outside the enums")
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError("unknown kind")
        if self.priority is not None and self.priority not in PRIORITIES:
            raise ValueError("unknown priority")

    @property
    def pql(self) -> str | None:
        """The kind narrowing as a PQL filter for the custom-chart service."""
        return f"kind = {self.kind}" if self.kind else None


DEFAULT = ChartSpec("count", "status", DEFAULT_TITLE)


def title_for(metric: str, dimension: str, kind: str | None, priority: str | None) -> str:
    """A readable title: "Open bugs by assignee", "Completed work items by project"."""
    words = _METRIC_WORDS[metric]
    if kind:
        noun = _KIND_PLURAL[kind]
        words = {"count": noun.capitalize(), "done": f"Completed {noun}", "open": f"Open {noun}"}[
            metric
        ]
    if priority:
        words += f" of {priority} priority"
    return f"{words} by {dimension}"
