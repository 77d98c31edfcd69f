"""Packaging: the build backend understands the metadata, and an editable install is visible to type checkers."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_setuptools_floor_understands_the_spdx_license_string() -> None:
    (setuptools,) = [Requirement(r) for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    # `license = "Apache-2.0"` (PEP 639) needs setuptools 77; 68 and 70 reject it.
    assert isinstance(PYPROJECT["project"]["license"], str)
    assert not setuptools.specifier.contains("70.0") and not setuptools.specifier.contains("76.1")
    assert setuptools.specifier.contains("77.0")


def test_editable_installs_use_a_path_entry_not_an_import_hook() -> None:
    # setuptools writes a plain .pth path (which mypy follows) only when the root is the package folder.
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"": "."}


@pytest.mark.slow
def test_mypy_sees_the_package_after_an_editable_install(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)], check=True,
                   timeout=600)
    (tmp_path / "use.py").write_text("from graphrag_agents import KnowledgeGraph\n"
                                     "reveal_type(KnowledgeGraph.open)\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--python-executable", str(python),
                          "use.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "KnowledgeGraph" in run.stdout, run.stdout + run.stderr
