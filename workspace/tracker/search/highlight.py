"""Match markers put in by Python, for SQLite: FTS5's ``highlight()`` and
``snippet()`` rebuild a prefix word's whole doclist for every row they mark (100 ms
for "login" at a million tasks), so the words are found in the text here instead.
The markers are the ones PostgreSQL's ``ts_headline`` is asked for; ``service.marked``
escapes the text and turns them into ``<mark>``. No stemming here: a word matched
only through its stem ("logins" for "login") is found but not marked."""

from __future__ import annotations

import re

from workspace.core.search_index import Term

START, STOP = "\x02", "\x03"
_TOKEN = re.compile(r"\w+")
#: Words of context before the first match, and words a snippet shows.
BEFORE, WORDS = 6, 20


def _hits(tokens: list[str], terms: list[Term]) -> list[bool]:
    hit = [False] * len(tokens)
    for i, token in enumerate(tokens):
        for term in terms:
            if term.phrase:
                continue
            word = term.words[0]
            if token == word or (term.prefix and token.startswith(word)):
                hit[i] = True
    for term in terms:
        n = len(term.words)
        if not term.phrase:
            continue
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i : i + n]) == term.words:
                hit[i : i + n] = [True] * n
    return hit


def mark(text: str, terms: list[Term], *, snippet: bool = False) -> str:
    """``text`` with every matching word between START and STOP; with ``snippet``,
    only about :data:`WORDS` words around the first match (empty when none)."""
    found = list(_TOKEN.finditer(text))
    hit = _hits([m.group().lower() for m in found], terms)
    if snippet:
        if True not in hit:
            return ""
        first = max(hit.index(True) - BEFORE, 0)
        last = min(first + WORDS, len(found)) - 1
        start, end = found[first].start(), found[last].end()
    else:
        start, end = 0, len(text)
    out, at = [], start
    for m, is_hit in zip(found, hit, strict=True):
        if not is_hit or m.start() < start or m.end() > end:
            continue
        out += [text[at : m.start()], START, m.group(), STOP]
        at = m.end()
    out.append(text[at:end])
    prefix = "… " if snippet and start > 0 else ""
    suffix = " …" if snippet and end < len(text) else ""
    return prefix + "".join(out) + suffix
