"""Markdown code fences, so that heading detection can skip what they enclose, and ATX headings."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["atx_heading", "fenced_lines"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it opens, closes or lies inside a code fence (``` or ~~~).

    A fence closes at a line of the same character at least as long as its opener; an unclosed fence runs
    to the end.

    Example::

        fenced_lines(["# Title", "```", "# not a heading", "```", "text"])  # [False, True, True, True, False]
    """
    fenced: list[bool] = []
    fence: str | None = None
    for line in lines:
        opener = _FENCE.match(line)
        if opener:
            marker = opener.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        fenced.append(bool(opener) or fence is not None)
    return fenced


_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


def atx_heading(line: str) -> tuple[int, str] | None:
    """An ATX heading's level and title ("## Title ##" -> (2, "Title")), or None.

    The closing hashes and trailing blanks are cut in Python: a pattern that read them after a lazy title was
    quadratic in a line's run of spaces.
    """
    found = _ATX.match(line)
    if found is None:
        return None
    title = line[found.end(1):].lstrip(" \t").rstrip(" \t")
    bare = title.rstrip("#")
    if bare != title and bare[-1:] in (" ", "\t"):  # closing hashes count after a blank only ("C#" keeps its "#")
        title = bare.rstrip(" \t")
    return len(found.group(1)), title.strip()
