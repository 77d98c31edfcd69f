"""The multi-hop machinery: a question answered as a chain of single-hop steps, each retrieved, cited and checked.

* :mod:`.plan`: the hop plan (relative-phrase rules, else the planning call's prompt, schema and reader);
* :mod:`.compare_plan` and :mod:`.compare`: a comparison planned as one run of hops per side, and the rule that
  compares the sides' checked values;
* :mod:`.check`: one hop checked (a cited sentence states its subject and its answer together), and the chain's
  data (:class:`HopStep`, :class:`MissingHop`);
* :mod:`.restated`: a hop's answer written as a sentence restating its question, read as what the sentence adds;
* :mod:`.chain`: the ``plan``, ``hop`` and ``conclude`` nodes of ``retrieve_first``, which read the agent
  through :mod:`.context` (:class:`~.context.HopContext`: the model, the run's evidence sessions and the options
  of the hops), not through the agent's other nodes;
* :mod:`.tools_chain`: the hops a ``tools``-mode model reports, checked the same way.

:mod:`.chain` and :mod:`.context` import the agent's state, whose fields hold this package's data, so they are
imported from their modules (``graphrag_agents.agent.hops.chain``), not from here.
"""

from .check import HopStep, MissingHop, chain_text, check_hop
from .compare import decide
from .compare_plan import Comparison, comparison_plan
from .plan import MAX_HOPS, is_comparison, parse_plan, rule_hops
from .tools_chain import ToolsChain, check_tools_chain

__all__ = ["MAX_HOPS", "Comparison", "HopStep", "MissingHop", "ToolsChain", "chain_text", "check_hop",
           "check_tools_chain", "comparison_plan", "decide", "is_comparison", "parse_plan", "rule_hops"]
