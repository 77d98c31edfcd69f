"""Moved modules: a private old path is gone, a public old path still gives the same names for one release with a
DeprecationWarning naming the new one; the entry points keep working."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

GONE = ["graphrag_agents._ask", "graphrag_agents._cli_first_run", "graphrag_agents._agent_options",
        "graphrag_agents.evaluation._cli", "graphrag_agents.adapters.mcp._cli",
        *(f"graphrag_agents.adapters._mcp_{name}"
          for name in ("cli", "failures", "http", "instructions", "notes", "sessions", "stdio", "truncate"))]
DEPRECATED = {
    "graphrag_agents.agent.question_fit": "graphrag_agents.agent.fit.rules",
    "graphrag_agents.agent.figures_fit": "graphrag_agents.agent.fit.figures",
    "graphrag_agents.tools.evidence": "graphrag_agents.evidence.ledger",
    "graphrag_agents.tools.render": "graphrag_agents.evidence.render",
    **{f"graphrag_agents.agent.{old}": f"graphrag_agents.agent.hops.{new}" for old, new in (
        ("hop_plan", "plan"), ("compare_plan", "compare_plan"), ("compare", "compare"), ("hop_check", "check"),
        ("tools_chain", "tools_chain"), ("chain_nodes", "chain"))},
}


@pytest.mark.parametrize("old", GONE)
def test_a_private_old_path_is_gone(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


@pytest.mark.parametrize(("old", "new"), sorted(DEPRECATED.items()))
def test_a_public_old_path_warns_and_exports_the_same_names(monkeypatch: pytest.MonkeyPatch, old: str,
                                                            new: str) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # imported before: the warning is given at import
    with pytest.warns(DeprecationWarning, match=new.rsplit(".", 1)[0].replace(".", r"\.")):
        moved = importlib.import_module(old)
    target = importlib.import_module(new)
    assert moved.__all__ and all(getattr(moved, name) is getattr(target, name) for name in moved.__all__)


def test_public_mcp_names_and_entry_points() -> None:
    from graphrag_agents.adapters import mcp
    from graphrag_agents.adapters.mcp.server import GraphRAGMCPServer
    from graphrag_agents.cli import main, mcp_main

    assert mcp.GraphRAGMCPServer is GraphRAGMCPServer
    assert callable(main) and callable(mcp_main)
    with pytest.raises(AttributeError):
        _ = mcp.NotAName  # type: ignore[attr-defined]


def test_cli_options_import_no_mcp_sdk() -> None:
    """The command line reads the MCP options without importing the SDK (it costs start-up time)."""
    code = "import sys, graphrag_agents.cli.mcp_command, graphrag_agents.cli; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("module", ["graphrag_agents.cli", "graphrag_agents.cli.mcp_command"])
def test_packages_run_with_dash_m(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout


def test_the_old_mcp_entry_points_warn_and_still_serve() -> None:
    """``python -m graphrag_agents.adapters.mcp`` and ``adapters.mcp.main`` forward to ``cli.mcp_command`` for one
    release, each with a DeprecationWarning naming the new path."""
    done = subprocess.run([sys.executable, "-m", "graphrag_agents.adapters.mcp", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: graphrag-mcp" in done.stdout
    assert "DeprecationWarning" in done.stderr and "graphrag_agents.cli.mcp_command" in done.stderr

    from graphrag_agents.adapters import mcp

    with pytest.warns(DeprecationWarning, match="graphrag_agents.cli.mcp_command.main"), \
            pytest.raises(SystemExit) as stopped:
        mcp.main(["--version"])
    assert stopped.value.code == 0


def test_the_tools_package_still_exports_the_evidence_names() -> None:
    import graphrag_agents.evidence as evidence
    import graphrag_agents.tools as tools
    from graphrag_agents.tools import results

    assert tools.Evidence is evidence.Evidence and tools.EvidenceLedger is evidence.EvidenceLedger
    assert tools.ToolResult is results.ToolResult is evidence.ToolResult
    assert results.llm_text is evidence.llm_text


def test_the_options_measured_as_no_gain_are_not_public() -> None:
    """``ChainSettings.ppr`` and ``PassageWeights.entity`` left the public API (benchmarks/ sets them through
    ``retrieval._experiments``)."""
    from dataclasses import fields

    from graphrag_agents.retrieval.chain import ChainSettings
    from graphrag_agents.retrieval.passages import PassageWeights

    assert "ppr" not in {f.name for f in fields(ChainSettings)}
    assert "entity" not in {f.name for f in fields(PassageWeights)}
