"""Framework adapters: thin wrappers that register the toolkit's ``ToolSpec`` s with an agent framework.

Import the one you use; each needs its extra, and importing ``graphrag_agents`` imports none of them:

* ``graphrag_agents.adapters.langchain``: ``as_langchain_tools(session)`` and ``GraphRAGLangChainToolkit``
  (LangChain / LangGraph; ``pip install 'graphrag-agents[langchain]'``).
* ``graphrag_agents.adapters.pydantic_ai``: ``GraphRAGToolset(toolkit)``
  (``pip install 'graphrag-agents[pydantic-ai]'``).
* ``graphrag_agents.adapters.mcp``: ``GraphRAGMCPServer`` (``pip install 'graphrag-agents[mcp]'``).

Validation, limits and evidence numbering live in the core; adapters only translate.
"""
