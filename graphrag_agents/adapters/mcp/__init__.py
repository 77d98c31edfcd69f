"""The MCP adapter: the graph tools as an MCP server.

``server`` holds :class:`GraphRAGMCPServer`; the private modules beside it each do one job (``_http`` and
``_stdio`` the transports, ``_peers`` the addresses behind a trusted proxy, ``_sessions`` the per-client evidence
sessions, ``_truncate`` the shortening of large results, ``_failures`` the errors shown to clients, ``_notes`` and
``_instructions`` the text sent to the model). The public names load the ``mcp`` SDK on first use. The
``graphrag-mcp`` command line (options, serve loop, start-up errors) is :mod:`graphrag_agents.cli.mcp_command`;
``main`` here is a deprecated forward to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import (
        DEFAULT_CALL_TIMEOUT,
        MAX_RESULT_CHARS,
        RESULT_META_KEY,
        STRUCTURED_TOOLS,
        GraphRAGMCPServer,
        StructuredMode,
        main,
    )

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "MAX_RESULT_CHARS",
    "RESULT_META_KEY",
    "STRUCTURED_TOOLS",
    "GraphRAGMCPServer",
    "StructuredMode",
    "main",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
