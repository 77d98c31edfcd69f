"""Whether a co-mention fact's text is a sentence that can state a relation, read from its markup alone.

The ``ner`` extractor makes a fact of each sentence naming two or more entities, with the package's sentence
splitter, which does not cut at the start of a list item. In technical documents a "sentence" is then often a
list (``* [Node.js installer](...)`` and ``* [NodeSource installer](...)`` on two lines), the fields of an option
(``* Default: ...`` and ``* Type: String``), a table row or a heading: names side by side, no relation stated.
:func:`reads_as_sentence` tells them apart; the extractor makes no fact of what fails it, and ``retrieve``'s
evidence leaves out a stored fact that fails it (``tools/earned.py``), so a graph built before the rule reads
the same way.
"""

from __future__ import annotations

import re

from .code_spans import mask_code
from .common_names import FUNCTION_WORDS
from .name_places import structure_spans

__all__ = ["reads_as_sentence", "states_something"]

_LOWER_WORD = re.compile(r"(?<![\w.-])[a-z]+(?:['’-][a-z]+)*(?![\w.-])")
_ITEM_LINE = re.compile(r"^[ \t]*(?:[*+-]|\d{1,3}[.)])[ \t]+", re.M)
_BULLET = re.compile(r"\A[ \t]*([*+-])[ \t]")


def _a_list(text: str) -> bool:
    """Whether ``text`` holds two or more list items: on lines of their own, or, as a stored fact has its spacing
    collapsed, a bullet opening the text and the same bullet again after a space (``* Default: ... * Type:
    String``)."""
    if len(_ITEM_LINE.findall(text)) >= 2:
        return True
    bullet = _BULLET.match(text)
    return bullet is not None and f" {bullet.group(1)} " in text[bullet.end():]


def states_something(sentence: str) -> bool:
    """Whether ``sentence`` (its code masked) can state a relation: it holds a lower-case word that is not a
    function word ("Mountrail County was created ..."), where a list of names, a table row or a heading holds
    names and signs only ("Type: Number", "Node.js and npm")."""
    return any(w not in FUNCTION_WORDS for w in _LOWER_WORD.findall(sentence))


def reads_as_sentence(text: str) -> bool:
    """Whether ``text`` reads as one sentence: not two or more list items (a list the splitter left whole, on its
    lines or with its spacing collapsed as facts are stored), and,
    with its code, markup and structure (headings, table rows, fields:
    :func:`~graphrag_agents.ingest.name_places.structure_spans`) blanked, still stating something
    (:func:`states_something`)."""
    if _a_list(text):
        return False
    masked = mask_code(text)
    for start, end in structure_spans(text):
        masked = masked[:start] + " " * (end - start) + masked[end:]
    return states_something(masked)
