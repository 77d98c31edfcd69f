"""``python -m graphrag_agents.adapters.mcp``: deprecated, the same as ``graphrag-mcp`` (``python -m
graphrag_agents.cli.mcp_command``); this forward goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("python -m graphrag_agents.adapters.mcp is deprecated: run graphrag-mcp (or python -m "
              "graphrag_agents.cli.mcp_command) instead", DeprecationWarning, stacklevel=1)
# Imported by name: the command line sits above the adapter, which never imports it.
sys.exit(importlib.import_module("graphrag_agents.cli.mcp_command").main())
