"""Word keys for claim support: one key for a word's inflections, its irregular forms and its number words (private).

The support rule asks whether each content word of a claim is said by the evidence, in any form: ``arrested``
is ``arrest``, ``children`` is ``child``, ``ran`` is ``run``, ``three`` is ``3``, ``contamination`` is found by
``contaminated``. A key is the folded word with its irregular form mapped to its base and its inflection or
derivation ending cut (a light stemmer, no dictionary); two words match when their keys do, or when both keys
have six letters or more and share their first six. Evidence words written in camelCase or snake_case (JSON keys
such as ``OutdoorSeating``) are split first. Every step is a table lookup or a linear scan.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text.words import fold

__all__ = ["NUMBER_WORDS", "evidence_keys", "key_found", "split_compound", "word_key"]

_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000", "dozen": "12",
    "twice": "2", "once": "1", "single": "1", "double": "2", "triple": "3", "half": "0.5", "first": "1",
    "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8",
    "ninth": "9", "tenth": "10", "centenary": "100", "centennial": "100", "bicentennial": "200", "decade": "10",
    "fortnight": "14", "quarter": "0.25",
}
"""Number words and the figure each stands for (``three`` = ``3``): a claim's "three" is found by an evidence "3"."""

_IRREGULAR = {form: base for base, forms in {
    "be": "is are was were been being am", "have": "has had having", "do": "does did done doing",
    "go": "goes went gone going", "run": "ran runs running", "take": "took taken takes", "give": "gave given gives",
    "make": "made makes making", "say": "said says", "find": "found finds", "buy": "bought buys",
    "sell": "sold sells", "win": "won wins winning", "lose": "lost loses losing", "leave": "left leaves",
    "tell": "told tells", "hold": "held holds", "bring": "brought brings", "think": "thought thinks",
    "catch": "caught catches", "teach": "taught teaches", "fight": "fought fights", "seek": "sought seeks",
    "build": "built builds", "send": "sent sends", "spend": "spent spends", "lead": "led leads",
    "feel": "felt feels", "keep": "kept keeps", "meet": "met meets", "pay": "paid pays", "lay": "laid lays",
    "begin": "began begun begins", "write": "wrote written writes", "drive": "drove driven drives",
    "rise": "rose risen rises", "fall": "fell fallen falls", "grow": "grew grown grows", "know": "knew known knows",
    "throw": "threw thrown throws", "show": "showed shown shows", "see": "saw seen sees", "eat": "ate eaten eats",
    "get": "got gotten gets", "speak": "spoke spoken speaks", "break": "broke broken breaks",
    "choose": "chose chosen chooses", "steal": "stole stolen steals", "wear": "wore worn wears",
    "shoot": "shot shoots", "hit": "hits", "put": "puts", "set": "sets", "cut": "cuts", "let": "lets",
    "fly": "flew flown flies", "draw": "drew drawn draws", "forget": "forgot forgotten", "come": "came comes",
    "become": "became becomes", "stand": "stood stands", "understand": "understood", "sit": "sat sits",
    "sleep": "slept", "flee": "fled", "feed": "fed", "bear": "bore born borne", "die": "died dies dying death",
    "child": "children", "man": "men", "woman": "women", "person": "people persons", "foot": "feet",
    "tooth": "teeth", "mouse": "mice", "life": "lives", "wife": "wives", "knife": "knives", "leaf": "leaves",
    "good": "better best", "bad": "worse worst", "much": "more most", "little": "less least",
}.items() for form in forms.split()}
# Longest first: the first ending that leaves a stem of 4+ letters is cut.
_ENDINGS = ("ational", "ization", "isation", "fulness", "iveness", "ements", "ations", "ation", "ition", "ments",
            "ment", "ness", "ings", "ing", "ities", "ity", "ives", "ive", "ably", "ibly", "ally", "edly", "ies",
            "ied", "ers", "est", "ful", "ial", "ical", "ic", "al", "ly", "ed", "es", "er", "en", "s", "e", "y")
_MIN_STEM = 4
_PREFIX = 6


@lru_cache(maxsize=65_536)
def word_key(word: str) -> str:
    """The key of one word (folded first): its base form for an irregular word, else its stem."""
    folded = fold(word)
    if folded in NUMBER_WORDS:
        return NUMBER_WORDS[folded]
    folded = _IRREGULAR.get(folded, folded)
    for ending in _ENDINGS:
        if folded.endswith(ending) and len(folded) - len(ending) >= _MIN_STEM:
            folded = folded[:-len(ending)]
            # a plural's singular loses its own ending too, as the singular does ("sundays" -> "sunday" -> "sunda")
            if ending == "s" and folded[-1] in "ey" and len(folded) - 1 >= _MIN_STEM:
                folded = folded[:-1]
            break
    # a doubled final consonant is one ("stopped" -> "stopp" -> "stop")
    if len(folded) > _MIN_STEM and folded[-1] == folded[-2] and folded[-1] not in "aeiou":
        folded = folded[:-1]
    return folded


def split_compound(word: str) -> list[str]:
    """``OutdoorSeating`` -> ``Outdoor``, ``Seating``; ``WiFi`` -> ``Wi``, ``Fi``; a plain word -> itself."""
    if word.islower() or word.isupper() or word[1:].islower():
        return [word]
    return _CAMEL.findall(word) or [word]


def evidence_keys(words: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(keys, six-letter prefixes of long keys) of the evidence's words, compounds split."""
    keys = {word_key(part) for word in words for part in split_compound(word)}
    keys |= {word_key(w) for w in words}
    return frozenset(keys), frozenset(k[:_PREFIX] for k in keys if len(k) >= _PREFIX)


def key_found(key: str, keys: frozenset[str], prefixes: frozenset[str]) -> bool:
    """Whether a claim word's key is among the evidence's keys, or shares a six-letter prefix with one."""
    return key in keys or (len(key) >= _PREFIX and key[:_PREFIX] in prefixes)
