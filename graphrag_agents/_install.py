"""The install line that errors and docs name: graphrag-agents installs from its source folder, not a registry.

The package is not published on PyPI, so the registry has no ``graphrag-agents[ner]`` to install; the line that works
is ``pip install '.[ner]'`` run in the checkout (the folder holding ``pyproject.toml``), or a wheel built there.
"""

from __future__ import annotations

__all__ = ["SOURCE_FOLDER", "pip_extra"]

SOURCE_FOLDER = "the graphrag-agents source folder (the checkout holding pyproject.toml)"


def pip_extra(extra: str) -> str:
    """The command that adds ``extra`` to an install, e.g. ``pip install '.[ner]' in the graphrag-agents ...``."""
    return f"pip install '.[{extra}]' in {SOURCE_FOLDER}"
