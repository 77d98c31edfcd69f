"""Deprecated: the hop chain's nodes are :mod:`graphrag_agents.agent.hops.chain`;
this module goes in the next release."""

import warnings

from .hops.chain import ChainNodes

__all__ = ["ChainNodes"]

warnings.warn("graphrag_agents.agent.chain_nodes is deprecated: "
              "import from graphrag_agents.agent.hops.chain instead",
              DeprecationWarning, stacklevel=2)
