"""Old import path of ``graphrag_agents.cli.first_run`` (the same module object)."""

import sys

from graphrag_agents.cli import first_run as _moved

sys.modules[__name__] = _moved
