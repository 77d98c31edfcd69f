"""Old import path of ``graphrag_agents.cli.evaluate`` (the same module object)."""

import sys

from graphrag_agents.cli import evaluate as _moved

sys.modules[__name__] = _moved
