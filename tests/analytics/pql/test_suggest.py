"""The PQL box's suggester and did-you-mean hints, without a database: what the
cursor is at, what is offered there, and the nearest name offered for a typo."""

from __future__ import annotations

import pytest

from workspace.analytics.pql import PQLError, parse
from workspace.analytics.pql.hints import nearest
from workspace.analytics.pql.suggest import LIMIT, context_at, quoted, suggest

NAMES = {
    "status": [("Done", ""), ("In Progress", ""), ("Todo", "")],
    "assignee": [("ada@example.test", "Ada Lovelace")],
    "project": [("WEB", "Web App")],
}


def lookup(field, prefix):
    return NAMES.get(field, [])


def inserts(text, cursor=None):
    _ctx, items = suggest(text, len(text) if cursor is None else cursor, lookup)
    return [s.insert for s in items]


@pytest.mark.parametrize(
    "text,expects,field,prefix",
    [
        ("", "field", None, ""),
        ("sta", "field", None, "sta"),
        ("(kin", "field", None, "kin"),
        ("kind = bug AND ass", "field", None, "ass"),
        ("kind = bug or NOT pri", "field", None, "pri"),
        ("status ", "operator", "status", ""),
        ("status = ", "value", "status", ""),
        ('status = "In P', "value", "status", "In P"),
        ("assignee IN (ada, ", "value", "assignee", ""),
        ("assignee NOT IN (", "value", "assignee", ""),
        ("assignee NOT ", "not_in", "assignee", ""),
        ("dueDate IS ", "empty", "dueDate", ""),
        ("status = Done ", "keyword", None, ""),
        ("(status = Done) ", "keyword", None, ""),
    ],
)
def test_context_at_the_cursor(text, expects, field, prefix):
    ctx = context_at(text, len(text))
    assert (ctx.expects, ctx.field, ctx.prefix) == (expects, field, prefix)


def test_fields_conditions_and_keywords_start_a_filter():
    offered = inserts("")
    assert offered[:2] == ["status ", "statusCategory "]
    assert "isOverdue() " in offered and "NOT " in offered
    assert len(offered) <= LIMIT
    assert inserts("has") == ["hasNoAssignee() "]


def test_operators_follow_the_field_type():
    assert inserts("priority ") == ["= ", "!= ", "IN (", "NOT IN ("]
    assert "< " in inserts("dueDate ") and "IS EMPTY " in inserts("dueDate ")
    assert inserts("text ") == ["~ ", "!~ "]
    assert inserts("assignee NOT ") == ["IN ("]
    assert inserts("cycle IS ") == ["EMPTY ", "NOT EMPTY "]


def test_values_enums_names_and_functions():
    assert inserts("priority = h") == ["high "]
    assert inserts("statusCategory IN (ca") == ["cancelled "]
    assert inserts("statusCategory = c")[:2] == ["completed ", "cancelled "]  # starts first
    assert inserts("status = in") == ['"In Progress" ']  # quoted: it has a space
    assert inserts("assignee = ") == ["currentUser() ", '"ada@example.test" ']
    assert inserts("dueDate < ")[0] == "today() "
    assert inserts("title ~ ") == []  # free text: nothing to offer


def test_the_replaced_range_covers_the_whole_word_at_the_cursor():
    ctx = context_at("priority = hi AND kind = bug", 12)
    assert (ctx.start, ctx.end, ctx.prefix) == (11, 13, "h")
    ctx = context_at('status = "In', 12)
    assert (ctx.start, ctx.end) == (9, 12)


def test_quoting_of_inserted_values():
    assert quoted("Done") == "Done"
    assert quoted("In Progress") == '"In Progress"'
    assert quoted("and") == '"and"'  # a keyword is not a bare value
    assert quoted('say "hi"') == '"say \\"hi\\""'


@pytest.mark.parametrize(
    "text,says",
    [
        ("asignee = x", "unknown field 'asignee'. Did you mean 'assignee'?"),
        ("stauts = Done", "Did you mean 'status'?"),
        ("duedate < today() OR priorty = high", "Did you mean 'priority'?"),
        ("isOverdu()", "unknown condition 'isOverdu()'. Did you mean 'isOverdue()'?"),
        ("assignee = currentUsr()", "Did you mean 'currentUser()'?"),
    ],
)
def test_typos_name_the_nearest_known_name(text, says):
    with pytest.raises(PQLError) as info:
        parse(text)
    assert says in info.value.message


def test_no_hint_when_nothing_is_close():
    with pytest.raises(PQLError) as info:
        parse("colour = red")
    assert "Did you mean" not in info.value.message
    assert "unknown field 'colour'; expected one of:" in info.value.message
    assert nearest("zzz", ["assignee", "status"]) is None
    assert nearest("ASIGNEE", ["assignee"]) == "assignee"
