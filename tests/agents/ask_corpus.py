"""The ask corpus (tests/agents/data/ask_corpus.json): requests with the reading the
offline interpreter must give, and how a reading is compared with one. Shared by the
corpus test and bench/ask_accuracy.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace.agents import offline

CORPUS = Path(__file__).parent / "data" / "ask_corpus.json"
FIELDS = ("metric", "dimension", "interval", "range", "split", "priority", "filter", "unused")
DEFAULTS = {"metric": "count", "dimension": "status", "unused": []}


def load() -> dict[str, Any]:
    return json.loads(CORPUS.read_text())


def expected(case: dict[str, Any]) -> dict[str, Any] | None:
    """The reading a case expects, every field present; None for "not understood"."""
    if case.get("none"):
        return None
    return {f: case.get(f, DEFAULTS.get(f)) for f in FIELDS}


def reading(text: str, corpus: dict[str, Any]) -> dict[str, Any] | None:
    """What the offline interpreter reads, in the corpus's terms."""
    names = {k: [tuple(p) for p in corpus[k]] for k in ("projects", "people")}
    spec = offline.interpret(text, **names)
    if spec is None:
        return None
    query = spec.query()
    return {
        "metric": spec.metric,
        "dimension": spec.dimension,
        "interval": query.get("interval"),
        "range": spec.range,
        "split": spec.split,
        "priority": spec.priority,
        "filter": spec.pql,
        "unused": list(spec.unused),
    }


def score(corpus: dict[str, Any]) -> tuple[int, list[tuple[str, Any, Any]]]:
    """How many cases read as expected, and each miss (text, expected, read)."""
    hits, misses = 0, []
    for case in corpus["cases"]:
        want, got = expected(case), reading(case["text"], corpus)
        if want == got:
            hits += 1
        else:
            misses.append((case["text"], want, got))
    return hits, misses
