"""Citation markers: find ``[n]``, ``[1, 4]`` and ``[1-3]``, and remove the numbers that point at no evidence (private).

Markers inside Markdown code (inline spans and fenced blocks) are not citations. A marker with only invalid
numbers is deleted with the space before it; one with some keeps the others. Removing a marker may splice a new
one (``[5[9]]`` -> ``[5]``), so resolution repeats a bounded number of times.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["FENCE_RE", "INLINE_CODE_RE", "MARKER_RE", "MAX_RANGE", "code_spans", "format_numbers", "lines",
           "parse_marker", "resolve_markers"]

MAX_RANGE = 100
"""The widest range a marker may cite (``[1-100]``); wider ones are invalid."""

_OPEN = "[［【〔"
_CLOSE = "]］】〕"
_NUM = r"\d{1,12}"
_ITEM = rf"{_NUM}(?:[ \t]*[-–—~〜][ \t]*{_NUM})?"
MARKER_RE = re.compile(
    rf"[{re.escape(_OPEN)}][ \t\u3000]*{_ITEM}(?:[ \t\u3000]*[,，、;；][ \t\u3000]*{_ITEM})*[ \t\u3000]*"
    rf"[{re.escape(_CLOSE)}]"
)
"""One citation marker: ``[3]``, ``[1, 4]``, ``[1-3]``, ``[ 3 ]``, ``［3］``, ``【2，5】``."""

INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
FENCE_RE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_SEPARATORS = str.maketrans({sep: "," for sep in "，、;；"})
_DASHES = str.maketrans({dash: "-" for dash in "–—~〜"})
# Pathologically nested markers could need one pass per level; past this, what is left stays in the text but is
# never cited (a sentence only cites numbers that are real evidence).
_MAX_PASSES = 4


def lines(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) offsets of each line of ``text``, without its newline."""
    start = 0
    while start <= len(text):
        nl = text.find("\n", start)
        end = len(text) if nl < 0 else nl
        yield start, end
        if nl < 0:
            return
        start = nl + 1


def code_spans(text: str) -> list[tuple[int, int]]:
    """Fenced blocks and inline code spans of ``text``: markers inside them are not citations."""
    spans: list[tuple[int, int]] = []
    fence_start: int | None = None
    for start, end in lines(text):
        if FENCE_RE.match(text, start, end):
            if fence_start is None:
                fence_start = start
            else:
                spans.append((fence_start, end))
                fence_start = None
            continue
        if fence_start is None:
            spans.extend(m.span() for m in INLINE_CODE_RE.finditer(text, start, end))
    if fence_start is not None:
        spans.append((fence_start, len(text)))
    return spans


def parse_marker(marker: str, valid: Callable[[int], bool]) -> tuple[list[int], list[int]]:
    """The valid and invalid numbers of one marker, in the order written."""
    good: list[int] = []
    bad: list[int] = []
    body = marker[1:-1].translate(_SEPARATORS).translate(_DASHES)
    for item in body.split(","):
        low_text, _, high_text = item.partition("-")
        low = int(low_text)
        high = int(high_text) if high_text else low
        low, high = min(low, high), max(low, high)
        if high - low >= MAX_RANGE:
            bad.extend((low, high))
            continue
        for n in range(low, high + 1):
            (good if valid(n) else bad).append(n)
    return good, bad


def resolve_markers(answer: str, valid: Callable[[int], bool]) -> tuple[str, list[int], list[int]]:
    """The answer with invalid numbers removed, and the sorted valid and invalid numbers it cites.

    Repeats while removing a marker splices a new one (``[5[9]]`` -> ``[5]``), at most a few times.
    """
    cited: set[int] = set()
    invalid: set[int] = set()
    for _ in range(_MAX_PASSES):
        answer, good, bad = _one_pass(answer, valid)
        cited.update(good)
        invalid.update(bad)
        if not bad:
            break
    return answer, sorted(cited), sorted(invalid)


def _one_pass(answer: str, valid: Callable[[int], bool]) -> tuple[str, set[int], set[int]]:
    spans = code_spans(answer)
    span_i = 0
    pieces: list[str] = []
    tail = "\n"  # the last character written so far
    pos = 0
    cited: set[int] = set()
    invalid: set[int] = set()
    for m in MARKER_RE.finditer(answer):
        while span_i < len(spans) and spans[span_i][1] <= m.start():
            span_i += 1
        if span_i < len(spans) and spans[span_i][0] <= m.start():
            continue
        good, bad = parse_marker(m.group(), valid)
        cited.update(good)
        invalid.update(bad)
        if not bad:
            continue
        before = answer[pos:m.start()]
        if good:
            pieces += [before, m.group()[0] + format_numbers(good) + m.group()[-1]]
            tail, pos = "]", m.end()
            continue
        kept = before.rstrip(" \t")
        pieces.append(kept)
        tail = kept[-1:] or tail
        pos = m.end()
        nxt = answer[pos:pos + 1]
        if tail == "\n":
            while pos < len(answer) and answer[pos] in " \t":
                pos += 1
        elif len(kept) < len(before) and (nxt.isalnum() or nxt in "([\"'“"):
            pieces.append(" ")
            tail = " "
    pieces.append(answer[pos:])
    return "".join(pieces), cited, invalid


def format_numbers(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3, 5``."""
    parts: list[str] = []
    ordered = sorted(set(numbers))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{ordered[i]}-{ordered[j]}")
        else:
            parts.extend(str(n) for n in ordered[i:j + 1])
        i = j + 1
    return ", ".join(parts)
