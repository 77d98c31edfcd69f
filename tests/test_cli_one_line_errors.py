"""Set-up mistakes that printed tracebacks: an ``error:`` line and a ``hint:`` line naming the fix, exit 2.

A missing extra is simulated as after a plain ``pip install .``: a ``sitecustomize`` on ``PYTHONPATH`` makes the
extra's modules unimportable in the CLI's own process (``ModuleNotFoundError``, as when they are not installed).
The non-Redis service is a real HTTP server on loopback.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from acme_corpus import QUESTION

from graphrag_agents.errors import StoreUnavailable
from graphrag_agents.kg import KnowledgeGraph

ROOT = Path(__file__).resolve().parents[1]
PIP_LINE = "pip install '.[{}]' in the graphrag-agents source folder (the checkout holding pyproject.toml)"
_BLOCKER = '''
import os, sys
from importlib.abc import MetaPathFinder

BLOCKED = set(os.environ["BLOCK_MODULES"].split(","))


class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
'''


def _run(command: list[str], cwd: Path, blocked: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with the modules ``blocked`` (comma-separated) made unimportable."""
    shim = cwd / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(_BLOCKER, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    clean |= {"PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)]), "BLOCK_MODULES": blocked,
              "HF_HUB_OFFLINE": "1"} | env
    return subprocess.run(command, cwd=cwd, env=clean, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def _one_error(run: subprocess.CompletedProcess[str], error: str, hint: str) -> None:
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip().splitlines() == [f"error: {error}", f"hint: {hint}"], run.stderr


async def test_ask_without_the_langchain_extra_names_the_pip_install(acme_corpus_kg: KnowledgeGraph, data_dir: Path,
                                                                     tmp_path: Path) -> None:
    ask = [sys.executable, "-m", "graphrag_agents.cli", "ask", QUESTION, "--graph", acme_corpus_kg.name,
           "--data-dir", str(data_dir)]
    for missing in ("langchain_core", "langgraph"):
        run = await asyncio.to_thread(_run, ask, tmp_path, f"{missing},langchain,langchain_litellm")
        # Before: a 32-line traceback ending in ModuleNotFoundError, exit 1.
        _one_error(run, f"The 'langchain' extra is not installed (no module named '{missing}').",
                   PIP_LINE.format("langchain") + ".")


@pytest.mark.parametrize("entry", [["-c", "import sys; from graphrag_agents.cli import mcp_main; sys.exit(mcp_main())"],
                                   ["-m", "graphrag_agents.cli.mcp_command"], ["-m", "graphrag_agents.cli", "mcp"]],
                         ids=["graphrag-mcp", "python -m cli.mcp_command", "graphrag-agents mcp"])
def test_the_mcp_server_without_the_mcp_extra_names_the_pip_install(tmp_path: Path, entry: list[str]) -> None:
    (tmp_path / "data").mkdir()
    run = _run([sys.executable, *entry, "--data-dir", str(tmp_path / "data")], tmp_path, "mcp,mcp_types")
    # Before: an 18-line traceback (graphrag-mcp) ending in the ImportError that names the fix, exit 1.
    _one_error(run, "The MCP server needs the 'mcp' package (version 2).", PIP_LINE.format("mcp"))


@pytest.fixture
def http_port() -> Iterator[int]:
    """The port of an HTTP server on loopback (a service that answers, but not in the Redis protocol)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def test_a_url_where_another_service_answers_names_the_fix(http_port: int, tmp_path: Path) -> None:
    url = f"falkor://127.0.0.1:{http_port}"
    error = f"The graph store at {url} answered but is not a Redis/FalkorDB server"
    # Before: redis.exceptions.InvalidResponse escaped, a 90-line traceback on the command line.
    with pytest.raises(StoreUnavailable, match="answered but is not a Redis/FalkorDB server") as raised:
        await KnowledgeGraph.open(url=url)
    assert str(raised.value).startswith(error) and "Fix: point url" not in str(raised.value)
    run = await asyncio.to_thread(_run, [sys.executable, "-m", "graphrag_agents.cli", "status", "--url", url],
                                  tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"error: {error}: its reply is not in the Redis protocol"), lines
    assert lines[1] == ("hint: point --url (url=) at the host and port FalkorDB listens on (6379 by default), not "
                        "another service's, or drop --url (url=) to use the embedded default."), lines
    by_env = await asyncio.to_thread(_run, [sys.executable, "-m", "graphrag_agents.cli", "status"], tmp_path,
                                     FALKOR_URL=url)
    assert by_env.returncode == 2 and "hint: point FALKOR_URL at the host and port" in by_env.stderr, by_env.stderr
    assert "or unset FALKOR_URL to use the embedded default." in by_env.stderr


def test_every_module_mapped_to_an_extra_names_an_extra_of_pyproject() -> None:
    import tomllib

    from graphrag_agents._install import EXTRA_MODULES

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRA_MODULES.values()) <= set(extras)
