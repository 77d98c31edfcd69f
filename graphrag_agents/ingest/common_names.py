"""Names spaCy finds in technical documents that are not names: common words set in capitals, and spans that
ran on into the prose around them.

A heading, a table cell or the start of a line writes a common word with a capital ("Version", "Tier 2",
"Hook Callbacks"), and spaCy often takes it for a name. The document itself tells them apart: it writes the
common word in lower case elsewhere ("version", "tier", "hook callbacks"), while it never writes "Windows" or
"Beth Griggs" so. :class:`ProseWords` holds the lower-case words and word pairs of one document's prose (its
code masked) and answers :meth:`ProseWords.common`. :func:`runs_on` refuses a span that ran on past a name
into the prose ("Node.js first").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["FUNCTION_WORDS", "ProseWords", "runs_on", "without_number"]

FUNCTION_WORDS = frozenset("""
a an the of and or nor for to in on at by from with without into onto upon over under as than via vs
de di da du des del della der den van von zu y e la le les el al bin ibn n' 'n' o' et und il en
v v. vs vs. plc ltd inc co
""".split())
"""Words a name may hold in lower case ("University of Texas at Austin", "Ludwig van Beethoven")."""

_WORD = re.compile(r"[^\W\d_](?:\w|['’.-](?=\w))*")
_LINE_START = re.compile(r"(?:[\n;]|\A(?=[ \t#>.:\d\[-]))[ \t#>.:\d\[-]*\Z")
"""What may stand between a line's or a table cell's start (the mask turns a cell's bar into ``;``) and its
first word: markup left by the mask (headings, lists, a link's text). A text that opens with blanks opens with
masked markup: a chunk of an API reference that starts inside a list (``* `peer` {number} Specifies the
...``, masked to blanks before "Specifies") starts its line there too."""
_POSSESSIVE = re.compile(r"['’]s?$")
_NUMBER = re.compile(r"^(?:v?\d[\w.]*|[IVX]+)$")  # "2", "5.11.1", "v18", "II"


def _plural(word: str) -> tuple[str, ...]:
    return (word + "s", word + "es")


class ProseWords:
    """How a document's prose writes its words and phrases: in lower case, or capitalised inside a line.

    Example::

        words = ProseWords(["Tier 2 platforms get less testing than a tier 1 platform."])
        words.common("Tier 2")   # True: the text writes "tier" as often as it writes "Tier" inside a line
        words.common("Windows")  # False
    """

    def __init__(self, texts: Iterable[str], *, sentence_starts: bool = False) -> None:
        """Read ``texts``; ``sentence_starts`` also counts a capitalised word after a sentence's end inside a line
        ("... a reboot. Commonly encountered ...") as a start, not as a name's place (``finalize``'s reading of
        technical text, :mod:`.marked_names`; a document's own reading keeps it inline, where names also open
        sentences)."""
        self.lower: Counter[str] = Counter()
        """Words and two- or three-word phrases in lower case; phrases in sentence case too ("Hook callbacks")."""
        self.inline: Counter[str] = Counter()
        """Capitalised words and phrases where no line or table cell starts, which is where names stand."""
        self.plurals: set[str] = set()
        """Acronyms the prose writes with a plural ``s`` ("APIs")."""
        self.starts: Counter[str] = Counter()
        """Capitalised words where a line or a table cell starts ("### Tips", "Stale builds can ...")."""
        for text in texts:
            matches = list(_WORD.finditer(text))
            words = [_POSSESSIVE.sub("", m.group(0)) for m in matches]  # "Zimmer's" counts as "Zimmer"
            for i, word in enumerate(words):
                if len(word) > 2 and word.endswith("s") and word[:-1].isupper():
                    self.plurals.add(word[:-1])
                start = _LINE_START.search(text, 0, matches[i].start()) is not None or (
                    sentence_starts and _after_sentence(text, matches[i].start()))
                if word.islower():
                    self.lower.update({word, *(part for part in word.split("-") if part.isalpha())})  # "tier-based"
                else:
                    (self.starts if start else self.inline).update({word, *word.split("-")})  # "Canadian-American"
                for size in (2, 3):
                    phrase = words[i:i + size]
                    if len(phrase) < size:
                        continue
                    if all(w.islower() for w in phrase[1:]) and (word.islower() or word.istitle()):
                        self.lower[" ".join(w.lower() for w in phrase)] += 1
                    elif all(w.istitle() for w in phrase) and not start:
                        self.inline[" ".join(phrase)] += 1

    def common(self, name: str) -> bool:
        """True when ``name`` is a common word or phrase, set in capitals where a line starts.

        The words before a trailing number count ("Version 5.11.1", "Tier 2"). A word, or a phrase of two or three
        capitalised words, is common when the prose writes it in lower case (a phrase also in sentence case, a
        word or phrase also with a plural ``s``) at least as often as capitalised inside a line: "Collaborator"
        beside "collaborators", "Tips" or "Stale" only at a line's start, "Child Process" beside "child
        processes"; "Linux", written once as "linux", is written "Linux" inside lines far more. An acronym is
        common when the prose writes its plural with a lower-case ``s`` ("API" beside "APIs").
        """
        words = without_number(name).split()
        if not all(w[:1].isupper() for w in words):
            return False
        if len(words) == 1 and words[0].isupper():
            return words[0] in self.plurals
        if len(words) > 3 or not all(w.isalpha() and w.istitle() for w in words):
            return False  # "IBM Research", "Node.js Build Working Group", "GitHub": a name of its own
        capitalised = " ".join(words)
        lower = capitalised.lower()
        written = sum(self.lower[form] for form in (lower, *_plural(lower)))
        if len(words) == 1 and not written:
            return self.starts[capitalised] > 0 and not self.inline[capitalised]
        return written >= max(1, self.inline[capitalised])


def _after_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` follows a sentence's end on its line (". ", "? ", "! ")."""
    k = at
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return 1 < k < at and text[k - 1] in ".!?" and (text[k - 2].isalnum() or text[k - 2] in ")]\"'`")


def without_number(name: str) -> str:
    """``name`` without the numbers at its end: "Version 5.11.1" -> "Version", "Tier 2" -> "Tier"."""
    words = name.split()
    while len(words) > 1 and _NUMBER.match(words[-1]):
        words.pop()
    return " ".join(words)


def runs_on(name: str) -> bool:
    """True when ``name`` ends in a lower-case word (not a number such as ``8-bit``, nor one of
    :data:`FUNCTION_WORDS`): spaCy ran the span on into the prose ("Node.js first", "Desktop development",
    "Chesapeake Bay beach"). Lower-case words inside a name are left alone ("Le nozze di Figaro")."""
    words = name.split()
    last = words[-1]
    return len(words) > 1 and last.islower() and last not in FUNCTION_WORDS and not any(c.isdigit() for c in last)
