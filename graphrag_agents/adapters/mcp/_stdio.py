"""stdio: a line that is not a JSON-RPC message gets a JSON-RPC error back, as over HTTP, instead of silence.

The SDK's stdio transport turns such a line (malformed JSON, nesting deeper than the parser's recursion limit,
valid JSON that is not a JSON-RPC message) into an exception on the read stream, which the server only logs: the
client hears nothing and waits for its own timeout. :class:`AnsweringReadStream` sits between the transport and
the server and answers each one: ``-32700`` (parse error, ``id`` null) for a line that does not parse, ``-32600``
(invalid request, with the request's ``id`` when the object carries one) for JSON that is not a message.

Two kinds of line the SDK's parser gets wrong are fixed on the way in (:func:`stdio_transport`): a request whose
``id`` is not a string or an integer (an object, ``true``, ``1.5``) was read as a notification and never answered;
it gets ``-32600`` with ``id`` null, as JSON-RPC asks when the id cannot be read. A line with an escaped lone
surrogate (``"\\ud800"``) is valid JSON that the SDK's parser refuses: it is parsed by the standard library
instead and served, so the tool itself says what is wrong with the text.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["AnsweringReadStream", "rejection", "stdio_transport"]

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


_BAD_ID = '{"jsonrpc": "2.0", "id": null, "method": null}\n'
"""What a request with an unusable ``id`` becomes: a line the SDK refuses, answered ``-32600`` with ``id`` null."""


def _checked(line: str) -> str:
    """``line``, or :data:`_BAD_ID` when it is a request whose ``id`` is not a string or an integer."""
    if '"id"' not in line:
        return line
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return line  # the SDK's parser answers it
    if isinstance(value, dict) and "method" in value and "id" in value:
        found = value["id"]
        if found is not None and (isinstance(found, bool) or not isinstance(found, (int, str))):
            return _BAD_ID
    return line


class _CheckedLines:
    """The stdin lines as the SDK's transport reads them (``async for``), each passed through :func:`_checked`."""

    def __init__(self, lines: Any) -> None:
        self._lines = lines

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.readline()
        if not line:
            raise StopAsyncIteration
        return _checked(line)


@contextlib.asynccontextmanager
async def stdio_transport() -> AsyncIterator[tuple[AnsweringReadStream, Any]]:
    """The SDK's stdio transport over checked stdin lines: ``(read, write)``, ``read`` answering unreadable lines.

    Like the SDK's own claim, fd 0 points at the null device while serving (a child process reads EOF, never the
    protocol), and fd 1 carries only the protocol.
    """
    from mcp.server.stdio import stdio_server

    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        text = io.TextIOWrapper(os.fdopen(private, "rb", closefd=False), encoding="utf-8", errors="replace")
        async with stdio_server(stdin=_CheckedLines(anyio.wrap_file(text))) as (read, write):  # type: ignore[arg-type]
            yield AnsweringReadStream(read, write), write
    finally:
        os.dup2(private, 0)
        os.close(private)


def _lenient(exc: Exception) -> SessionMessage | None:
    """The message of a line only the SDK's parser refuses (an escaped lone surrogate), or None."""
    if not isinstance(exc, ValidationError):
        return None
    errors = exc.errors(include_url=False)
    if not errors or errors[0]["type"] != "json_invalid" or not isinstance(errors[0].get("input"), str):
        return None
    try:
        value = json.loads(errors[0]["input"])
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except (ValueError, RecursionError):
        return None


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
            if (message := _lenient(item)) is not None:
                return message
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
