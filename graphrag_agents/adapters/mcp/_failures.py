"""Turn a failed tool call into the short text an MCP client sees; the full error goes to the server log only.

A :class:`ToolError` is the caller's to fix: its message and hint are sent as they are. Anything else is a
failure of the server's surroundings, described by its kind (timeout, model provider, database, configuration,
internal) with a next step and a reference that finds the full error in the log. API keys, tokens and URL
passwords are masked in both texts.
"""

from __future__ import annotations

import logging
import secrets
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from ..._secrets import mask_secrets
from ...errors import ConfigurationError, StoreUnavailable
from ...models.litellm_embedder import EmbeddingProviderError
from .._shared import wrong_loop_error

__all__ = ["Failure", "classify", "describe_failure"]

logger = logging.getLogger("graphrag_agents.mcp")

_PROVIDER_MODULES = ("litellm", "openai", "anthropic", "google.genai", "cohere", "mistralai")
_DATABASE_MODULES = ("redis", "falkordb")
_NEXT_STEPS = {
    "timeout": "try again, or narrow the call (fewer paths, a lower top_k or expand_hops); if it keeps "
               "happening, the operator should check that the graph store and the model provider respond.",
    "model provider": "try again in a moment; if it keeps failing, the operator should check the model name, "
                      "API key and quota (details in the server log).",
    "database": "try again; if it keeps failing, the operator should check that FalkorDB is running and "
                "reachable (details in the server log).",
    "configuration": "tell the user the server needs fixing; the operator should fix the setting the server log "
                     "names (graph name, embedding model, FalkorDB address, a missing extra).",
    "internal": "try again; if it keeps failing, report it with the reference (details in the server log).",
}
_SUMMARIES = {
    "timeout": "The tool call timed out",
    "model provider": "The model provider failed",
    "database": "The graph database could not be reached or failed the query",
    "configuration": "The server is misconfigured",
    "internal": "The tool failed with an unexpected error",
}


@dataclass(frozen=True)
class Failure:
    """What a client is told about a failed call."""

    kind: str
    """timeout, model provider, database, configuration or internal."""
    message: str
    hint: str
    reference: str

    def text(self) -> str:
        """The error text: message, kind, reference and hint."""
        return f"{self.message} (kind: {self.kind}; reference {self.reference}). Hint: {self.hint}"


def _leaf(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio task groups wrap failures in one)."""
    while isinstance(getattr(exc, "exceptions", None), (list, tuple)) and exc.exceptions:  # type: ignore[attr-defined]
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _module_of(exc: BaseException) -> str:
    return type(exc).__module__ or ""


def classify(exc: BaseException) -> str:
    """The kind of a failure that is not a :class:`ToolError`."""
    exc = _leaf(exc)
    mro = type(exc).__mro__
    modules = [c.__module__ or "" for c in mro]
    if isinstance(exc, TimeoutError) or any("Timeout" in c.__name__ for c in mro):
        return "timeout"
    if isinstance(exc, EmbeddingProviderError) or any(m.startswith(_PROVIDER_MODULES) for m in modules):
        return "model provider"
    if isinstance(exc, (StoreUnavailable, ConnectionError)) or any(m.startswith(_DATABASE_MODULES) for m in modules):
        return "database"
    if isinstance(exc, (ConfigurationError, ImportError)) or wrong_loop_error(exc) is not None:
        return "configuration"
    return "internal"


def describe_failure(tool: str, exc: BaseException | None, *, secrets_to_mask: Sequence[str] = (),
                     deadline: float | None = None) -> Failure:
    """Log the failure in full (masked) and return the short description for the client.

    Args:
        tool: the tool that failed.
        exc: the failure (not a ToolError); None when the server's call timeout stopped the call.
        secrets_to_mask: more values to mask, e.g. the server's bearer token.
        deadline: the call timeout (seconds) that stopped the call, if that is what happened.
    """
    reference = secrets.token_hex(4)
    if exc is None:
        kind, message = "timeout", f"The tool call took longer than {deadline or 0:g} s and was stopped"
        logger.error("tool %s stopped after %s s (reference %s)", tool, deadline, reference)
    else:
        kind = classify(exc)
        message = _SUMMARIES[kind]
        detail = mask_secrets("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), secrets_to_mask)
        logger.error("tool %s failed (%s, reference %s):\n%s", tool, kind, reference, detail)
    return Failure(kind=kind, message=f"{message} while running {tool}", hint=_NEXT_STEPS[kind], reference=reference)
