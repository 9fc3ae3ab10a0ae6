"""How a value looks in every chart: its colour, its label, its place on the axis.

The analytics tabs, dashboard widgets, the printable export and the PDF all draw
through :mod:`workspace.analytics.charts`, and charts asks this module, so one value
has one colour and one label everywhere (docs/analytics.md#charts):

- status: its category's colour (backlog grey, unstarted slate blue, started amber,
  completed green, cancelled red); the default state of a category ("In Progress"
  for started) gets the colour itself, other states of the category a fixed tint of
  it chosen by their name;
- priority: a fixed scale from urgent (red) to none (grey);
- kind: a fixed colour per kind;
- project: a colour from a 12-colour palette by the project's place among its
  org's projects, oldest first (the first twelve never share one);
- person and anything else: a colour from the same palette chosen by a hash of the
  value's id (or its name when it has none);

so the same value is the same colour on every chart, page and export;
- "Unassigned" and "Other": neutral greys.

Labels: enum values as capitalized words ("Urgent", "Bug", "Started"); names people
typed (states, projects, people) exactly as written. Pure functions: no database.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from datetime import date
from typing import Any

#: Categories in workflow order, with their colour.
CATEGORY_COLORS = {
    "backlog": "#a0a7b4",
    "unstarted": "#6b8bb8",
    "started": "#e0a030",
    "completed": "#3f9a60",
    "cancelled": "#c46a6a",
}
#: Priorities urgent -> none, on a fixed hot-to-cold scale.
PRIORITY_COLORS = {
    "urgent": "#c53030",
    "high": "#e07a45",
    "medium": "#e4b93c",
    "low": "#5b8fd0",
    "none": "#b8bec9",
}
KIND_COLORS = {
    "task": "#5b8fd0",
    "bug": "#c53030",
    "feature": "#3f9a60",
    "epic": "#8b5cf6",
}
CATEGORIES = tuple(CATEGORY_COLORS)
PRIORITIES = tuple(PRIORITY_COLORS)
KINDS = tuple(KIND_COLORS)

#: The state each category's colour belongs to in the default workflow
#: (workspace/core/projects.py DEFAULT_STATES); a state the chart knows no category
#: of is guessed from these names.
DEFAULT_STATE_NAMES = {
    "backlog": "backlog",
    "todo": "unstarted",
    "in progress": "started",
    "in review": "started",
    "done": "completed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}
_BASE_STATE = {"backlog": "backlog", "unstarted": "todo", "started": "in progress",
               "completed": "done", "cancelled": "cancelled"}  # fmt: skip

#: Qualitative colours for people, projects and states of no known category; none is
#: a grey (those mean "Unassigned" and "Other") and none repeats a fixed scale's red.
PALETTE = (
    "#4f46e5",
    "#0e9f9a",
    "#d9480f",
    "#2f80c8",
    "#b83280",
    "#5f8d2f",
    "#8b5cf6",
    "#c08a00",
    "#1d6f5f",
    "#e0607e",
    "#6d5a43",
    "#3a5bbf",
)
UNASSIGNED_COLOR = "#9aa1ad"
OTHER_COLOR = "#c9ced6"
ACCENT = "#4f46e5"

UNASSIGNED_LABEL = "Unassigned"
OTHER_LABEL = "Other"
#: Categories shown before the rest fold into "Other", when a widget does not say.
DEFAULT_TOP_N = 10
#: A bar chart turns horizontal when a label is longer than this or there are more
#: bars than ``MAX_VERTICAL_BARS``.
LONG_LABEL = 12
MAX_VERTICAL_BARS = 8

#: Dimensions with an order of their own; the others are ordered largest first.
NATURAL_ORDER = ("status", "priority", "kind", "category", "date")


def label(dimension: str | None, key: str) -> str:
    """The one way a value is written on an axis, in a legend or a table."""
    if key in ("unassigned", UNASSIGNED_LABEL):
        return UNASSIGNED_LABEL
    if dimension in ("priority", "kind", "category") or (
        dimension is None and key in (*PRIORITIES, *KINDS, *CATEGORIES)
    ):
        return key.capitalize()
    return key


def _hashed(value: str) -> str:
    return PALETTE[zlib.crc32(value.encode()) % len(PALETTE)]


def _mix(hex_color: str, white: float) -> str:
    """``hex_color`` moved ``white`` of the way towards white."""
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (255 - c) * white):02x}" for c in (r, g, b))


def _darken(hex_color: str, black: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c * (1 - black)):02x}" for c in (r, g, b))


def status_category(name: str, category: str | None = None) -> str | None:
    """The category a state is drawn in: the one given, else the default workflow's."""
    if category in CATEGORY_COLORS:
        return category
    return DEFAULT_STATE_NAMES.get(name.strip().lower())


def status_color(name: str, category: str | None = None) -> str:
    cat = status_category(name, category)
    if cat is None:
        return _hashed(f"status:{name.strip().lower()}")
    base = CATEGORY_COLORS[cat]
    if name.strip().lower() == _BASE_STATE[cat]:
        return base
    # Other states of the category: one of three tints of it, fixed by the name.
    shade = zlib.crc32(name.strip().lower().encode()) % 3
    return (_darken(base, 0.25), _mix(base, 0.35), _darken(base, 0.45))[shade]


def color(
    dimension: str | None,
    key: str,
    *,
    id: Any = None,
    category: str | None = None,
    slot: int | None = None,
) -> str:
    """The colour of one value. ``id`` (people, projects) keeps two people of one name
    apart; ``category`` is a state's category; ``slot`` a project's place among its
    org's projects (``dimensions.project_slots``)."""
    if key in ("unassigned", UNASSIGNED_LABEL) and id is None:
        return UNASSIGNED_COLOR
    if dimension == "status":
        return status_color(key, category)
    if dimension == "category" or (dimension is None and key in CATEGORY_COLORS):
        return CATEGORY_COLORS.get(key, ACCENT)
    if dimension == "priority" or (dimension is None and key in PRIORITY_COLORS):
        return PRIORITY_COLORS.get(key, ACCENT)
    if dimension == "kind" or (dimension is None and key in KIND_COLORS):
        return KIND_COLORS.get(key, ACCENT)
    if slot is not None:
        return PALETTE[slot % len(PALETTE)]
    # Ids (people, projects) are unique on their own: the colour follows the id
    # whether or not the caller named the dimension.
    return _hashed(str(id) if id is not None else f"{dimension or 'value'}:{key}")


def point_color(dimension: str | None, point: dict[str, Any]) -> str:
    if point.get("other"):
        return OTHER_COLOR
    return color(
        dimension,
        str(point["key"]),
        id=point.get("id"),
        category=point.get("category"),
        slot=point.get("slot"),
    )


def infer_dimension(keys: Iterable[str], *, has_ids: bool = False) -> str | None:
    """What a caller that did not say is grouping by, when the points tell: enum
    values, dates, or (no ids: not people or projects) state names."""
    keys = set(keys) - {"unassigned", UNASSIGNED_LABEL}
    if not keys or has_ids:
        return None
    for dimension, values in (("priority", PRIORITIES), ("kind", KINDS)):
        if keys <= set(values):
            return dimension
    if all(_as_date(k) is not None for k in keys):
        return "date"
    return "status"


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _as_date(key: str) -> date | None:
    if not _DATE.match(key):
        return None
    try:
        return date.fromisoformat(key[:10])
    except ValueError:
        return None


def sort_key(dimension: str | None, point: dict[str, Any]) -> tuple:
    """Where a point goes on an axis with a natural order."""
    key = str(point["key"])
    if dimension == "status":
        cat = status_category(key, point.get("category"))
        rank = CATEGORIES.index(cat) if cat else len(CATEGORIES)
        default = (
            list(DEFAULT_STATE_NAMES).index(key.lower())
            if key.lower() in DEFAULT_STATE_NAMES
            else 99
        )
        return (rank, default, key.lower())
    order = {"priority": PRIORITIES, "kind": KINDS, "category": CATEGORIES}.get(dimension or "")
    if order is not None:
        return (order.index(key) if key in order else len(order), key)
    if dimension == "date":
        return (_as_date(key) or date.max, key)
    return (0, key)


def display_order(
    dimension: str | None, points: list[dict[str, Any]], top_n: int | None = None
) -> list[dict[str, Any]]:
    """Points as a chart draws them: the ``top_n`` largest (when there are more),
    the rest summed into one "Other" point at the end; then the natural order of the
    dimension, or largest first when it has none (ties by label)."""
    if dimension is None:
        dimension = infer_dimension(
            (str(p["key"]) for p in points), has_ids=any(p.get("id") for p in points)
        )
    largest = sorted(
        points, key=lambda p: (-p["value"], str(p["key"]).lower(), str(p.get("id") or ""))
    )
    rest: list[dict[str, Any]] = []
    if top_n and top_n > 0 and len(largest) > top_n:
        largest, rest = largest[:top_n], largest[top_n:]
    if dimension in NATURAL_ORDER:
        largest.sort(key=lambda p: sort_key(dimension, p))
    if rest:
        largest.append(
            {
                "key": OTHER_LABEL,
                "value": sum(p["value"] for p in rest),
                "id": None,
                "other": len(rest),
            }
        )
    return largest


def short_email(email: str) -> str:
    """``alex.kim@example.com`` -> ``alex.kim@``: enough to tell two Alex Kims apart."""
    return email.split("@", 1)[0] + "@"


def person_labels(people: Iterable[tuple[Any, str, str]]) -> dict[Any, str]:
    """``{id: label}`` for ``(id, name, email)``: the name, and for a name two people
    share, the name and short email ("Alex Kim (alex.k@)"), or the whole email when
    the short ones collide too."""
    people = list(people)
    by_name: dict[str, list[tuple[Any, str, str]]] = {}
    for person in people:
        by_name.setdefault(person[1], []).append(person)
    out = {}
    for name, same in by_name.items():
        if len(same) == 1:
            out[same[0][0]] = name
            continue
        shorts = [short_email(email) for _, _, email in same]
        for (pid, _, email), short in zip(same, shorts, strict=True):
            out[pid] = f"{name} ({short if shorts.count(short) == 1 else email})"
    return out


def table_rows(dimension: str | None, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A chart's points for the table under it, as the chart draws them: in its order
    (priority's, not largest first) and with its ``label`` ("Urgent", not "urgent"),
    so the two never disagree. ``points`` as drawn (a status's ``category`` known)."""
    return [
        {**p, "label": label(dimension, str(p["key"]))} for p in display_order(dimension, points)
    ]
