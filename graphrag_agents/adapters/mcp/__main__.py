"""``python -m graphrag_agents.adapters.mcp``: the same as ``graphrag-mcp``."""

import sys

from .server import main

sys.exit(main())
