"""What a chart request resolves to, the one default it falls back to, and how a
model's answer is read into one."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from workspace.analytics.vocabulary import DIMENSIONS, METRICS
from workspace.core.models import Priority, TaskKind
from workspace.inputs import fit_external

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


_THINKING = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.S)


def _json_in(text: str) -> Any:
    """The JSON in an answer: bare, in a Markdown code fence, or the one object in a
    sentence; a reasoning model's ``<think>`` block is skipped."""
    text = _THINKING.sub("", text).strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            return None
        try:
            return json.loads(text[start : end + 1])
        except ValueError:
            return None


def parse_answer(text: str) -> ChartSpec | None:
    """The spec in a model's answer, or None when it is not usable."""
    data = _json_in(text) if isinstance(text, str) else None
    if not isinstance(data, dict):
        return None
    metric, dimension = data.get("metric"), data.get("dimension")
    kind, priority = data.get("kind") or None, data.get("priority") or None
    if metric not in METRICS or dimension not in DIMENSIONS:
        return None
    if kind is not None and kind not in KINDS:
        return None
    if priority is not None and priority not in PRIORITIES:
        return None
    if dimension == "kind":
        kind = None
    if dimension == "priority":
        priority = None
    title = data.get("title")
    title = fit_external(" ".join(title.split()), MAX_TITLE) if isinstance(title, str) else ""
    return ChartSpec(
        metric, dimension, title or title_for(metric, dimension, kind, priority), kind, priority
    )
