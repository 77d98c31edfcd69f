"""The MCP server's command line: ``graphrag-mcp`` (:func:`main`, also ``python -m graphrag_agents.cli.mcp_command``)
and ``graphrag-agents mcp``: their options, the serve loop, and the one-line errors of a failed start.

This module does not import the ``mcp`` package (the server, :mod:`graphrag_agents.adapters.mcp`, is imported when
serving starts), so the main CLI can list the ``mcp`` command and ``--help`` works without it.

The server is read-only unless ``--write`` (or ``GRAPHRAG_MCP_WRITE=1``) asks for the write tools, which change
the graph (``ingest``, ``set_ontology``, ``finalize``, ``add_facts``, and ``preview_files`` with a files root); a
start with them logs a warning naming them. Start-up errors print one ``error:`` line and a ``hint:`` line, exit 2.

Settings come from flags, else the environment: ``FALKOR_URL`` / ``FALKOR_HOST`` / ``FALKOR_PORT`` /
``FALKOR_USERNAME`` / ``FALKOR_PASSWORD`` (the graph store; none set: the embedded FalkorDB in ``GRAPHRAG_HOME`` or
``./.graphrag``), ``GRAPHRAG_GRAPH``, ``GRAPHRAG_EMBED_MODEL`` / ``GRAPHRAG_EMBED_DIM`` /
``GRAPHRAG_EMBED_SEND_DIMENSIONS`` (the embedder), ``GRAPHRAG_MODEL`` (the LLM of the write side),
``GRAPHRAG_MCP_WRITE``, ``GRAPHRAG_MCP_FILES_ROOT``, ``GRAPHRAG_MCP_TOOL_PREFIX`` and ``GRAPHRAG_MCP_TOKEN`` (the
bearer token; read from the environment only, so it never shows in a process list).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._env import env_bool, env_flag
from .._secrets import mask_secrets
from ..errors import ConfigurationError, GraphRAGError, ToolError

if TYPE_CHECKING:
    from ..kg import KnowledgeGraph
    from ..tools.write.sandbox import FilesRoot

__all__ = ["add_arguments", "main", "serve", "startup_error", "startup_error_text"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``graphrag-mcp``: parse the options, serve until stopped; a failed start prints ``error:`` and
    ``hint:`` lines and returns 2."""
    parser = argparse.ArgumentParser(prog="graphrag-mcp", description="Serve the graph tools over MCP "
                                                                       "(read-only unless --write).")
    add_arguments(parser, common=True)
    args = parser.parse_args(argv)
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        error = startup_error(exc)
        if error is None:
            raise
        print(startup_error_text(error), file=sys.stderr)
        return 2


def add_arguments(parser: argparse.ArgumentParser, *, common: bool = False) -> None:
    """Add the MCP server's options to ``parser`` (``common``: also --url, --graph and --data-dir)."""
    if common:
        from .first_run import package_version

        parser.add_argument("--version", action="version", version=f"graphrag-mcp {package_version()}")
        parser.add_argument("--url", help="FalkorDB URL (default: FALKOR_URL / FALKOR_HOST, else embedded)")
        parser.add_argument("--graph", help="graph name (default: GRAPHRAG_GRAPH or 'default')")
        parser.add_argument("--data-dir", help="embedded FalkorDB folder (default: GRAPHRAG_HOME or ./.graphrag)")
    parser.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio",
                        help="stdio (default, for local clients), streamable http, or legacy sse")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind for http/sse (default 127.0.0.1; other hosts need GRAPHRAG_MCP_TOKEN)")
    parser.add_argument("--port", type=int, default=8000, help="port for http/sse (default 8000)")
    parser.add_argument("--path", default="/mcp", help="endpoint path for http (default /mcp)")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                        help="IP address or network of a reverse proxy in front of the http server, whose "
                             "X-Forwarded-For names the client (repeatable; default: none, every request counts "
                             "as the address it comes from)")
    parser.add_argument("--write", action="store_true", default=None,
                        help="also serve the write tools, which change the graph (default: read tools only; "
                             "GRAPHRAG_MCP_WRITE=1)")
    parser.add_argument("--read-only", action="store_true", default=None,
                        help="serve the read tools only (the default; kept for older configs)")
    parser.add_argument("--files-root", help="folder the write tools may read files from, with --write "
                                             "(default: GRAPHRAG_MCP_FILES_ROOT; none: text only)")
    parser.add_argument("--allow-hard-links", action="store_true",
                        help="read hard-linked files under --files-root (refused by default: a hard link can name "
                             "a file outside the folder)")
    parser.add_argument("--tool-prefix", default=None,
                        help="put this before every tool name, e.g. kg_ (default: GRAPHRAG_MCP_TOOL_PREFIX)")
    parser.add_argument("--citation-packs", default=None, metavar="NAMES",
                        help="rule packs check_citations adds to its general rules, comma-separated, e.g. records "
                             "(business records with reviews); default: none")
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


def _write_requested(args: argparse.Namespace) -> bool:
    """Whether the write tools are served: only when asked for, and never together with a read-only request."""
    write = bool(args.write) or env_flag("GRAPHRAG_MCP_WRITE")
    read_only = bool(args.read_only) or env_bool("GRAPHRAG_MCP_READ_ONLY") is True
    if write and read_only:
        raise ConfigurationError(
            "Both write tools (--write / GRAPHRAG_MCP_WRITE) and read-only (--read-only / GRAPHRAG_MCP_READ_ONLY) "
            "were asked for. Fix: drop one of them (read-only is the default).")
    if env_bool("GRAPHRAG_MCP_READ_ONLY") is False and not write:
        logging.getLogger("graphrag_agents.mcp").warning(
            "GRAPHRAG_MCP_READ_ONLY=false no longer serves the write tools: pass --write (or GRAPHRAG_MCP_WRITE=1)")
    return write


def _files_root(files_root: str | None, write: bool, allow_hard_links: bool) -> FilesRoot | None:
    """The sandbox the options name (checked before the graph is opened), or None."""
    if files_root is None:
        if allow_hard_links:
            raise ConfigurationError("--allow-hard-links only applies to a files root. Fix: add --files-root "
                                     "DIR (or GRAPHRAG_MCP_FILES_ROOT), or drop --allow-hard-links.")
        return None
    if not write:
        raise ConfigurationError(
            f"A files root ({files_root}) was given, but only the write tools read files and the server is "
            "read-only by default. Fix: add --write (or GRAPHRAG_MCP_WRITE=1) to serve them, or drop --files-root "
            "/ GRAPHRAG_MCP_FILES_ROOT.")
    from ..tools.write.sandbox import FilesRoot

    return FilesRoot(files_root, allow_hard_links=allow_hard_links)  # a missing or refused folder fails here


async def serve(args: argparse.Namespace) -> int:
    """Open the graph the options name and serve it until the client leaves or the process is stopped."""
    _configure_logging(args.log_level)
    write = _write_requested(args)
    read_only = not write
    files_root = _files_root(args.files_root or os.environ.get("GRAPHRAG_MCP_FILES_ROOT") or None, write,
                             args.allow_hard_links)
    prefix = args.tool_prefix if args.tool_prefix is not None else os.environ.get("GRAPHRAG_MCP_TOOL_PREFIX", "")
    packs = _citation_packs(getattr(args, "citation_packs", None))  # an unknown pack fails before the graph opens
    token = os.environ.get("GRAPHRAG_MCP_TOKEN") or None
    if args.transport != "stdio":
        from ..adapters.mcp._http import check_binding
        from ..adapters.mcp._peers import TrustedProxies

        check_binding(args.host, token)  # before starting anything
        TrustedProxies(args.trusted_proxy)  # a bad address fails here, before the graph opens

    if read_only:
        _require_existing_folder(args.url, args.data_dir)

    from ..adapters.mcp.server import GraphRAGMCPServer
    from ..kg import KnowledgeGraph

    def build(kg: KnowledgeGraph) -> GraphRAGMCPServer:
        server = GraphRAGMCPServer(kg, read_only=read_only, files_root=files_root, token=token,
                                   call_timeout=args.call_timeout or None, max_result_chars=args.max_result_chars,
                                   tool_prefix=prefix, trusted_proxies=args.trusted_proxy, citation_packs=packs)
        writes = [t.name for t in server.tools if not (t.annotations and t.annotations.read_only_hint)]
        if writes:
            logging.getLogger("graphrag_agents.mcp").warning(
                "serving the WRITE tools %s: clients can change the graph %r (start without --write for read-only)",
                ", ".join(writes), kg.name)
        return server

    if args.transport == "stdio":
        from ..adapters.mcp._stdio import stdio_transport

        # Claim stdout before the graph opens, so nothing printed while starting reaches the protocol stream.
        async with stdio_transport() as (read, write), await KnowledgeGraph.open(
                url=args.url, graph=args.graph, data_dir=args.data_dir) as kg:
            server = build(kg)
            logging.getLogger("graphrag_agents.mcp").info("serving graph %r over stdio (%d tools)", kg.name,
                                                          len(server.tools))
            await _warn_if_missing(kg)
            await server.server.run(read, write,
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


def _citation_packs(names: str | None) -> tuple[str, ...]:
    """The packs ``--citation-packs`` names; ConfigurationError naming the known packs for another name."""
    from ..citations import check_packs

    return check_packs([n for n in (names or "").split(",") if n.strip()])


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
        others = [n for n in await kg.store.graph_names() if n != kg.name]
        log = logging.getLogger("graphrag_agents.mcp")
        if others:  # most likely a mistyped --graph: name what is there, not how to build the typo
            log.warning("graph %r does not exist in %s, which holds: %s. Start the server with --graph NAME (or "
                        "GRAPHRAG_GRAPH=NAME) for one of them; until then the read tools say the graph is missing",
                        kg.name, kg.store.address.describe(), ", ".join(others[:20]))
            return
        log.warning(
            "graph %r does not exist yet in %s: the read tools will say so until it is built "
            "(graphrag-agents ingest ... --graph %s, or the ingest tool)", kg.name, kg.store.address.describe(),
            kg.name)


def startup_error(exc: BaseException) -> GraphRAGError | None:
    """The GraphRAGError behind a failed start, also when the stdio or HTTP task group wrapped it in a group; an
    extra's module that is not installed is one too (a :class:`ConfigurationError` naming the install line)."""
    from .._install import missing_extra

    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, (list, tuple)) and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc if isinstance(exc, GraphRAGError) else missing_extra(exc)


def startup_error_text(error: GraphRAGError) -> str:
    """``error: <message>`` and, when the error names one, a ``hint: <fix>`` line; secrets masked."""
    if isinstance(error, ToolError):
        message, hint = error.message, error.hint
    else:
        message, _, fix = str(error).partition(" Fix: ")
        hint = fix
    secrets = [os.environ.get("GRAPHRAG_MCP_TOKEN", "")]
    text = f"error: {mask_secrets(message, secrets)}"
    return text + (f"\nhint: {mask_secrets(hint, secrets)}" if hint else "")


if __name__ == "__main__":
    sys.exit(main())
