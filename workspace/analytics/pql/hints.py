"""Did-you-mean hints for PQL's error messages: the nearest known name to a typo
(``asignee`` -> ``assignee``), offered only when it is close, so a hint never
points somewhere surprising (docs/pql.md#errors)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: How alike a word and a known name must be (difflib's ratio) to be offered: 0.7
#: catches a missing, doubled or swapped letter in names of five letters and more,
#: and stays quiet for unrelated words ("colour" offers nothing).
CUTOFF = 0.7


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The known name closest to ``word`` (ignoring case), or None when none is close."""
    by_lower = {name.lower(): name for name in names}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=CUTOFF)
    return by_lower[match[0]] if match else None


def did_you_mean(message: str, word: str, names: Iterable[str], rest: str, suffix: str = "") -> str:
    """``message`` (naming ``word``), then ``". Did you mean 'assignee'? "`` and
    ``rest`` capitalized when a known name is close, else ``"; "`` and ``rest``.
    ``suffix`` follows the name (``"()"`` for functions)."""
    match = nearest(word, names)
    if match is None:
        return f"{message}; {rest}"
    return f"{message}. Did you mean '{match}{suffix}'? {rest[:1].upper()}{rest[1:]}"
