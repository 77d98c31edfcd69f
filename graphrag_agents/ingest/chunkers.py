"""Split a document's text into chunks: ``sentence``, ``fixed`` and ``structural``.

Sizes are in characters. The defaults keep a chunk near 800 characters and under 1,000 because the bundled
MiniLM embedder reads 256 tokens, about 1,000 characters of English: a longer chunk is still stored and
searchable by full-text, but its tail would not shape its embedding. Every chunk's text is an exact slice of
the input (``metadata["start"]`` / ``["end"]`` are its offsets), never empty nor whitespace only.

Example::

    chunks = get_chunker("structural", syntax="markdown").chunk(doc.text)
    chunks[0].metadata["heading_path"]   # ['Q1 report', 'Sales']
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

from ._front_matter import read_front_matter
from ._markdown import atx_heading, fenced_lines, is_markdown

__all__ = ["AUTO", "CHUNKERS", "Chunk", "Chunker", "FixedChunker", "SentenceChunker", "StructuralChunker",
           "chunker_for", "get_chunker", "sentence_spans", "split_sentences"]

Span = tuple[int, int]


@dataclass(frozen=True)
class Chunk:
    """One piece of a document, in document order."""

    index: int
    """Position in the document, from 0."""
    text: str
    """The chunk's text, an exact slice of the document text."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """``start`` and ``end`` offsets in the document text; ``heading_path`` for the structural chunker."""


class Chunker(Protocol):
    """Anything that turns a text into chunks."""

    name: ClassVar[str]

    def chunk(self, text: str) -> list[Chunk]:
        """Split ``text`` into non-empty chunks (none for blank text)."""


# Words after which a period does not end a sentence; joining two sentences is harmless, a false cut is not.
_ABBREVIATIONS = frozenset((
    "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "rev", "fr", "gen", "col", "capt", "lt", "sgt", "cpl",
    "hon", "pres", "gov", "sen", "rep", "mt", "ft", "ave", "blvd", "rd", "no", "nos", "vs", "cf", "al", "fig",
    "figs", "vol", "vols", "ch", "sec", "pp", "ed", "eds", "approx", "dept", "est", "ca", "inc", "ltd", "co",
    "corp", "bros", "op", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "mon", "tue", "wed", "thu", "fri", "sat", "sun",
))
_CANDIDATE = re.compile(r"(?P<punct>[.!?…]+|[。！？]+)(?P<close>[\"'”’»)\]」』]*)(?P<space>\s*)")
_OPENERS = "\"'“‘«([「『"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_DOTTED = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")


def _trim(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _paragraph_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Blank-line separated blocks of ``text[start:end]``, trimmed."""
    end = len(text) if end is None else end
    spans, pos = [], start
    for match in _PARAGRAPH_BREAK.finditer(text, start, end):
        spans.append(_trim(text, pos, match.start()))
        pos = match.end()
    spans.append(_trim(text, pos, end))
    return [s for s in spans if s]


def _ends_sentence(text: str, block_end: int, match: re.Match[str]) -> bool:
    punct, space = match.group("punct"), match.group("space")
    if punct[0] in "。！？":
        return True
    after = match.end()
    if not space or after >= block_end:
        return False
    while after < block_end - 1 and text[after] in _OPENERS:
        after += 1
    if text[after].islower():
        return False
    if punct != ".":
        return True
    word_start = match.start()
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    token = text[word_start:match.start()].lstrip(_OPENERS)
    is_initial = len(token) == 1 and token.isupper()
    return not (token.lower() in _ABBREVIATIONS or is_initial or _DOTTED.match(token))


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentence offsets in ``text[start:end]``; paragraph breaks always end a sentence.

    A period ends a sentence only before whitespace and a word that is not lower case, and not after an
    abbreviation (Dr., St., e.g.), an initial (J.) or a dotted acronym (U.S.); decimals (3.14) never split.
    """
    spans: list[Span] = []
    for p_start, p_end in _paragraph_spans(text, start, end):
        pos = p_start
        for match in _CANDIDATE.finditer(text, p_start, p_end):
            if _ends_sentence(text, p_end, match):
                spans.append((pos, match.end("close")))
                pos = match.end()
        spans.append((pos, p_end))
    return [t for t in (_trim(text, s, e) for s, e in spans) if t]


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]


def _fixed_spans(text: str, start: int, stop: int, size: int, overlap: int) -> list[Span]:
    """Windows of at most ``size`` characters cut at whitespace, each starting ``overlap`` back at a word."""
    spans: list[Span] = []
    pos, prev_end = start, start
    while True:
        trimmed = _trim(text, pos, stop)
        if trimmed is None:
            return spans
        pos = trimmed[0]
        end = min(pos + size, stop)
        if end < stop and not text[end].isspace() and not text[end - 1].isspace():
            cut = next((i for i in range(end - 1, max(pos, prev_end), -1) if text[i].isspace()), None)
            if cut is None and pos < prev_end:  # no word boundary past the overlap: drop the overlap
                pos = prev_end
                continue
            end = cut if cut is not None else end  # a word longer than the window is cut hard
        span = _trim(text, pos, end)
        if span:
            spans.append(span)
            prev_end = span[1]
        if end >= stop:
            return spans
        nxt = end - overlap
        if overlap and nxt > pos:  # start the overlap on a word: back to its start, else on to the next one
            back = nxt
            while back > pos and not text[back - 1].isspace():
                back -= 1
            while back <= pos and nxt < end and not text[nxt - 1].isspace():
                nxt += 1
            nxt = back if back > pos else nxt
        pos = nxt if pos < nxt < end else end


def _pack(units: list[Span], target: int, max_chars: int,
          split_long: Callable[[Span], list[Span]]) -> list[Span]:
    """Join consecutive units while their joined slice fits ``target``; split units over ``max_chars``."""
    out: list[Span] = []
    current: Span | None = None
    for unit in units:
        if unit[1] - unit[0] > max_chars:
            if current:
                out.append(current)
                current = None
            out.extend(split_long(unit))
        elif current is None:
            current = unit
        elif unit[1] - current[0] <= target:
            current = (current[0], unit[1])
        else:
            out.append(current)
            current = unit
    if current:
        out.append(current)
    return out


def _check_int(name: str, value: object, minimum: int, what: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {what or minimum}, got {value!r}")


def _check_sizes(target_chars: int, max_chars: int) -> None:
    _check_int("target_chars", target_chars, 1)
    _check_int("max_chars", max_chars, target_chars, f"target_chars ({target_chars})")


def _chunks(text: str, spans: list[Span], extra: list[dict[str, Any]] | None = None) -> list[Chunk]:
    return [Chunk(index=i, text=text[s:e], metadata={**(extra[i] if extra else {}), "start": s, "end": e})
            for i, (s, e) in enumerate(spans)]


@dataclass(frozen=True)
class SentenceChunker:
    """Group whole sentences into chunks of up to ``target_chars`` (default 800).

    A sentence longer than ``target_chars`` is a chunk of its own; only one longer than ``max_chars`` (default
    1,000) is cut, at word boundaries. Paragraph breaks end sentences but do not end chunks.
    """

    target_chars: int = 800
    max_chars: int = 1000
    name: ClassVar[str] = "sentence"

    def __post_init__(self) -> None:
        _check_sizes(self.target_chars, self.max_chars)

    def spans(self, text: str, start: int = 0, end: int | None = None) -> list[Span]:
        """Chunk offsets for ``text[start:end]``."""
        return _pack(sentence_spans(text, start, end), self.target_chars, self.max_chars,
                     lambda s: _fixed_spans(text, s[0], s[1], self.max_chars, 0))

    def chunk(self, text: str) -> list[Chunk]:
        """Split ``text`` into sentence-aligned chunks."""
        return _chunks(text, self.spans(text))


@dataclass(frozen=True)
class FixedChunker:
    """Windows of at most ``size`` characters (default 800), cut at word boundaries.

    Each window after the first starts about ``overlap`` characters (default 100) before the previous one
    ended, at the start of a word; ``overlap`` must be smaller than ``size``.
    """

    size: int = 800
    overlap: int = 100
    name: ClassVar[str] = "fixed"

    def __post_init__(self) -> None:
        _check_int("size", self.size, 1)
        _check_int("overlap", self.overlap, 0)
        if self.overlap >= self.size:
            raise ValueError(f"overlap ({self.overlap}) must be smaller than size ({self.size})")

    def chunk(self, text: str) -> list[Chunk]:
        """Split ``text`` into overlapping windows."""
        return _chunks(text, _fixed_spans(text, 0, len(text), self.size, self.overlap))


_SETEXT = re.compile(r"^ {0,3}(=+|-{2,})[ \t]*$")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*[ \t]*$")


@dataclass(frozen=True)
class _Heading:
    first_line: int
    last_line: int
    level: int
    title: str


def _markdown_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    fenced = fenced_lines(lines)
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        atx = atx_heading(line)
        if atx:
            headings.append(_Heading(i, i, *atx))
        elif (i >= 1 and _SETEXT.match(line) and lines[i - 1].strip() and not atx_heading(lines[i - 1])
              and not fenced[i - 1] and (i == 1 or not lines[i - 2].strip())
              and not (headings and headings[-1].last_line == i - 1)):
            headings.append(_Heading(i - 1, i, 1 if line.strip()[0] == "=" else 2, lines[i - 1].strip()))
    return headings


def _rst_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    styles: list[tuple[str, bool]] = []
    i = 0
    while i < len(lines) - 1:
        title, under = lines[i], lines[i + 1]
        over = i >= 1 and bool(_ADORNMENT.match(lines[i - 1])) and lines[i - 1].rstrip() == under.rstrip()
        adorned = _ADORNMENT.match(under)
        if (adorned and title.strip() and not title[0].isspace() and not _ADORNMENT.match(title)
                and len(under.rstrip()) >= max(len(title.rstrip()), 2)):
            style = (adorned.group(1), over)
            if style not in styles:
                styles.append(style)
            headings.append(_Heading(i - 1 if over else i, i + 1, styles.index(style) + 1, title.strip()))
            i += 2
        else:
            i += 1
    return headings


@dataclass(frozen=True)
class StructuralChunker:
    """One chunk per section of a Markdown or reStructuredText document, with its heading path.

    Sections are cut at Markdown ATX (``## Title``) and Setext (``Title`` over ``===`` / ``---``) headings, or
    RST titles (a line underlined, optionally overlined, by a repeated punctuation mark; levels in order of
    first use). Markdown code fences hide the headings they hold, and a broken fence stops hiding them at the
    next ATX heading at column 0 (the rules: :func:`~graphrag_agents.ingest._markdown.fenced_lines`). A reST
    title starts at column 0, and any line there ends an indented block (a ``::`` literal block, a directive's
    content), so no block hides a later title, however it ends. ``syntax="auto"`` reads Markdown when the text
    opens with front matter or has an ATX heading or a ````` fence at column 0 (indented, they may sit in a reST
    literal block or directive), else RST. Markdown front matter (a leading ``---`` / ``+++`` block of fields) is
    in no chunk. A section longer than ``max_chars`` is split into paragraphs, a paragraph longer than that into
    sentences, each packed up to ``target_chars``. A heading with no text of its own joins its first
    subsection's chunk. ``metadata["heading_path"]`` lists the titles from the top level down (``[]``
    before the first heading).
    """

    target_chars: int = 800
    max_chars: int = 1000
    syntax: Literal["auto", "markdown", "rst"] = "auto"
    name: ClassVar[str] = "structural"

    def __post_init__(self) -> None:
        _check_sizes(self.target_chars, self.max_chars)
        if self.syntax not in ("auto", "markdown", "rst"):
            raise ValueError(f"syntax must be 'auto', 'markdown' or 'rst', got {self.syntax!r}")

    def chunk(self, text: str) -> list[Chunk]:
        """Split ``text`` into section chunks carrying ``heading_path``."""
        front = read_front_matter(text) if self.syntax != "rst" else None
        body = front.body_start if front is not None else 0  # front matter is metadata: in no chunk
        lines = text[body:].split("\n")
        offsets = [body]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        markdown = self.syntax == "markdown" or (self.syntax == "auto" and (front is not None or is_markdown(lines)))
        headings = _markdown_headings(lines) if markdown else _rst_headings(lines)
        preamble_end = offsets[headings[0].first_line] if headings else len(text)
        # (heading path, start, end of the heading lines, end)
        sections: list[tuple[list[str], int, int, int]] = [([], body, body, preamble_end)]
        stack: list[_Heading] = []
        for n, heading in enumerate(headings):
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
            end = offsets[headings[n + 1].first_line] if n + 1 < len(headings) else len(text)
            head_end = min(offsets[heading.last_line + 1], len(text))
            sections.append(([h.title for h in stack], offsets[heading.first_line], head_end, end))
        spans: list[Span] = []
        paths: list[dict[str, Any]] = []
        carry: int | None = None  # start of headings without text, joining their first subsection
        for i, (path, start, head_end, end) in enumerate(sections):
            start, carry = (start if carry is None else carry), None
            nxt = sections[i + 1][0] if i + 1 < len(sections) else []
            if head_end > start and not text[head_end:end].strip() and len(nxt) > len(path) \
                    and nxt[:len(path)] == path:
                carry = start
                continue
            for span in self._section_spans(text, start, end):
                spans.append(span)
                paths.append({"heading_path": list(path)})
        return _chunks(text, spans, paths)

    def _section_spans(self, text: str, start: int, end: int) -> list[Span]:
        whole = _trim(text, start, end)
        if whole is None:
            return []
        if whole[1] - whole[0] <= self.max_chars:
            return [whole]
        sentences = SentenceChunker(self.target_chars, self.max_chars)
        return _pack(_paragraph_spans(text, start, end), self.target_chars, self.max_chars,
                     lambda p: sentences.spans(text, p[0], p[1]))


CHUNKERS: dict[str, type[SentenceChunker] | type[FixedChunker] | type[StructuralChunker]] = {
    "sentence": SentenceChunker,
    "fixed": FixedChunker,
    "structural": StructuralChunker,
}
"""Chunker name -> class; the names an ingest plan may use, with :data:`AUTO`."""

AUTO = "auto"
"""The default plan's chunker: ``structural`` for Markdown and reST files, ``sentence`` for the rest."""


def chunker_for(name: str, loader: str | None) -> str:
    """The chunker a plan's ``name`` means for a document its ``loader`` read: :data:`AUTO` is ``structural`` for
    ``markdown`` / ``rst`` (with the sentence chunker a heading ran into the text after it: "Testing ------- ###
    Manual execution When ..."), else ``sentence``; any other name is itself."""
    if name != AUTO:
        return name
    return "structural" if loader in ("markdown", "rst") else "sentence"


def get_chunker(name: str, **params: Any) -> SentenceChunker | FixedChunker | StructuralChunker:
    """Build a chunker by name with its parameters, e.g. ``get_chunker("fixed", size=500, overlap=50)``.

    Raises ``ValueError`` naming the valid chunkers for an unknown name, or the valid parameters for an
    unknown parameter, or the rule a bad value breaks.
    """
    cls = CHUNKERS.get(name)
    if cls is None:
        raise ValueError(f"unknown chunker {name!r}; valid chunkers are: {', '.join(sorted(CHUNKERS))}")
    valid = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for the {name!r} chunker; "
                         f"valid parameters are: {', '.join(valid)}")
    return cls(**params)
