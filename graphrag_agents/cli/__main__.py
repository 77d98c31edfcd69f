"""``python -m graphrag_agents.cli``: the same as ``graphrag-agents``."""

import sys

from .commands import main

sys.exit(main())
