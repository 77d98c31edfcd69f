"""Names: the runs of capitalised words a sentence states, with the reference's rule for its first word (private).

A run continues across ``.`` or ``&`` (``U.S. Army``, ``Johnson & Johnson``), across a ``*`` inside a word
(``Sno*Drift``, as the evidence writes it) and across lowercase connectors (``Bank of America``). Each word of
three or more letters of a name must be a whole word of the cited evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .words import LETTERS, fold

__all__ = ["OPENERS", "Name", "extract_names"]

_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_APOSTROPHE = re.compile(r"['’\-]")
_CLAUSE_PUNCT = frozenset(";:—–(|\"“”«»[")
# A gap that ends a sentence before the word: "... a program. On Linux, which ..." opens a new sentence there.
_SENTENCE_END = re.compile(r"[.!?]\s")

# A capitalised sentence-first word that is one of these is not a name ("The", "However"); the same holds
# after clause punctuation ("; However, ...") and for labels such as "Answer:".
_OPENER_WORDS = """
a an the this that these those its his her their our my your some many most several each every all both
either neither no any such other another one few much more less only even also just he she it they we you
i there here who whom whose what which where when why how whether in on at by for from with without
within after before during since until till under over between among through throughout across against
about above below into onto upon per via despite according regarding following including unlike like near
beyond toward towards around along behind beside besides except and but or nor so yet because although
though while whereas if unless once as than then thus hence therefore however moreover furthermore
additionally consequently nevertheless nonetheless meanwhile instead otherwise still indeed likewise
similarly accordingly alternatively finally first firstly second secondly third lastly later earlier
today currently previously recently now overall specifically notably importantly interestingly ultimately
initially eventually originally subsequently together again already often sometimes usually generally
typically perhaps probably possibly maybe clearly actually certainly yes not note answer summary
conclusion sources source result results based given born known located founded established released
written directed produced is are was were be been being has have had do does did can could shall should
might must to of none nothing everyone everything someone something anyone anything nobody let let's
hope thanks thank sure great ok okay please sorry unfortunately fortunately surprisingly briefly essentially
basically simply hopefully sadly luckily well hi hello hey
"""
OPENERS = frozenset(_OPENER_WORDS.split())
# Lowercase words that may sit inside a name: "University of California", "Ludwig van Beethoven".
_CONNECTORS = frozenset(["of", "the", "de", "da", "di", "del", "della", "der", "den", "van", "von", "la", "le", "du",
                         "des", "y", "al", "bin", "ibn", "upon", "for"])
# Abbreviated titles: "Prof. Smith" is checked as "Smith" (the evidence may spell out "Professor").
_TITLES = frozenset(["mr", "mrs", "ms", "mx", "dr", "prof", "st", "mt", "ft", "gen", "col", "lt", "sgt", "capt", "rev",
                     "hon", "sen", "rep", "gov", "pres", "jr", "sr"])
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll", "i’m", "i’ve", "i’d", "i’ll"})


@dataclass(frozen=True)
class Name:
    """A run of capitalised words in a sentence."""

    text: str
    """The name as written."""
    words: tuple[str, ...]
    """Its words of three or more letters, folded: each must appear in the cited evidence."""
    start: int = 0
    """Offset of its first character in the text it was read from."""


def extract_names(text: str, *, lone_first: bool = False) -> list[Name]:
    """Runs of capitalised words, with the reference's rule for the sentence's first word.

    ``lone_first`` keeps a capitalised first word that is neither an opener nor part of a run even when the
    sentence names nothing else ("Globex does not provide pensions."): it states a name, so the sentence
    needs a citation, though the support check leaves such a word alone.
    """
    runs: list[list[re.Match[str]]] = []
    pending: list[re.Match[str]] = []
    open_run = False
    first_run: list[re.Match[str]] | None = None
    prev_end = 0
    for index, m in enumerate(_NAME_WORD.finditer(text)):
        gap = text[prev_end:m.start()]
        prev_end = m.end()
        if _is_name_word(m, gap, index == 0, text):
            if open_run and _joins(gap, bool(pending)):
                runs[-1].extend(pending)
                runs[-1].append(m)
            else:
                runs.append([m])
                if index == 0:
                    first_run = runs[-1]
            open_run, pending = True, []
        elif open_run and m.group() in _CONNECTORS and gap.isspace() and len(pending) < 2:
            pending.append(m)
        else:
            open_run, pending = False, []
    if not lone_first and first_run is not None and len(first_run) == 1 and len(runs) == 1:
        runs = []  # a lone capitalised first word is just how sentences start
    return [_name(text, run) for run in runs]


def _joins(gap: str, after_connector: bool) -> bool:
    """Whether a capitalised word continues the run before it across ``gap``."""
    if after_connector or gap.isspace():
        return gap.isspace()
    return gap == "*" or gap.strip() in (".", "&")


def _is_name_word(m: re.Match[str], gap: str, is_first: bool, text: str) -> bool:
    word = m.group()
    if not word[0].isupper() or word.casefold() in _PRONOUN_I:
        return False
    if is_first and text.startswith(":", m.end()):
        return False  # a label such as "Founder:"
    head = _APOSTROPHE.split(word, maxsplit=1)[0].casefold()
    if head not in OPENERS:
        return True
    # an opener is not a name at the start of a sentence or clause; mid-clause it is ("in The Hague")
    return not is_first and not any(ch in _CLAUSE_PUNCT for ch in gap) and not _SENTENCE_END.search(gap)


def _name(text: str, run: list[re.Match[str]]) -> Name:
    words: list[str] = []
    for m in run:
        word = m.group()
        if word[0].islower() or (word.casefold() in _TITLES and text.startswith(".", m.end())):
            continue
        words.extend(fold(part) for part in LETTERS.findall(word) if len(part) >= 3)
    return Name(text=text[run[0].start():run[-1].end()], words=tuple(dict.fromkeys(words)), start=run[0].start())


