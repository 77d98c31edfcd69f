"""``python -m graphrag_agents.adapters.mcp``: the same as ``graphrag-mcp``."""

import sys

from ...cli import mcp_main

sys.exit(mcp_main())
