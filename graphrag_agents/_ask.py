"""Old import path of ``graphrag_agents.cli.ask`` (the same module object)."""

import sys

from graphrag_agents.cli import ask as _moved

sys.modules[__name__] = _moved
