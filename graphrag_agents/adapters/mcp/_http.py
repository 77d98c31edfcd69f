"""HTTP serving for the MCP server: bearer token, Host/Origin checks, client address and identity, the apps and
uvicorn.

The client's address is the socket's peer (uvicorn runs with its proxy headers off); ``X-Forwarded-For`` counts
only from a trusted proxy (see ``_peers``). It bounds the rate of new client sessions (see ``_sessions``).

Client identity over streamable HTTP, which decides whose evidence numbering a request uses:

* a handshake-era client (``initialize``, the protocol before 2026-07-28, e.g. Claude Code and Cursor) sends the
  ``Mcp-Session-Id`` the server issued; the SDK's session manager refuses unknown ids before a tool runs;
* a client on the stateless protocol (2026-07-28, the default of ``mcp.Client``) sends every request on its own,
  with no session id: nothing in a request names its client. This server therefore gives each client a random
  id in a cookie (``Set-Cookie`` on its first request; HttpOnly, SameSite=Strict; signed, so the server honours
  only ids it issued) and keys the numbering on it.
  ``mcp.Client`` keeps cookies for its whole connection, across TCP reconnects; the TCP connection itself is not
  used, as HTTP clients drop idle connections after seconds and proxies share theirs between clients. A client
  that drops cookies gets a fresh numbering per request: it can never see another client's evidence;
* a client that opens a new MCP session for every tool call (langchain-mcp-adapters' documented
  ``MultiServerMCPClient(...).get_tools()``: a new ``initialize``, ``Mcp-Session-Id`` and HTTP client per call)
  keeps one numbering by sending the header ``X-GraphRAG-Client: <random id>`` (16-256 URL-safe characters, e.g.
  ``secrets.token_urlsafe(24)``). The header wins over the session id and the cookie; its numbering lives as long as
  the server process and as long as it stays among the ``max_sessions`` most recently used. The id is a secret:
  a client can cite only the evidence of the ids it knows.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import ConfigurationError
from ._peers import TrustedProxies

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = [
    "CLIENT_HEADER",
    "CLIENT_SCOPE_KEY",
    "PEER_SCOPE_KEY",
    "BearerTokenMiddleware",
    "ClientCookieMiddleware",
    "HostCheckMiddleware",
    "PeerMiddleware",
    "check_binding",
    "client_key",
    "is_loopback",
    "peer_of",
    "security_settings",
    "sse_app",
    "streamable_http_app",
    "uvicorn_config",
]

CLIENT_SCOPE_KEY = "graphrag_agents.mcp.client"
"""Where :class:`ClientCookieMiddleware` leaves the request's client id in the ASGI scope."""
PEER_SCOPE_KEY = "graphrag_agents.mcp.peer"
"""Where :class:`PeerMiddleware` leaves the request's address in the ASGI scope."""
CLIENT_HEADER = "x-graphrag-client"
"""The header a client sends to keep one evidence numbering across MCP sessions (see the module docstring)."""
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_\-.~]{16,256}$")
_BAD_CLIENT_ID = ("Bad X-GraphRAG-Client header: send a random id of 16-256 URL-safe characters, e.g. the output "
                  "of python -c 'import secrets; print(secrets.token_urlsafe(24))', the same one on every request "
                  "of one client.")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve off loopback without a bearer token (``ConfigurationError``)."""
    if not token and not is_loopback(host):
        raise ConfigurationError(
            f"Refusing to serve MCP over HTTP on {host!r} without a bearer token: anyone who can reach the port "
            "could read the whole graph. Fix: set GRAPHRAG_MCP_TOKEN (clients send 'Authorization: Bearer "
            "<token>'), or bind 127.0.0.1."
        )


def security_settings(host: str, port: int) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for a loopback server: Host and Origin must name it (None off loopback)."""
    if not is_loopback(host):
        return None
    suffix = f":{port}" if port else ":*"
    names = {"127.0.0.1", "localhost", "[::1]"}
    bare = host.strip("[]")
    names.add(f"[{bare}]" if ":" in bare else bare)
    hosts = sorted(name + suffix for name in names)
    origins = sorted(f"{scheme}://{name}{suffix}" for name in names for scheme in ("http", "https"))
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


def _reply(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return Response(text, status_code=status, media_type="text/plain", headers=headers)


class HostCheckMiddleware:
    """Refuse requests whose Host or Origin header does not name the server (421 / 403)."""

    def __init__(self, app: ASGIApp, settings: TransportSecuritySettings) -> None:
        self.app = app
        self._check = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._check.validate_request(Request(scope, receive), is_post=False)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BearerTokenMiddleware:
    """Require ``Authorization: Bearer <token>`` (scheme case-insensitive, constant-time compare); else 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = Request(scope).headers.get("authorization", "")
            scheme, _, value = header.strip().partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), self._token):
                await _reply(401, "Unauthorized: send 'Authorization: Bearer <token>'.",
                             {"WWW-Authenticate": 'Bearer realm="graphrag-mcp"'})(scope, receive, send)
                return
        await self.app(scope, receive, send)


class ClientCookieMiddleware:
    """Give every HTTP client a random id in a cookie and put it in the scope under :data:`CLIENT_SCOPE_KEY`.

    The id is signed with a key of this middleware, so a cookie is honoured only when the server issued it; any
    other gets a new id. The session of an id is made at its first tool call (where the rate of new sessions
    applies), and an evicted id is kept, so its check of old numbers says its evidence expired.
    """

    def __init__(self, app: ASGIApp, cookie_name: str | None = None) -> None:
        self.app = app
        # Named per server instance: cookies ignore ports, so two servers on one host must not swap ids.
        self.cookie_name = cookie_name or f"graphrag_mcp_{secrets.token_hex(4)}"
        self._key = secrets.token_bytes(32)

    def _sign(self, nonce: str) -> str:
        return hmac.new(self._key, nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def _issued(self, client: str) -> bool:
        nonce, _, signature = client.partition(".")
        return bool(nonce) and hmac.compare_digest(signature.encode(), self._sign(nonce).encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        named = Request(scope).headers.get(CLIENT_HEADER)
        if named is not None:
            if not _CLIENT_ID.match(named):
                await _reply(400, _BAD_CLIENT_ID)(scope, receive, send)
                return
            scope[CLIENT_SCOPE_KEY] = "h:" + hashlib.sha256(named.encode()).hexdigest()
            await self.app(scope, receive, send)
            return
        client = Request(scope).cookies.get(self.cookie_name, "")
        fresh = not self._issued(client)
        if fresh:
            nonce = secrets.token_urlsafe(18)
            client = f"{nonce}.{self._sign(nonce)}"
        scope[CLIENT_SCOPE_KEY] = client
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{self.cookie_name}={client}; Path=/; HttpOnly; SameSite=Strict{secure}".encode("latin-1")

        async def send_with_cookie(message: Message) -> None:
            if fresh and message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class PeerMiddleware:
    """Put the request's address in the scope under :data:`PEER_SCOPE_KEY`: the socket's peer, or behind a
    trusted proxy the address it forwards (and its ``X-Forwarded-Proto``, for the cookie's ``Secure``)."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            client = scope.get("client")
            direct = str(client[0]) if client else None
            headers = scope.get("headers") or []
            forwarded = [v.decode("latin-1") for k, v in headers if k == b"x-forwarded-for"]
            scope[PEER_SCOPE_KEY] = self.proxies.client_of(direct, forwarded)
            if direct is not None and direct in self.proxies:
                proto = [v.decode("latin-1").strip().lower() for k, v in headers if k == b"x-forwarded-proto"]
                if proto and proto[-1] in ("http", "https"):
                    scope["scheme"] = proto[-1]
        await self.app(scope, receive, send)


def peer_of(scope: Scope) -> str | None:
    """The address a request comes from (whose rate of new sessions is bounded), when known: the one
    :class:`PeerMiddleware` found, else the socket's peer."""
    if PEER_SCOPE_KEY in scope:
        peer = scope[PEER_SCOPE_KEY]
        return peer if isinstance(peer, str) else None
    client = scope.get("client")
    return str(client[0]) if client else None


def _scope_client(request: Any) -> str | None:
    client = request.scope.get(CLIENT_SCOPE_KEY)
    return client if isinstance(client, str) and client else None


def client_key(request: Any, protocol_version: str) -> str | None:
    """The session key of an HTTP request: its ``X-GraphRAG-Client`` id, else its ``Mcp-Session-Id`` (handshake
    era), else its cookie id."""
    if request is None or not hasattr(request, "scope"):
        return None
    named = _scope_client(request)
    if named is not None and named.startswith("h:"):
        return named
    if protocol_version not in MODERN_PROTOCOL_VERSIONS:
        # The session manager has checked this id exists; a modern request's id is never checked, so ignored.
        session_id = request.headers.get("mcp-session-id")
        if session_id:
            return f"s:{session_id}"
    return f"c:{named}" if named else None


def _wrap(app: ASGIApp, host: str, port: int, token: str | None) -> ASGIApp:
    if token:
        app = BearerTokenMiddleware(app, token)
    settings = security_settings(host, port)
    if settings is not None:
        app = HostCheckMiddleware(app, settings)
    return app


def streamable_http_app(server: Server[Any], *, host: str, port: int, path: str = "/mcp",
                        token: str | None = None, trusted_proxies: TrustedProxies | None = None) -> ASGIApp:
    """The streamable HTTP app of ``server`` with token, Host/Origin checks, client addresses and cookies."""
    check_binding(host, token)
    app = server.streamable_http_app(streamable_http_path=path, host=host,
                                     transport_security=security_settings(host, port))
    return _wrap(PeerMiddleware(ClientCookieMiddleware(app), trusted_proxies or TrustedProxies()), host, port, token)


def sse_app(run_connection: Callable[[Any, Any], Any], *, host: str, port: int, token: str | None = None,
            sse_path: str = "/sse", message_path: str = "/messages/") -> ASGIApp:
    """The legacy SSE app: each ``GET sse_path`` stream is one connection, served by ``run_connection``."""
    check_binding(host, token)
    transport = SseServerTransport(message_path, security_settings=security_settings(host, port))

    async def handle_sse(request: Request) -> Response:
        async with transport.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await run_connection(read, write)
        return Response()

    app = Starlette(routes=[Route(sse_path, endpoint=handle_sse, methods=["GET"]),
                            Mount(message_path, app=transport.handle_post_message)])
    return _wrap(app, host, port, token)


async def serve(app: ASGIApp, host: str, port: int, log_level: str = "info") -> None:
    """Serve ``app`` with uvicorn until interrupted (logs through the standard logging setup, to stderr)."""
    import uvicorn

    await uvicorn.Server(uvicorn_config(app, host, port, log_level)).serve()


def uvicorn_config(app: ASGIApp, host: str, port: int, log_level: str = "info") -> Any:
    """The ``uvicorn.Config`` the server runs with: proxy headers off, so each request's address is the socket's
    peer (X-Forwarded-For counts only from the server's trusted proxies, see ``_peers``)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), log_config=None, lifespan="on",
                          timeout_graceful_shutdown=5, proxy_headers=False, forwarded_allow_ips="")
