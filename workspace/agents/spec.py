"""What a chart request resolves to, the one default it falls back to, and how a
model's answer is read into one."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from workspace.analytics.schemas import CustomQuery
from workspace.analytics.vocabulary import DIMENSIONS, METRICS, TIME_DIMENSIONS
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
    """The reading of a request (docs/ai.md#the-reading): a metric by a dimension (one
    of the five, or created/completed per ``interval``), over a date ``range`` preset,
    narrowed by one kind or priority and by PQL ``filters``; ``unused`` names the
    words of the request that the reading could not use."""

    metric: str
    dimension: str
    title: str
    kind: str | None = None
    priority: str | None = None
    interval: str | None = None
    range: str | None = None
    split: str | None = None
    filters: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.metric not in METRICS or self.dimension not in (*DIMENSIONS, *TIME_DIMENSIONS):
            raise ValueError("metric or dimension outside the enums")
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError("unknown kind")
        if self.priority is not None and self.priority not in PRIORITIES:
            raise ValueError("unknown priority")
        # The custom chart's own input model judges the rest, so a reading is
        # exactly something the Custom tab could be asked for.
        CustomQuery.model_validate(self.query())

    @property
    def is_time(self) -> bool:
        return self.dimension in TIME_DIMENSIONS

    @property
    def pql(self) -> str | None:
        """The kind narrowing and the filters as one PQL filter for the custom chart."""
        clauses = [f"kind = {self.kind}"] if self.kind else []
        clauses += [f"({f})" if " or " in f.lower() else f for f in self.filters]
        return " AND ".join(clauses) or None

    def query(self) -> dict[str, Any]:
        """The reading as the custom chart's query (its field names and aliases): what
        the Custom tab is prefilled with."""
        out: dict[str, Any] = {"metric": self.metric, "dimension": self.dimension}
        if self.is_time:
            out["interval"] = self.interval or "week"
            if self.split:
                out["split"] = self.split
        if self.range:
            out["range"] = self.range
        if self.priority:
            out["priority"] = self.priority
        if self.pql:
            out["filter"] = self.pql
        return out

    def words(self) -> str:
        """The reading in words: "Done tasks, per week, completed this quarter, where
        priority = urgent"."""
        parts = [_READ_METRIC[self.metric]]
        if self.is_time:
            parts.append(f"per {self.interval or 'week'}")
            if self.split:
                parts[-1] += f" by {self.split}"
        else:
            parts.append(f"by {self.dimension}")
        if self.range:
            on = self.dimension if self.is_time else range_field(self.metric)
            parts.append(f"{on} {RANGE_WORDS[self.range]}")
        where = [f"priority = {self.priority}"] if self.priority else []
        where += [f"kind = {self.kind}"] if self.kind else []
        where += list(self.filters)
        if where:
            parts.append("where " + " and ".join(where))
        return ", ".join(parts)


_READ_METRIC = {"count": "Tasks", "done": "Done tasks", "open": "Open tasks"}
RANGE_WORDS = {
    "last_7_days": "in the last 7 days",
    "last_30_days": "in the last 30 days",
    "last_90_days": "in the last 90 days",
    "this_quarter": "this quarter",
    "last_quarter": "last quarter",
}


def range_field(metric: str) -> str:
    """What a range limits on a chart by one of the five: completion for done work,
    creation otherwise."""
    return "completed" if metric == "done" else "created"


def checked_spec(**fields: Any) -> ChartSpec | None:
    """A spec when the fields make one the custom chart accepts, else None."""
    try:
        return ChartSpec(**fields)
    except (ValueError, ValidationError):
        return None


DEFAULT = ChartSpec("count", "status", DEFAULT_TITLE)


def title_for(
    metric: str,
    dimension: str,
    kind: str | None,
    priority: str | None,
    interval: str | None = None,
) -> str:
    """A readable title: "Open bugs by assignee", "Completed work items by project"."""
    words = _METRIC_WORDS[metric]
    if kind:
        noun = _KIND_PLURAL[kind]
        words = {"count": noun.capitalize(), "done": f"Completed {noun}", "open": f"Open {noun}"}[
            metric
        ]
    if priority:
        words += f" of {priority} priority"
    if dimension in TIME_DIMENSIONS:
        verb = "" if (metric, dimension) == ("done", "completed") else f" {dimension}"
        return f"{words}{verb} per {interval or 'week'}"
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


def _text_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(fit_external(v, 100) for v in value[:20] if isinstance(v, str) and v.strip())


def parse_answer(text: str) -> ChartSpec | None:
    """The spec in a model's answer, or None when it is not usable. The reading's newer
    parts (interval, range, filter, split) are optional: an answer without them is the
    chart by one of the five it always was; one the custom chart would refuse is
    dropped and named in ``unused`` rather than losing the whole answer."""
    data = _json_in(text) if isinstance(text, str) else None
    if not isinstance(data, dict):
        return None
    metric, dimension = data.get("metric"), data.get("dimension")
    kind, priority = data.get("kind") or None, data.get("priority") or None
    if metric not in METRICS or dimension not in (*DIMENSIONS, *TIME_DIMENSIONS):
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
    interval = data.get("interval") or None
    base = {"metric": metric, "dimension": dimension, "kind": kind, "priority": priority}
    base["title"] = title or title_for(metric, dimension, kind, priority, interval)
    unused = list(_text_list(data.get("unused")))
    extra = {
        "interval": interval if dimension in TIME_DIMENSIONS else None,
        "range": data.get("range") or None,
        "split": (data.get("split") or None) if dimension in TIME_DIMENSIONS else None,
        "filters": (fit_external(data["filter"], 2000),)
        if isinstance(data.get("filter"), str) and data["filter"].strip()
        else (),
    }
    for name in ("interval", "range", "split", "filters"):
        if extra[name] and checked_spec(**base, **{name: extra[name]}) is None:
            value = extra.pop(name)
            unused.append(f"{name}: {value[0] if name == 'filters' else value}")
    return checked_spec(**base, **extra, unused=tuple(unused))
