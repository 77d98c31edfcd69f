"""A thing the question describes by a clause about a name: "the country containing Nugegoda", "the city where
the Philbrook Museum is located", "the country Dai Jitao is from".

Such a description stands where a name would, so the question is two hops: first what the description is ("What
is the country containing Nugegoda?"), then the question asked of that answer ("When did #1 leave the British
Empire?"). The 1.5B planner mostly returns such a question as one step, and the single path's one draft then has
to make both hops at once; it mostly answers nothing (the MuSiQue train mix, ``benchmarks/musique_mix.py``, the
tuning set). The capitalisation rules of :mod:`.plan` read only a clause that ends the question; this reading
takes the clause's extent from spaCy's dependency parse, so the clause may stand anywhere, and may be a
participle ("containing") or a relative clause ("that produced", "where ... is located", "in which"). Two more
descriptions stand where a name would: a name's possessive ("Akinoshu Kenji's birthplace", "X's city of birth"),
and a clause with no relative word, read from the part-of-speech tags because the parse takes its verb for the
question's ("the country Dai Jitao is from": the preposition left without its object marks the clause).

The reading is a rule plan, final like the others, so it takes a description only where it is certain:

* **the described thing is one thing named by a common noun**: a singular common noun written in lowercase, not
  an abstract one ("the institution allowing ..."), after "the" or a name's possessive; a plural ("the teams for
  which ...") asks for a set, a capitalised noun is a title's word, and a name noun ("X's nickname") names;
* **the clause names something in full**: it holds a capitalised proper noun, and states one verb ("where X got Y
  is located" is a misparse; "... located along with the state where ..." two descriptions in one);
* **the clause describes, not names**: "the book titled X", "the film named X" are X itself;
* **the rest of the question still asks something**: more than "What is #1?" or "When was #1?", and not cut
  after an auxiliary ("What amount did #1?", a clause whose end the parse misplaced).

Without spaCy (the ``ner`` extra) nothing is read here and the model plans. The innermost description is taken;
a relation of a name inside it ("the country where the composer of X was a citizen") stays in the first hop, whose
draft reads it (the relation rules, tried on such a first hop, cut "the country where the composer" as a relation).
"""

from __future__ import annotations

import re
from typing import Any

from ...text.parser import english_parser

__all__ = ["description_hops"]

_NOUN_TAGS = frozenset({"NN"})
_PROPER_TAGS = frozenset({"NNP", "NNPS"})
_MODIFIER_TAGS = frozenset({"NN", "JJ", "VBN", "CD"})
# An abstract head noun ("jurisdiction", "establishment"); not "-ity", which ends as many places and bodies
# ("city", "university", "municipality") as qualities.
_ABSTRACT = re.compile(r"(?:tion|sion|ment|ness|ance|ence|ism|sis)$")
_NAMING = frozenset("titled named called entitled".split())
_NAME_NOUNS = frozenset("name nickname title surname".split())  # "X's first name" is a name of X, not a thing
_QUESTION_WORDS = frozenset("what which who whom whose where when how is are was were do does did the a an in of "
                            "on at to for by".split())
_AUXILIARIES = frozenset("is are was were do does did has have had will would can could".split())
_PEOPLE = frozenset("""person man woman one individual director performer composer father mother spouse wife husband
child son daughter founder author writer producer creator editor screenwriter lyricist singer artist architect
designer painter sculptor player coach manager owner leader president chairman inventor presenter host actor actress
narrator illustrator translator publisher""".split())
_AUXILIARY_ROLES = frozenset({"aux", "auxpass"})
_GAP_NOUN_TAGS = frozenset({"NN", "JJ"})
_FINITE_TAGS = frozenset({"VBZ", "VBD"})
_PREPOSITION_TAGS = frozenset({"IN", "RP"})
# What may follow a stranded preposition: the question's end, punctuation, another preposition ("for before"),
# a relative word or a conjunction; a determiner, a noun or a number would be its object.
_AFTER_GAP_TAGS = frozenset({".", ",", ":", "IN", "WRB", "WDT", "CC"})
_MAX_VERB_WORDS = 3
_REFERENCE = re.compile(r"#\d")
# A noun's modifiers before it ("the first president"): more than this is no one noun phrase.
_MAX_MODIFIERS = 3


def description_hops(question: str) -> list[str] | None:
    """``[first hop, rest]`` for the innermost described thing of ``question`` that is certain, else None."""
    nlp = english_parser()
    if nlp is None or _REFERENCE.search(question):
        return None
    doc = nlp(question)
    found = [span for token in doc
             if (span := _by_clause(doc, token) or _by_owner(doc, token) or _by_gap(doc, token)) is not None]
    inner = [s for s in found if not any(o[:2] != s[:2] and s[0] <= o[0] and o[1] <= s[1] for o in found)]
    for start, end, first in inner:
        rest = (doc[:start].text_with_ws + "#1" + doc[end].whitespace_ + doc[end + 1:].text).strip()
        if _asks_something(rest):
            return [first, rest]
    return None


def _asker(noun: Any) -> str:
    return "Who" if noun.lower_ in _PEOPLE else "What"


def _by_clause(doc: Any, verb: Any) -> tuple[int, int, str] | None:
    """(first token, last token, first hop) when ``verb`` heads a clause that describes the common noun before it
    by a name ("the country containing Nugegoda"), else None."""
    if verb.dep_ not in ("relcl", "acl") or verb.lower_ in _NAMING:
        return None
    clause = [t for t in verb.subtree if not t.is_punct or t.i < verb.i]
    first, last = clause[0].i, clause[-1].i
    noun = first - 1
    if noun < 1 or not _one_thing(doc[noun]):
        return None
    start = noun - 1
    while start >= 0 and doc[start].lower_ != "the" and doc[start].tag_ in _MODIFIER_TAGS \
            and noun - start <= _MAX_MODIFIERS:
        start -= 1
    if start < 0 or doc[start].lower_ != "the":
        return None
    tokens = doc[first:last + 1]
    verbs = sum(1 for t in tokens if t.tag_.startswith("VB") and t.dep_ not in _AUXILIARY_ROLES)
    if not any(_is_name(t) for t in tokens) or verbs != 1:
        return None
    return start, last, f"{_asker(doc[noun])} is the {doc[start + 1:last + 1].text}?"


def _by_owner(doc: Any, owner: Any) -> tuple[int, int, str] | None:
    """(first token, last token, first hop) when ``owner`` is a name in the possessive that describes the common
    noun it owns ("Akinoshu Kenji's birthplace", "X's city of birth"), else None."""
    noun = owner.head
    if owner.dep_ != "poss" or not _is_name(owner) or noun.i <= owner.i + 1 or not _one_thing(noun) \
            or noun.lower_ in _NAME_NOUNS:
        return None
    if doc[owner.i + 1].tag_ != "POS" or any(t.tag_ not in _MODIFIER_TAGS for t in doc[owner.i + 2:noun.i]):
        return None
    start, end = min(t.i for t in owner.subtree if t.dep_ != "det"), noun.i
    while start > 0 and _is_name(doc[start - 1]):
        start -= 1  # a name's first word the parse hung elsewhere
    if start > 1 and doc[start - 1].text[:1].isupper():
        return None  # a capitalised word the parse read as no name ("crosses Corra Blythe's" as a verb): cut off
    if end + 2 < len(doc) and doc[end + 1].lower_ == "of" and doc[end + 2].tag_ in _NOUN_TAGS \
            and doc[end + 2].text.islower():
        end += 2  # "city of birth": the relation goes on in its own "of"
    described = doc[start:end + 1].text
    if start > 0 and doc[start - 1].lower_ == "the":
        start -= 1  # "the X's alma mater": the article is the name's, gone with it
    return start, end, f"{_asker(noun)} is {described}?"


def _by_gap(doc: Any, article: Any) -> tuple[int, int, str] | None:
    """(first token, last token, first hop) when ``article`` opens "the <noun> <Name> <verb> <preposition>" whose
    preposition has no object ("the country Dai Jitao is from", "the city Kevin Durant played for before ..."):
    a relative clause without its relative word, which the parse reads as the question's own verb. The stranded
    preposition marks the gap the described thing fills; the clause's verb must be finite ("is", "played"), so
    "did the band Queen play with" (the question's verb, after "did") is no clause."""
    if article.lower_ != "the":
        return None
    i = noun_end = article.i + 1
    while i < len(doc) and doc[i].tag_ in _GAP_NOUN_TAGS and doc[i].text.islower():
        i += 1
    noun_end = i - 1
    if noun_end == article.i or not _one_thing(doc[noun_end]):
        return None
    while i < len(doc) and _is_name(doc[i]):
        i += 1
    if i == noun_end + 1 or i >= len(doc) or doc[i].tag_ not in _FINITE_TAGS:
        return None
    verb = i
    i += 1
    while i < len(doc) and i - verb < _MAX_VERB_WORDS and _in_verb_group(doc[i]):
        i += 1
    if i >= len(doc) or doc[i].tag_ not in _PREPOSITION_TAGS:
        return None
    if i + 1 < len(doc) and doc[i + 1].tag_ not in _AFTER_GAP_TAGS:
        return None
    end = i
    if i + 2 < len(doc) and doc[i + 1].tag_ == "IN" and (_is_name(doc[i + 2]) or doc[i + 2].tag_ == "CD"):
        end = i + 2  # "played for before Golden State", "... after 1990": the clause's own time or place
        while end + 1 < len(doc) and _is_name(doc[end + 1]):
            end += 1
    return article.i, end, f"{_asker(doc[noun_end])} is {doc[article.i:end + 1].text}?"


def _in_verb_group(token: Any) -> bool:
    """Whether ``token`` goes on the clause's verb ("is located", "has been part"): a verb form, an adverb, or a
    lowercase noun before the preposition ("part of")."""
    tag: str = token.tag_
    return tag.startswith("VB") or tag == "RB" or (tag == "NN" and str(token.text).islower())


def _one_thing(noun: Any) -> bool:
    """Whether ``noun`` names one concrete thing: a singular common noun written in lowercase (a capitalised one
    is a title's word: "The Girl Who Kicked the Hornets' Nest"), not an abstract one."""
    return noun.tag_ in _NOUN_TAGS and noun.text.islower() and not _ABSTRACT.search(noun.lower_)


def _is_name(token: Any) -> bool:
    return token.tag_ in _PROPER_TAGS and token.text[:1].isupper()


def _asks_something(rest: str) -> bool:
    """Whether ``rest`` (the question with the description as ``#1``) asks more than what ``#1`` is, and does not
    end on an auxiliary before ``#1``."""
    words = [w.strip("?,.;:!\"'").lower() for w in rest.split()]
    words = [w for w in words if w]
    content = [w for w in words if w not in _QUESTION_WORDS and not _REFERENCE.fullmatch(w)]
    if not content:
        return False
    at = next((i for i, w in enumerate(words) if _REFERENCE.fullmatch(w)), None)
    return not (at is not None and at == len(words) - 1 and at > 0 and words[at - 1] in _AUXILIARIES)
