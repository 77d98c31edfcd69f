"""Notes the MCP server adds to a result's hint when the connection cannot keep its evidence numbering.

Both name what the client must change, because the model reading them can tell its user (or its developer):

* an HTTP request with no session id, no cookie and no ``X-GraphRAG-Client`` header gets a numbering of its own,
  so the evidence it receives can never be checked in a later call;
* ``check_citations`` on the session made anew for an HTTP client whose session was evicted: its evidence
  expired, so it must retrieve again (it is no citation failure);
* ``check_citations`` on a session that has issued no evidence at all, citing numbers: the usual cause is a client
  that opens a new MCP session for every tool call (langchain-mcp-adapters' ``MultiServerMCPClient.get_tools()``
  over stdio or HTTP), so the numbers come from a session that no longer exists.
"""

from __future__ import annotations

from ...citations import CitationCheck
from ...tools.results import ToolResult
from ...tools.toolkit import GraphRAGToolkit

__all__ = ["EPHEMERAL_NOTE", "EXPIRED_NOTE", "NEW_SESSION_NOTE", "session_note"]

EPHEMERAL_NOTE = ("This connection keeps no session (no Mcp-Session-Id, no cookie, no X-GraphRAG-Client header), so "
                  "evidence numbers cannot be checked in a later call; use a client that keeps cookies or the "
                  "session handshake, or send the header X-GraphRAG-Client: <random id> on every request.")
NEW_SESSION_NOTE = (
    "No tool has returned evidence in this MCP session, so none of these numbers can be checked here: your client "
    "probably opens a new MCP session for every tool call (langchain-mcp-adapters' MultiServerMCPClient.get_tools() "
    "does). Keep one session for the conversation (langchain-mcp-adapters: async with client.session(\"<server>\") "
    "as s: tools = await load_mcp_tools(s)), or over HTTP send the header X-GraphRAG-Client: <random id> on every "
    "request; then call retrieve again and cite the numbers it returns.")


EXPIRED_NOTE = ("This session's evidence expired (the server keeps the most recently used client sessions, and "
                "this one had been idle the longest); call retrieve again and cite the numbers it returns.")


def session_note(tool: str, result: ToolResult, session: GraphRAGToolkit, *, ephemeral: bool,
                 state: str = "kept") -> str | None:
    """The note to add to ``result`` of ``tool`` in ``session`` (None: nothing to say); ``state`` is the HTTP
    session's (``_sessions.SessionState``)."""
    if ephemeral and result.evidence_numbers():
        return EPHEMERAL_NOTE
    if (state == "expired" and tool == "check_citations" and isinstance(result, CitationCheck) and result.invalid
            and len(session.ledger) == 0):
        return EXPIRED_NOTE
    if tool == "check_citations" and isinstance(result, CitationCheck) and result.invalid and len(session.ledger) == 0:
        return NEW_SESSION_NOTE
    return None
