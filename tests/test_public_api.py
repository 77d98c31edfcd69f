"""The public API is exactly what ``__all__`` says, and importing it pulls in no agent framework."""

from __future__ import annotations

import subprocess
import sys

import graphrag_agents


def test_all_names_resolve_and_nothing_public_is_missing() -> None:
    for name in graphrag_agents.__all__:
        assert hasattr(graphrag_agents, name), name
    public = {n for n in vars(graphrag_agents) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(graphrag_agents, n)).__name__ == "module"}
    assert public - modules == set(graphrag_agents.__all__)


def test_import_is_framework_free() -> None:
    code = ("import sys, graphrag_agents; "
            "print([m for m in ('langchain_core', 'langgraph', 'pydantic_ai', 'mcp', 'litellm', 'spacy') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
