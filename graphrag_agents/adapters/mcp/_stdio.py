"""stdio: a line that is not a JSON-RPC message gets a JSON-RPC error back, as over HTTP, instead of silence.

The SDK's stdio transport turns such a line (malformed JSON, nesting deeper than the parser's recursion limit,
valid JSON that is not a JSON-RPC message) into an exception on the read stream, which the server only logs: the
client hears nothing and waits for its own timeout. :class:`AnsweringReadStream` sits between the transport and
the server and answers each one: ``-32700`` (parse error, ``id`` null) for a line that does not parse, ``-32600``
(invalid request, with the request's ``id`` when the object carries one) for JSON that is not a message.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["AnsweringReadStream", "rejection"]

logger = logging.getLogger("graphrag_agents.mcp")


def _request_id(error: ValidationError) -> int | str | None:
    """The ``id`` of the JSON object that failed validation, when it has a usable one."""
    for item in error.errors(include_url=False):
        value = item.get("input")
        if isinstance(value, dict):
            found = value.get("id")
            if isinstance(found, (int, str)) and not isinstance(found, bool):
                return found
    return None


def rejection(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a line the transport could not read as a message."""
    if isinstance(exc, ValidationError):
        if any(item["type"] == "json_invalid" for item in exc.errors(include_url=False)):
            return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
                code=types.PARSE_ERROR, message="Parse error: the line is not valid JSON (or is nested too deeply)"))
        return types.JSONRPCError(jsonrpc="2.0", id=_request_id(exc), error=types.ErrorData(
            code=types.INVALID_REQUEST, message="Invalid request: the line is JSON but not a JSON-RPC 2.0 message"))
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
        code=types.PARSE_ERROR, message=f"Parse error: {type(exc).__name__}"))


class AnsweringReadStream:
    """The transport's read stream, minus its exceptions: each one is answered on ``write`` and skipped.

    Args:
        read: the stream the stdio transport yields (messages, or exceptions for unreadable lines).
        write: the transport's write stream, where the errors go.
    """

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK restores it around the handler)."""
        return getattr(self._read, "last_context", None)

    async def receive(self) -> SessionMessage:
        """The next message; unreadable lines in between are answered with an error."""
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item  # type: ignore[no-any-return]
            reply = rejection(item)
            logger.warning("answered an unreadable stdin line with JSON-RPC error %d", reply.error.code)
            await self._write.send(SessionMessage(reply))

    async def aclose(self) -> None:
        """Close the transport's read stream."""
        await self._read.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
