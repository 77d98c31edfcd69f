"""The sentence splitter behind ``check_citations`` (private).

The splitter works on Markdown answers: fenced code is skipped, headings and table header rows are kept but
not checked, every list item and table row starts a new sentence, and a marker written after the full stop
(``Acme grew. [3] Then ...``) belongs to the sentence before it; a line that ends with a marker ends its
sentence. Inside a paragraph it splits at ``.``, ``!`` and ``?`` followed by a space and a word that is not
lowercase, except after abbreviations (``Dr.``, ``e.g.``, ``Bros.``), initials (``J. K.``) and dotted acronyms
(``U.S.``) unless the next word opens a sentence (``U.S. He``) or a marker follows the dot (``Bros. [3]``);
``。！？`` always end a sentence. Every step is a single pass over the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .markers import FENCE_RE, INLINE_CODE_RE, MARKER_RE, code_spans, lines

__all__ = ["INLINE_CODE_RE", "MARKER_RE", "Sentence", "code_spans", "split_sentences"]

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"[ \t]*(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_QUOTE = re.compile(r"[ \t]*(?:>[ \t]?)+")
_BULLET = re.compile(r"[ \t]*(?:[-*+•‣◦]|\d{1,3}[.)]|[a-z][.)])[ \t]+")
_TOKEN = re.compile(r"\S+")
_MASK = "\ue000"
_CJK_STOP = re.compile("[。！？｡]")
_CJK_END = re.compile(r"[。！？｡]+[」』）〕】”’\"')]*\ue000*")
_ACRONYM = re.compile(r"(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}")
_LEADING = "\"'([{*_“‘«¿¡<"
_TRAILING = "\"')]}*_”’»>）】〕」』"

_NO_SPLIT = frozenset({
    "Mr", "Mrs", "Ms", "Mx", "Dr", "Prof", "Sr", "Jr", "St", "Mt", "Ft", "Gen", "Col", "Lt", "Sgt", "Capt",
    "Cmdr", "Adm", "Maj", "Rev", "Hon", "Sen", "Rep", "Gov", "Pres", "Fr", "Rt", "Messrs", "No", "Nos", "Vol",
    "Vols", "Fig", "Figs", "Ch", "Sec", "Ed", "Eds", "Op", "pp", "p", "vs", "v", "cf", "viz", "approx", "ca",
    "c", "al", "e.g", "i.e", "Jan", "Feb", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec", "est",
    "Bros", "Univ", "Dept", "Assn", "Ave", "Blvd", "fl", "Vs", "Cf", "Nr", "nr", "no",
})
# After a dotted acronym ("U.S.") or an initial ("Block B.") a new sentence starts only before one of these.
_SENTENCE_STARTERS = frozenset({
    "The", "A", "An", "He", "She", "It", "They", "We", "I", "You", "This", "That", "These", "Those", "There",
    "His", "Her", "Its", "Their", "In", "On", "At", "After", "Before", "However", "But", "And", "So", "Then",
    "As", "For", "From", "With", "During", "When", "While", "Although", "Since", "Today", "Later", "Also",
    "Both", "Each", "Some", "Many", "Most", "Subsequently", "Meanwhile", "Additionally", "Moreover",
})


@dataclass(frozen=True)
class Sentence:
    """One sentence of an answer, as a span of it."""

    start: int
    """Offset of its first character in the answer."""
    end: int
    """Offset just past its last character."""
    checked: bool
    """False for headings and table header rows, which state no claim."""


@dataclass
class _Tok:
    start: int
    end: int
    hard_break: bool = False
    """A sentence ends before this token (the previous line ended with a marker)."""


def split_sentences(text: str) -> list[Sentence]:
    """Split a (Markdown) answer into sentences; see the module docstring for the rules."""
    text = _mask(text)
    out: list[Sentence] = []
    para: list[_Tok] = []
    all_lines = list(lines(text))
    in_fence = False
    ended_with_marker = False
    for i, (start, end) in enumerate(all_lines):
        if FENCE_RE.match(text, start, end):
            in_fence = not in_fence
            _flush(text, para, out)
            continue
        if in_fence:
            continue
        quote = _QUOTE.match(text, start, end)
        if quote:
            start = quote.end()
        if not text[start:end].strip() or _RULE.match(text, start, end) or _is_table_sep(text[start:end]):
            _flush(text, para, out)
            ended_with_marker = False
            continue
        is_table = text[start:end].lstrip().startswith("|")
        header = is_table and i + 1 < len(all_lines) and _is_table_sep(text[slice(*all_lines[i + 1])])
        if header or _HEADING.match(text, start, end):
            _flush(text, para, out)
            out.append(Sentence(start, end, checked=False))
            ended_with_marker = False
            continue
        bullet = _BULLET.match(text, start, end)
        if bullet or is_table:
            _flush(text, para, out)
            start = bullet.end() if bullet else start
        toks = [_Tok(m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]
        if toks and ended_with_marker:
            toks[0].hard_break = True
        para.extend(toks)
        ended_with_marker = bool(toks) and _ends_with_marker(text[toks[-1].start:toks[-1].end])
        if is_table:
            _flush(text, para, out)
    _flush(text, para, out)
    return out


def _is_table_sep(line: str) -> bool:
    """``|---|:--:|``: a Markdown table's header separator."""
    cells = line.strip()
    return "--" in cells and "|" in cells and all(ch in "|-: \t" for ch in cells)


def _flush(text: str, para: list[_Tok], out: list[Sentence]) -> None:
    """Split one paragraph's tokens into sentences and append them to ``out``."""
    if para and _CJK_STOP.search(text, para[0].start, para[-1].end):
        toks = [sub for tok in para for sub in _cjk_split(text, tok)]
    else:
        toks = list(para)  # no CJK full stop in the paragraph: no token to cut (one search, not one per token)
    para.clear()
    begin: int | None = None
    last = 0
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.hard_break and begin is not None and not _starts_lower(text, tok):
            _emit(text, begin, last, out)
            begin = None
        if begin is None:
            begin = tok.start
        last = tok.end
        piece = text[tok.start:tok.end]
        verdict = _ends_sentence(piece)
        i += 1
        if verdict is None and piece.endswith(".") and i < len(toks) and _is_marker_only(_token(text, toks[i])):
            verdict = "soft"  # "Warner Bros. [9] The film": a marker after the full stop closes the sentence
        if verdict is None:
            continue
        while i < len(toks) and _is_marker_only(_token(text, toks[i])):
            last = toks[i].end
            i += 1
        nxt = toks[i] if i < len(toks) else None
        if nxt is None or verdict == "hard" or _next_starts_sentence(text, nxt, verdict):
            _emit(text, begin, last, out)
            begin = None
    if begin is not None:
        _emit(text, begin, last, out)


def _token(text: str, tok: _Tok) -> str:
    return text[tok.start:tok.end]


def _emit(text: str, start: int, end: int, out: list[Sentence]) -> None:
    if any(ch.isalnum() for ch in text[start:end]):
        out.append(Sentence(start, end, checked=True))


def _cjk_split(text: str, tok: _Tok) -> list[_Tok]:
    """Cut a token after each ``。！？`` (and the markers right after it): CJK text has no spaces."""
    if not _CJK_STOP.search(text, tok.start, tok.end):
        return [tok]
    parts: list[_Tok] = []
    begin = tok.start
    for m in _CJK_END.finditer(text, tok.start, tok.end):
        if m.end() > begin:
            parts.append(_Tok(begin, m.end(), tok.hard_break and not parts))
            begin = m.end()
    if begin < tok.end:
        parts.append(_Tok(begin, tok.end, tok.hard_break and not parts))
    return parts


def _mask(text: str) -> str:
    """The text with every marker turned into a run of one private character (same length, no spaces)."""
    text = text.replace(_MASK, "\ue001")
    return MARKER_RE.sub(lambda m: _MASK * len(m.group()), text)


def _strip_trailing(token: str) -> str:
    """Drop closing quotes, brackets, emphasis and (masked) markers from the end of a token."""
    return token.rstrip(_TRAILING + _MASK)


def _is_marker_only(token: str) -> bool:
    """Markers alone, maybe with closing punctuation after them: "[1]", "[1][2]", and "[1]." when a writer put the
    full stop both before and after the marker."""
    return _MASK in token and not _strip_trailing(token).rstrip(".,;:!?").rstrip(_TRAILING + _MASK)


def _ends_with_marker(token: str) -> bool:
    return token.rstrip(_TRAILING).endswith(_MASK)


def _ends_sentence(token: str) -> str | None:
    """``"hard"``, ``"soft"`` (unless a lowercase word follows), ``"initial"`` (only before a sentence starter)
    or None."""
    core = _strip_trailing(token)
    if not core:
        return None
    last = core[-1]
    if last in "。！？｡":
        return "hard"
    if last in "!?‽…":
        return "soft"
    if last != ".":
        return None
    if core.endswith(".."):
        return "soft"
    # the letters and dots before the final dot: "More/Mr." and "(Inc." end in an abbreviation too
    begin = len(core) - 1
    while begin > 0 and (core[begin - 1].isalpha() or core[begin - 1] == "."):
        begin -= 1
    word = core[begin:-1].lstrip(".")
    if not word or (begin > 0 and (core[begin - 1].isalnum() or core[begin - 1] in "'’")):
        return "soft"
    if word in _NO_SPLIT:
        return None
    if len(word) == 1 or _ACRONYM.fullmatch(word):
        return "initial"
    return "soft"


def _first_char(text: str, tok: _Tok) -> str:
    piece = text[tok.start:tok.end].lstrip(_LEADING)
    return piece[:1]


def _starts_lower(text: str, tok: _Tok) -> bool:
    return _first_char(text, tok).islower()


def _aside(word: str) -> bool:
    """Whether a parenthesis opening with ``word`` continues the sentence before it."""
    word = word.rstrip(")]\"',.;:")
    return not word or word[0].isdigit() or word[0].islower() or word.isupper()


def _next_starts_sentence(text: str, nxt: _Tok, verdict: str) -> bool:
    if _starts_lower(text, nxt):
        return False
    if text.startswith("(", nxt.start) and _aside(text[nxt.start + 1:nxt.end]):
        return False  # "Inc. (TMA)", "Woolf?" (1962)
    if verdict == "initial":
        word = text[nxt.start:nxt.end].lstrip(_LEADING)
        return word.rstrip(",.;:!?'\"’") in _SENTENCE_STARTERS
    return True
