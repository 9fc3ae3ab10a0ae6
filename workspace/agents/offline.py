"""The built-in offline interpreter: common phrasings to a reading, no model.

It makes ask-a-chart useful on a fresh install with no model configured. It reads
words, not grammar (docs/ai.md#the-offline-interpreter): a metric word (done, open,
...), a dimension word (assignee, project, ...), a time axis (per week, daily, over
time) and range (this quarter, last 30 days), and the narrowing words - a kind
(bugs), a priority (urgent), overdue, unassigned, mine, and the org's project and
people names when the caller passes them. Each phrase it uses is blanked out of the
text, so what is left over is exactly what it could not use (``unused``). When it
recognizes nothing at all it gives up (``None``) and the caller returns the default
chart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from workspace.agents.spec import ChartSpec, checked_spec, title_for

# Checked in order; the first pattern that matches wins. "not done" must beat "done".
_METRICS = (
    (
        "open",
        r"\b(not (yet )?(done|completed|finished|closed)|open|remaining|outstanding|unfinished"
        r"|to ?do|pending|left|backlog)\b",
    ),
    (
        "done",
        r"\b(done|completed?|finish(ed)?|closed|ship(ped)?|resolved|delivered|throughput"
        r"|velocity)\b",
    ),
    ("count", r"\b(how many|count|number of|all|total|every)\b"),
)
_DIMENSIONS = (
    (
        "assignee",
        r"\b((by |per |for )?(assignees?|assigned|person|people|persons?|members?|owners?"
        r"|agents?|who|each person|team ?mates?|users?))\b",
    ),
    ("project", r"\b((by |per |for |across )?(each )?(projects?))\b"),
    ("priority", r"\b((by |per )?(priority|priorities))\b"),
    ("kind", r"\b((by |per )?(kinds?|types?|categories of work))\b"),
    ("status", r"\b((by |per )?(status(es)?|states?|stages?|columns?|workflow))\b"),
)
_KINDS = (
    ("bug", r"\b(bugs?|defects?|issues?)\b"),
    ("feature", r"\b(features?)\b"),
    ("epic", r"\b(epics?)\b"),
)
_PRIORITIES = (
    ("urgent", r"\b(urgent|critical)( priority)?\b"),
    ("high", r"\b(high[- ]priority|priority high|high)\b"),
    ("low", r"\b(low[- ]priority|priority low|low)\b"),
    ("medium", r"\b(medium[- ]priority|priority medium|medium)\b"),
)
_FILTERS = (
    # Work under way is the started category, not everything open (backlog, to do).
    ("statusCategory = started", r"\b(in[- ]progress|wip|being worked on|ongoing)\b"),
    ("isOverdue()", r"\b(overdue|late|past due|past their due dates?|behind schedule)\b"),
    (
        "hasNoAssignee()",
        r"\b(unassigned|not assigned|without (an )?assignee|with no assignee|no assignee"
        r"|no owner)\b",
    ),
    ("assignee = currentUser()", r"\b(assigned to me|my|mine)\b"),
)
_INTERVALS = (
    ("day", r"\b((per|by|each|a|every) day|daily|day by day|per-day)\b"),
    ("week", r"\b((per|by|each|a|every) week|weekly|week by week|per-week)\b"),
    ("month", r"\b((per|by|each|a|every) month|monthly|month by month|per-month)\b"),
    ("quarter", r"\b((per|by|each|a|every) quarter|quarterly)\b"),
)
_LAST = r"\b((in |over |during )?the )?(last|past) "
# "the last week" and "the past month" are the 7 and 30 days up to today; a bare
# "last week" or "last month" is the calendar week or month before this one, which
# no preset is (named as not used, see _UNUSABLE).
_THE_LAST = r"\b((in |over |during )?the (last|past)|past) "
_RANGES = (
    ("last_7_days", rf"({_LAST}(7|seven) days|{_THE_LAST}week)\b"),
    ("last_30_days", rf"({_LAST}(30|thirty) days|{_THE_LAST}month)\b"),
    (
        "last_90_days",
        _LAST + r"((90|ninety) days|(3|three) months)\b",
    ),
    ("this_quarter", r"\b((in |during )?this|current) quarter\b"),
    ("last_quarter", r"\b((in |during )?(the )?)?(last|previous|past) quarter\b"),
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
#: Times the reading has no words for (no preset is a calendar week, month or year, or
#: starts on a given day): each is named whole among the words not used, so the
#: member sees "this week" was not used and can set From and To instead.
_UNUSABLE = (
    r"\b(this|current|last|previous|next) (week|month|year)\b",
    rf"\bsince (last |the )?({_DAYS}|yesterday|the start of (the )?\w+|[\d-]+|\w+ \d+)\b",
    r"\b(year to date|ytd|month to date|today|yesterday|tomorrow)\b",
    rf"\b(on |last )?({_DAYS})\b",
    # A comparison is two charts: the first is read, the other named.
    r"\b(vs\.?|versus|compared (to|with)) [\w-]+",
)
_TREND = r"\b(over time|trend|trends|timeline|history|time series|burn ?up)\b"
_CREATED = r"\b(created|new|opened|added|filed|reported|came in|incoming|arrived)\b"
_COMPLETED = r"\bcompletion\b"
#: Words that carry no meaning of their own in a chart request.
_FILLER = frozenset(
    str.split(
        """a an the of for in on at to from and or with by per each every me us show give
    list plot chart graph draw display see get what which are is was were be been how
    many much do did does have has there please our we i you your tasks task work items
    item things tickets ticket breakdown broken down split grouped group so far were
    that those these its it as vs versus number total all count up across within most least top
    's"""
    )
)


def _take(text: str, pattern: str) -> tuple[str, re.Match[str] | None]:
    """The text with the first match blanked out (a used phrase), and the match."""
    found = re.search(pattern, text)
    if not found:
        return text, None
    return text[: found.start()] + " " * (found.end() - found.start()) + text[found.end() :], found


def _first(table: tuple[tuple[str, str], ...], text: str) -> tuple[str, str | None]:
    for value, pattern in table:
        text, found = _take(text, pattern)
        if found:
            return text, value
    return text, None


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _names(text: str, field: str, names: Iterable[tuple[str, str]]) -> tuple[str, list[str]]:
    """Clauses for the org's names found in the text, longest names first (so "Web
    App" wins over "Web"); ``names`` pairs a name as written with its PQL value."""
    clauses = []
    for written, value in sorted(names, key=lambda n: -len(n[0])):
        word = re.escape(" ".join(written.lower().split()))
        if len(word) < 2:
            continue
        text, found = _take(text, rf"(?<![\w-]){word}(?![\w-])(?:'s)?")
        if found:
            clauses.append(f"{field} = {_quoted(value)}")
    return text, clauses


def interpret(
    text: str,
    *,
    projects: Iterable[tuple[str, str]] = (),
    people: Iterable[tuple[str, str]] = (),
) -> ChartSpec | None:
    """The reading of the request, or None when nothing in it was recognized.

    ``projects`` and ``people`` are (words, PQL value) pairs of the org: a project's
    name and identifier, a member's name and email."""
    text = " " + " ".join(re.sub(r"[?!.,;:]", " ", text.lower()).split()) + " "
    filters: list[str] = []
    text, found = _names(text, "project", projects)
    filters += found
    text, found = _names(text, "assignee", people)
    filters += found
    text, interval = _first(_INTERVALS, text)
    text, preset = _first(_RANGES, text)
    named: list[tuple[int, str]] = []
    for pattern in _UNUSABLE:
        while found := re.search(pattern, text):
            named.append((found.start(), found.group(0).strip()))
            text, _ = _take(text, pattern)
    text, trend = _take(text, _TREND)
    for clause, pattern in _FILTERS:
        text, hit = _take(text, pattern)
        if hit:
            filters.append(clause)
    text, created = _take(text, _CREATED)
    text, completion = _take(text, _COMPLETED)
    text, metric = _first(_METRICS, text)
    # "high priority" before "priority": a narrowing, not the dimension.
    text, priority = _first(_PRIORITIES, text)
    more = [
        value for value, pattern in _PRIORITIES if value != priority and re.search(pattern, text)
    ]
    if priority and more:
        # "high and urgent": a reading narrows to one priority, PQL to several.
        for pattern in (p for v, p in _PRIORITIES if v in more):
            text, _ = _take(text, pattern)
        several = [v for v, _ in _PRIORITIES if v == priority or v in more]
        filters.append(f"priority IN ({', '.join(several)})")
        priority = None
    text, dimension = _first(_DIMENSIONS, text)
    text, kind = _first(_KINDS, text)
    understood = (metric, dimension, interval, preset, trend, kind, priority, created)
    if not any(understood) and not filters:
        return None
    split = None
    if interval or trend or (preset and dimension is None):
        # A time axis: created or completed per interval; a dimension word splits it.
        done = (metric == "done" or completion) and not created
        split, dimension = dimension, "completed" if done else "created"
        if dimension == "completed" and metric != "open":
            metric = "done"
        if interval is None:
            interval = "day" if preset in ("last_7_days", "last_30_days") else "week"
    metric = metric or "count"
    dimension = dimension or "status"
    if dimension == "kind":
        kind = None
    if dimension == "priority":
        priority = None
    left = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", text)]
    left = [(at, w) for at, w in left if w not in _FILLER and not w.isdigit()]
    unused = tuple(w for _, w in sorted(named + left))
    fields = {
        "metric": metric,
        "dimension": dimension,
        "kind": kind,
        "priority": priority,
        "interval": interval,
        "range": preset,
        "split": split,
        "filters": tuple(dict.fromkeys(filters)),
        "unused": unused,
        "title": title_for(metric, dimension, kind, priority, interval),
    }
    return checked_spec(**fields) or checked_spec(**{**fields, "split": None})
