"""The org task search: the project list's query (search, PQL filter, sort, paging)
over every project of the org, through the same list service."""

from __future__ import annotations

from dataclasses import dataclass, field

from workspace.core import accounts, task_lists
from workspace.core.models import Task
from workspace.security.permissions import Access
from workspace.tracker.listing import PAGE_SIZE, ListPageQuery, pql_condition


@dataclass
class SearchResult:
    query: ListPageQuery
    rows: list[Task] = field(default_factory=list)
    total: int = 0
    #: Assignee id -> account, for the rows' names (former members included).
    people: dict = field(default_factory=dict)

    @property
    def next_offset(self) -> int:
        return self.query.offset + PAGE_SIZE


def search_tasks(access: Access, query: ListPageQuery) -> SearchResult:
    """One page of the org's tasks matching ``query`` and how many match; archived
    and deleted tasks never show (as on a project's list). Raises ``PQLError`` (400
    on ``pql``) when the filter cannot run."""
    flt = task_lists.TaskFilter(
        state_category=query.category,
        search=query.q or None,
        condition=pql_condition(access, query.pql),
    )
    rows, total = task_lists.list_tasks(
        access.org.id,
        flt,
        limit=PAGE_SIZE,
        offset=query.offset,
        sort=query.sort,
        descending=query.dir == "desc",
    )
    members = accounts.list_members(access.org.id, include_inactive=True)
    people: dict = {m.account_id: m.account for m in members}
    return SearchResult(query=query, rows=rows, total=total, people=people)


__all__ = ["SearchResult", "search_tasks"]
