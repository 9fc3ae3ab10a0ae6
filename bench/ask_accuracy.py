"""The offline interpreter's accuracy on the ask corpus (not a test; docs/ai.md#the-corpus).

A request counts as read right when every part of its reading - metric, dimension,
interval, range, split, priority, PQL filter and the words not used - equals the
corpus's expected reading. Prints the figure and each miss.

    .venv/bin/python bench/ask_accuracy.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.agents import ask_corpus


def main() -> None:
    corpus = ask_corpus.load()
    hits, misses = ask_corpus.score(corpus)
    total = len(corpus["cases"])
    print(f"offline interpreter: {hits}/{total} requests read as expected ({hits / total:.1%})")
    for text, want, got in misses:
        why = corpus["expected_misses"].get(text, "NOT an expected miss")
        print(f"  miss: {text!r}\n    expected {want}\n    read     {got}\n    why: {why}")


if __name__ == "__main__":
    main()
