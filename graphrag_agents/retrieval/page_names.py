"""The page a question names: a manual's page is named by its file, and a question that writes that name as code is
about it.

A manual's documents are files (``commands/npm-ci.md``), each split into sections under its headings. The file's
name is the page's name, and a question writes it as words: npm's docs name the command ``npm ci`` by its page
``commands/npm-ci.md``, and ``techdocs_a`` row s01 asks what `` `npm ci` `` does when the lockfile and
``package.json`` disagree. Its keyword and dense scores put two chunks of ``npm install``'s long lockfile section
above the ``npm ci`` page's Description, which answers it: that section says "lockfile", "range" and "version"
dozens of times, the page only names ``npm ci``.

The rule, read by the title feature of :mod:`.passages`: a document whose path (or, when it has none, whose title's
first part before `` › ``) ends in a file name with an extension is named by that file name's words (``npm-ci.md``:
``npm ci``); the question names it when it writes those words in that order inside code marks (`` `npm ci` ``,
`` `npm version patch` ``), case and punctuation aside. Code marks set a literal name apart from prose: row s32 asks
"where does npm link the package's man pages", a verb, not the ``npm link`` page. A name of one word is not read as
one: a page called ``config.md`` or ``install.md`` would be named by every question that writes `` `config` ``.
A name says which page, not which section: the page's best section by the other features takes the title feature,
and its other sections keep their own order.

Titles that are not file names (an encyclopedia's "Rush (band)", a paper's title) are left to the title feature's
reading of names written with capitals (:func:`.candidates.title_key`).
"""

from __future__ import annotations

import functools
import re

__all__ = ["MIN_WORDS", "code_words", "names_page", "page_name"]

_FILE = re.compile(r"(?:^|[/\\])([^/\\]+)\.[A-Za-z][A-Za-z0-9]{0,4}$")
"""A path's last part with its extension (``commands/npm-ci.md`` -> ``npm-ci``)."""
_WORD = re.compile(r"[^\W_]+")
_CODE = re.compile(r"`+([^`]+)`+")
_TRAIL = " › "
"""How an ingested section's title joins its file and its headings (``commands/npm-ci.md › Description``)."""
MIN_WORDS = 2
"""A file name of fewer words is not read as the page's name (the module docstring)."""


@functools.lru_cache(maxsize=8192)
def page_name(title: str, path: str = "") -> tuple[str, tuple[str, ...]]:
    """The file that holds a document's page (its path, else its title's first part) and the words of its name,
    lower-cased; ``("", ())`` when neither is a file name or the name has fewer than :data:`MIN_WORDS` words."""
    for where in (path.strip(), title.split(_TRAIL, 1)[0].strip()):
        found = _FILE.search(where)
        if found:
            words = tuple(w.lower() for w in _WORD.findall(found.group(1)))
            return (where, words) if len(words) >= MIN_WORDS else ("", ())
    return "", ()


def code_words(question: str) -> tuple[str, ...]:
    """The words the question writes inside code marks, lower-cased, in order (`` `npm ci` `` -> npm, ci); each code
    span ends with an empty word, so no name is read across two spans."""
    words: list[str] = []
    for span in _CODE.findall(question):
        words += [w.lower() for w in _WORD.findall(span)] + [""]
    return tuple(words)


def names_page(words: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """Whether ``words`` (:func:`code_words`) write the page ``name`` (the words :func:`page_name` gives) in order,
    as whole words."""
    n = len(name)
    return n > 0 and any(words[i:i + n] == name for i in range(len(words) - n + 1))
