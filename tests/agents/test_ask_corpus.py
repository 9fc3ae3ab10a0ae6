"""The offline interpreter against the ask corpus (docs/ai.md#the-corpus)."""

from __future__ import annotations

import pytest

from tests.agents import ask_corpus
from workspace.agents.spec import ChartSpec, parse_answer

CORPUS = ask_corpus.load()
#: The share of the corpus read as expected when this test was last changed (82 of
#: 82); a change that reads fewer fails here (bench/ask_accuracy.py prints the figure).
MIN_HITS = 82


@pytest.mark.parametrize("case", CORPUS["cases"], ids=lambda c: c["text"])
def test_each_request_reads_as_expected(case):
    want = ask_corpus.expected(case)
    got = ask_corpus.reading(case["text"], CORPUS)
    if case["text"] in CORPUS["expected_misses"]:
        assert got != want, "read right now: take it off expected_misses"
    else:
        assert got == want


def test_accuracy_does_not_drop():
    hits, misses = ask_corpus.score(CORPUS)
    assert len(CORPUS["cases"]) >= 60
    assert hits >= MIN_HITS, misses
    assert {text for text, _, _ in misses} == set(CORPUS["expected_misses"])


def test_the_reading_in_words():
    corpus = {"projects": [], "people": []}
    spec = ask_corpus.offline.interpret("urgent tasks completed per week this quarter")
    assert isinstance(spec, ChartSpec)
    assert spec.words() == ("Done tasks, per week, completed this quarter, where priority = urgent")
    assert ask_corpus.reading("urgent tasks overdue per project", corpus)["filter"] == (
        "isOverdue()"
    )
    spec = ask_corpus.offline.interpret("bugs in Narnia by assignee done last quarter")
    assert spec.unused == ("narnia",)
    assert spec.words() == "Done tasks, by assignee, completed last quarter, where kind = bug"
    # Two metrics: the first wins and the other is named as not used.
    assert ask_corpus.offline.interpret("open bugs done by assignee").unused == ("done",)


def test_a_model_reading_is_checked_part_by_part():
    answer = (
        '{"metric": "done", "dimension": "completed", "title": "", "kind": null,'
        ' "priority": "urgent", "interval": "fortnight", "range": "this_quarter",'
        ' "filter": "isOverdue()", "unused": ["velocity"]}'
    )
    spec = parse_answer(answer)
    # An interval outside the custom chart's list is dropped and named, not fatal.
    assert (spec.dimension, spec.interval, spec.range) == ("completed", None, "this_quarter")
    assert spec.filters == ("isOverdue()",)
    assert spec.unused == ("velocity", "interval: fortnight")
    assert spec.query()["interval"] == "week"
