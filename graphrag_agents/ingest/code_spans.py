"""Code and markup in technical documents, kept away from the ``ner`` extractor.

spaCy reads identifiers as names: ``ASN1_MEM_ERROR`` a Person, ``NULL`` an Organization, ``= array([True`` a
Person. Before NER, :func:`mask_code` blanks what is code (fenced blocks, indented code after a blank line,
inline backtick spans, interpreter prompts) with spaces of the same length, so every offset into the chunk's
text still holds; :func:`code_like` then refuses an entity name that reads as code. The same rule is
:func:`code_like` for the junk measurement of ``benchmarks/entity_junk_bench.py``.
"""

from __future__ import annotations

import re

__all__ = ["CODE_CONSTANTS", "code_like", "has_code_chars", "mask_code"]

CODE_CONSTANTS = frozenset({"NULL", "NUL", "TRUE", "FALSE", "NONE", "NAN", "EOF", "STDIN", "STDOUT", "STDERR",
                            "TODO", "FIXME", "UTF8", "ASCII"})
"""All-caps words that are programming constants, never a named thing."""

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_INDENTED = re.compile(r"(?:(?<=\n\n)|\A)(?:(?: {4}|\t)[^\n]*(?:\n|\Z))+")
_INLINE = re.compile(r"`[^`\n]+`")
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.|\$|>)[ \t][^\n]*", re.M)
_MARKUP = re.compile(r"^[ \t]*(?:[-=~^*#]{3,}|\.\. [\w-]+::[^\n]*)[ \t]*$", re.M)
"""Heading underlines of reST and Markdown, thematic breaks, reST directives."""
_CODE_CHARS = re.compile(r"[_(){}\[\]<>=;\\|$#@`]")
_DOTTED = re.compile(r"\b[a-z]\w*\.[a-z]")  # fs.readFile, ma.mask_or (not "Node.js", "U.S." or "St. Louis")
_CAMEL = re.compile(r"\b[a-z]+[A-Z]\w*")  # readFile, maxBuffer
_CAPS_DIGIT = re.compile(r"^[A-Z][A-Z0-9]{2,}$")  # ASN1, UTF16, SHA256 alone (not "F1", "C64", "Renault F1")
_PARTICLES = ("de ", "di ", "da ", "du ", "von ", "van ", "le ", "la ", "al ", "el ", "d'")


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def mask_code(text: str) -> str:
    """``text`` with its code and markup lines replaced by spaces (newlines and length kept)."""
    for pattern in (_FENCE, _INDENTED, _PROMPT, _MARKUP, _INLINE):
        text = pattern.sub(_blank, text)
    return text


def has_code_chars(text: str) -> bool:
    """True when ``text`` holds a sign that only code uses in a name (``_``, brackets, ``=``, ...)."""
    return _CODE_CHARS.search(text) is not None


def code_like(name: str) -> bool:
    """True when an entity name reads as code or markup, not as a named thing.

    The rule: it starts or ends with a sign (``= array([True``); it holds one of ``_ ( ) { } [ ] < > = ; \\ | $ #
    @ ``` (``ASN1_MEM_ERROR``); a dotted lower-case identifier (``fs.readFile``) or a camelCase word
    (``maxBuffer``); a constant (:data:`CODE_CONSTANTS`, or one word of three or more capitals and digits with a
    digit: ``ASN1``, not ``F1``); or it starts in lower case (``der len``; a particle such as ``von`` is fine).
    """
    stripped = name.strip()
    if not stripped or not (stripped[0].isalnum() and (stripped[-1].isalnum() or stripped[-1] in ".'")):
        return True
    if _CODE_CHARS.search(stripped) or _DOTTED.search(stripped) or _CAMEL.search(stripped):
        return True
    words = stripped.split()
    if stripped[0].islower() and not stripped.startswith(_PARTICLES):  # "der len" (not "von Trapp")
        return True
    if len(words) == 1 and _CAPS_DIGIT.match(stripped) and any(ch.isdigit() for ch in stripped):
        return True
    return any(w in CODE_CONSTANTS for w in words)
