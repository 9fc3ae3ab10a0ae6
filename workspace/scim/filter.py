"""SCIM filters (RFC 7644 §3.4.2.2) turned into SQL over members and their SCIM
identities. scim2-models parses and type-checks the filter; this module decides
what it means here, and refuses (``invalidFilter``) anything it cannot answer
exactly rather than matching every row.

Supported: ``eq`` on ``id``, ``userName``, ``externalId``, ``active``,
``emails.value`` and ``emails[type eq "..." and value eq "..."]`` (which is how
``emails[type eq "work"].value eq "..."`` parses), joined by ``and``/``or``.
"""

from __future__ import annotations

import uuid
from typing import Any

from scim2_models import InvalidFilterException
from scim2_models.path import (
    AttrPath,
    CompareOperator,
    Comparison,
    FilterNode,
    LogicalExpr,
    LogicalOperator,
    ValuePath,
)
from sqlalchemy import ColumnElement, and_, false, func, or_, true

from workspace.core.models import Account, OrgMember
from workspace.scim.models import ScimIdentity
from workspace.scim.resources import USER_SCHEMA

SUPPORTED = (
    "Supported filters: eq on id, userName, externalId, active, emails.value and "
    'emails[type eq "work"].value, combined with and/or.'
)


def _refuse(what: str) -> InvalidFilterException:
    return InvalidFilterException(detail=f"{what} {SUPPORTED}")


def user_name_key(value: str) -> str:
    """userName compares without case (RFC 7643 §4.1.1: caseExact false)."""
    return value.strip().lower()


def email_key(type_: str | None, value: str) -> str:
    return f"{(type_ or '').lower()}:{value.strip().lower()}"


def _name(attr: AttrPath) -> tuple[str, str | None]:
    if attr.uri and attr.uri.lower() != USER_SCHEMA.lower():
        raise _refuse(f"Unknown attribute {attr}.")
    return attr.attr.lower(), (attr.sub_attr or "").lower() or None


def _string(node: Comparison) -> str:
    if not isinstance(node.value, str):
        raise _refuse(f"{node.attr_path} compares with a string.")
    return node.value


def _email_match(type_: str | None, value: str | None) -> ColumnElement[bool]:
    """A member whose emails hold ``value`` (of ``type_``, when given). Members
    never touched by SCIM have one email, the account's, of type work."""
    if value is None:
        raise _refuse("An emails filter compares emails.value.")
    if type_ is None:
        stored = ScimIdentity.email_keys.contains(f":{value.strip().lower()} ", autoescape=True)
        fallback = Account.email == value.strip().lower()
    else:
        stored = ScimIdentity.email_keys.contains(f" {email_key(type_, value)} ", autoescape=True)
        fallback = and_(
            Account.email == value.strip().lower(), true() if type_.lower() == "work" else false()
        )
    return or_(
        and_(ScimIdentity.id.is_not(None), stored), and_(ScimIdentity.id.is_(None), fallback)
    )


def _comparison(node: Comparison) -> ColumnElement[bool]:
    if node.op != CompareOperator.eq:
        raise _refuse(f"The operator {node.op.value!r} is not supported.")
    attr, sub = _name(node.attr_path)
    if attr == "username" and sub is None:
        key = user_name_key(_string(node))
        return func.coalesce(ScimIdentity.user_name_key, Account.email) == key
    if attr == "externalid" and sub is None:
        return ScimIdentity.external_id == _string(node)
    if attr == "id" and sub is None:
        try:
            return OrgMember.id == uuid.UUID(_string(node))
        except ValueError:
            return false()
    if attr == "active" and sub is None:
        if not isinstance(node.value, bool):
            raise _refuse("active compares with true or false.")
        return OrgMember.active.is_(node.value)
    if attr == "emails" and sub in (None, "value"):
        return _email_match(None, _string(node))
    raise _refuse(f"Filtering on {node.attr_path} is not supported.")


def _value_path(node: ValuePath) -> ColumnElement[bool]:
    attr, _ = _name(node.attr_path)
    if attr != "emails" or node.sub_attr:
        raise _refuse(f"Filtering on {node} is not supported.")
    terms: list[Any] = (
        list(node.val_filter.terms)
        if isinstance(node.val_filter, LogicalExpr) and node.val_filter.op == LogicalOperator.and_
        else [node.val_filter]
    )
    found: dict[str, str] = {}
    for term in terms:
        if not isinstance(term, Comparison) or term.op != CompareOperator.eq:
            raise _refuse(f"Filtering on {node} is not supported.")
        sub = term.attr_path.attr.lower()
        if sub not in ("type", "value") or sub in found or term.attr_path.sub_attr:
            raise _refuse(f"Filtering on {node} is not supported.")
        found[sub] = _string(term)
    return _email_match(found.get("type"), found.get("value"))


def to_sql(node: FilterNode) -> ColumnElement[bool]:
    """The WHERE clause for a parsed filter (scim2_models ``ScimFilter.ast``)."""
    if isinstance(node, LogicalExpr):
        parts = [to_sql(term) for term in node.terms]
        return and_(*parts) if node.op == LogicalOperator.and_ else or_(*parts)
    if isinstance(node, Comparison):
        return _comparison(node)
    if isinstance(node, ValuePath):
        return _value_path(node)
    raise _refuse(f"{node} is not supported.")
