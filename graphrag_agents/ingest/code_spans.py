"""Code and markup in technical documents, kept away from the ``ner`` extractor.

spaCy reads identifiers as names: ``ASN1_MEM_ERROR`` a Person, ``NULL`` an Organization, ``= array([True`` a
Person. Before NER, :func:`mask_code` blanks what is code (fenced blocks, indented code after a blank line,
inline backtick spans, interpreter prompts) with spaces of the same length, so every offset into the chunk's
text still holds; :func:`code_like` then refuses an entity name that reads as code. The same rule is
:func:`code_like` for the junk measurement of ``benchmarks/entity_junk_bench.py``. Markup that is not text goes
too: HTML comments (the YAML change notes of the Node.js docs), link targets, URLs and e-mail addresses,
reference-link definitions, JSDoc types (``{number}``), emphasis marks and table rules (a table's bars become
``;``, so two cells never read as one name). :func:`mask_chunks` masks the chunks of one document
as one text, so a code block the chunker cut into pieces is masked in each piece.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["CODE_CONSTANTS", "code_like", "has_code_chars", "mask_chunks", "mask_code"]

CODE_CONSTANTS = frozenset({"NULL", "NUL", "TRUE", "FALSE", "NONE", "NAN", "EOF", "STDIN", "STDOUT", "STDERR",
                            "TODO", "FIXME", "UTF8", "ASCII"})
"""All-caps words that are programming constants, never a named thing."""

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_INDENTED = re.compile(r"(?:(?<=\n\n)|\A)(?:(?: {4}|\t)[^\n]*(?:\n|\Z))+")
_INLINE = re.compile(r"`[^`\n]+`")
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.|\$|>)[ \t][^\n]*", re.M)
_MARKUP = re.compile(r"^[ \t]*(?:[-=~^*#]{3,}[ \t]*|\.\. [\w-]+::[^\n]*)$", re.M)
"""Heading underlines of reST and Markdown, thematic breaks, reST directives."""
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_LINKS = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S[^\n]*"  # [label]: target
                    r"|\]\([^)\s]*\)"  # the target of [text](target)
                    r"|<[^<>\s]+[@:][^<>\s]+>"  # <https://...>, <name@host>
                    r"|\b(?:https?|ftp)://[^\s<>()\[\]]+"
                    r"|(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.]+"  # an address, tried at a run's start only: quadratic else
                    r"|\{[\w.|<>\[\], ]+\}", re.M)  # a JSDoc type: "* `size` {number} Minimal size"
_TABLE_RULE = (r"^[ \t]*(?:\|[ \t]*)?:?-{3,}"  # "|:---", "---"
               r"(?:(?::[ \t]*(?:\|[ \t]*)?:?|[ \t]+(?:\|[ \t]*)?:?|\|[ \t]*:?)-{3,})*"  # "|---", " :---", ":|:---"
               r":?[ \t]*\|?$")
# Each run of dashes is whole and each gap between two runs is read one way only: with cells that could split a
# run ("(?:-{3,})+"), a line of 50 dashes and a letter took minutes to refuse.
_EMPHASIS = re.compile(r"\*+|(?<!\w)_{1,2}(?=\w)|(?<=\w)_{1,2}(?!\w)|" + _TABLE_RULE, re.M)
"""Emphasis marks, which split words from the names they mark, and the rule under a table's header."""
_CELL = re.compile(r"\|")
"""A table's bars: turned into ``;``, so that spaCy does not read two cells as one name."""
_MIN_OVERLAP = 8
_CODE_CHARS = re.compile(r"[_(){}\[\]<>=;\\|$#@`]")
_DOTTED = re.compile(r"\b[a-z]\w*\.[a-z]")  # fs.readFile, ma.mask_or (not "Node.js", "U.S." or "St. Louis")
_CAMEL = re.compile(r"\b[a-z]+[A-Z]\w*")  # readFile, maxBuffer
_CAPS_DIGIT = re.compile(r"^[A-Z][A-Z0-9]{2,}$")  # ASN1, UTF16, SHA256 alone (not "F1", "C64", "Renault F1")
_PARTICLES = ("de ", "di ", "da ", "du ", "von ", "van ", "le ", "la ", "al ", "el ", "d'")


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def mask_code(text: str) -> str:
    """``text`` with its code and markup lines replaced by spaces (newlines and length kept)."""
    for pattern in (_FENCE, _COMMENT, _INDENTED, _PROMPT, _MARKUP, _INLINE, _LINKS, _EMPHASIS):
        text = pattern.sub(_blank, text)
    return _CELL.sub(";", text)


def _overlap(previous: str, text: str) -> int:
    """How many characters ``text`` repeats from the end of ``previous`` (the ``fixed`` chunker's overlap)."""
    start = max(0, len(previous) - len(text))
    while (start := previous.find(text[:1], start)) != -1 and len(previous) - start >= _MIN_OVERLAP:
        if text.startswith(previous[start:]):
            return len(previous) - start
        start += 1
    return 0


def mask_chunks(chunks: Sequence[str]) -> list[str]:
    """The chunks of one document, in order, masked as :func:`mask_code` masks their document.

    A chunker cuts a long code block or comment into pieces, and a piece shows no fence of its own: the chunks
    are joined again (a blank line between two, their overlap once), masked, and cut back at the same places.
    """
    pieces: list[str] = []
    starts: list[int] = []
    end = 0
    previous = ""
    for text in chunks:
        shared = _overlap(previous, text)
        if not shared and pieces:
            pieces.append("\n\n")
            end += 2
        starts.append(end - shared)
        pieces.append(text[shared:])
        end += len(text) - shared
        previous = text
    masked = mask_code("".join(pieces))
    return [masked[start:start + len(text)] for start, text in zip(starts, chunks, strict=True)]


def has_code_chars(text: str) -> bool:
    """True when ``text`` holds a sign that only code uses in a name (``_``, brackets, ``=``, ...)."""
    return _CODE_CHARS.search(text) is not None


def code_like(name: str) -> bool:
    """True when an entity name reads as code or markup, not as a named thing.

    The rule: it starts or ends with a sign (``= array([True``); it holds one of ``_ ( ) { } [ ] < > = ; \\ | $ #
    @ ``` (``ASN1_MEM_ERROR``); a dotted lower-case identifier (``fs.readFile``) or a camelCase word
    (``maxBuffer``); a constant (:data:`CODE_CONSTANTS`, or one word of three or more capitals and digits with a
    digit: ``ASN1``, not ``F1``; ``NaN`` too, as any case but a capitalised word such as ``None``); an odd number
    of ``"`` (``Timothy" Gu``); or it starts in lower case (``der len``; a particle such as ``von`` is fine).
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
    if stripped.count('"') % 2:  # 'Timothy" Gu': a span cut inside a quotation
        return True
    return any(w in CODE_CONSTANTS or (not w.istitle() and w.upper() in CODE_CONSTANTS) for w in words)
