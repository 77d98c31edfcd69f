"""The literal rules' reading of names for real answers: which capitalised words are names, and when one is found
(private).

The rule book's literal check needs every name of a cited sentence in its evidence. Real answers start sentences
with ordinary capitalised words, write a name as its acronym, a plural or a place's adjective, and, over a record
(:mod:`._record_values`), capitalise the words of its keys ("Outdoor seating") and write its format ("JSON"). These
functions decide what counts as a missing name under ``support=True``; the figures are read by :mod:`._figures`.
"""

from __future__ import annotations

from ..text.acronyms import (
    TITLE_WORDS,
    alias_forms,
    defined_acronyms,
    name_forms,
    place_word_found,
    same_spelling,
    spelled_initials,
)
from ..text.names import Name
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._lemmas import word_key
from ._opening import opens_with_common_word
from ._prose import is_instruction, is_sentence_start
from ._record_values import is_record, key_words_of
from ._support import GLUE_WORDS

__all__ = ["common_opening", "defined_acronym_spans", "known_names", "name_found"]

# Endings of ordinary words, not names: a sentence-initial "Individuals" or "Politically" is no missing name.
_INFLECTIONS = ("s", "es", "ed", "ing", "ly")
_OPENING_MARKS = "\"'([{*_“‘«<-–—•· \t"
# "Don't miss out", "Let's": a contraction opens an instruction or a clause, not a name ("Denny's" is one)
_CONTRACTIONS = ("n't", "n’t")
_OPENERS = frozenset({"let's", "let’s", "here's", "here’s", "there's", "there’s", "it's", "it’s", "that's",
                      "that’s", "what's", "what’s"})
_FORMATS = frozenset({"json"})
_ORDINARY_ENDINGS = ("ly", "ing", "ed", "ness", "tion", "tions", "als", "ity", "ment", "ments", "ous", "ive",
                     "ful", "less", "able", "ists", "ers", "ies")


def name_found(name: Name, evid: list[EvidenceIndex], support: bool) -> bool:
    """Every 3+ letter word of ``name`` is a word of the evidence; with ``support`` also as a plural, a place's
    adjective or a title word, or the whole name as an acronym the evidence spells out (or the reverse), a
    US state's postal code, or another name of the same thing (see :mod:`._acronyms`)."""
    if all(any(w in e.words for e in evid) for w in name.words):
        return True
    if not support:
        return False
    record = any(is_record(e) for e in evid)
    if all(_word_found(w, evid, record) for w in name.words):
        return True
    if record and all(w in _FORMATS for w in name.words):
        return True  # "the structured data in JSON format" names the record's format
    forms = name_forms(name.text)
    spelled = spelled_initials(name.text)
    if any(forms & e.acronyms or (spelled and _expands(name.text, spelled, e)) for e in evid):
        return True
    # another name of the same thing ("ISIL" where the evidence says ISIS)
    return any(all(w in e.words for w in alias.replace("+", "").split()) or alias in e.acronyms
               for alias in alias_forms(name.text) for e in evid)


def _word_found(word: str, evid: list[EvidenceIndex], record: bool) -> bool:
    """A plural ("Sundays" for "Sunday"; over a record also the singular: "Restaurant" for the category
    "Restaurants"), a place's adjective ("Chinese" for China) and a title are the same name."""
    if word in TITLE_WORDS:
        return True
    return any(word in e.words or (word.endswith("s") and word[:-1] in e.words) or (record and word + "s" in e.words)
               or place_word_found(word, e.capitalised_words) for e in evid)


def _expands(name: str, spelled: str, item: EvidenceIndex) -> bool:
    """Whether ``name``, of initials ``spelled`` (:func:`~._acronyms.spelled_initials`), spells out an acronym
    ``item`` writes, in the item's own words where it spells it out too."""
    if spelled not in item.written_acronyms:
        return False
    runs = item.spelled_runs.get(spelled, ())
    return not runs or any(same_spelling(name, run) for run in runs)


def common_opening(claims: str, name: str) -> bool:
    """Whether ``name``, the claim's only missing name, is its one-word, unaccented opening that the tagger reads
    as no proper noun ("Prior to the change, ...", "Similar incidents ..."). The tagger is the costly step, so it
    is asked only when its answer alone decides the claim."""
    first = claims.lstrip(_OPENING_MARKS)
    return (" " not in name and name.isascii() and first.startswith(name)
            and (len(first) == len(name) or not first[len(name)].isalnum()) and opens_with_common_word(claims))


def defined_acronym_spans(claims: str, evid: list[EvidenceIndex]) -> list[tuple[int, int]]:
    """The spans of the claim's names spelled out before an acronym in parentheses that the evidence writes
    (or another name of it): "US Citizenship and Immigration Services (USCIS)" where the evidence says USCIS."""
    return [(start, end) for start, end, acronym in defined_acronyms(claims)
            if any(form in e.acronyms or form in e.words for form in {acronym, *alias_forms(acronym)} for e in evid)]


def known_names(claims: str, names: list[Name], evid: list[EvidenceIndex]) -> list[Name]:
    """``names`` without a sentence-initial capitalised word that is only how the sentence starts: the evidence
    never writes it capitalised mid-sentence, and it reads as an ordinary word (one the evidence writes in
    lowercase, or, absent from it, a word with an ordinary ending or a comma after it: "Politically, ...")."""
    out: list[Name] = []
    for name in names:
        if not name.words or not is_sentence_start(claims, name.start):
            out.append(name)
            continue
        first = name.words[0]
        if any(first in e.capitalised for e in evid) or not _ordinary(first, claims, name, evid):
            out.append(name)
            continue
        rest = name.words[1:]
        if rest:
            out.append(Name(text=name.text, words=rest, start=name.start))
    return out


def _ordinary(word: str, claims: str, name: Name, evid: list[EvidenceIndex]) -> bool:
    if (word in GLUE_WORDS or word in FUNCTION_WORDS or name.text.endswith(_CONTRACTIONS)
            or name.text.casefold() in _OPENERS):
        return True
    if any(is_record(e) and word in key_words_of(e.text) for e in evid):
        return True  # a record's key ("Outdoor" of OutdoorSeating) is an ordinary word
    forms = {word, *(word[:-len(end)] for end in _INFLECTIONS if word.endswith(end) and len(word) > len(end) + 3)}
    if any(forms & e.lowercase_words for e in evid):
        return True
    if any(word in e.words for e in evid):
        return False  # the evidence writes it only capitalised: a name
    if word.endswith(_ORDINARY_ENDINGS) or claims[name.start + len(word):].startswith(","):
        return True
    if any(word_key(word) in e.lowercase_keys for e in evid):
        return True  # another form of a word the evidence writes in lowercase ("Survivor" for "survivors")
    return word.isascii() and is_instruction(claims.lstrip())  # "Check out the solution video ..."
