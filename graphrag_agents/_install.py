"""The install line that errors and docs name: graphrag-agents installs from its source folder, not a registry.

The package is not published on PyPI, so the registry has no ``graphrag-agents[ner]`` to install; the line that works
is ``pip install '.[ner]'`` run in the checkout (the folder holding ``pyproject.toml``), or a wheel built there.
"""

from __future__ import annotations

from .errors import ConfigurationError

__all__ = ["EXTRA_MODULES", "SOURCE_FOLDER", "missing_extra", "pip_extra"]

SOURCE_FOLDER = "the graphrag-agents source folder (the checkout holding pyproject.toml)"

EXTRA_MODULES = {
    "langchain_core": "langchain", "langgraph": "langchain", "langchain": "langchain", "langchain_litellm": "langchain",
    "mcp": "mcp", "mcp_types": "mcp", "pydantic_ai": "pydantic-ai", "litellm": "llm", "pypdf": "pdf",
    "spacy": "ner", "matplotlib": "eval",
}
"""The extra that installs each optional top-level module."""


def pip_extra(extra: str) -> str:
    """The command that adds ``extra`` to an install, e.g. ``pip install '.[ner]' in the graphrag-agents ...``."""
    return f"pip install '.[{extra}]' in {SOURCE_FOLDER}"


def missing_extra(exc: BaseException) -> ConfigurationError | None:
    """The error to show for ``exc`` when it (or an error that caused it) is the import of an extra's module that
    is not installed; None for any other error.

    A guarded import that already names its fix (:func:`pip_extra`) keeps its own message; otherwise the message
    names the module and the extra: ``The 'langchain' extra is not installed (no module named 'langgraph').``,
    then the fix.
    """
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    for error in seen:
        if isinstance(error, ImportError) and SOURCE_FOLDER in str(error):
            return ConfigurationError(str(error))
    for error in seen:
        module = (error.name or "").split(".")[0] if isinstance(error, ModuleNotFoundError) else ""
        if module in EXTRA_MODULES:
            extra = EXTRA_MODULES[module]
            return ConfigurationError(f"The '{extra}' extra is not installed (no module named '{module}'). "
                                      f"Fix: {pip_extra(extra)}.")
    return None
