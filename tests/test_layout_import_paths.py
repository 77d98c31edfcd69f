"""The modules moved into ``cli/``, ``adapters/mcp/`` and ``agent/fit/`` keep their old import paths, as the same
module objects."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MOVED = {
    "graphrag_agents._ask": "graphrag_agents.cli.ask",
    "graphrag_agents._cli_first_run": "graphrag_agents.cli.first_run",
    "graphrag_agents._agent_options": "graphrag_agents.cli.agent_options",
    "graphrag_agents.evaluation._cli": "graphrag_agents.cli.evaluate",
    "graphrag_agents.agent.question_fit": "graphrag_agents.agent.fit.rules",
    "graphrag_agents.agent.figures_fit": "graphrag_agents.agent.fit.figures",
    **{
        f"graphrag_agents.adapters._mcp_{name}": f"graphrag_agents.adapters.mcp._{name}"
        for name in ("failures", "http", "instructions", "notes", "sessions", "stdio", "truncate")
    },
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_is_the_moved_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_old_path_patches_reach_the_moved_module(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphrag_agents._ask as old
    import graphrag_agents.cli.ask as new

    monkeypatch.setattr(old, "extractive_draft", "patched")
    assert new.extractive_draft == "patched"


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


@pytest.mark.parametrize(("old", "new"), [("graphrag_agents.tools.evidence", "graphrag_agents.evidence.ledger"),
                                          ("graphrag_agents.tools.render", "graphrag_agents.evidence.render")])
def test_the_old_evidence_modules_warn_and_export_the_same_names(monkeypatch: pytest.MonkeyPatch, old: str,
                                                                  new: str) -> None:
    """The ledger and the renderer moved to ``graphrag_agents.evidence``; their old modules still give the same
    objects for one release, with a DeprecationWarning naming the new path."""
    monkeypatch.delitem(sys.modules, old, raising=False)  # imported before: the warning is given at import
    with pytest.warns(DeprecationWarning, match=new.rsplit(".", 1)[0].replace(".", r"\.")):
        moved = importlib.import_module(old)
    target = importlib.import_module(new)
    assert moved.__all__ and all(getattr(moved, name) is getattr(target, name) for name in moved.__all__)


def test_the_tools_package_still_exports_the_evidence_names() -> None:
    import graphrag_agents.evidence as evidence
    import graphrag_agents.tools as tools
    from graphrag_agents.tools import results

    assert tools.Evidence is evidence.Evidence and tools.EvidenceLedger is evidence.EvidenceLedger
    assert tools.ToolResult is results.ToolResult is evidence.ToolResult
    assert results.llm_text is evidence.llm_text
