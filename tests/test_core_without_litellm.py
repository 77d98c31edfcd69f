"""litellm is the ``llm`` extra: the Python API, the CLI and the MCP server run without it on the offline defaults."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

_WITHOUT_LITELLM = textwrap.dedent("""
    import asyncio, sys
    sys.modules["litellm"] = None  # as after `pip install '.[mcp]'`: the llm extra is not installed
    from graphrag_agents import ConfigurationError, GraphRAGToolkit, KnowledgeGraph
    from graphrag_agents.adapters.mcp import GraphRAGMCPServer
    from graphrag_agents.models.chat import ChatModel

    async def main() -> None:
        async with await KnowledgeGraph.open(graph="plain", data_dir=sys.argv[1]) as kg:
            await kg.ingest(text="Alice Smith works at Acme Corp in Berlin.", document_id="note-1")
            await kg.finalize(progress=False)
            found = await GraphRAGToolkit(kg, read_only=True).retrieve("Where does Alice work?")
            print(len(found.passages) > 0, type(GraphRAGMCPServer(kg)).__name__)
        try:
            await ChatModel("openai/gpt-4o-mini").complete([{"role": "user", "content": "hi"}])
        except ConfigurationError as exc:
            print(exc)

    asyncio.run(main())
""")


def test_the_core_and_the_mcp_server_run_without_litellm(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", _WITHOUT_LITELLM, str(tmp_path / "data")], capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    found, refusal = run.stdout.strip().splitlines()[-2:]
    assert found == "True GraphRAGMCPServer"
    assert "need litellm. Fix: pip install '.[llm]' in the graphrag-agents source folder" in refusal
