"""Command-line options of the MCP server (``graphrag-mcp`` and ``graphrag-agents mcp``) and the serve loop.

This module does not import the ``mcp`` package, so the main CLI can list the ``mcp`` command without it.

Settings come from flags, else the environment: ``FALKOR_URL`` / ``FALKOR_HOST`` / ``FALKOR_PORT`` /
``FALKOR_USERNAME`` / ``FALKOR_PASSWORD`` (the graph store; none set: the embedded FalkorDB in ``GRAPHRAG_HOME`` or
``./.graphrag``), ``GRAPHRAG_GRAPH``, ``GRAPHRAG_EMBED_MODEL`` / ``GRAPHRAG_EMBED_DIM`` /
``GRAPHRAG_EMBED_SEND_DIMENSIONS`` (the embedder), ``GRAPHRAG_MODEL`` (the LLM of the write side),
``GRAPHRAG_MCP_READ_ONLY``, ``GRAPHRAG_MCP_FILES_ROOT`` and ``GRAPHRAG_MCP_TOKEN`` (the bearer token; read from
the environment only, so it never shows in a process list).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TYPE_CHECKING

from .._env import env_flag
from ..errors import ConfigurationError

if TYPE_CHECKING:
    from ..kg import KnowledgeGraph

__all__ = ["add_arguments", "env_flag", "serve"]


def add_arguments(parser: argparse.ArgumentParser, *, common: bool = False) -> None:
    """Add the MCP server's options to ``parser`` (``common``: also --url, --graph and --data-dir)."""
    if common:
        parser.add_argument("--url", help="FalkorDB URL (default: FALKOR_URL / FALKOR_HOST, else embedded)")
        parser.add_argument("--graph", help="graph name (default: GRAPHRAG_GRAPH or 'default')")
        parser.add_argument("--data-dir", help="embedded FalkorDB folder (default: GRAPHRAG_HOME or ./.graphrag)")
    parser.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio",
                        help="stdio (default, for local clients), streamable http, or legacy sse")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind for http/sse (default 127.0.0.1; other hosts need GRAPHRAG_MCP_TOKEN)")
    parser.add_argument("--port", type=int, default=8000, help="port for http/sse (default 8000)")
    parser.add_argument("--path", default="/mcp", help="endpoint path for http (default /mcp)")
    parser.add_argument("--read-only", action="store_true", default=None,
                        help="serve the read tools only (default: GRAPHRAG_MCP_READ_ONLY)")
    parser.add_argument("--files-root", help="folder the write tools may read files from "
                                             "(default: GRAPHRAG_MCP_FILES_ROOT; none: text only)")
    parser.add_argument("--call-timeout", type=float, default=120.0,
                        help="seconds a tool call may run (default 120; 0: no limit)")
    parser.add_argument("--max-result-chars", type=int, default=40_000,
                        help="results longer than this are shortened (default 40000)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="log level; logs go to stderr (default info)")


def _configure_logging(level: str) -> None:
    # stdout belongs to the protocol over stdio: every log line goes to stderr.
    logging.basicConfig(level=level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("LITELLM_LOG", "ERROR")


async def serve(args: argparse.Namespace) -> int:
    """Open the graph the options name and serve it until the client leaves or the process is stopped."""
    _configure_logging(args.log_level)
    read_only = True if args.read_only else env_flag("GRAPHRAG_MCP_READ_ONLY")
    files_root = args.files_root or os.environ.get("GRAPHRAG_MCP_FILES_ROOT") or None
    token = os.environ.get("GRAPHRAG_MCP_TOKEN") or None
    if args.transport != "stdio":
        from ._mcp_http import check_binding

        check_binding(args.host, token)  # before starting anything

    if read_only:
        _require_existing_folder(args.url, args.data_dir)

    from ..kg import KnowledgeGraph
    from .mcp import GraphRAGMCPServer

    def build(kg: KnowledgeGraph) -> GraphRAGMCPServer:
        return GraphRAGMCPServer(kg, read_only=read_only, files_root=files_root, token=token,
                                 call_timeout=args.call_timeout or None, max_result_chars=args.max_result_chars)

    if args.transport == "stdio":
        from mcp.server.stdio import stdio_server

        from ._mcp_stdio import AnsweringReadStream

        # Claim stdout before the graph opens, so nothing printed while starting reaches the protocol stream.
        async with stdio_server() as (read, write), await KnowledgeGraph.open(
                url=args.url, graph=args.graph, data_dir=args.data_dir) as kg:
            server = build(kg)
            logging.getLogger("graphrag_agents.mcp").info("serving graph %r over stdio (%d tools)", kg.name,
                                                          len(server.tools))
            await _warn_if_missing(kg)
            await server.server.run(AnsweringReadStream(read, write), write,
                                    server.server.create_initialization_options())
        return 0
    async with await KnowledgeGraph.open(url=args.url, graph=args.graph, data_dir=args.data_dir) as kg:
        server = build(kg)
        logging.getLogger("graphrag_agents.mcp").info(
            "serving graph %r over %s on %s:%d (%d tools)", kg.name, args.transport, args.host, args.port,
            len(server.tools))
        await _warn_if_missing(kg)
        await server.run(args.transport, host=args.host, port=args.port, path=args.path, log_level=args.log_level)
    return 0


def _require_existing_folder(url: str | None, data_dir: str | None) -> None:
    """A read-only server on the embedded store must find its data folder: a mistyped path would otherwise
    start an empty database there and fail only at the first tool call."""
    from ..store.connection import resolve_address

    address = resolve_address(url, data_dir)
    folder = address.data_dir or ".graphrag"
    if address.embedded and not os.path.isdir(folder):
        raise ConfigurationError(
            f"The data folder {os.path.abspath(folder)} does not exist, and a read-only server only serves a graph "
            "that is already built. Fix: point --data-dir (or GRAPHRAG_HOME) at the folder holding the graph "
            "(the .graphrag folder where you ran graphrag-agents ingest or demo), or build the graph there first."
        )


async def _warn_if_missing(kg: KnowledgeGraph) -> None:
    if not await kg.store.exists():
        logging.getLogger("graphrag_agents.mcp").warning(
            "graph %r does not exist yet in %s: the read tools will say so until it is built "
            "(graphrag-agents ingest ... --graph %s, or the ingest tool)", kg.name, kg.store.address.describe(),
            kg.name)
