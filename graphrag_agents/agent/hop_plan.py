"""Deprecated: the hop plan is :mod:`graphrag_agents.agent.hops.plan`;
this module goes in the next release."""

import warnings

from .hops.plan import (
    MAX_HOPS,
    PLAN_SCHEMA,
    fill,
    is_comparison,
    parse_plan,
    plan_prompt,
    plan_response_format,
    rule_hops,
)

__all__ = ["MAX_HOPS", "PLAN_SCHEMA", "fill", "is_comparison", "parse_plan", "plan_prompt", "plan_response_format",
           "rule_hops"]

warnings.warn("graphrag_agents.agent.hop_plan is deprecated: "
              "import from graphrag_agents.agent.hops.plan instead",
              DeprecationWarning, stacklevel=2)
