"""Deprecated: the check of one hop is :mod:`graphrag_agents.agent.hops.check`;
this module goes in the next release."""

import warnings

from .hops.check import HopStep, MissingHop, chain_text, check_hop, hop_subject, passage_topic, render_hop, same_name

__all__ = ["HopStep", "MissingHop", "chain_text", "check_hop", "hop_subject", "passage_topic", "render_hop",
           "same_name"]

warnings.warn("graphrag_agents.agent.hop_check is deprecated: "
              "import from graphrag_agents.agent.hops.check instead",
              DeprecationWarning, stacklevel=2)
