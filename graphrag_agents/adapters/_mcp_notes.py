"""Old import path of ``graphrag_agents.adapters.mcp._notes`` (the same module object)."""

import sys

from graphrag_agents.adapters.mcp import _notes as _moved

sys.modules[__name__] = _moved
