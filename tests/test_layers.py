"""The import-linter contracts of ``pyproject.toml`` (``[tool.importlinter]``), run by the suite.

Each contract runs in a child process: import-linter configures logging in the process it runs in, which turned
off every logger the package had made (later tests that read the package's log found nothing)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
_LINT = ("import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename=sys.argv[1], limit_to_contracts=(sys.argv[2],), no_cache=True))")


def _kept(contract: str) -> bool:
    run = subprocess.run([sys.executable, "-c", _LINT, str(PYPROJECT), contract], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=False)
    print(run.stdout, run.stderr)  # the broken chains, shown when the test fails
    return run.returncode == 0


def test_a_lower_layer_never_imports_a_higher_one() -> None:
    """errors, _secrets -> _keys, _env, _install -> store, models, evidence -> ingest, retrieval, citations -> kg ->
    tools -> adapters -> agent -> evaluation -> cli, with no exception list (the broken chains are printed)."""
    assert _kept("layers")


def private_citation_imports(package: Path) -> list[str]:
    """``path: module`` of every import, outside ``citations``, of a ``citations`` module whose name starts with an
    underscore (absolute, or relative from any depth)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).parts
        if parts[0] == "citations":
            continue
        home = [package.name, *parts[:-1]]  # the package the file is in
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = home[:len(home) - node.level + 1] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [f"{path.relative_to(package.parent)}: {name}" for name in names
                      if name.startswith(f"{package.name}.citations._")]
    return found


def test_only_citations_imports_its_private_modules() -> None:
    """The English reader the check, the agent and the eval share is ``graphrag_agents.text``; the modules of
    ``citations`` named with a leading underscore are its rules, imported by nothing outside it."""
    assert private_citation_imports(ROOT / "graphrag_agents") == []


def test_a_private_citation_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "graphrag_agents"
    (package / "agent" / "fit").mkdir(parents=True)
    (package / "agent" / "fit" / "names.py").write_text("from ...citations._names import Name\n", encoding="utf-8")
    (package / "cli.py").write_text("import graphrag_agents.citations._text\nfrom .text import words\n",
                                    encoding="utf-8")
    assert private_citation_imports(package) == [
        "graphrag_agents/agent/fit/names.py: graphrag_agents.citations._names",
        "graphrag_agents/agent/fit/names.py: graphrag_agents.citations._names.Name",
        "graphrag_agents/cli.py: graphrag_agents.citations._text"]
