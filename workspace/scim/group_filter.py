"""SCIM filters on Groups (RFC 7644 §3.4.2.2) as SQL: ``eq`` on ``displayName``
(without case, as uniqueness compares it), ``externalId`` and ``id``, joined by
``and``/``or``. Anything else is ``invalidFilter`` rather than matching every group."""

from __future__ import annotations

import uuid

from scim2_models import InvalidFilterException
from scim2_models.path import CompareOperator, Comparison, FilterNode, LogicalExpr, LogicalOperator
from sqlalchemy import ColumnElement, and_, false, or_

from workspace.scim.group_models import ScimGroup
from workspace.scim.resources import GROUP_SCHEMA

SUPPORTED = "Supported group filters: eq on id, displayName and externalId, combined with and/or."


def name_key(value: str) -> str:
    return value.strip().lower()


def _string(node: Comparison) -> str:
    if not isinstance(node.value, str):
        raise InvalidFilterException(detail=f"{node.attr_path} compares with a string. {SUPPORTED}")
    return node.value


def to_sql(node: FilterNode) -> ColumnElement[bool]:
    """The WHERE clause for a parsed Groups filter (scim2-models ``ScimFilter.ast``)."""
    if isinstance(node, LogicalExpr):
        parts = [to_sql(term) for term in node.terms]
        return and_(*parts) if node.op == LogicalOperator.and_ else or_(*parts)
    if isinstance(node, Comparison) and node.op == CompareOperator.eq:
        uri = (node.attr_path.uri or "").lower()
        attr = node.attr_path.attr.lower()
        if uri in ("", GROUP_SCHEMA.lower()) and not node.attr_path.sub_attr:
            if attr == "displayname":
                return ScimGroup.display_name_key == name_key(_string(node))
            if attr == "externalid":
                return ScimGroup.external_id == _string(node)
            if attr == "id":
                try:
                    return ScimGroup.id == uuid.UUID(_string(node))
                except ValueError:
                    return false()
    raise InvalidFilterException(detail=f"{node} is not supported. {SUPPORTED}")
