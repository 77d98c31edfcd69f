"""Figures, names and "the graph lacks it" statements: the literal claim checks of check_citations (private).

Both the answer and the evidence are read after NFKC normalisation (full-width ``２`` is ``2``); words are
compared case- and accent-insensitively (``Zürich`` = ``zurich``). Every pattern here runs in linear time:
no nested or adjacent unbounded repetitions that could backtrack.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["EvidenceIndex", "Name", "claim_text", "extract_figures", "extract_names", "is_lack_statement"]

_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_LETTERS = re.compile(r"[^\W\d_]+")
_LINK = re.compile(r"!?\[([^\[\]\n]{0,500})\]\([^()\s]{0,2000}\)")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,200}>")
_APOSTROPHE = re.compile(r"['’\-]")
_EMPHASIS = str.maketrans("", "", "*_~`")
_CLAUSE_PUNCT = frozenset(";:—–(|\"“”«»[")

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
basically simply hopefully sadly luckily well
"""
OPENERS = frozenset(_OPENER_WORDS.split())
# Lowercase words that may sit inside a name: "University of California", "Ludwig van Beethoven".
_CONNECTORS = frozenset(["of", "the", "de", "da", "di", "del", "della", "der", "den", "van", "von", "la", "le", "du",
                         "des", "y", "al", "bin", "ibn", "upon", "for"])
# Abbreviated titles: "Prof. Smith" is checked as "Smith" (the evidence may spell out "Professor").
_TITLES = frozenset(["mr", "mrs", "ms", "mx", "dr", "prof", "st", "mt", "ft", "gen", "col", "lt", "sgt", "capt", "rev",
                     "hon", "sen", "rep", "gov", "pres", "jr", "sr"])
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll", "i’m", "i’ve", "i’d", "i’ll"})

_NEG = r"(?:not\b|\w{0,20}n['’]t\b|never\b|cannot\b)"
_EVID = (r"(?:knowledge\s+graph|graph|knowledge\s+base|evidence|sources?|passages?|documents?|context|"
         r"search(?:es)?|results?|excerpts?|texts?|corpus|tools?|look-?ups?|retrieval|data(?:set)?|"
         r"snippets?|facts|information\s+(?:provided|retrieved|available|given|returned)|citations?)")
_LACK_PATTERNS = [
    # "The graph does not say ...", "the retrieved passages don't mention ...", "the evidence lacks ..."
    rf"\b{_EVID}\s+(?:\w+\s+){{0,2}}?(?:(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|"
    rf"seems?\s+to|appears?\s+to)\s*{_NEG}|lacks?\b|(?:contains?|has|have|includes?|gives?|provides?|"
    rf"offers?|returned|found|yielded|shows?|mentions?|says?)\s+(?:no|nothing)\b|(?:is|are)\s+silent\b)",
    # "... is not mentioned in the passages", "no information about X in the graph", "nothing in the evidence"
    rf"\b(?:not|no|nothing|none)\s+(?:\w+\s+){{0,4}}?(?:in|from|within|among|across|of|by)\s+(?:the\s+|my\s+|"
    rf"these\s+|this\s+|our\s+|any\s+)?(?:\w+\s+)?{_EVID}\b",
    # "I could not find ...", "we were unable to determine ..."
    rf"\b(?:i|we)\s+(?:\w+\s+){{0,2}}?(?:{_NEG}|unable\s+to\b|no\s+longer\b)\s*(?:\w+\s+){{0,2}}?"
    r"(?:find|found|locate|determine|confirm|identify|verify|see|tell|answer|know|retrieve)\b",
    # "There is no information on ...", "no mention of ..."
    r"\bno\s+(?:\w+\s+)?(?:information|mention|indication|details)\b",
    # "Its founder is not mentioned.", "... was not specified", "unclear from the passages"
    # (the verbs must be lowercase: "Doctors Don't Tell" is a title)
    r"\b(?:not|never)\s+(?:explicitly\s+|directly\s+|clearly\s+)?(?-i:mentioned|stated|specified|indicated|"
    r"addressed|covered|named)\b",
    rf"\b(?:does|do|did)\s*{_NEG}\s*(?:explicitly\s+|directly\s+|clearly\s+)?(?-i:say|mention|specify|"
    r"state|indicate|tell)\b",
    r"\b(?:unclear|unknown|not\s+clear)\s+(?:from|in|based\s+on)\b",
]
_LACK = re.compile("|".join(f"(?:{p})" for p in _LACK_PATTERNS), re.IGNORECASE)


@dataclass(frozen=True)
class Name:
    """A run of capitalised words in a sentence."""

    text: str
    """The name as written."""
    words: tuple[str, ...]
    """Its words of three or more letters, folded: each must appear in the cited evidence."""


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """Case- and accent-insensitive form of a word."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def normalize_figure(raw: str) -> str:
    """``2.80`` -> ``2.8``, ``1,000`` -> ``1000``, ``007`` -> ``7``, any script's digits -> ASCII."""
    text = raw.replace(",", "")
    if not text.isascii():
        text = "".join(ch if ch == "." else str(unicodedata.decimal(ch, 0)) for ch in text)
    whole, _, frac = text.partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def claim_text(sentence: str) -> str:
    """The sentence without Markdown syntax, link targets, URLs and HTML tags (the caller removes markers)."""
    text = unicodedata.normalize("NFKC", sentence)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    return text.translate(_EMPHASIS)


def extract_figures(text: str) -> list[str]:
    """The numbers written with digits in ``text``, normalised, in order, without repeats."""
    return list(dict.fromkeys(normalize_figure(m.group()) for m in _FIGURE.finditer(text)))


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
    return gap.strip() in (".", "&")


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
    return not is_first and not any(ch in _CLAUSE_PUNCT for ch in gap)


def _name(text: str, run: list[re.Match[str]]) -> Name:
    words: list[str] = []
    for m in run:
        word = m.group()
        if word[0].islower() or (word.casefold() in _TITLES and text.startswith(".", m.end())):
            continue
        words.extend(fold(part) for part in _LETTERS.findall(word) if len(part) >= 3)
    return Name(text=text[run[0].start():run[-1].end()], words=tuple(dict.fromkeys(words)))


def is_lack_statement(text: str) -> bool:
    """Whether the sentence says the graph / evidence / lookup lacks something (it then needs no citation)."""
    return _LACK.search(text) is not None


class EvidenceIndex:
    """The figures and folded words of one evidence text, for membership tests."""

    __slots__ = ("figures", "words")

    def __init__(self, content: str) -> None:
        text = unicodedata.normalize("NFKC", content)
        self.figures = frozenset(extract_figures(text))
        self.words = frozenset(fold(w) for w in set(_LETTERS.findall(text)))
