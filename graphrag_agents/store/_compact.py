"""A lean read path: the query's parameter header and its compact reply, done without the driver's per-value work.

Retrieval sends 10-16 read queries a question, and the ``falkordb`` driver spends more of the client's time on
them than the server does: it formats every parameter through a recursive function and parses every cell of
the reply through its own coroutine. Here the header is written with the same syntax in one pass
(:func:`params_header`, the driver's ``_build_params_header`` byte for byte) and a reply holding only scalars
and lists (what the package's reads return) is parsed synchronously (:func:`scalar_rows`); any other reply
(a node, an edge, a path, a map, an error) goes to the driver's own parser, unchanged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["params_header", "read_rows", "scalar_rows"]

_RO_QUERY = "GRAPH.RO_QUERY"
# compact reply cell types (FalkorDB's ResultSetScalarTypes)
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6


class _NotScalar(Exception):
    """A cell this parser leaves to the driver's."""


def _quote(text: str) -> str:
    if "\\" not in text and '"' not in text:  # the common case: nothing to escape
        return '"' + text + '"'
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _literal(value: Any) -> str:
    """``value`` as the driver's ``stringify_param_value`` writes it."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        if all(type(item) is str for item in value):  # the common case: ids, names, words
            return "[" + ",".join(map(_quote, value)) + "]"
        return "[" + ",".join(map(_literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"`{_key(k)}`:{_literal(v)}" for k, v in value.items()) + "}"
    return str(value)


def _key(key: Any) -> str:
    text = key.decode() if isinstance(key, bytes) else str(key)
    if text == "" or "`" in text:
        raise ValueError(f"Cypher parameter or map key {text!r} must be non-empty and free of backticks")
    return text


def params_header(params: dict[str, Any] | None) -> str:
    """The ``CYPHER name=value ...`` prefix carrying ``params`` ("" for None)."""
    if params is None:
        return ""
    return "CYPHER " + "".join(f"`{_key(k)}`={_literal(v)} " for k, v in params.items())


def _cell(cell: Any) -> Any:
    kind, value = cell
    if kind == _STRING:
        return value if type(value) is str else value.decode() if isinstance(value, bytes) else str(value)
    if kind == _DOUBLE:
        return float(value)
    if kind == _INTEGER:
        return int(value)
    if kind == _NULL:
        return None
    if kind == _ARRAY:  # a string item, the most common, read inline
        return [v if k == _STRING and type(v) is str else _cell((k, v)) for k, v in value]
    if kind == _BOOLEAN:
        return (value.decode() if isinstance(value, bytes) else value) == "true"
    raise _NotScalar


def scalar_rows(response: Any) -> list[list[Any]] | None:
    """The rows of a compact ``GRAPH.RO_QUERY`` reply, or None when it holds an error or a cell that is not a
    scalar or a list of them (the driver's parser handles those)."""
    if not isinstance(response, list) or not response or isinstance(response[0], Exception) \
            or isinstance(response[-1], Exception):
        return None
    if len(response) == 1:  # statistics only: no result set
        return []
    try:
        # a string cell, the most common, is read inline
        return [[v if k == _STRING and type(v) is str else _cell((k, v)) for k, v in row] for row in response[1]]
    except (_NotScalar, TypeError, ValueError):
        return None


async def read_rows(graph: Any, query: str, params: dict[str, Any] | None, timeout: int | None) -> list[list[Any]]:
    """Run ``query`` read-only on the driver's graph handle ``graph`` and return its rows, as
    ``graph.ro_query(query, params, timeout).result_set`` would."""
    command: list[Any] = [_RO_QUERY, graph.name, params_header(params) + query, "--compact"]
    if isinstance(timeout, int):
        command += ["timeout", timeout]
    elif timeout is not None:
        raise TypeError("timeout must be a whole number of milliseconds")
    response = await graph.execute_command(*command)
    rows = scalar_rows(response)
    if rows is not None:
        return rows
    from falkordb.asyncio.query_result import QueryResult
    from falkordb.exceptions import SchemaVersionMismatchException

    result = QueryResult(graph)
    try:
        await result.parse(response)
    except SchemaVersionMismatchException as exc:  # as the driver does: refresh its schema view, then raise
        await graph.schema.refresh(exc.version)
        raise
    return list(result.result_set)
