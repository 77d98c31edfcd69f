"""Deprecated: the comparison rule is :mod:`graphrag_agents.agent.hops.compare`;
this module goes in the next release."""

import warnings

from .hops.compare import Decision, decide, is_country, read_date, same_value

__all__ = ["Decision", "decide", "is_country", "read_date", "same_value"]

warnings.warn("graphrag_agents.agent.compare is deprecated: "
              "import from graphrag_agents.agent.hops.compare instead",
              DeprecationWarning, stacklevel=2)
