"""What may come next at the cursor of a PQL box (docs/pql.md#autocomplete): field
names, operators, values and functions, each with the text to insert.

The text before the cursor is split with a small regex tokenizer rather than the
grammar, because it is usually unfinished (``assignee = "Ad``) and lark's parser
only answers for whole filters. The last complete tokens say what the cursor is in:

* start, ``AND``, ``OR``, ``NOT`` or ``(``: a field, a condition (``isOverdue()``), NOT;
* a field: its operators (``=`` ``IN`` ``IS EMPTY`` ...);
* an operator, or ``(`` / ``,`` inside ``IN (...)``: the field's values;
* a value or ``)``: ``AND`` / ``OR``.

Values come from :class:`Values`, which reads only what the caller may see.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from workspace.analytics.pql.compiler import ENUMS
from workspace.analytics.pql.parser import CONDITIONS, FIELDS, OPERATORS

#: At most this many suggestions per answer.
LIMIT = 20

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      | (?P<string>"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)
      | (?P<op>!=|!~|<=|>=|=|~|<|>)
      | (?P<lpar>\()
      | (?P<rpar>\))
      | (?P<comma>,)
      | (?P<word>[+-]?[A-Za-z0-9_][A-Za-z0-9_@.+-]*)
      | (?P<other>.)""",
    re.VERBOSE,
)
_KEYWORDS = {"and", "or", "not", "in", "is", "empty"}
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: What each operator reads as, in the order a list offers them.
_OPERATOR_LABELS = [
    ("=", "= "),
    ("!=", "!= "),
    ("~", "~ "),
    ("!~", "!~ "),
    ("<", "< "),
    ("<=", "<= "),
    (">", "> "),
    (">=", ">= "),
    ("in", "IN ("),
    ("notin", "NOT IN ("),
]
_NULLABLE = {"assignee", "cycle", "module", "dueDate", "completedAt"}


@dataclass(frozen=True)
class Suggestion:
    #: What the list shows.
    label: str
    #: What replaces the text from ``start`` to ``end``.
    insert: str
    #: field, operator, value, function or keyword.
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Context:
    #: What the cursor is at: field, operator, value, keyword; not_in after
    #: ``field NOT``, empty after ``field IS``.
    expects: str
    #: The field the operator or value is for.
    field: str | None
    #: The partial word at the cursor (without an opening quote).
    prefix: str
    #: Where the partial word starts and ends: what an accepted suggestion replaces.
    start: int
    end: int


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    start: int


def _tokens(text: str) -> list[_Tok]:
    return [
        _Tok(m.lastgroup or "other", m.group(), m.start())
        for m in _TOKEN.finditer(text)
        if m.lastgroup != "ws"
    ]


def context_at(text: str, cursor: int) -> Context:
    """What the cursor at ``cursor`` (0 = before the first character) is in."""
    before = text[:cursor]
    toks = _tokens(before)
    prefix, start, open_string = "", cursor, False
    if toks and toks[-1].start + len(toks[-1].text) == cursor:
        last = toks[-1]
        open_string = last.kind == "string" and (
            len(last.text) == 1 or last.text[-1] != last.text[0]
        )
        if last.kind == "word" or open_string:
            toks.pop()
            start = last.start
            prefix = last.text[1:] if open_string else last.text
    # The word continues past the cursor: accepting replaces all of it.
    end = cursor
    match = re.match(r"[A-Za-z0-9_@.+-]*", text[cursor:])
    if match and not open_string:
        end += match.end()
    expects, field = _expects(toks)
    return Context(expects, field, prefix, start, end)


def _field_of(word: str) -> str | None:
    entry = FIELDS.get(word.lower())
    return entry[0] if entry else None


def _expects(toks: list[_Tok]) -> tuple[str, str | None]:
    if not toks:
        return "field", None
    last = toks[-1]
    low = last.text.lower()
    if last.kind == "word" and low in ("and", "or", "not"):
        if low == "not" and len(toks) >= 2 and _field_of(toks[-2].text):
            return "not_in", _field_of(toks[-2].text)  # assignee NOT |IN (
        return "field", None
    if last.kind == "word" and low == "is":
        return "empty", _field_of(toks[-2].text) if len(toks) >= 2 else None
    if last.kind == "op":
        return "value", _field_of(toks[-2].text) if len(toks) >= 2 else None
    if last.kind in ("lpar", "comma"):
        field = _list_field(toks)
        if field is not None:
            return "value", field
        return ("field", None) if last.kind == "lpar" else ("keyword", None)
    if last.kind == "word" and _field_of(last.text):
        previous = toks[-2] if len(toks) >= 2 else None
        if previous is None or previous.kind == "lpar" or previous.text.lower() in _KEYWORDS:
            return "operator", _field_of(last.text)
    return "keyword", None


def _list_field(toks: list[_Tok]) -> str | None:
    """The field of the ``IN (`` list the cursor is in, if it is in one."""
    i = len(toks) - 1
    while i >= 0 and toks[i].kind != "lpar":
        if toks[i].kind in ("rpar", "op") or toks[i].text.lower() in ("and", "or"):
            return None
        i -= 1
    if i >= 2 and toks[i - 1].text.lower() == "in":
        return _field_of(toks[i - 2].text) or (
            _field_of(toks[i - 3].text) if i >= 3 and toks[i - 2].text.lower() == "not" else None
        )
    return None


def quoted(value: str) -> str:
    """``value`` as PQL writes it: bare when it is a plain word, quoted otherwise."""
    if _BARE.fullmatch(value) and value.lower() not in _KEYWORDS:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ranked(prefix: str, items: Iterable[Suggestion]) -> list[Suggestion]:
    """Those whose label starts with the prefix first, then those containing it."""
    low = prefix.lower()
    first, then = [], []
    for item in items:
        label = item.label.lower()
        if label.startswith(low):
            first.append(item)
        elif low and low in label:
            then.append(item)
    return (first + then)[:LIMIT]


#: (field, prefix) -> the names the caller may see: the lookups behind value lists.
ValueLookup = Callable[[str, str], list[tuple[str, str]]]


def suggest(text: str, cursor: int, lookup: ValueLookup) -> tuple[Context, list[Suggestion]]:
    """The context at ``cursor`` and at most :data:`LIMIT` suggestions for it."""
    ctx = context_at(text, cursor)
    if ctx.expects == "field":
        items = [Suggestion(name, name + " ", "field", kind) for name, kind in FIELDS.values()]
        items += [
            Suggestion(f"{c}()", f"{c}() ", "function", "condition") for c in CONDITIONS.values()
        ]
        items.append(Suggestion("NOT", "NOT ", "keyword"))
    elif ctx.expects == "operator" and ctx.field:
        allowed = OPERATORS[FIELDS[ctx.field.lower()][1]]
        items = [
            Suggestion(label.strip(" ("), label, "operator")
            for op, label in _OPERATOR_LABELS
            if op in allowed
        ]
        if ctx.field in _NULLABLE:
            items += [
                Suggestion("IS EMPTY", "IS EMPTY ", "operator"),
                Suggestion("IS NOT EMPTY", "IS NOT EMPTY ", "operator"),
            ]
    elif ctx.expects == "not_in":
        items = [Suggestion("IN", "IN (", "operator")]
    elif ctx.expects == "empty":
        items = [
            Suggestion("EMPTY", "EMPTY ", "operator"),
            Suggestion("NOT EMPTY", "NOT EMPTY ", "operator"),
        ]
    elif ctx.expects == "value" and ctx.field:
        items = _values(ctx, lookup)
    elif ctx.expects == "keyword":
        items = [Suggestion("AND", "AND ", "keyword"), Suggestion("OR", "OR ", "keyword")]
    else:
        items = []
    return ctx, _ranked(ctx.prefix, items)


def _values(ctx: Context, lookup: ValueLookup) -> list[Suggestion]:
    field = ctx.field or ""
    kind = FIELDS[field.lower()][1]
    if kind in ("date", "time"):
        return [
            Suggestion("today()", "today() ", "function", "today in the org's time zone"),
            Suggestion("-7d", "-7d ", "value", "a week ago"),
            Suggestion("-30d", "-30d ", "value", "30 days ago"),
            Suggestion("+7d", "+7d ", "value", "in a week"),
        ]
    if kind in ("text", "search"):
        return []  # free text: nothing to offer
    if kind == "enum":
        return [Suggestion(v, v + " ", "value") for v in ENUMS[field]]
    items = []
    if field == "assignee":
        items.append(Suggestion("currentUser()", "currentUser() ", "function", "you"))
    items += [
        Suggestion(label, quoted(label) + " ", "value", detail)
        for label, detail in lookup(field, ctx.prefix)
    ]
    return items


__all__ = ["LIMIT", "Context", "Suggestion", "context_at", "quoted", "suggest"]
