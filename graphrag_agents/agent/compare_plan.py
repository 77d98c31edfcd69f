"""Deprecated: the plan of a comparison is :mod:`graphrag_agents.agent.hops.compare_plan`;
this module goes in the next release."""

import warnings

from .hops.compare_plan import Comparison, comparison_plan, option_span

__all__ = ["Comparison", "comparison_plan", "option_span"]

warnings.warn("graphrag_agents.agent.compare_plan is deprecated: "
              "import from graphrag_agents.agent.hops.compare_plan instead",
              DeprecationWarning, stacklevel=2)
