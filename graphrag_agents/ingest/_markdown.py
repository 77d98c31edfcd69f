"""Markdown code fences, so that heading detection can skip what they enclose, and ATX headings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["atx_heading", "fenced_lines", "is_markdown"]

_OPENER = re.compile(r"(`{3,}|~{3,})")
_ITEM = re.compile(r"( *)([-+*]|[0-9]{1,9}[.)])( +)\S")


def _indent(line: str) -> int:
    """Leading blanks, a tab counting to the next multiple of 4 (as CommonMark reads indentation)."""
    col = 0
    for ch in line:
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            return col
    return col


def _closing_run(line: str) -> tuple[str, int] | None:
    """A line that is only a run of ` or ~ (at least 3) between blanks: the fence character and run length."""
    body = line.strip(" \t")
    if len(body) < 3 or body[0] not in "`~" or body.count(body[0]) != len(body):
        return None
    return body[0], len(body)


@dataclass
class _Fence:
    char: str
    length: int
    base: int
    """Content column of the list item the fence opened in (0 at the top level)."""
    ends_before: int | None
    """For a top-level fence that never closes: the first ATX heading at column 0 after it, where it stops."""


def _open(rest: str) -> tuple[str, int] | None:
    found = _OPENER.match(rest)
    if found is None:
        return None
    run = found.group(1)
    if run[0] == "`" and "`" in rest[found.end():]:  # CommonMark: a backtick fence's info string has no backtick
        return None
    return run[0], len(run)


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it opens, closes or lies inside a code fence (``` or ~~~).

    CommonMark's rules: a fence opens at a run of at least 3 backticks or tildes indented 0-3 spaces from its
    container (the top level, or the content column of the list item it is in, so ``    ```bash`` under
    ``* item`` opens one); it closes at a line holding only a run of the same character at least as long, indented
    at most 3 spaces past that column (a line with an info string after the run, ```` ```bash ````, never closes
    one).

    In npm 11.19.1's ``commands/npm-install.md`` a fence opened at 4 spaces inside a ``*`` item closes at 3. A
    reader blind to list items skipped the 4-space opener, took the 3-space line for an opener, and every later
    fence swapped sides: the 38 headings from ``### Configuration`` on were hidden and their sections ran into
    one. Reading the list item fixes that page; two recoveries keep a fence that is broken for real from hiding
    the rest of a document's headings:

    * a fence opened inside a list item closes at a run indented less than the item's content too, and ends before
      a line that is an ATX heading at column 0 (it ends the list item, so the fence with it);
    * a top-level fence that no later line closes ends before the first ATX heading at column 0 after it (to the
      end when there is none), instead of running to the end of the document.

    Example::

        fenced_lines(["# Title", "```", "# not a heading", "```", "text"])  # [False, True, True, True, False]
    """
    closers = _top_level_closers(lines)
    next_heading = _next_column0_heading(lines)
    fenced: list[bool] = []
    items: list[int] = []  # content columns of the open list items, innermost last
    fence: _Fence | None = None
    for i, line in enumerate(lines):
        if fence is not None:
            if fence.ends_before == i or (fence.base and line[:1] == "#" and atx_heading(line)):
                fence = None  # this line is read below as any line outside a fence
            else:
                run = _closing_run(line)
                if run and run[0] == fence.char and run[1] >= fence.length and _indent(line) <= fence.base + 3:
                    fence = None
                fenced.append(True)
                continue
        if not line.strip():
            fenced.append(False)
            continue
        indent = _indent(line)
        while items and items[-1] > indent:
            items.pop()
        base = items[-1] if items else 0
        opened = _open(line.lstrip(" \t")) if indent - base <= 3 else None
        item = _ITEM.match(line) if opened is None else None
        if item is not None and indent - base <= 3:
            spaces = len(item.group(3))
            column = indent + len(item.group(2)) + (spaces if spaces <= 4 else 1)
            items.append(column)
            if spaces <= 4:  # "- ```bash": a fence on the item's first line, opening inside the item
                base, opened = column, _open(line[len(item.group(0)) - 1:])
        if opened is not None:
            char, length = opened
            ends_before = None
            if base == 0 and closers[char][i + 1] < length:
                ends_before = next_heading[i + 1]
            fence = _Fence(char, length, base, ends_before)
        fenced.append(opened is not None)
    return fenced


def _top_level_closers(lines: Sequence[str]) -> dict[str, list[int]]:
    """Per fence character, for each line: the longest closing run on that line or after it, indented 0-3."""
    longest = {"`": [0] * (len(lines) + 1), "~": [0] * (len(lines) + 1)}
    for i in range(len(lines) - 1, -1, -1):
        for char in "`~":
            longest[char][i] = longest[char][i + 1]
        run = _closing_run(lines[i]) if _indent(lines[i]) <= 3 else None
        if run:
            longest[run[0]][i] = max(longest[run[0]][i], run[1])
    return longest


def _next_column0_heading(lines: Sequence[str]) -> list[int | None]:
    """For each line, the first line at or after it that is an ATX heading at column 0."""
    found: list[int | None] = [None] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        found[i] = i if lines[i][:1] == "#" and atx_heading(lines[i]) else found[i + 1]
    return found


_MARKDOWN_LINE = re.compile(r"```|#{1,6}[ \t]+\S")


def is_markdown(lines: Sequence[str]) -> bool:
    """Whether a text reads as Markdown rather than reST: a ``` fence or an ATX heading at column 0.

    Only column 0 counts: reST indents its literal blocks and directive contents, so an indented ``# comment``
    or ```` ``` ```` there (``.. code-block:: bash`` then ``   # build the files``) is not Markdown. "~~~" is
    left out: it looks like a reST underline.
    """
    return any(_MARKDOWN_LINE.match(line) for line in lines)


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
