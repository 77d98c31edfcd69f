"""The read queries a test's store sends: a spy the query-cost tests share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_agents.kg import KnowledgeGraph


def read_queries(kg: KnowledgeGraph, keep: Callable[[str], bool] = lambda _: True) -> list[str]:
    """The text of every read query ``kg.store`` sends from now on that ``keep`` accepts (the list fills as they go)."""
    sent: list[str] = []
    query = kg.store.ro_query

    async def spy(statement: str, params: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        if keep(statement):
            sent.append(statement)
        return await query(statement, params, *args, **kwargs)

    kg.store.ro_query = spy  # type: ignore[method-assign,assignment]
    return sent
