"""Old import path of ``graphrag_agents.cli.agent_options`` (the same module object)."""

import sys

from graphrag_agents.cli import agent_options as _moved

sys.modules[__name__] = _moved
