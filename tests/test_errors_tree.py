"""Every error the package raises is a class of ``errors.py``, drawn in its docstring's tree under its real parent."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import graphrag_agents
from graphrag_agents import errors

PACKAGE = Path(graphrag_agents.__file__).parent
_NODE = re.compile(r"^ {4}((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\s")


def _drawn() -> dict[str, str | None]:
    """Each class the drawing names, with the class drawn above it (None for the root)."""
    parents: list[str] = []
    drawn: dict[str, str | None] = {}
    for line in (errors.__doc__ or "").splitlines():
        found = _NODE.match(line)
        if found is None:
            continue
        depth = len(found.group(1)) // 4 + (1 if "── " in line else 0)
        del parents[depth:]
        drawn[found.group(2)] = parents[-1] if parents else None
        parents.append(found.group(2))
    return drawn


def test_the_drawing_is_the_class_tree() -> None:
    actual = {}
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert cls.__module__ == "graphrag_agents.errors" and issubclass(cls, errors.GraphRAGError), name
        actual[name] = None if cls is errors.GraphRAGError else cls.__bases__[0].__name__
    assert _drawn() == actual


def test_every_graphrag_error_lives_in_errors_py_and_none_is_a_bare_runtime_error() -> None:
    ours = set(errors.__all__)
    outside, runtime = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "errors.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                     if isinstance(b, (ast.Name, ast.Attribute))}
            where = f"{path.relative_to(PACKAGE)}:{node.name}"
            if bases & ours:
                outside.append(where)
            elif "RuntimeError" in bases:
                runtime.append(where)
    assert outside == [], "define these in graphrag_agents/errors.py and draw them in its docstring"
    assert runtime == [], "derive these from GraphRAGError (errors.py)"
