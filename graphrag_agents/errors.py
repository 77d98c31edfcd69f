"""Errors raised by graphrag-agents.

The tree, by who must act::

    GraphRAGError                 root: catch this to catch everything we raise
    ├── ToolError                 a tool call cannot run; the model (or user) acts on ``hint``
    │   ├── ReadOnlyViolation     a write tool was called on a read-only toolkit
    │   ├── GraphNotFound         the graph was never written or was deleted
    │   ├── GraphLoading          the store is still building an index the query needs: retry in N s
    │   ├── PathNotFound          nothing exists at a path under the files root
    │   └── SessionRefused        an MCP client's address creates sessions too fast: retry in N s
    ├── StoreUnavailable          FalkorDB cannot be reached or started
    │   └── NotAcknowledged       a write ran on the primary, but fewer replicas than ``wait=`` confirmed it
    ├── ConfigurationError        the developer misconfigured something (URL, model, extras)
    │   ├── EmbeddingMismatch     the graph was built with another embedder
    │   └── DatasetError          a questions or corpus file of the evaluation is malformed
    ├── DocumentLoadError         a file could not be turned into text
    ├── ChatModelError            the chat model failed past the retries
    ├── EmbeddingProviderError    the embedding provider failed past the retries
    └── EmbedderStopped           the embedder stopped (the process is exiting) before a request was embedded

The modules that raise them export them too (``graphrag_agents.models.chat.ChatModelError``, ...).
"""

from __future__ import annotations

__all__ = [
    "ChatModelError",
    "ConfigurationError",
    "DatasetError",
    "DocumentLoadError",
    "EmbedderStopped",
    "EmbeddingMismatch",
    "EmbeddingProviderError",
    "GraphLoading",
    "GraphNotFound",
    "GraphRAGError",
    "NotAcknowledged",
    "PathNotFound",
    "ReadOnlyViolation",
    "SessionRefused",
    "StoreUnavailable",
    "ToolError",
]


class GraphRAGError(Exception):
    """Root of every error this package raises."""


class ToolError(GraphRAGError):
    """A tool call that cannot run, with a hint that names the next step.

    ``str(error)`` is ``"<message> Hint: <hint>"`` so a model reading only the text still sees the fix.
    """

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message} Hint: {hint}" if hint else message)


class ReadOnlyViolation(ToolError):
    """A write tool was called on a read-only toolkit. Fix: build the toolkit with ``read_only=False``."""


class GraphNotFound(ToolError):
    """The graph does not exist. Fix: ingest documents (and finalize) first, or check the graph name."""


class GraphLoading(ToolError):
    """FalkorDB is still building an index (after a restart, an upgrade or a rebuild). Fix: retry in
    ``retry_after`` seconds; the data is there, the index is not ready yet."""

    def __init__(self, message: str, hint: str = "", retry_after: float = 5.0) -> None:
        super().__init__(message, hint)
        self.retry_after = retry_after
        """Estimated seconds until the index is ready."""


class PathNotFound(ToolError):
    """Nothing exists at a path under the files root (a ``file:`` id then falls back to its plain path). Fix: give
    a path relative to the files root, or a glob."""


class SessionRefused(ToolError):
    """A new MCP client session refused because its address creates them too fast; retry in ``retry_after`` s."""

    def __init__(self, address: str, retry_after: int, burst: int, per_second: float) -> None:
        super().__init__(
            f"Too many new sessions from your address ({address}): retry in {retry_after} s.",
            f"This server admits {burst} new client sessions at once from one address, then {per_second:g} a "
            "second; nothing ran and no evidence was issued. Keep one X-GraphRAG-Client id (or cookie, or MCP "
            "session) for the whole conversation, so only its first call needs a new session.")
        self.address = address
        self.retry_after = retry_after
        """Seconds until this address may create a new session."""


class StoreUnavailable(GraphRAGError):
    """FalkorDB could not be reached or started; the message names the address and the fix."""


class ConfigurationError(GraphRAGError):
    """A setting, URL, model name or missing extra; the message names the fix."""


class EmbeddingMismatch(ConfigurationError):
    """The graph stores vectors of another model or dimension than the embedder it was opened with."""


class NotAcknowledged(StoreUnavailable):
    """A write ran on the primary, but fewer replicas than ``wait=`` asks confirmed it in time."""


class DatasetError(ConfigurationError):
    """A questions or corpus file is malformed; the message names each bad line (``file:line: problem``)."""


class DocumentLoadError(GraphRAGError):
    """A file could not be turned into text; ``reason`` says why (and ``path`` which file)."""

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)


class ChatModelError(GraphRAGError):
    """The chat model failed (provider error, timeout, refused request) past the retries; keys are masked."""


class EmbeddingProviderError(GraphRAGError):
    """The embedding provider kept failing (rate limit, outage, timeout) past the retries; keys are masked."""


class EmbedderStopped(GraphRAGError):
    """The embedder's worker was stopped (the process is exiting) before this request was embedded."""
