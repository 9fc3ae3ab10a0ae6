"""PQL text -> a small, checked syntax tree (grammar.lark).

The tree keeps each node's position so later stages (name resolution, the compiler)
can say where a problem is. Everything that can go wrong with user text ends as a
:class:`PQLError`, never as another exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Union

from lark import (
    Lark,
    Token,
    Transformer,
    Tree,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
)
from lark.exceptions import UnexpectedToken, VisitError

from workspace.analytics.pql.hints import did_you_mean
from workspace.analytics.vocabulary import MAX_PQL_LENGTH
from workspace.errors import ServiceError

#: Deepest nesting of NOT, AND and OR a filter may have. Far beyond a filter a person
#: writes; SQLite's parser stack gives out near 45 levels of parentheses.
MAX_DEPTH = 16


class PQLError(ServiceError):
    """A PQL filter the service cannot run; 400 naming the position and the fix."""

    def __init__(
        self, message: str, *, line: int = 1, column: int = 1, field: str = "filter"
    ) -> None:
        super().__init__(f"PQL error at line {line}, column {column}: {message}", field=field)
        self.line, self.column = line, column


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


@dataclass(frozen=True)
class Value:
    #: string (quoted or bare word), date, reldate (days from today) or function.
    kind: str
    value: str | date | int
    pos: Pos


@dataclass(frozen=True)
class Compare:
    field: str
    #: = != ~ !~ < <= > >= in notin
    op: str
    values: tuple[Value, ...]
    pos: Pos


@dataclass(frozen=True)
class Empty:
    field: str
    negated: bool
    pos: Pos


@dataclass(frozen=True)
class Call:
    name: str
    pos: Pos


@dataclass(frozen=True)
class Not:
    expr: Node


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]


Node = Union[Compare, Empty, Call, Not, And, Or]  # noqa: UP007

#: field (lowercase) -> (canonical name, type). Types: enum, name, text, date, time,
#: search (``text ~ "login flow"``: the full-text index, docs/search.md).
FIELDS = {
    "status": ("status", "name"),
    "statuscategory": ("statusCategory", "enum"),
    "priority": ("priority", "enum"),
    "kind": ("kind", "enum"),
    "assignee": ("assignee", "name"),
    "project": ("project", "name"),
    "cycle": ("cycle", "name"),
    "module": ("module", "name"),
    "title": ("title", "text"),
    "text": ("text", "search"),
    "duedate": ("dueDate", "date"),
    "createdat": ("createdAt", "time"),
    "completedat": ("completedAt", "time"),
}
#: Operators allowed per field type.
OPERATORS = {
    "enum": {"=", "!=", "in", "notin"},
    "name": {"=", "!=", "in", "notin"},
    "text": {"=", "!=", "~", "!~", "in", "notin"},
    "date": {"=", "!=", "<", "<=", ">", ">="},
    "time": {"=", "!=", "<", "<=", ">", ">="},
    "search": {"~", "!~"},
}
CONDITIONS = {
    "isoverdue": "isOverdue",
    "hasnoassignee": "hasNoAssignee",
    "iscounted": "isCounted",
}
VALUE_FUNCTIONS = {"currentuser": "currentUser", "today": "today"}

_TERMINALS = {
    "NAME": "a field name or a value",
    "OP": "an operator (= != ~ !~ < <= > >=)",
    "STRING": "a quoted string",
    "DATE": "a date like 2026-01-31",
    "WORD": "a field name or a value",  # the same words: listed once
    "RELDATE": "a relative date like -7d",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "_AND": "AND",
    "_OR": "OR",
    "_NOT": "NOT",
    "_IN": "IN",
    "_IS": "IS",
    "_EMPTY": "EMPTY",
    "$END": "the end of the filter",
}


def _describe(expected: set[str]) -> str:
    names = sorted({_TERMINALS.get(t, t) for t in expected})
    return ", ".join(names) if names else "something else"


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(
        (Path(__file__).parent / "grammar.lark").read_text(),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
    )


def _pos(token: Token) -> Pos:
    return Pos(token.line or 1, token.column or 1)


def _unquote(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw[1:-1])


class _Build(Transformer):
    def or_expr(self, items):
        return Or(tuple(items))

    def and_expr(self, items):
        return And(tuple(items))

    def negation(self, items):
        return Not(items[0])

    def string(self, items):
        return Value("string", _unquote(items[0]), _pos(items[0]))

    def bare(self, items):
        return Value("string", str(items[0]), _pos(items[0]))

    def date(self, items):
        token = items[0]
        try:
            return Value("date", date.fromisoformat(str(token)), _pos(token))
        except ValueError:
            raise PQLError(
                f"'{token}' is not a valid date (use YYYY-MM-DD).",
                line=token.line,
                column=token.column,
            ) from None

    def reldate(self, items):
        token = str(items[0])
        amount = int(token[:-1]) * (7 if token[-1].lower() == "w" else 1)
        return Value("reldate", amount, _pos(items[0]))

    def function(self, items):
        name = _called(
            items[0], VALUE_FUNCTIONS, "function", "values may use currentUser() or today()."
        )
        return Value("function", name, _pos(items[0]))

    def values(self, items):
        return tuple(items)

    def compare(self, items):
        name, op, value = items
        return _checked(name, str(op), (value,))

    def in_list(self, items):
        return _checked(items[0], "in", items[1])

    def not_in_list(self, items):
        return _checked(items[0], "notin", items[1])

    def is_empty(self, items):
        return Empty(_field(items[0]), False, _pos(items[0]))

    def is_not_empty(self, items):
        return Empty(_field(items[0]), True, _pos(items[0]))

    def call(self, items):
        hint = "use isOverdue(), hasNoAssignee() or isCounted(), or compare a field."
        return Call(_called(items[0], CONDITIONS, "condition", hint), _pos(items[0]))


def _called(token: Token, known: dict[str, str], what: str, hint: str) -> str:
    """The canonical name of the function or condition ``token`` names; an unknown one
    is a PQLError naming the nearest known name when one is close."""
    name = known.get(str(token).lower())
    if name is None:
        message = f"unknown {what} '{token}()'"
        raise PQLError(
            did_you_mean(message, str(token), known.values(), hint, suffix="()"),
            line=token.line,
            column=token.column,
        )
    return name


def _field(token: Token) -> str:
    entry = FIELDS.get(str(token).lower())
    if entry is None:
        names = [name for name, _ in FIELDS.values()]
        raise PQLError(
            did_you_mean(
                f"unknown field '{token}'",
                str(token),
                names,
                f"expected one of: {', '.join(names)}.",
            ),
            line=token.line,
            column=token.column,
        )
    return entry[0]


def field_type(field: str) -> str:
    return FIELDS[field.lower()][1]


def _checked(token: Token, op: str, values: tuple[Value, ...]) -> Compare:
    field = _field(token)
    kind = field_type(field)
    if op not in OPERATORS[kind]:
        shown = {"in": "IN", "notin": "NOT IN"}.get(op, op)
        allowed = ", ".join(
            sorted({"in": "IN", "notin": "NOT IN"}.get(o, o) for o in OPERATORS[kind])
        )
        raise PQLError(
            f"operator {shown} does not apply to {field}; use {allowed}.",
            line=token.line,
            column=token.column,
        )
    for value in values:
        _check_value(field, kind, value)
    return Compare(field, op, values, _pos(token))


def _check_value(field: str, kind: str, value: Value) -> None:
    where = {"line": value.pos.line, "column": value.pos.column}
    if kind in ("date", "time"):
        if value.kind == "string" or (value.kind == "function" and value.value != "today"):
            raise PQLError(
                f"{field} compares with a date like 2026-01-31, a relative "
                "date like -7d, or today().",
                **where,
            )
    elif value.kind in ("date", "reldate"):
        raise PQLError(f"{field} compares with a name or a quoted string, not a date.", **where)
    elif value.kind == "function" and not (field == "assignee" and value.value == "currentUser"):
        raise PQLError(f"{value.value}() cannot be compared with {field}.", **where)


def parse(text: str) -> Node:
    """Parse and check PQL; raises :class:`PQLError` on any problem."""
    if len(text) > MAX_PQL_LENGTH:
        raise PQLError(f"the filter is longer than {MAX_PQL_LENGTH} characters.")
    if not text.strip():
        raise PQLError("the filter is empty.")
    if "\x00" in text:  # PostgreSQL text cannot hold NUL; no filter needs one
        before = text[: text.index("\x00")]
        raise PQLError(
            "the filter contains a NUL character.",
            line=before.count("\n") + 1,
            column=len(before.rsplit("\n", 1)[-1]) + 1,
        )
    try:
        tree = _parser().parse(text)
        _check_depth(tree)
        return _Build().transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, PQLError):
            raise exc.orig_exc from None
        raise PQLError("the filter could not be read.") from None
    except UnexpectedEOF as exc:
        line, column = _end(text)
        raise PQLError(
            f"the filter ends too early; expected {_describe(exc.expected)}.",
            line=line,
            column=column,
        ) from None
    except UnexpectedCharacters as exc:
        raise PQLError(
            f"unexpected character {text[exc.pos_in_stream]!r}; expected "
            f"{_describe(exc.allowed or set())}.",
            line=exc.line,
            column=exc.column,
        ) from None
    except UnexpectedToken as exc:
        if exc.token.type == "$END":
            line, column = _end(text)
            raise PQLError(
                f"the filter ends too early; expected {_describe(exc.expected)}.",
                line=line,
                column=column,
            ) from None
        raise PQLError(
            f"unexpected {exc.token!s:.40}; expected {_describe(exc.expected)}.",
            line=exc.line,
            column=exc.column,
        ) from None
    except UnexpectedInput as exc:  # any other lark parse failure
        raise PQLError(
            "the filter could not be read.",
            line=getattr(exc, "line", 1),
            column=getattr(exc, "column", 1),
        ) from None


_NESTING = {"or_expr", "and_expr", "negation"}


def _check_depth(tree: Tree) -> None:
    """Refuse a parse tree nesting NOT, AND and OR deeper than :data:`MAX_DEPTH`,
    pointing at where the part that is too deep starts. Runs on lark's tree before
    it is transformed, walking with a list rather than recursion, so no depth a
    2,000-character filter can reach overflows the stack."""
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data in _NESTING:
            if depth >= MAX_DEPTH:
                raise PQLError(
                    f"the filter nests more than {MAX_DEPTH} levels deep (NOT, AND, OR and "
                    "parentheses); write it flatter, e.g. with IN or NOT IN.",
                    line=getattr(node.meta, "line", 1),
                    column=getattr(node.meta, "column", 1),
                )
            depth += 1
        stack.extend((child, depth) for child in node.children if isinstance(child, Tree))


def _end(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1
