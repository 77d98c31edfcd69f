"""Framework adapters: thin wrappers that register the toolkit's ``ToolSpec`` s with an agent framework.

Import the one you use; each needs its extra, and importing ``graphrag_agents`` imports none of them:

* ``graphrag_agents.adapters.langchain``: ``as_langchain_tools(session)`` and ``GraphRAGLangChainToolkit``
  (LangChain / LangGraph; ``pip install '.[langchain]'`` in the source folder).
* ``graphrag_agents.adapters.pydantic_ai``: ``GraphRAGToolset(toolkit)``
  (``pip install '.[pydantic-ai]'`` in the source folder).
* ``graphrag_agents.adapters.mcp``: ``GraphRAGMCPServer`` (``pip install '.[mcp]'`` in the source folder).

Validation, limits and evidence numbering live in the core; adapters only translate.
"""
