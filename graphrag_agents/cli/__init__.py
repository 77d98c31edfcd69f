"""The ``graphrag-agents`` command line (and ``graphrag-mcp``).

``commands`` builds the parser and runs each command; ``first_run`` holds the demo and the messages of a first
run, ``ask`` the reference agent's command, ``evaluate`` the ``eval`` command, ``agent_options`` the drafting
options that ``ask`` and ``eval`` share, and ``mcp_command`` the MCP server's command (``graphrag-mcp`` and ``mcp``).
"""

from .commands import main, mcp_main

__all__ = ["main", "mcp_main"]
