"""No function of the package is over cyclomatic complexity 25 (radon's measure): past that a function holds
several concepts, and the next change lands in the wrong one. A function that needs more is split by concept."""

from __future__ import annotations

from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")

PACKAGE = Path(__file__).resolve().parents[1] / "graphrag_agents"
LIMIT = 25


def over_limit(root: Path, limit: int = LIMIT) -> list[str]:
    """``path:line name (complexity)`` of every function or method under ``root`` over ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
            # a class is measured by its methods; a function with the functions it defines
            items = list(block.methods) if hasattr(block, "methods") else [block, *block.closures]
            for item in items:
                if item.complexity > limit:
                    found.append(f"{path.relative_to(root.parent)}:{item.lineno} {item.name} ({item.complexity})")
    return sorted(set(found))


def test_no_function_is_over_the_limit() -> None:
    assert over_limit(PACKAGE) == []


def test_the_measure_catches_a_function_over_the_limit(tmp_path: Path) -> None:
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(LIMIT + 1))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "deep.py").write_text(f"def deep(x):\n{branches}\n    return -1\n", encoding="utf-8")
    assert over_limit(tmp_path / "pkg") == [f"pkg/deep.py:1 deep ({LIMIT + 2})"]
