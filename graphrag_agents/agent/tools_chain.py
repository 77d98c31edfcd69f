"""Deprecated: the chain check of tools mode is :mod:`graphrag_agents.agent.hops.tools_chain`;
this module goes in the next release."""

import warnings

from .hops.tools_chain import ToolsChain, check_tools_chain, reported_hops

__all__ = ["ToolsChain", "check_tools_chain", "reported_hops"]

warnings.warn("graphrag_agents.agent.tools_chain is deprecated: "
              "import from graphrag_agents.agent.hops.tools_chain instead",
              DeprecationWarning, stacklevel=2)
