"""Old import path of ``graphrag_agents.agent.fit.rules`` (the same module object)."""

import sys

from graphrag_agents.agent.fit import rules as _moved

sys.modules[__name__] = _moved
