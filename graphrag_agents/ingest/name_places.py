"""Where a name stands in a chunk: in its prose, or in the document's structure.

spaCy reads a chunk of Markdown or reST as running text, so the words of a heading (``## Import attributes``),
of a table row (``| GAT with bypass | Can stage |``), of a list item that is a field (``* Type: Number``) or
of a label opening a paragraph (``BACKGROUND: ...``) come back as people, places and organisations. None of
those places states anything about a named thing: a name there is a title, a cell or a field. :func:`structure_spans`
finds them from the markup alone (line shapes, never words), and :func:`in_structure` tells whether a span
found by NER lies in one. :func:`code_words` gives the words a document writes in code and link targets
(``package.json``, ``git+ssh://``), which the extractor reads as a sign that a name typed a person or a place
is a tool, a format or a language.
"""

from __future__ import annotations

import bisect
import re

from .common_names import FUNCTION_WORDS

__all__ = ["code_words", "glued", "in_structure", "link_text_around", "section_links", "structure_spans"]

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_UNDERLINE = re.compile(r"^[ \t]{0,3}([=\-~^*+#\"'`:.])\1{2,}[ \t]*$")
"""A setext (Markdown) or reST heading underline: one sign repeated, three or more times."""
_TABLE = re.compile(r"^[ \t]*\||\|[^|\n]*\|")
"""A table row: a line opening with a bar, or holding two bars (outside inline code)."""
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FIELD = re.compile(r"^[ \t]*(?:[*+-]|\d{1,3}[.)])[ \t]+[A-Z][\w -]{0,30}:[ \t]+")
"""A list item that is a field: ``* Type: Number``, ``- Default: null``."""
_LABEL = re.compile(r"^[ \t]*[A-Z][A-Za-z /&-]{1,40}:(?=[ \t])")
"""A label opening a paragraph: ``BACKGROUND:``, ``Note:``."""
_PHRASE_WORDS = 25
"""A field's value that ends no sentence is a phrase up to this many words (``* Default: "man" on Posix, "browser"
on Windows``); one ending a sentence is prose (``* Note: npm 7 installs peers.``)."""
_ITEM = re.compile(r"^[ \t]*(?:[*+-]|\d{1,3}[.)])[ \t]+")
_WORD = re.compile(r"[^\W_]+")


def structure_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of ``text`` that are structure, not prose, in order.

    A heading line (``#`` or underlined), a table row, a list item that is a field (``* Type: Number``,
    when its value ends no sentence and is at most :data:`_PHRASE_WORDS` words, on its line or running on over
    indented lines: ``* Default: The EDITOR or VISUAL environment variables, or`` and its next line) and a label
    opening a paragraph (``Methods:``; the label only, the sentence after it is prose).
    """
    spans: list[tuple[int, int]] = []
    lines = text.split("\n")
    start = 0
    previous = ""
    covered = -1  # the last line a field's value ran on to
    for i, line in enumerate(lines):
        end = start + len(line)
        if i <= covered:
            previous = line
            start = end + 1
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        underlined = line.strip() and not _UNDERLINE.match(line) and _UNDERLINE.match(following) \
            and len(following.strip()) >= min(3, len(line.strip()))
        if _HEADING.match(line) or underlined or _TABLE.search(_INLINE_CODE.sub("", line)):
            spans.append((start, end))
        elif field := _FIELD.match(line):
            more = _continued(lines, i)
            value = " ".join([line[field.end():], *lines[i + 1:i + 1 + more]]).strip()
            words = len(value.split())
            if not value.endswith((".", "!", "?")) and words <= _PHRASE_WORDS:
                covered = i + more
                # the field's name with its value, and the lines the value runs on to: a value that ends no
                # sentence over two lines is a phrase ("The EDITOR or VISUAL environment variables, or ...")
                spans.append((start, end + sum(len(x) + 1 for x in lines[i + 1:i + 1 + more])))
        elif not previous.strip() and (label := _LABEL.match(line)):
            spans.append((start, start + label.end()))
        previous = line
        start = end + 1
    return spans


def _continued(lines: list[str], i: int) -> int:
    """How many lines after the list item ``lines[i]`` carry on its text: indented, not blank, no item of their
    own."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    more = 0
    for line in lines[i + 1:]:
        if not line.strip() or len(line) - len(line.lstrip()) <= indent or _ITEM.match(line):
            break
        more += 1
    return more


def in_structure(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the span ``start:end`` lies inside one of ``spans`` (as :func:`structure_spans` gives them)."""
    i = bisect.bisect_right(spans, (start, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


def code_words(raw: str, masked: str) -> set[str]:
    """The case-folded words of what the mask blanked in ``raw`` (code, link targets, URLs), split at signs:
    ``package.json`` gives ``package`` and ``json``. ``masked`` is ``raw`` as
    :func:`~graphrag_agents.ingest.code_spans.mask_chunks` gives it (same length)."""
    blanked = "".join(r if m == " " and r != " " else " " for r, m in zip(raw, masked, strict=True))
    return {w.casefold() for w in _WORD.findall(blanked)}


_LINK = re.compile(r"\[([^\[\]\n]+)\](?:\([^)\s]*#([\w-]+)\)|:[ \t]*\S*#([\w-]+))")
"""An inline link or a reference definition whose target is an anchor: ``[Text](page#anchor)``, ``[Text]: #anchor``."""


def _slug(text: str) -> str:
    """The anchor a Markdown heading ``text`` gets: lower case, signs dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.casefold().replace("`", "")).strip().replace(" ", "-")


_PAGE_LINK = re.compile(r"\[([^\[\]\n]+)\](?:\(([\w./-]+)\.md\)|:[ \t]*([\w./-]+)\.md[ \t]*$)", re.M)
"""A link or a reference definition whose target is a page of the same docs: ``[C++ Addons]: addons.md``."""


def section_links(text: str) -> set[str]:
    """The case-folded texts of the links of ``text`` that point at a section by its title (the anchor is the
    text's own slug): ``[Auth Related Configuration](/configuring-npm/npmrc#auth-related-configuration)``,
    ``[TracingChannel Channels]: #tracingchannel-channels``; or at a page of the same docs whose file name the
    title spells (the Node.js docs' api/n-api.md: ``[C++ Addons]: addons.md``). Such a text names a heading, not a
    thing."""
    found = set()
    for m in _LINK.finditer(text):
        if _slug(m.group(1)) == (m.group(2) or m.group(3)).casefold():
            found.add(" ".join(m.group(1).replace("`", "").split()).casefold())
    for m in _PAGE_LINK.finditer(text):
        page = (m.group(2) or m.group(3)).rsplit("/", 1)[-1].casefold()
        if page and _slug(m.group(1)).endswith(page.replace("_", "-")):
            found.add(" ".join(m.group(1).replace("`", "").split()).casefold())
    return found


def link_text_around(text: str, start: int, end: int) -> str | None:
    """The whole text of the Markdown link whose brackets hold the span ``start:end`` and more than it, when that
    text reads as one name (each word capitalised, a number or a joining word such as "for"): spaCy cuts
    "[Native Abstractions for Node.js][]" (the Node.js docs' api/n-api.md) at "for", and the link's text is the
    name it writes. None when the span is not in a link, is its whole text, or the text is no name."""
    opening = text.rfind("[", 0, start)
    closing = text.find("]", end)
    if opening < 0 or closing < 0 or "]" in text[opening:start] or "[" in text[end:closing]:
        return None
    if "\n\n" in text[opening:closing]:
        return None
    inside = " ".join(text[opening + 1:closing].split())
    words = inside.split()
    if inside == " ".join(text[start:end].split()) or len(words) > 8:
        return None
    if all(w[:1].isupper() or w[:1].isdigit() or w in FUNCTION_WORDS for w in words):
        return inside
    return None


def glued(text: str, start: int, end: int) -> bool:
    """Whether the span ``start:end`` of ``text`` is a piece of a longer word: a letter, a digit, ``_`` or ``\\``
    touches it (``FORMAT`` of ``ESM\\_FILE\\_FORMAT``), or a hyphen joins it to a capitalised word (``Diffie`` of
    "Diffie-Hellman"; not "Paris" of "Paris-based")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    if after == "s" and not text[end + 1:end + 2].isalnum():
        after = " "  # a plural: "Academy Award" of "Academy Awards"
    if before.isalnum() or before in "_\\" or after.isalnum() or after in "_\\":
        return True
    if after == "-" and text[end + 1:end + 2].isupper():
        return True
    word = _WORD_BEFORE.search(text, 0, start) if before == "-" else None
    return word is not None and word.group(1)[:1].isupper()


_WORD_BEFORE = re.compile(r"([^\W_]+)-\Z")
