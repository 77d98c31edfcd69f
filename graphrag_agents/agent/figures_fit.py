"""Old import path of ``graphrag_agents.agent.fit.figures`` (the same module object)."""

import sys

from graphrag_agents.agent.fit import figures as _moved

sys.modules[__name__] = _moved
