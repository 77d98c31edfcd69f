"""Old import path of ``graphrag_agents.adapters.mcp._stdio`` (the same module object)."""

import sys

from graphrag_agents.adapters.mcp import _stdio as _moved

sys.modules[__name__] = _moved
