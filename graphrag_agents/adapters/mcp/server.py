"""The graph tools as an MCP server (official ``mcp`` SDK, version 2, low-level ``Server``).

Every tool of the toolkit is listed (``tool_prefix`` before its name, if given) with its JSON Schema input, its
output schema and all four annotations
(write tools are always marked destructive, so clients ask the user first). Arguments are validated by the
toolkit's own models, never trusted to the client. A result's text block is its ``to_llm_text()``, what the model
reads. Its typed JSON travels as ``structuredContent`` (with an output schema) only for the small results whose
fields programs act on (:data:`STRUCTURED_TOOLS`: ``check_citations``, ``status``, ...); the large ones
(``retrieve``, ``ingest``, ...) carry it in ``_meta["graphrag-agents/result"]`` instead, because clients such as
pydantic-ai's ``MCPToolset`` and FastMCP hand ``structuredContent``, when present, to the model in place of the
text (``retrieve`` on the demo: 19.7k characters of JSON instead of 7.8k of text). ``structured="all"`` sends
``structuredContent`` for every tool, for programs written against that.
Results over ``max_result_chars`` (40,000) are shortened (see ``_truncate``); evidence cut or shortened is
dropped from the session. Failures come back as ``isError`` results with a hint.

Evidence numbering is per client connection: one session per stdio process, per SSE stream and per in-process
client; over streamable HTTP one per ``Mcp-Session-Id``, ``X-GraphRAG-Client`` id or, on the stateless protocol, per
client cookie (see ``_http``), at most ``max_sessions`` kept, each address creating them at a bounded rate (see
``_sessions``; the address is the socket's peer, or what a ``trusted_proxies`` proxy forwards, see ``_peers``).

Example::

    from mcp import Client

    server = GraphRAGMCPServer(kg, read_only=True)
    async with Client(server.server) as client:          # in process; or: await server.run("stdio")
        found = await client.call_tool("retrieve", {"question": "Where does Alice work?"})
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from ..._install import pip_extra
from ..._secrets import mask_secrets
from ...errors import ToolError
from ...kg import KnowledgeGraph
from ...tools.results import ToolResult, llm_text
from ...tools.toolkit import FinalizePolicy, GraphRAGToolkit
from .._shared import check_prefix, refuse_duplicate_names
from ._failures import describe_failure
from ._instructions import build_instructions
from ._notes import EXPIRED_NOTE, session_note
from ._peers import TrustedProxies
from ._sessions import ConnectionSession, SessionRefused, SessionState, SessionStore
from ._truncate import ResultTooLarge, Truncation, truncate_json

try:
    import anyio
    import mcp_types as types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("The MCP server needs the 'mcp' package (version 2). Fix: "
                      f"{pip_extra('mcp')}") from exc

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from ...tools.write.sandbox import FilesRoot

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "MAX_RESULT_CHARS",
    "RESULT_META_KEY",
    "STRUCTURED_TOOLS",
    "GraphRAGMCPServer",
    "StructuredMode",
    "main",
]

MAX_RESULT_CHARS = 40_000
"""Results whose JSON is longer are shortened."""
DEFAULT_CALL_TIMEOUT = 120.0
"""Seconds a tool call may run before it ends as a timeout error."""
Transport = Literal["stdio", "http", "sse"]
StructuredMode = Literal["auto", "all"]
"""``auto``: ``structuredContent`` for :data:`STRUCTURED_TOOLS` only; ``all``: for every tool."""
STRUCTURED_TOOLS = frozenset({"status", "get_ontology", "check_citations", "set_ontology", "finalize"})
"""Tools whose typed result is sent as ``structuredContent``: small results whose fields programs act on
(``grounded``, counts), which lose nothing when a client shows that JSON to the model instead of the text."""
RESULT_META_KEY = "graphrag-agents/result"
"""The ``_meta`` key holding the typed result of the other tools (``retrieve``, ``ingest``, ...)."""


class GraphRAGMCPServer:
    """An MCP server over a :class:`GraphRAGToolkit` (given, or built from a :class:`KnowledgeGraph`).

    Args:
        source: a toolkit, or a knowledge graph to build one on with the toolkit options below (a toolkit
            brings its own options; passing them too is an error).
        read_only, files_root, max_file_bytes, plan_limits, include, finalize_policy, ledger_capacity,
            citation_packs: the :class:`GraphRAGToolkit` options.
        name: the server name clients see.
        max_result_chars: results whose JSON is longer are shortened to fit.
        text_chars: the character budget of each result's text block (``to_llm_text``; None: each result's
            default, 4,400 characters for ``retrieve`` and 8,000 for the others).
        call_timeout: seconds before a tool call ends as a timeout error (None: no limit).
        max_sessions: HTTP client sessions kept (those that never issued evidence are dropped first, then the
            least recently used, whatever its address); one address creates at most ``max_sessions / 8`` at
            once, then ``max_sessions / 128`` a second, and a call past that is refused with "Too many new
            sessions from your address (...): retry in N s" (``_sessions``); memory is bounded by
            ``max_sessions * ledger_capacity`` items.
        trusted_proxies: IP addresses or networks of the reverse proxies in front of the HTTP server, whose
            ``X-Forwarded-For`` names the client's address (the right-most entry that is not a trusted proxy;
            ``_peers``). Empty by default: every request counts as the socket's peer, whatever it claims.
        token: bearer token required over HTTP and SSE (required off loopback); masked in error texts.
        tool_prefix: put before every tool name (``"kg_"`` serves ``kg_retrieve``, ...), for clients that also
            talk to other servers with tools of these names.
        structured: ``"auto"`` sends ``structuredContent`` for :data:`STRUCTURED_TOOLS` and the typed result of
            the others in ``_meta["graphrag-agents/result"]``; ``"all"`` sends ``structuredContent`` for every tool.
    """

    def __init__(self, source: GraphRAGToolkit | KnowledgeGraph, *, read_only: bool | None = None,
                 files_root: str | FilesRoot | None = None, max_file_bytes: int | None = None,
                 plan_limits: Mapping[str, Any] | None = None, include: Sequence[str] | None = None,
                 finalize_policy: FinalizePolicy | None = None, ledger_capacity: int | None = None,
                 citation_packs: Sequence[str] | None = None, name: str = "graphrag-agents",
                 max_result_chars: int = MAX_RESULT_CHARS, text_chars: int | None = None,
                 call_timeout: float | None = DEFAULT_CALL_TIMEOUT, max_sessions: int = 256,
                 token: str | None = None, tool_prefix: str = "", structured: StructuredMode = "auto",
                 trusted_proxies: Sequence[str] = ()) -> None:
        options: dict[str, Any] = {
            "read_only": read_only, "files_root": files_root, "max_file_bytes": max_file_bytes,
            "plan_limits": plan_limits, "include": include, "finalize_policy": finalize_policy,
            "ledger_capacity": ledger_capacity, "citation_packs": citation_packs,
        }
        given = {k: v for k, v in options.items() if v is not None}
        if isinstance(source, GraphRAGToolkit):
            if given:
                raise ValueError(f"Toolkit options {sorted(given)} were passed with a toolkit; set them on the "
                                 "GraphRAGToolkit, or pass a KnowledgeGraph instead.")
            self.toolkit = source
        elif isinstance(source, KnowledgeGraph):
            self.toolkit = GraphRAGToolkit(source, **given)
        else:
            raise TypeError(f"GraphRAGMCPServer needs a GraphRAGToolkit or a KnowledgeGraph, not "
                            f"{type(source).__name__}")
        if max_result_chars < 2000:
            raise ValueError("max_result_chars must be at least 2000")
        self.name = name
        self.tool_prefix = check_prefix(tool_prefix)
        if structured not in ("auto", "all"):
            raise ValueError(f"structured must be 'auto' or 'all', not {structured!r}")
        self.structured: StructuredMode = structured
        self.max_result_chars = max_result_chars
        self.text_chars = text_chars
        self.call_timeout = call_timeout
        self.token = token or None
        self.sessions = SessionStore(self.toolkit, max_sessions)
        """HTTP client sessions, by client key."""
        self.trusted_proxies = TrustedProxies(trusted_proxies)
        """The proxies whose ``X-Forwarded-For`` names the client's address over HTTP (none by default)."""

    # -- what is served --------------------------------------------------------------------------------------

    @cached_property
    def tools(self) -> list[types.Tool]:
        """The MCP tool list: every offered tool with its schemas and all four annotations."""
        out: list[types.Tool] = []
        for spec in self.toolkit.tool_specs():
            hints = spec.annotations.as_mcp()
            if not hints["readOnlyHint"]:
                hints["destructiveHint"] = True  # clients ask the user before running any write
            out.append(types.Tool(
                name=self.tool_prefix + spec.name, description=spec.description, input_schema=spec.input_schema,
                output_schema=_output_schema(spec.output_model) if self._is_structured(spec.name) else None,
                annotations=types.ToolAnnotations(
                    read_only_hint=hints["readOnlyHint"], destructive_hint=hints["destructiveHint"],
                    idempotent_hint=hints["idempotentHint"], open_world_hint=hints["openWorldHint"]),
            ))
        refuse_duplicate_names((t.name for t in out), "the MCP tool list")
        return out

    def _is_structured(self, core_name: str) -> bool:
        """Whether the typed result of ``core_name`` goes out as ``structuredContent`` (else in ``_meta``)."""
        return self.structured == "all" or core_name in STRUCTURED_TOOLS

    def _core_name(self, name: str) -> str:
        """The toolkit's name of a served tool (a name without the prefix stays as it is: unknown)."""
        return name[len(self.tool_prefix):] if self.tool_prefix and name.startswith(self.tool_prefix) else name

    @cached_property
    def instructions(self) -> str:
        """The guide sent to clients, written for the tools served (under their served names)."""
        text = build_instructions([self._core_name(t.name) for t in self.tools], self.max_result_chars)
        for tool in self.tools:
            text = text.replace(f"`{self._core_name(tool.name)}`", f"`{tool.name}`")
        return text

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        return next((t.input_schema for t in self.tools if t.name == name), None)

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None,
                          ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    @cached_property
    def server(self) -> Server[ConnectionSession]:
        """The low-level server for stdio, SSE and in-process clients: one session per connection."""

        @asynccontextmanager
        async def per_connection(_: Server[ConnectionSession]) -> AsyncIterator[ConnectionSession]:
            yield ConnectionSession(self.toolkit)

        async def call_tool(ctx: ServerRequestContext[ConnectionSession], params: types.CallToolRequestParams,
                            ) -> types.CallToolResult:
            return await self.call_tool(ctx.lifespan_context.get(), params.name, params.arguments)

        return Server(self.name, version=_version(), instructions=self.instructions, lifespan=per_connection,
                      get_tool_input_schema=self._input_schema, on_list_tools=self._list_tools,
                      on_call_tool=call_tool)

    @cached_property
    def http_server(self) -> Server[Any]:
        """The low-level server behind streamable HTTP: sessions by client key in :attr:`sessions`."""
        from ._http import client_key, peer_of

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams,
                            ) -> types.CallToolResult:
            key = client_key(ctx.request, ctx.protocol_version)
            if key is None:
                return await self.call_tool(self.toolkit.new_session(), params.name, params.arguments,
                                            ephemeral=True)
            scope = getattr(ctx.request, "scope", None)
            try:
                session, state = self.sessions.lookup(key, peer_of(scope) if isinstance(scope, dict) else None)
            except SessionRefused as exc:  # said as such: never run in a throwaway session, never "not grounded"
                return _error(str(exc))
            return await self.call_tool(session, params.name, params.arguments, state=state)

        return Server(self.name, version=_version(), instructions=self.instructions,
                      get_tool_input_schema=self._input_schema, on_list_tools=self._list_tools,
                      on_call_tool=call_tool)

    # -- one call --------------------------------------------------------------------------------------------

    async def call_tool(self, session: GraphRAGToolkit, name: str, arguments: Mapping[str, Any] | None,
                        *, ephemeral: bool = False, state: SessionState = "kept") -> types.CallToolResult:
        """Run one tool call in ``session`` and shape its result (or failure) for MCP; ``state`` says whether an
        HTTP client's session is its own, made anew after it expired, or for this request only."""
        _quiet_litellm()
        secrets = [self.token] if self.token else []
        result: ToolResult | None = None
        try:
            if self.tool_prefix and not name.startswith(self.tool_prefix):
                raise ToolError(f"Unknown tool {name!r}.", f"This server names its tools with the prefix "
                                f"{self.tool_prefix!r}: call {self.tool_prefix}{name}, or list the tools.")
            core = self._core_name(name)
            shaped: tuple[types.CallToolResult, set[int]] | None = None
            with anyio.move_on_after(self.call_timeout) as deadline:
                result = await session.call(core, arguments)
                note = session_note(core, result, session, ephemeral=ephemeral, state=state)
                # Shortening a large result takes seconds: off the loop (other clients go on), under the timeout.
                shaped = await anyio.to_thread.run_sync(self._shape, result, note, self._is_structured(core),
                                                        abandon_on_cancel=True)
        except ToolError as exc:
            return _error(mask_secrets(str(exc), secrets))
        except Exception as exc:
            return _error(describe_failure(name, exc, secrets_to_mask=secrets).text())
        finally:
            _quiet_litellm()  # the call may have imported it
        if shaped is None or deadline.cancelled_caught:
            if result is not None:  # numbered, never delivered: the client cannot cite them
                session.ledger.drop(set(result.evidence_numbers()))
            return _error(describe_failure(name, None, deadline=self.call_timeout).text())
        reply, dropped = shaped
        session.ledger.drop(dropped)  # on the loop, like every other change to the session's evidence
        return reply

    def _shape(self, result: ToolResult, note: str | None,
               structured: bool) -> tuple[types.CallToolResult, set[int]]:
        """The MCP reply for ``result`` and the evidence numbers it did not deliver whole (run off the loop: it
        reads only ``result``)."""
        issued = set(result.evidence_numbers())
        data = _plain(result.model_dump(mode="python"))
        noted = note is not None
        if note is not None:
            data["hint"] = f"{data['hint']} {note}" if data.get("hint") else note
        try:
            cut = truncate_json(data, self.max_result_chars, issued)
        except ResultTooLarge:
            return _error(f"The result is too large to return even shortened (limit {self.max_result_chars:,} "
                          "characters); its evidence was dropped. Hint: narrow the call (fewer paths, a lower "
                          "top_k, document_ids)."), issued
        dropped = cut.damaged & issued if cut.truncated else set()
        text = self._text(result, cut, changed=cut.truncated or noted)
        if note == EXPIRED_NOTE:  # not a citation failure: the evidence cited is gone, say that first and only
            text = f"Citation check: {note}"
        data = to_jsonable_python(cut.data)
        if structured:
            return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=data), dropped
        return types.CallToolResult(content=[types.TextContent(text=text)], _meta={RESULT_META_KEY: data}), dropped

    def _text(self, result: ToolResult, cut: Truncation, *, changed: bool) -> str:
        """The text block: ``to_llm_text()`` of what is actually sent (the shortened result, when it was cut)."""
        model = result
        if changed:
            fields = type(result).model_fields
            try:
                model = type(result).model_validate({k: v for k, v in cut.data.items() if k in fields})
            except ValidationError:
                return json.dumps(to_jsonable_python(cut.data), ensure_ascii=False)
        text = llm_text(model, self.text_chars)
        hint = cut.data.get("hint")
        if changed and isinstance(hint, str) and hint not in text:
            text += f"\nHint: {hint}"  # a to_llm_text that does not print the hint still says what was cut
        return text

    # -- serving ---------------------------------------------------------------------------------------------

    def streamable_http_app(self, *, host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp") -> ASGIApp:
        """An ASGI app serving streamable HTTP at ``path`` (token required off loopback). Mounted in an ASGI
        server of your own, run it with that server's proxy headers off (uvicorn: ``proxy_headers=False``) and
        name the proxies in ``trusted_proxies`` instead."""
        from ._http import streamable_http_app

        return streamable_http_app(self.http_server, host=host, port=port, path=path, token=self.token,
                                   trusted_proxies=self.trusted_proxies)

    def sse_app(self, *, host: str = "127.0.0.1", port: int = 8000) -> ASGIApp:
        """An ASGI app serving the legacy SSE transport (``GET /sse``, ``POST /messages/``)."""
        from ._http import sse_app

        async def run_connection(read: Any, write: Any) -> None:
            await self.server.run(read, write, self.server.create_initialization_options())

        return sse_app(run_connection, host=host, port=port, token=self.token)

    async def run_stdio(self) -> None:
        """Serve one client over stdin/stdout (stdout carries only the protocol while serving)."""
        from ._stdio import stdio_transport

        _quiet_litellm()
        async with stdio_transport() as (read, write):
            await self.server.run(read, write,
                                  self.server.create_initialization_options())

    async def run(self, transport: Transport = "stdio", *, host: str = "127.0.0.1", port: int = 8000,
                  path: str = "/mcp", log_level: str = "info") -> None:
        """Serve over ``stdio``, streamable ``http`` or ``sse`` until the client leaves or the process stops."""
        if transport == "stdio":
            await self.run_stdio()
            return
        from ._http import serve

        app = self.streamable_http_app(host=host, port=port, path=path) if transport == "http" else \
            self.sse_app(host=host, port=port)
        await serve(app, host, port, log_level)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphrag-agents")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def _output_schema(model: type[ToolResult]) -> dict[str, Any] | None:
    """The result model's JSON Schema (every result has a ``hint``), plus the ``truncated`` key a shortened
    result carries."""
    schema = model.model_json_schema(mode="serialization")
    if schema.get("type") != "object":
        return None
    props = schema.setdefault("properties", {})
    props["truncated"] = {"type": "boolean", "description": "True when the result was shortened to fit; the hint "
                                                            "names what was cut."}
    return schema


def _plain(value: Any) -> Any:
    """JSON-ready values, keeping tuples (the truncation never cuts them)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return to_jsonable_python(value)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _quiet_litellm() -> None:
    """No LiteLLM banners or debug prints (they would land in the log, or on stdout before it is claimed)."""
    litellm = sys.modules.get("litellm")
    if litellm is not None:
        litellm.suppress_debug_info = True  # type: ignore[attr-defined]
        litellm.set_verbose = False  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: ``graphrag-mcp`` is :func:`graphrag_agents.cli.mcp_command.main` (this forward goes in the next
    release)."""
    warnings.warn("graphrag_agents.adapters.mcp.main is deprecated: call graphrag_agents.cli.mcp_command.main (the "
                  "graphrag-mcp command) instead", DeprecationWarning, stacklevel=2)
    # Imported by name: the command line sits above the adapter, which never imports it.
    return int(importlib.import_module("graphrag_agents.cli.mcp_command").main(argv))
