"""The built-in offline interpreter: common phrasings to a chart spec, no model.

It makes ask-a-chart useful on a fresh install with no model configured. It reads
words, not grammar: a metric word (done, open, ...), a dimension word (assignee,
project, ...), a kind (bugs, features, ...) and a priority (urgent, high ...).
When it recognizes neither a metric nor a dimension it gives up (``None``) and the
caller returns the default chart.
"""

from __future__ import annotations

import re

from workspace.agents.spec import ChartSpec, title_for

# Checked in order; the first pattern that matches wins. "not done" must beat "done".
_METRICS = (
    (
        "open",
        r"\b(not (yet )?(done|completed|finished|closed)|open|remaining|outstanding|unfinished"
        r"|to ?do|pending|left|in progress|backlog|wip)\b",
    ),
    ("done", r"\b(done|completed?|finished|closed|shipped|resolved|delivered)\b"),
    ("count", r"\b(how many|count|number of|all|total|every)\b"),
)
_DIMENSIONS = (
    (
        "assignee",
        r"\b(assignees?|assigned|per person|by person|people|persons?|members?|owners?"
        r"|agents?|who|each person|team ?mates?|users?)\b",
    ),
    ("project", r"\b(projects?)\b"),
    ("priority", r"\b(priority|priorities)\b"),
    ("kind", r"\b(kinds?|types?|categories of work)\b"),
    ("status", r"\b(status(es)?|states?|stages?|columns?|workflow)\b"),
)
_KINDS = (
    ("bug", r"\b(bugs?|defects?|issues?)\b"),
    ("feature", r"\b(features?)\b"),
    ("epic", r"\b(epics?)\b"),
    ("task", r"\b(tasks)\b(?! (by|per))"),
)
_PRIORITIES = (
    ("urgent", r"\b(urgent|critical)\b"),
    ("high", r"\bhigh[- ]priority\b"),
    ("low", r"\blow[- ]priority\b"),
    ("medium", r"\bmedium[- ]priority\b"),
)


def _first(table: tuple[tuple[str, str], ...], text: str) -> str | None:
    for value, pattern in table:
        if re.search(pattern, text):
            return value
    return None


def interpret(text: str) -> ChartSpec | None:
    """A spec for the request, or None when nothing in it was recognized."""
    text = " ".join(text.lower().split())
    metric = _first(_METRICS, text)
    dimension = _first(_DIMENSIONS, text)
    if metric is None and dimension is None:
        return None
    metric = metric or "count"
    dimension = dimension or "status"
    kind = _first(_KINDS, text) if dimension != "kind" else None
    if kind == "task":
        # "tasks" usually means work in general, not the task kind.
        kind = None
    priority = _first(_PRIORITIES, text) if dimension != "priority" else None
    return ChartSpec(
        metric, dimension, title_for(metric, dimension, kind, priority), kind, priority
    )
